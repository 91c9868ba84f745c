// Counter-based draws (Philox): the documented mapping from (seed, offset)
// to uniforms, how the offset advances, and the statistics of what the
// drawing ops make of them.
#include "rvnn/Runtime/Ops/Random.h"
#include "rvnn/Runtime/Ops/Beam.h"
#include "rvnn/Runtime/Ops/NN.h"
#include "rvnn/Runtime/VectorClones.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>
#include <ATen/core/PhiloxRNGEngine.h>
#include <gtest/gtest.h>

using namespace rvnn::runtime;

namespace {

const auto kDouble = at::TensorOptions().dtype(at::kDouble);

/// Random.h's mapping written out serially: element i is the i-th word of
/// at::philox_engine(seed, /*subsequence=*/offset, /*offset=*/0).
std::vector<float> serialUniforms(uint64_t seed, uint64_t offset, int64_t n) {
  at::philox_engine engine(seed, offset, 0);
  std::vector<float> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back((static_cast<float>(engine() >> 9) + 0.5f) / 8388608.0f);
  return values;
}

} // namespace

TEST(Random, UniformsFollowTheDocumentedPhiloxMapping) {
  // Enough elements that parallel_for splits the blocks between threads.
  const int64_t n = 100003;
  ops::DrawStream stream{123456789, 40};
  torch::Tensor u = ops::uniforms(stream, {n});
  std::vector<float> expected = serialUniforms(123456789, 40, n);
  ASSERT_EQ(u.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(u, torch::tensor(expected)));
  // The offset advances by the words used, rounded up to a block of 4.
  EXPECT_EQ(stream.offset, 40u + 100004u);
  EXPECT_GT(u.min().item<float>(), 0.0f);
  EXPECT_LT(u.max().item<float>(), 1.0f);
  EXPECT_NEAR(u.mean().item<double>(), 0.5, 0.005);
}

// The AVX2 Philox (where this CPU has it) and the baseline build draw the
// same words, for offsets that fill the counter's upper words too.
TEST(Random, BaselineAndVectorisedPhiloxAgree) {
  for (uint64_t offset : {0ull, 40ull, (1ull << 34) - 64}) {
    ops::DrawStream vectorised{987654321, offset}, baseline{987654321, offset};
    torch::Tensor u = ops::uniforms(vectorised, {70001});
    BaselineBuildsOnly baselineOnly;
    EXPECT_TRUE(at::equal(u, ops::uniforms(baseline, {70001})))
        << "offset " << offset;
    EXPECT_EQ(vectorised.offset, baseline.offset);
  }
  BaselineBuildsOnly baselineOnly;
  std::vector<float> expected = serialUniforms(5, 3, 1000);
  ops::DrawStream baseline{5, 3};
  EXPECT_TRUE(
      at::equal(ops::uniforms(baseline, {1000}), torch::tensor(expected)));
}

TEST(Random, SameSeedAndOffsetDrawTheSame) {
  ops::DrawStream a{7, 0}, b{7, 0};
  torch::Tensor first = ops::uniforms(a, {3, 5});
  EXPECT_TRUE(at::equal(first, ops::uniforms(b, {3, 5})));
  EXPECT_EQ(a.offset, 16u);
  // The next draw of a stream, another offset, another seed: other numbers.
  EXPECT_FALSE(at::equal(first, ops::uniforms(a, {3, 5})));
  ops::DrawStream shifted{7, 4}, reseeded{8, 0};
  EXPECT_FALSE(at::equal(first, ops::uniforms(shifted, {3, 5})));
  EXPECT_FALSE(at::equal(first, ops::uniforms(reseeded, {3, 5})));
}

// The one-pass keep mask is the ATen composition it replaced, element for
// element: uniforms, a float comparison, the quotient in the mask's dtype.
TEST(Random, KeepMaskEqualsTheAtenComposition) {
  for (at::ScalarType dtype : {at::kFloat, at::kDouble})
    for (double rate : {0.1, 0.3, 0.25, 0.999})
      for (bool rescale : {true, false}) {
        ops::DrawStream fused{99, 4}, composed{99, 4};
        torch::Tensor mask =
            ops::keepMask(fused, {37, 1001}, rate, rescale, dtype);
        torch::Tensor expected =
            ops::uniforms(composed, {37, 1001}).ge(rate).to(dtype);
        if (rescale)
          expected.div_(1 - rate);
        EXPECT_EQ(mask.scalar_type(), dtype);
        EXPECT_TRUE(at::equal(mask, expected))
            << c10::toString(dtype) << " rate " << rate << " rescale "
            << rescale;
        EXPECT_EQ(fused.offset, composed.offset);
      }
}

// The keep mask's AVX2 build (Philox and the comparison loop) and its
// baseline build draw the same mask, a group cut short at the end included.
TEST(Random, KeepMaskBuildsAgree) {
  for (at::ScalarType dtype : {at::kFloat, at::kDouble}) {
    ops::DrawStream vectorised{42, 8}, baseline{42, 8};
    torch::Tensor mask =
        ops::keepMask(vectorised, {37, 1001}, 0.1, true, dtype);
    BaselineBuildsOnly baselineOnly;
    EXPECT_TRUE(
        at::equal(mask, ops::keepMask(baseline, {37, 1001}, 0.1, true, dtype)))
        << c10::toString(dtype);
    EXPECT_EQ(vectorised.offset, baseline.offset);
  }
}

TEST(Random, DrawStreamSeedsComeFromTheGenerator) {
  torch::Generator one = at::detail::createCPUGenerator(5);
  torch::Generator two = at::detail::createCPUGenerator(5);
  ops::DrawStream a = ops::drawStreamFrom(one);
  EXPECT_EQ(a.offset, 0u);
  EXPECT_EQ(a.seed, ops::drawStreamFrom(two).seed);
  // Each forward pass takes a new seed.
  EXPECT_NE(a.seed, ops::drawStreamFrom(one).seed);
}

TEST(Random, DropoutMaskKeepsAtTheRateAndRedrawsExactly) {
  torch::Tensor x = torch::ones({200, 500}, kDouble);
  ops::DrawStream stream{11, 8};
  torch::Tensor mask = ops::dropoutMask(x, 0.3, true, {}, true, &stream);
  double kept = (mask != 0).to(at::kDouble).mean().item<double>();
  // 100000 Bernoulli(0.7) draws: the standard deviation is 0.0015.
  EXPECT_NEAR(kept, 0.7, 0.006);
  EXPECT_TRUE(((mask == 0) | (mask == 1 / 0.7)).all().item<bool>());
  ops::DrawStream replay{11, 8};
  EXPECT_TRUE(
      at::equal(mask, ops::dropoutMask(x, 0.3, true, {}, true, &replay)));
  EXPECT_EQ(replay.offset, stream.offset);
  ops::DrawStream other{11, stream.offset};
  EXPECT_FALSE(
      at::equal(mask, ops::dropoutMask(x, 0.3, true, {}, true, &other)));
}

TEST(Random, GumbelNoiseHasTheGumbelMean) {
  ops::DrawStream stream{3, 0};
  torch::Tensor g = ops::gumbelNoise(stream, {200000}, kDouble);
  EXPECT_EQ(g.scalar_type(), at::kDouble);
  EXPECT_TRUE(g.isfinite().all().item<bool>());
  // Mean: the Euler-Mascheroni constant; variance pi^2 / 6.
  EXPECT_NEAR(g.mean().item<double>(), 0.5772156649, 0.01);
  EXPECT_NEAR(g.var().item<double>(), M_PI * M_PI / 6, 0.03);
}

TEST(Random, BeamAlignSamplesInProportionToTheProbabilities) {
  // One row, beams with probabilities 0.1, 0.2, 0.3, 0.4: the 2999 draws of
  // beam_align (all but the top beam) follow them.
  torch::Tensor probs = torch::tensor({0.1, 0.2, 0.3, 0.4}, kDouble);
  torch::Tensor accu = probs.log().unsqueeze(0).expand({1, 4}).contiguous();
  torch::Tensor wide = accu.repeat({1, 750}).view({1, 3000});
  // 3000 beams of the same four scores, each with a quarter of the mass.
  ops::DrawStream stream{17, 0};
  torch::Tensor drawn = ops::beamAlign(wide, torch::ones_like(wide), 1.0,
                                       ops::AlignMode::Sample, &stream)
                            .narrow(1, 1, 2999)
                            .remainder(4);
  for (int64_t beam = 0; beam < 4; ++beam) {
    double share = (drawn == beam).to(at::kDouble).mean().item<double>();
    EXPECT_NEAR(share, probs[beam].item<double>(), 0.03) << "beam " << beam;
  }
}
