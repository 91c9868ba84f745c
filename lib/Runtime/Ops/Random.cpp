#include "rvnn/Runtime/Ops/Random.h"
#include "rvnn/Runtime/VectorClones.h"

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
RVNN_ALWAYS_INLINE float wordToUniform(uint32_t word) {
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

/// The words of kLanes consecutive blocks in element order: word w of lane
/// l at [l · 4 + w], so a group's elements read them in a row.
constexpr int64_t kGroupWords = kLanes * kWordsPerBlock;
using GroupWords = uint32_t[kGroupWords];

/// Philox4x32-10 of blocks first .. first+kLanes-1 of the stream (seed,
/// subsequence): block b's counter is {lo32(b), hi32(b), lo32(subsequence),
/// hi32(subsequence)}, as at::philox_engine(seed, subsequence, b) has it.
void philoxBlocks(uint64_t seed, uint64_t subsequence, uint64_t first,
                  GroupWords &words) {
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
    uint32_t *blockWords = words + lane * kWordsPerBlock;
    blockWords[0] = c0;
    blockWords[1] = c1;
    blockWords[2] = c2;
    blockWords[3] = c3;
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
/// The low and high 32 bits of the products of eight lanes by `factor`.
RVNN_TARGET_AVX2 RVNN_ALWAYS_INLINE void
multiplyWide(__m256i lanes, __m256i factor, __m256i &low, __m256i &high) {
  const __m256i even = _mm256_mul_epu32(lanes, factor);
  const __m256i odd = _mm256_mul_epu32(_mm256_srli_epi64(lanes, 32), factor);
  low = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
}

/// Stores word w of eight blocks (c0..c3, block b in lane b) in element
/// order, block b's four words at out[4b .. 4b+3]: a 4 x 8 transpose.
RVNN_TARGET_AVX2 RVNN_ALWAYS_INLINE void
storeInElementOrder(__m256i c0, __m256i c1, __m256i c2, __m256i c3,
                    uint32_t *out) {
  // Per 128-bit half: blocks {0, 1} and {2, 3} (and {4, 5}, {6, 7}).
  const __m256i words01Even = _mm256_unpacklo_epi32(c0, c1);
  const __m256i words01Odd = _mm256_unpackhi_epi32(c0, c1);
  const __m256i words23Even = _mm256_unpacklo_epi32(c2, c3);
  const __m256i words23Odd = _mm256_unpackhi_epi32(c2, c3);
  // Whole blocks: 0 | 4, 1 | 5, 2 | 6, 3 | 7.
  const __m256i blocks04 = _mm256_unpacklo_epi64(words01Even, words23Even);
  const __m256i blocks15 = _mm256_unpackhi_epi64(words01Even, words23Even);
  const __m256i blocks26 = _mm256_unpacklo_epi64(words01Odd, words23Odd);
  const __m256i blocks37 = _mm256_unpackhi_epi64(words01Odd, words23Odd);
  auto *blocks = reinterpret_cast<__m256i *>(out);
  _mm256_storeu_si256(blocks,
                      _mm256_permute2x128_si256(blocks04, blocks15, 0x20));
  _mm256_storeu_si256(blocks + 1,
                      _mm256_permute2x128_si256(blocks26, blocks37, 0x20));
  _mm256_storeu_si256(blocks + 2,
                      _mm256_permute2x128_si256(blocks04, blocks15, 0x31));
  _mm256_storeu_si256(blocks + 3,
                      _mm256_permute2x128_si256(blocks26, blocks37, 0x31));
}

/// philoxBlocks eight lanes to an AVX2 register: the same words.
RVNN_TARGET_AVX2 void philoxBlocksAvx2(uint64_t seed, uint64_t subsequence,
                                       uint64_t first, GroupWords &words) {
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
    storeInElementOrder(c0, c1, c2, c3, words + half * kWordsPerBlock);
  }
}
#endif

/// philoxBlocks, with AVX2 when `avx2`.
void drawBlocks(uint64_t seed, uint64_t subsequence, uint64_t first,
                GroupWords &words, bool avx2) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (avx2)
    return philoxBlocksAvx2(seed, subsequence, first, words);
#else
  (void)avx2;
#endif
  philoxBlocks(seed, subsequence, first, words);
}

/// Calls `take(i, u)` for the uniforms u of the elements of groups
/// [begin, end) (kGroupWords elements each, the last cut at `count`).
template <typename Take>
RVNN_ALWAYS_INLINE void drawGroups(const DrawStream &stream, int64_t count,
                                   int64_t begin, int64_t end, const Take &take,
                                   bool avx2) {
  // A copy, and value captures: the loop then reads no capture through a
  // pointer that its stores might alias, and vectorises.
  const Take local = take;
  alignas(32) GroupWords words;
  for (int64_t group = begin; group < end; ++group) {
    drawBlocks(stream.seed, stream.offset,
               static_cast<uint64_t>(group * kLanes), words, avx2);
    const int64_t first = group * kGroupWords;
    const int64_t n = std::min(count - first, kGroupWords);
    for (int64_t k = 0; k < n; ++k)
      local(first + k, wordToUniform(words[k]));
  }
}

/// drawGroups built for AVX2: `take`'s loop over a group in 8 lanes.
template <typename Take>
RVNN_TARGET_AVX2 void drawGroupsAvx2(const DrawStream &stream, int64_t count,
                                     int64_t begin, int64_t end,
                                     const Take &take) {
  drawGroups(stream, count, begin, end, take, /*avx2=*/true);
}

/// Calls `take(i, u)` (an RVNN_INLINED lambda capturing by value) for the
/// uniforms u of elements i = 0 .. count-1 drawn from `stream` (the mapping
/// uniforms() documents) and advances the stream.
template <typename Take>
void drawUniforms(DrawStream &stream, int64_t count, const Take &take) {
  const int64_t blocks = (count + kWordsPerBlock - 1) / kWordsPerBlock;
  // Block b's words depend on b alone, so any split of the work draws the
  // same numbers.
  const int64_t groups = (blocks + kLanes - 1) / kLanes;
  const bool avx2 = useAvx2Builds();
  at::parallel_for(
      0, groups, /*grain_size=*/512, [&](int64_t begin, int64_t end) {
        if (avx2)
          drawGroupsAvx2(stream, count, begin, end, take);
        else
          drawGroups(stream, count, begin, end, take, /*avx2=*/false);
      });
  stream.offset += static_cast<uint64_t>(blocks * kWordsPerBlock);
}

} // namespace

torch::Tensor uniforms(DrawStream &stream, at::IntArrayRef shape) {
  torch::Tensor result = torch::empty(shape, torch::kFloat);
  float *out = result.data_ptr<float>();
  drawUniforms(stream, result.numel(),
               [out](int64_t i, float u) RVNN_INLINED { out[i] = u; });
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
    drawUniforms(stream, result.numel(),
                 [out, threshold, kept](int64_t i, float u) RVNN_INLINED {
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
