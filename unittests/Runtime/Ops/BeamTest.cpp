#include "rvnn/Runtime/Ops/Beam.h"

#include "GradCheck.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

// argmax, oneHot and beamAlign return indices or constants of their inputs:
// they have no gradient, so only their values are tested.

namespace {

const auto kDouble = at::TensorOptions().dtype(at::kDouble);
const auto kLong = at::TensorOptions().dtype(at::kLong);

torch::Tensor doubles(std::vector<double> values, at::IntArrayRef shape) {
  return at::tensor(values, kDouble).view(shape);
}

/// Indices drawn by a topk with Gumbel noise from a draw stream seeded
/// `seed`.
torch::Tensor gumbelTopk(const torch::Tensor &x, const torch::Tensor &mask,
                         uint64_t seed) {
  ops::DrawStream draws{seed, 0};
  return std::get<1>(
      ops::topk(x, mask, 3, /*gumbel=*/true, /*training=*/true, &draws));
}

} // namespace

TEST(BeamOps, TopkNeverPicksMaskedEntries) {
  // Masked entries hold the largest scores.
  auto x = doubles({1, 9, 2, 8, 3, 4, 0, 1, 2, 9, 9, 9}, {2, 6});
  auto mask = doubles({1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 0, 0}, {2, 6});
  auto [values, indices] = ops::topk(x, mask, 2, false, false);
  EXPECT_TRUE(at::equal(indices, at::tensor({5, 4, 2, 1}, kLong).view({2, 2})));
  EXPECT_TRUE(at::equal(values, x.gather(1, indices)));
  for (uint64_t seed = 0; seed < 20; ++seed) {
    ops::DrawStream draws{seed, 0};
    auto noisy = std::get<1>(ops::topk(x, mask, 2, true, true, &draws));
    EXPECT_TRUE(at::equal(mask.gather(1, noisy), at::ones({2, 2}, kDouble)));
  }
}

TEST(BeamOps, TopkTiesGoToTheLowerIndex) {
  // Equal keys (equal tokens give equal pair scores) rank by position, and
  // masked entries fill the tail in position order too.
  auto x = doubles({1, 3, 3, 0, 3, 5, 3, 7, 2, 2, 2, 2, 2, 2, 2, 2}, {2, 8});
  auto mask = doubles({1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0}, {2, 8});
  auto [values, indices] = ops::topk(x, mask, 6, false, false);
  EXPECT_TRUE(at::equal(
      indices,
      at::tensor({1, 2, 4, 6, 0, 3, 1, 2, 3, 4, 5, 6}, kLong).view({2, 6})));
  auto wide = ops::topk(x, mask, 8, false, false);
  EXPECT_TRUE(at::equal(std::get<1>(wide).narrow(1, 6, 2),
                        at::tensor({5, 7, 0, 7}, kLong).view({2, 2})));
}

// The CPU selection sweeps rank as the stable descending sort of the masked
// scores does: ties (rounded scores), NaN, -inf, masked entries, a broadcast
// mask, float and double, and k up to the sweeps' limit and beyond it.
TEST(BeamOps, TopkSweepsMatchAStableSort) {
  auto x = (uniformDoubles({6, 40}, -2, 2, 3) * 4).round();
  x[1][3] = std::nan("");
  x[1][7] = std::nan("");
  x[2][5] = -std::numeric_limits<double>::infinity();
  auto mask = (uniformDoubles({6, 40}, 0, 1, 4) > 0.3).to(at::kDouble);
  auto rowMask = (uniformDoubles({1, 40}, 0, 1, 5) > 0.5).to(at::kDouble);
  for (auto dtype : {at::kFloat, at::kDouble})
    for (const auto &m : {mask, rowMask})
      for (int64_t k : {1, 5, 16, 17}) {
        SCOPED_TRACE(std::string(c10::toString(dtype)) + " k " +
                     std::to_string(k));
        auto xt = x.to(dtype), mt = m.to(dtype);
        auto expected =
            std::get<1>(xt.masked_fill(mt.expand(xt.sizes()) == 0,
                                       -std::numeric_limits<double>::infinity())
                            .sort(/*stable=*/true, -1, /*descending=*/true))
                .narrow(-1, 0, k);
        EXPECT_TRUE(at::equal(std::get<1>(ops::topk(xt, mt, k, false, false)),
                              expected));
      }
}

TEST(BeamOps, TopkGumbelIsSeededAndNoiseFree) {
  auto x = uniformDoubles({64, 10}, -0.1, 0.1, 1);
  auto mask = at::ones({64, 10}, kDouble);
  auto first = gumbelTopk(x, mask, 1);
  EXPECT_TRUE(at::equal(first, gumbelTopk(x, mask, 1)));
  EXPECT_FALSE(at::equal(first, gumbelTopk(x, mask, 2)));
  // The noise moves the selection but not the values.
  ops::DrawStream draws{1, 0};
  auto values = std::get<0>(ops::topk(x, mask, 3, true, true, &draws));
  EXPECT_TRUE(at::equal(values, x.gather(1, first)));
  // No noise outside training.
  EXPECT_TRUE(at::equal(std::get<1>(ops::topk(x, mask, 3, true, false, &draws)),
                        std::get<1>(x.topk(3, -1))));
}

TEST(BeamOps, TopkValueGradients) {
  auto x = uniformDoubles({2, 5}, -1, 1, 2);
  auto mask = doubles({1, 1, 1, 1, 0, 1, 1, 0, 1, 1}, {2, 5});
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) {
        return std::get<0>(ops::topk(in[0], mask, 3, false, false));
      },
      {x});
}

TEST(BeamOps, ArgmaxSkipsMaskedEntries) {
  auto x = doubles({1, 9, 2, 5, 7, 3}, {2, 3});
  auto mask = doubles({1, 0, 1, 1, 0, 1}, {2, 3});
  EXPECT_TRUE(
      at::equal(ops::argmax(x, mask), at::tensor({2, 0}, kLong).view({2, 1})));
}

TEST(BeamOps, OneHotUsesRefDepthAndType) {
  auto idx = at::tensor({2, 0}, kLong).view({1, 2});
  auto ref = at::zeros({1, 4}, at::TensorOptions().dtype(at::kFloat));
  auto y = ops::oneHot(idx, ref);
  EXPECT_EQ(y.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(
      y, at::tensor({0.f, 0.f, 1.f, 0.f, 1.f, 0.f, 0.f, 0.f}).view({1, 2, 4})));
}

TEST(BeamOps, BeamGatherPicksBeams) {
  auto x = uniformDoubles({2, 3, 2}, -1, 1, 3);
  auto idx = at::tensor({2, 2, 0, 0, 1, 2}, kLong).view({2, 3});
  auto y = ops::beamGather(x, idx);
  EXPECT_TRUE(at::equal(y[0][1], x[0][2]));
  EXPECT_TRUE(at::equal(y[1][2], x[1][2]));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::beamGather(in[0], idx); }, {x});
}

TEST(BeamOps, BeamGatherWithFactorReadsTheExpansion) {
  auto x = uniformDoubles({2, 3, 2}, -1, 1, 5);
  auto idx = at::tensor({8, 0, 4, 1, 7, 3}, kLong).view({2, 3});
  EXPECT_TRUE(at::equal(ops::beamGather(x, idx, 3),
                        ops::beamGather(ops::beamExpand(x, 3), idx)));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::beamGather(in[0], idx, 3); }, {x});
  auto dy = uniformDoubles({2, 3, 2}, -1, 1, 6);
  auto viaExpand = x.detach().requires_grad_();
  ops::beamGather(ops::beamExpand(viaExpand, 3), idx).backward(dy);
  EXPECT_TRUE(at::allclose(ops::beamGatherBackward(dy, idx, 3, x.sizes()),
                           viaExpand.grad()));
}

TEST(BeamOps, BeamGatherBackwardSumsRowsLikeIndexAdd) {
  // Sample 0 gathers beam 1 three times and beam 0 never; sample 1 gathers
  // beams 2, 0 and 2 (factor 1).
  auto idx = at::tensor({1, 1, 1, 2, 0, 2}, kLong).view({2, 3});
  for (at::ScalarType type : {at::kFloat, at::kDouble}) {
    torch::manual_seed(7);
    auto dy = torch::randn({2, 3, 4, 5}, at::TensorOptions().dtype(type));
    auto reference = at::zeros({2, 3, 4, 5}, dy.options());
    reference.view({6, 20}).index_add_(0, at::tensor({1, 1, 1, 5, 3, 5}, kLong),
                                       dy.reshape({6, 20}));
    EXPECT_TRUE(at::equal(
        ops::beamGatherBackward(dy, idx, 1, reference.sizes()), reference));
  }
}

TEST(BeamOps, BeamGatherRejectsAnIndexOutsideItsSample) {
  // Index 6 of sample 0 would read sample 1's first beam (3 beams, factor 2).
  auto x = uniformDoubles({2, 3, 2}, -1, 1, 8);
  auto idx = at::tensor({0, 6, 1, 2}, kLong).view({2, 2});
  for (auto call : {std::function<void()>([&] { ops::beamGather(x, idx, 2); }),
                    std::function<void()>([&] {
                      ops::beamGatherBackward(at::ones({2, 2, 2}, x.options()),
                                              idx, 2, x.sizes());
                    })}) {
    try {
      call();
      ADD_FAILURE() << "an index outside [0, 6) must be rejected";
    } catch (const c10::Error &e) {
      EXPECT_NE(std::string(e.what()).find("idx[0, 1] = 6 is outside [0, 6)"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(BeamOps, BeamExpandRepeatsConsecutively) {
  auto x = uniformDoubles({2, 2, 3}, -1, 1, 4);
  auto y = ops::beamExpand(x, 3);
  ASSERT_EQ(y.sizes(), (std::vector<int64_t>{2, 6, 3}));
  for (int64_t b = 0; b < 6; ++b)
    EXPECT_TRUE(at::equal(y[1][b], x[1][b / 3]));
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::beamExpand(in[0], 3); }, {x});
}

TEST(BeamOps, BeamAccumulateAddsLogProbabilities) {
  auto accu = doubles({-1, -2}, {1, 2});
  auto probs = doubles({.2, .3, .5, .6, .4, 0}, {1, 2, 3});
  auto idx = at::tensor({2, 0, 1, 2}, kLong).view({1, 2, 2});
  auto y = ops::beamAccumulate(accu, probs, idx);
  auto expected = doubles({-1 + std::log(.5), -1 + std::log(.2),
                           -2 + std::log(.4), -2 + std::log(1e-20)},
                          {1, 4});
  EXPECT_TRUE(at::allclose(y, expected));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::beamAccumulate(in[0], in[1], idx); },
      {accu, uniformDoubles({1, 2, 3}, 0.1, 1, 5)});
}

TEST(BeamOps, BeamAlignKeepsTopBeamAndIsSeeded) {
  auto accu = uniformDoubles({200, 5}, -2, 0, 6);
  auto mask = at::ones({200, 5}, kDouble);
  mask.narrow(0, 100, 100).narrow(1, 3, 2).zero_();
  for (auto mode : {ops::AlignMode::Sample, ops::AlignMode::Uniform}) {
    auto align = [&](uint64_t seed) {
      ops::DrawStream draws{seed, 0};
      return ops::beamAlign(accu, mask, 1.0, mode, &draws);
    };
    auto idx = align(7);
    ASSERT_EQ(idx.sizes(), (std::vector<int64_t>{200, 5}));
    EXPECT_TRUE((idx.select(1, 0) == 0).all().item<bool>());
    EXPECT_TRUE(at::equal(idx, align(7)));
    EXPECT_FALSE(at::equal(idx, align(8)));
    EXPECT_TRUE((idx.narrow(0, 100, 100) < 3).all().item<bool>());
  }
  // A low temperature concentrates the draws on the best beam.
  ops::DrawStream draws{9, 0};
  auto sharp = ops::beamAlign(accu, at::ones_like(mask), 1e-4,
                              ops::AlignMode::Sample, &draws);
  auto best = accu.argmax(1, true);
  EXPECT_TRUE(at::equal(sharp.narrow(1, 1, 4), best.expand({200, 4})));
  // One beam has nothing to draw.
  EXPECT_TRUE(
      at::equal(ops::beamAlign(accu.narrow(1, 0, 1), mask.narrow(1, 0, 1), 1.0,
                               ops::AlignMode::Sample),
                at::zeros({200, 1}, kLong)));
}

TEST(BeamOps, BeamMarginalizeGivesMaskedBeamZeroWeight) {
  auto roots = doubles({1, 0, 0, 1, 5, 5}, {1, 3, 2});
  auto accu = doubles({std::log(.25), std::log(.75), 100}, {1, 3});
  auto mask = doubles({1, 1, 0}, {1, 3});
  EXPECT_TRUE(at::allclose(ops::beamMarginalize(roots, accu, mask),
                           doubles({.25, .75}, {1, 2})));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) {
        return ops::beamMarginalize(in[0], in[1], mask);
      },
      {uniformDoubles({2, 3, 2}, -1, 1, 10),
       uniformDoubles({2, 3}, -2, 0, 11)});
}
