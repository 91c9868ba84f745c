#include "rvnn/Runtime/Ops/Random.h"

#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/core/PhiloxRNGEngine.h>

namespace rvnn::runtime::ops {

namespace {

/// Philox makes 4 words per counter value (a block).
constexpr int64_t kWordsPerBlock = 4;

/// 23 random bits and a half: (2k + 1) / 2^24 fits float32's 24-bit
/// significand, so u is exact and lies strictly inside (0, 1).
float wordToUniform(uint32_t word) {
  return (static_cast<float>(word >> 9) + 0.5f) * 0x1p-23f;
}

} // namespace

DrawStream drawStreamFrom(torch::Generator &generator) {
  at::Generator source =
      generator.defined() ? generator : at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(source.mutex());
  return {at::check_generator<at::CPUGeneratorImpl>(source)->random64(), 0};
}

torch::Tensor uniforms(DrawStream &stream, at::IntArrayRef shape) {
  torch::Tensor result = torch::empty(shape, torch::kFloat);
  const int64_t count = result.numel();
  const int64_t blocks = (count + kWordsPerBlock - 1) / kWordsPerBlock;
  float *out = result.data_ptr<float>();
  const uint64_t seed = stream.seed, subsequence = stream.offset;
  // Each chunk of blocks starts its own engine at its first block, so the
  // words do not depend on how the work is split.
  at::parallel_for(0, blocks, /*grain_size=*/2048,
                   [&](int64_t begin, int64_t end) {
                     at::philox_engine engine(seed, subsequence,
                                              static_cast<uint64_t>(begin));
                     for (int64_t i = begin * kWordsPerBlock;
                          i < end * kWordsPerBlock; ++i) {
                       float u = wordToUniform(engine());
                       if (i < count)
                         out[i] = u;
                     }
                   });
  stream.offset += static_cast<uint64_t>(blocks * kWordsPerBlock);
  return result;
}

torch::Tensor gumbelNoise(DrawStream &stream, at::IntArrayRef shape,
                          const torch::TensorOptions &options) {
  torch::Tensor u = uniforms(stream, shape).to(options);
  return -(-u.log()).log();
}

} // namespace rvnn::runtime::ops
