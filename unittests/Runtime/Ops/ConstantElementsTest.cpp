#include "rvnn/Runtime/Ops/ConstantElements.h"
#include "rvnn/Runtime/Ops/NN.h"

#include <gtest/gtest.h>

namespace ops = rvnn::runtime::ops;
using ops::Constant;

namespace {

const auto kFloat = at::TensorOptions().dtype(at::kFloat);
const auto kDouble = at::TensorOptions().dtype(at::kDouble);

TEST(ConstantElements, BroadcastsHoldTheirValueInOneElement) {
  auto like = at::rand({3, 5}, kDouble);
  for (auto [constant, value] :
       {std::pair{Constant::Zero, 0.0}, std::pair{Constant::One, 1.0}}) {
    torch::Tensor c = ops::broadcastConstant(constant, like, {3, 5});
    EXPECT_TRUE(at::equal(c, at::full({3, 5}, value, kDouble)));
    EXPECT_EQ(c.scalar_type(), at::kDouble);
    EXPECT_EQ(c.storage().nbytes(), sizeof(double));
    EXPECT_TRUE(ops::isBroadcastConstant(c, constant));
  }
}

TEST(ConstantElements, OnlyBroadcastsOfTheConstantAreRecognised) {
  auto like = at::rand({2, 4}, kFloat);
  torch::Tensor ones = ops::broadcastConstant(Constant::One, like, {2, 4});
  EXPECT_FALSE(ops::isBroadcastConstant(ones, Constant::Zero));
  EXPECT_FALSE(ops::isBroadcastConstant(at::ones({2, 4}), Constant::One));
  EXPECT_FALSE(
      ops::isBroadcastConstant(at::ones({}).expand({2, 4}), Constant::One));
  EXPECT_FALSE(ops::isBroadcastConstant(torch::Tensor(), Constant::One));
  // Another dtype is another element.
  EXPECT_FALSE(ones.is_alias_of(
      ops::broadcastConstant(Constant::One, at::rand({1}, kDouble), {2, 4})));
}

TEST(ConstantElements, ConstantRowIsMadeOncePerLength) {
  auto like = at::rand({2, 4}, kFloat);
  torch::Tensor ones = ops::broadcastConstant(Constant::One, like, {2, 4});
  torch::Tensor row = ops::constantRow(ones, 4);
  ASSERT_TRUE(row.defined());
  EXPECT_TRUE(row.is_contiguous());
  EXPECT_TRUE(at::equal(row, at::ones({4}, kFloat)));
  EXPECT_TRUE(row.is_same(ops::constantRow(ones, 4)));
  EXPECT_EQ(ops::constantRow(ones, 7).numel(), 7);
  torch::Tensor zeros = ops::broadcastConstant(Constant::Zero, like, {2, 4});
  EXPECT_TRUE(at::equal(ops::constantRow(zeros, 4), at::zeros({4}, kFloat)));
  EXPECT_FALSE(ops::constantRow(at::ones({}).expand({2, 4}), 4).defined());
}

TEST(ConstantElements, EvaluationDropoutMaskIsBroadcastOnes) {
  auto x = at::rand({3, 4}, kFloat);
  EXPECT_TRUE(ops::isBroadcastConstant(
      ops::dropoutMask(x, 0.5, true, {}, /*training=*/false), Constant::One));
  EXPECT_TRUE(ops::isBroadcastConstant(
      ops::dropoutMask(x, 0.0, true, {}, /*training=*/true), Constant::One));
}

} // namespace
