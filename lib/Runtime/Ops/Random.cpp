#include "rvnn/Runtime/Ops/Random.h"

#include <mutex>

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
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

namespace {

/// Calls `take(i, u)` for the uniforms u of elements i = 0 .. count-1 drawn
/// from `stream` (the mapping uniforms() documents) and advances the stream.
template <typename Take>
void drawUniforms(DrawStream &stream, int64_t count, const Take &take) {
  const int64_t blocks = (count + kWordsPerBlock - 1) / kWordsPerBlock;
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
                         take(i, u);
                     }
                   });
  stream.offset += static_cast<uint64_t>(blocks * kWordsPerBlock);
}

} // namespace

torch::Tensor uniforms(DrawStream &stream, at::IntArrayRef shape) {
  torch::Tensor result = torch::empty(shape, torch::kFloat);
  float *out = result.data_ptr<float>();
  drawUniforms(stream, result.numel(), [&](int64_t i, float u) { out[i] = u; });
  return result;
}

torch::Tensor keepMask(DrawStream &stream, at::IntArrayRef shape, double rate,
                       bool rescale, at::ScalarType dtype) {
  torch::Tensor result = torch::empty(shape, torch::dtype(dtype));
  // As ATen evaluates uniforms(...).ge(rate).to(dtype).div_(1 - rate): the
  // comparison in float, the quotient in dtype.
  const float threshold = static_cast<float>(rate);
  AT_DISPATCH_FLOATING_TYPES(dtype, "keep_mask", [&] {
    const scalar_t kept =
        rescale ? scalar_t(1) / static_cast<scalar_t>(1 - rate) : scalar_t(1);
    scalar_t *out = result.data_ptr<scalar_t>();
    drawUniforms(stream, result.numel(), [&](int64_t i, float u) {
      out[i] = u >= threshold ? kept : scalar_t(0);
    });
  });
  return result;
}

torch::Tensor gumbelNoise(DrawStream &stream, at::IntArrayRef shape,
                          const torch::TensorOptions &options) {
  torch::Tensor u = uniforms(stream, shape).to(options);
  return -(-u.log()).log();
}

} // namespace rvnn::runtime::ops
