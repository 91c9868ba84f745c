#include "rvnn/Runtime/Ops/NN.h"

#include "GradCheck.h"

#include <torch/autograd.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

namespace {

const auto kDouble = at::TensorOptions().dtype(at::kDouble);
const auto kLong = at::TensorOptions().dtype(at::kLong);

/// Two samples of lengths 3 and 2 in S = 3.
torch::Tensor lengthMask() {
  return at::tensor({1.0, 1.0, 1.0, 1.0, 1.0, 0.0}, kDouble).view({2, 3});
}

} // namespace

TEST(NNOps, LinearComputesAffineMapAndGradients) {
  auto x = uniformDoubles({2, 3, 4}, -1, 1, 1);
  auto w = uniformDoubles({5, 4}, -1, 1, 2);
  auto b = uniformDoubles({5}, -1, 1, 3);
  EXPECT_TRUE(at::allclose(ops::linear(x, w, b), at::matmul(x, w.t()) + b));
  EXPECT_TRUE(at::allclose(ops::linear(x, w), at::matmul(x, w.t())));
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::linear(in[0], in[1], in[2]); },
      {x, w, b});
}

TEST(NNOps, EmbeddingLooksUpRowsAndGradients) {
  auto table = uniformDoubles({5, 3}, -1, 1, 4);
  auto ids = at::tensor({4, 0, 4, 2}, kLong).view({2, 2});
  auto rows = ops::embedding(table, ids);
  ASSERT_EQ(rows.sizes(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_TRUE(at::equal(rows[1][0], table[4]));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::embedding(in[0], ids); }, {table});
}

TEST(NNOps, LayerNormGradients) {
  auto x = uniformDoubles({2, 3, 4}, -2, 2, 5);
  auto gamma = uniformDoubles({4}, 0.5, 1.5, 6);
  auto beta = uniformDoubles({4}, -1, 1, 7);
  auto y = ops::layerNorm(x, at::ones({4}, kDouble), at::zeros({4}, kDouble));
  EXPECT_TRUE(at::allclose(y.mean(-1), at::zeros({2, 3}, kDouble), 0, 1e-12));
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::layerNorm(in[0], in[1], in[2]); },
      {x, gamma, beta});
}

TEST(NNOps, DropoutIsIdentityAtEvaluation) {
  auto x = uniformDoubles({3, 4}, -1, 1, 8);
  EXPECT_TRUE(at::equal(ops::dropout(x, 0.5, true, {}, /*training=*/false), x));
  EXPECT_TRUE(at::equal(ops::dropout(x, 0.0, true, {}, /*training=*/true), x));
  EXPECT_THROW(ops::dropout(x, 1.0, true, {}, true), c10::Error);
}

TEST(NNOps, DropoutSharesMaskAlongSharedDimsAndRescales) {
  auto x = uniformDoubles({4, 16, 8}, 1, 2, 9);
  ops::DrawStream draws{10, 0};
  // NDR's per-position gate drop: one decision per (n, s), no rescaling.
  auto y = ops::dropout(x, 0.5, /*rescale=*/false, {-1}, true, &draws);
  auto dropped = (y == 0).to(at::kDouble);
  auto perPosition = dropped.sum(-1);
  EXPECT_TRUE(((perPosition == 0) | (perPosition == 8)).all().item<bool>());
  EXPECT_TRUE(at::equal(y * (1 - dropped), x * (1 - dropped)));
  EXPECT_GT(perPosition.sum().item<double>(), 0);

  auto scaled = ops::dropout(x, 0.25, /*rescale=*/true, {}, true, &draws);
  auto kept = scaled != 0;
  EXPECT_TRUE(
      at::allclose(scaled.masked_select(kept), x.masked_select(kept) / 0.75));
}

TEST(NNOps, DropoutGradients) {
  auto x = uniformDoubles({3, 4, 2}, -1, 1, 11);
  // A fresh draw stream with a fixed seed per call keeps the mask fixed.
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) {
        ops::DrawStream draws{12, 0};
        return ops::dropout(in[0], 0.3, true, {1}, true, &draws);
      },
      {x});
}

TEST(NNOps, GeluIsExactErfForm) {
  auto x = uniformDoubles({10}, -3, 3, 13);
  EXPECT_TRUE(
      at::allclose(ops::gelu(x), 0.5 * x * (1 + at::erf(x / std::sqrt(2.0)))));
}

TEST(NNOps, ElementwiseActivationGradients) {
  // Relu's kink at 0 is kept away from the finite-difference stencil.
  auto x = uniformDoubles({2, 5}, 0.1, 2, 14) *
           at::tensor({1.0, -1.0}, kDouble).view({2, 1});
  for (auto *op : {&ops::gelu, &ops::sigmoid, &ops::relu})
    expectGradientsMatchFiniteDifferences(
        [op](const Inputs &in) { return (*op)(in[0]); }, {x});
}

TEST(NNOps, SoftmaxGradients) {
  auto x = uniformDoubles({2, 3, 4}, -2, 2, 15);
  EXPECT_TRUE(
      at::allclose(ops::softmax(x, 1).sum(1), at::ones({2, 4}, kDouble)));
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::softmax(in[0], 1); }, {x});
}

TEST(NNOps, MaskedSoftmaxSumsToOneAndIgnoresMaskedEntries) {
  auto x = uniformDoubles({2, 3}, -2, 2, 16);
  auto mask = lengthMask();
  auto p = ops::maskedSoftmax(x, mask);
  EXPECT_TRUE(at::allclose(p.sum(-1), at::ones({2}, kDouble)));
  EXPECT_LT(p[1][2].item<double>(), 1e-15);
  auto expected = at::softmax(x.narrow(1, 0, 2), -1)[1];
  EXPECT_TRUE(at::allclose(p[1].narrow(0, 0, 2), expected));
  // The masked entry's logit does not move the real entries (up to the 1e-20
  // floor, which only shows once the real entries' softmax underflows).
  auto changed = x.clone();
  changed[1][2] = 5.0;
  EXPECT_TRUE(at::allclose(ops::maskedSoftmax(changed, mask), p, 0, 1e-12));
}

TEST(NNOps, MaskedSoftmaxGradients) {
  auto x = uniformDoubles({2, 3}, -2, 2, 17);
  auto mask = lengthMask();
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::maskedSoftmax(in[0], mask); }, {x});
}

namespace {

/// Rows of 12 logits, the last 5 masked, and one row entirely masked.
torch::Tensor partialMask() {
  auto mask = at::ones({4, 12}, kDouble);
  mask.narrow(1, 7, 5).zero_();
  mask[3].zero_();
  return mask;
}

} // namespace

TEST(NNOps, MaskedSoftmaxBackwardMatchesAutograd) {
  auto x = uniformDoubles({4, 12}, -2, 2, 19).requires_grad_();
  auto dy = uniformDoubles({4, 12}, -1, 1, 20);
  auto mask = partialMask().requires_grad_();
  // ATen autograd through the formula, in float64.
  auto p = at::softmax(x, -1) * mask + 1e-20;
  (p / p.sum(-1, /*keepdim=*/true)).backward(dy);
  auto [dx, dmask] =
      ops::maskedSoftmaxBackward(x.detach(), mask.detach(), -1, dy);
  EXPECT_TRUE(at::allclose(dx, x.grad(), 1e-10, 1e-15));
  EXPECT_TRUE(at::allclose(dmask, mask.grad(), 1e-10, 1e-15));
}

TEST(NNOps, MaskedSoftmaxBackwardKeepsMaskedGradientsTinyInFloat32) {
  // A masked entry's true dx is O(1e-20); the float32 result must not carry
  // the rounding noise of O(1) sums (about 1e-8 here with the sums written
  // out, or through autograd of softmax), which BT-GRC's gradients amplify
  // through its padding leaves.
  auto x = uniformDoubles({4, 12}, -2, 2, 21);
  auto dy = uniformDoubles({4, 12}, -1, 1, 22);
  auto mask = partialMask();
  auto exact = std::get<0>(ops::maskedSoftmaxBackward(x, mask, -1, dy));
  auto single = std::get<0>(ops::maskedSoftmaxBackward(
      x.to(at::kFloat), mask.to(at::kFloat), -1, dy.to(at::kFloat)));
  auto error = (single.to(at::kDouble) - exact).abs();
  EXPECT_LT((error * (1 - mask)).max().item<double>(), 1e-15);
  EXPECT_LT(error.max().item<double>(), 1e-6);
  // ATen autograd through the forward (the --kernels reference path) too.
  auto x32 = x.to(at::kFloat).requires_grad_();
  ops::maskedSoftmax(x32, mask.to(at::kFloat)).backward(dy.to(at::kFloat));
  auto autogradError = (x32.grad().to(at::kDouble) - exact).abs();
  EXPECT_LT((autogradError * (1 - mask)).max().item<double>(), 1e-15);
  EXPECT_LT(autogradError.max().item<double>(), 1e-6);
}

TEST(NNOps, CrossEntropyIsMeanNegativeLogLikelihood) {
  auto logits = uniformDoubles({3, 4}, -2, 2, 18);
  auto labels = at::tensor({3, 0, 1}, kLong);
  auto logp = at::log_softmax(logits, 1);
  double expected = -(logp[0][3] + logp[1][0] + logp[2][1]).item<double>() / 3;
  auto loss = ops::crossEntropy(logits, labels);
  EXPECT_EQ(loss.dim(), 0);
  EXPECT_NEAR(loss.item<double>(), expected, 1e-12);
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::crossEntropy(in[0], labels); },
      {logits});
}

TEST(NNOps, BroadcastLikeAlignsFromTheRight) {
  auto x = uniformDoubles({3, 1}, -1, 1, 19);
  auto ref = at::zeros({2, 3, 4}, kDouble);
  auto y = ops::broadcastLike(x, ref);
  ASSERT_EQ(y.sizes(), ref.sizes());
  EXPECT_TRUE(at::equal(y[1].select(1, 3), x.squeeze(1)));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::broadcastLike(in[0], ref); }, {x});
}

TEST(NNOps, PoolKindsOverRealTokens) {
  auto h = at::tensor({1.0, 5.0, 2.0, 3.0, 7.0, -4.0}, kDouble).view({2, 3, 1});
  auto mask = lengthMask();
  auto column = [&](ops::PoolKind kind) {
    return ops::pool(h, mask, kind).squeeze(1);
  };
  EXPECT_TRUE(at::allclose(column(ops::PoolKind::First),
                           at::tensor({1.0, 3.0}, kDouble)));
  EXPECT_TRUE(at::allclose(column(ops::PoolKind::Last),
                           at::tensor({2.0, 7.0}, kDouble)));
  EXPECT_TRUE(at::allclose(column(ops::PoolKind::Mean),
                           at::tensor({8.0 / 3, 5.0}, kDouble)));
  EXPECT_TRUE(at::allclose(column(ops::PoolKind::Max),
                           at::tensor({5.0, 7.0}, kDouble)));
}

// The max pool's CPU loop against ATen's masked max and its autograd:
// ties (the first one takes the cotangent), a NaN among the real values and
// one among the padding, a sample without real positions, and real values
// of -inf after padding (which ATen's max ties with the padding's -inf).
TEST(NNOps, MaxPoolLoopMatchesAten) {
  for (auto dtype : {at::kFloat, at::kDouble}) {
    SCOPED_TRACE(c10::toString(dtype));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    auto h = uniformDoubles({4, 5, 4}, -1, 1, 30);
    h[0][1].copy_(h[0][3]); // ties in every column of sample 0
    h[1][2][1] = nan;       // a real NaN
    h[1][4][2] = nan;       // a NaN in the padding
    h[3][1][0] = -inf;      // real -inf only, after padding
    h[3][2][0] = -inf;
    h = h.to(dtype);
    auto mask = at::tensor({1.0, 1.0, 1.0, 1.0, 0.0, //
                            1.0, 1.0, 1.0, 0.0, 0.0, //
                            0.0, 0.0, 0.0, 0.0, 0.0, //
                            0.0, 1.0, 1.0, 0.0, 0.0})
                    .view({4, 5})
                    .to(dtype);
    auto dy = uniformDoubles({4, 4}, -1, 1, 31).to(dtype);
    auto x = h.clone().requires_grad_();
    auto expected =
        std::get<0>(x.masked_fill(mask.unsqueeze(-1) == 0, -inf).max(1));
    auto expectedGrad = torch::autograd::grad({expected}, {x}, {dy})[0];
    expectedGrad.masked_fill_(mask.unsqueeze(-1) == 0, 0);
    torch::NoGradGuard plain;
    EXPECT_TRUE(at::allclose(ops::pool(h, mask, ops::PoolKind::Max),
                             expected.detach(), 0, 0, /*equal_nan=*/true));
    EXPECT_TRUE(at::equal(ops::poolBackward(h, mask, ops::PoolKind::Max, dy),
                          expectedGrad));
  }
}

TEST(NNOps, PoolGradients) {
  auto h = uniformDoubles({2, 3, 2}, -1, 1, 20);
  auto mask = lengthMask();
  for (auto kind : {ops::PoolKind::First, ops::PoolKind::Last,
                    ops::PoolKind::Mean, ops::PoolKind::Max})
    expectGradientsMatchFiniteDifferences(
        [&](const Inputs &in) { return ops::pool(in[0], mask, kind); }, {h});
}
