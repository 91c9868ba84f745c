#include "rvnn/Runtime/Ops/Gating.h"

#include "GradCheck.h"

#include <gtest/gtest.h>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

TEST(GatingOps, GateBroadcastsAndInterpolates) {
  auto g = at::tensor({0.0, 1.0, 0.25}, at::kDouble).view({1, 3, 1});
  auto fresh = uniformDoubles({1, 3, 4}, -1, 1, 1);
  auto old = uniformDoubles({1, 3, 4}, -1, 1, 2);
  auto y = ops::gate(g, fresh, old);
  EXPECT_TRUE(at::allclose(y[0][0], old[0][0]));
  EXPECT_TRUE(at::allclose(y[0][1], fresh[0][1]));
  EXPECT_TRUE(at::allclose(y[0][2], 0.25 * fresh[0][2] + 0.75 * old[0][2]));
}

// An all-open or all-shut gate passes that side through (the same tensor),
// unless the result would broadcast it to a larger shape; gradients still
// reach every operand that takes part.
TEST(GatingOps, ConstantGatesPassOneSideThrough) {
  auto fresh = uniformDoubles({2, 3, 4}, -1, 1, 11);
  auto old = uniformDoubles({2, 3, 4}, -1, 1, 12);
  auto ones = at::ones({2, 1, 1}, at::kDouble);
  auto zeros = at::zeros({2, 1, 1}, at::kDouble);
  EXPECT_TRUE(ops::gate(ones, fresh, old).is_same(fresh));
  EXPECT_TRUE(ops::gate(zeros, fresh, old).is_same(old));
  auto row = uniformDoubles({1, 3, 4}, -1, 1, 13);
  auto broadcast = ops::gate(ones, row, old);
  EXPECT_EQ(broadcast.sizes(), old.sizes());
  EXPECT_TRUE(at::equal(broadcast, row.expand_as(old)));
  auto mixed = at::tensor({1.0, 0.0}, at::kDouble).view({2, 1, 1});
  auto y = ops::gate(mixed, fresh, old);
  EXPECT_TRUE(at::equal(y[0], fresh[0]) && at::equal(y[1], old[1]));
  // Broadcast and strided gates are scanned element by element too.
  EXPECT_TRUE(
      ops::gate(at::ones({1, 1, 1}, at::kDouble).expand({2, 1, 1}), fresh, old)
          .is_same(fresh));
  auto shutColumn = at::zeros({2, 2}, at::kDouble).select(1, 0).view({2, 1, 1});
  EXPECT_TRUE(ops::gate(shutColumn, fresh, old).is_same(old));
  auto mixedColumn = at::tensor({0.0, 0.0, 1.0, 0.0}, at::kDouble)
                         .view({2, 2})
                         .select(1, 0)
                         .view({2, 1, 1});
  auto z = ops::gate(mixedColumn, fresh, old);
  EXPECT_TRUE(at::equal(z[0], old[0]) && at::equal(z[1], fresh[1]));
  expectGradientsMatchFiniteDifferences(
      [&](const Inputs &in) { return ops::gate(ones, in[0], in[1]); },
      {fresh, old});
}

TEST(GatingOps, GateGradients) {
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::gate(in[0], in[1], in[2]); },
      {uniformDoubles({2, 3, 1}, 0, 1, 3), uniformDoubles({2, 3, 4}, -1, 1, 4),
       uniformDoubles({2, 3, 4}, -1, 1, 5)});
}

TEST(GatingOps, CumaxIsMonotoneUpToOne) {
  auto y = ops::cumax(uniformDoubles({2, 5}, -2, 2, 6));
  EXPECT_TRUE(at::allclose(y.select(1, 4), at::ones({2}, at::kDouble)));
  EXPECT_TRUE((y.narrow(1, 1, 4) > y.narrow(1, 0, 4)).all().item<bool>());
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::cumax(in[0], 0); },
      {uniformDoubles({3, 2}, -2, 2, 7)});
}

TEST(GatingOps, SoftDepthMixGradients) {
  auto alpha = uniformDoubles({2, 1}, 0, 1, 8);
  auto deep = uniformDoubles({2, 3}, -1, 1, 9);
  auto shallow = uniformDoubles({2, 3}, -1, 1, 10);
  EXPECT_TRUE(at::allclose(ops::softDepthMix(alpha, deep, shallow),
                           at::sigmoid(alpha * deep + (1 - alpha) * shallow)));
  expectGradientsMatchFiniteDifferences(
      [](const Inputs &in) { return ops::softDepthMix(in[0], in[1], in[2]); },
      {alpha, deep, shallow});
}
