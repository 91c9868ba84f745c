#include "rvnn/Runtime/Ops/Random.h"

#include <algorithm>
#include <cstdint>
#include <mutex>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

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

/// Philox4x32-10 (at::philox_engine's constants and rounds).
constexpr uint32_t kMultiplierA = 0xD2511F53, kMultiplierB = 0xCD9E8D57;
constexpr uint32_t kKeyStepA = 0x9E3779B9, kKeyStepB = 0xBB67AE85;
constexpr int kRounds = 10;

/// Blocks computed side by side, in independent lanes.
constexpr int64_t kLanes = 16;

/// The 4 words of kLanes consecutive blocks, word w of lane l at [w][l].
using BlockWords = uint32_t[kWordsPerBlock][kLanes];

/// Philox4x32-10 of blocks first .. first+kLanes-1 of the stream (seed,
/// subsequence): block b's counter is {lo32(b), hi32(b), lo32(subsequence),
/// hi32(subsequence)}, as at::philox_engine(seed, subsequence, b) has it.
void philoxBlocks(uint64_t seed, uint64_t subsequence, uint64_t first,
                  BlockWords &words) {
  for (int64_t lane = 0; lane < kLanes; ++lane) {
    const uint64_t block = first + static_cast<uint64_t>(lane);
    uint32_t c0 = static_cast<uint32_t>(block);
    uint32_t c1 = static_cast<uint32_t>(block >> 32);
    uint32_t c2 = static_cast<uint32_t>(subsequence);
    uint32_t c3 = static_cast<uint32_t>(subsequence >> 32);
    uint32_t key0 = static_cast<uint32_t>(seed);
    uint32_t key1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < kRounds; ++round) {
      const uint64_t productA = uint64_t{kMultiplierA} * c0;
      const uint64_t productB = uint64_t{kMultiplierB} * c2;
      c0 = static_cast<uint32_t>(productB >> 32) ^ c1 ^ key0;
      c1 = static_cast<uint32_t>(productB);
      c2 = static_cast<uint32_t>(productA >> 32) ^ c3 ^ key1;
      c3 = static_cast<uint32_t>(productA);
      key0 += kKeyStepA;
      key1 += kKeyStepB;
    }
    words[0][lane] = c0;
    words[1][lane] = c1;
    words[2][lane] = c2;
    words[3][lane] = c3;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The low and high 32 bits of the products of eight lanes by `factor`.
__attribute__((target("avx2"))) inline void
multiplyWide(__m256i lanes, __m256i factor, __m256i &low, __m256i &high) {
  const __m256i even = _mm256_mul_epu32(lanes, factor);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(lanes, 32), factor);
  low = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

/// philoxBlocks eight lanes to an AVX2 register: the same words.
__attribute__((target("avx2"))) void philoxBlocksAvx2(uint64_t seed,
                                                      uint64_t subsequence,
                                                      uint64_t first,
                                                      BlockWords &words) {
  const __m256i factorA = _mm256_set1_epi64x(kMultiplierA);
  const __m256i factorB = _mm256_set1_epi64x(kMultiplierB);
  const __m256i laneIndex = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t half = 0; half < kLanes; half += 8) {
    // Blocks of one call never cross a multiple of 2^32 (groups are
    // aligned to kLanes), so the high word is the first block's.
    const uint64_t block = first + static_cast<uint64_t>(half);
    __m256i c0 = _mm256_add_epi32(
        _mm256_set1_epi32(static_cast<int>(static_cast<uint32_t>(block))),
        laneIndex);
    __m256i c1 = _mm256_set1_epi32(static_cast<int>(block >> 32));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(subsequence));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(subsequence >> 32));
    uint32_t key0 = static_cast<uint32_t>(seed);
    uint32_t key1 = static_cast<uint32_t>(seed >> 32);
    for (int round = 0; round < kRounds; ++round) {
      __m256i lowA, highA, lowB, highB;
      multiplyWide(c0, factorA, lowA, highA);
      multiplyWide(c2, factorB, lowB, highB);
      c0 = _mm256_xor_si256(_mm256_xor_si256(highB, c1),
                            _mm256_set1_epi32(static_cast<int>(key0)));
      c1 = lowB;
      c2 = _mm256_xor_si256(_mm256_xor_si256(highA, c3),
                            _mm256_set1_epi32(static_cast<int>(key1)));
      c3 = lowA;
      key0 += kKeyStepA;
      key1 += kKeyStepB;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(&words[0][half]), c0);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(&words[1][half]), c1);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(&words[2][half]), c2);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(&words[3][half]), c3);
  }
}
#endif

bool cpuHasAvx2() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

/// philoxBlocks, with AVX2 when `avx2`.
void drawBlocks(uint64_t seed, uint64_t subsequence, uint64_t first,
                BlockWords &words, bool avx2) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (avx2)
    return philoxBlocksAvx2(seed, subsequence, first, words);
#else
  (void)avx2;
#endif
  philoxBlocks(seed, subsequence, first, words);
}

/// Calls `take(i, u)` for the uniforms u of elements i = 0 .. count-1 drawn
/// from `stream` (the mapping uniforms() documents) and advances the stream.
template <typename Take>
void drawUniforms(DrawStream &stream, int64_t count, const Take &take,
                  bool avx2 = cpuHasAvx2()) {
  const int64_t blocks = (count + kWordsPerBlock - 1) / kWordsPerBlock;
  const uint64_t seed = stream.seed, subsequence = stream.offset;
  // Block b's words depend on b alone, so any split of the work draws the
  // same numbers.
  const int64_t groups = (blocks + kLanes - 1) / kLanes;
  at::parallel_for(
      0, groups, /*grain_size=*/512, [&](int64_t begin, int64_t end) {
        BlockWords words;
        for (int64_t group = begin; group < end; ++group) {
          drawBlocks(seed, subsequence, static_cast<uint64_t>(group * kLanes),
                     words, avx2);
          const int64_t first = group * kLanes * kWordsPerBlock;
          const int64_t last = std::min(count, first + kLanes * kWordsPerBlock);
          for (int64_t i = first; i < last; ++i) {
            const int64_t k = i - first;
            take(i,
                 wordToUniform(words[k % kWordsPerBlock][k / kWordsPerBlock]));
          }
        }
      });
  stream.offset += static_cast<uint64_t>(blocks * kWordsPerBlock);
}

} // namespace

namespace {
torch::Tensor uniformsWith(DrawStream &stream, at::IntArrayRef shape,
                           bool avx2) {
  torch::Tensor result = torch::empty(shape, torch::kFloat);
  float *out = result.data_ptr<float>();
  drawUniforms(
      stream, result.numel(), [&](int64_t i, float u) { out[i] = u; }, avx2);
  return result;
}
} // namespace

torch::Tensor uniforms(DrawStream &stream, at::IntArrayRef shape) {
  return uniformsWith(stream, shape, cpuHasAvx2());
}

torch::Tensor detail::portableUniforms(DrawStream &stream,
                                       at::IntArrayRef shape) {
  return uniformsWith(stream, shape, /*avx2=*/false);
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
