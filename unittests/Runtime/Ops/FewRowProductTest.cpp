#include "rvnn/Runtime/Ops/FewRowProduct.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

namespace ops = rvnn::runtime::ops;

namespace {

torch::Tensor random(std::vector<int64_t> sizes, at::ScalarType dtype,
                     uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randn(sizes, at::TensorOptions().dtype(dtype));
}

/// The product, which must have taken the few-row path, against ATen's.
void expectMatchesMatmul(const torch::Tensor &x, const torch::Tensor &b,
                         const torch::Tensor &bias = {}) {
  torch::Tensor few = ops::fewRowProduct(x, b, bias);
  ASSERT_TRUE(few.defined()) << "rows " << x.numel() / x.size(-1);
  torch::Tensor reference = at::matmul(x, b);
  if (bias.defined())
    reference = reference + bias;
  EXPECT_EQ(few.sizes(), reference.sizes());
  const double tolerance = x.scalar_type() == at::kFloat ? 1e-4 : 1e-12;
  EXPECT_TRUE(at::allclose(few, reference, tolerance, tolerance))
      << (few - reference).abs().max().item<double>();
}

class FewRowProduct : public ::testing::Test {
protected:
  void SetUp() override {
    // Debian's LibTorch loads libblas.so.3: the path must be there.
    ASSERT_TRUE(ops::fewRowProductsAvailable());
  }
};

} // namespace

TEST_F(FewRowProduct, EveryRowCountMatchesAtenWithEitherMatrixLayout) {
  const torch::Tensor w = random({48, 40}, at::kFloat, 1); // [N, K]
  const torch::Tensor bias = random({48}, at::kFloat, 2);
  for (int64_t rows = 1; rows <= ops::kMaxFewRows; ++rows) {
    const torch::Tensor x = random({rows, 40}, at::kFloat, 3 + rows);
    expectMatchesMatmul(x, w.t());              // a linear layer's wᵀ
    expectMatchesMatmul(x, w.t(), bias);        // with its bias
    expectMatchesMatmul(x, w.t().contiguous()); // a row-major [K, N]
    const torch::Tensor dy = random({rows, 48}, at::kFloat, 40 + rows);
    expectMatchesMatmul(dy, w); // a linear layer's input cotangent dy·w
  }
}

TEST_F(FewRowProduct, TakesStridedRowsLeadingDimsAndMatrixViews) {
  const torch::Tensor wide = random({6, 100}, at::kDouble, 4);
  // Rows that are a column window of a wider tensor (a gate's slice).
  expectMatchesMatmul(wide.slice(1, 30, 60), random({30, 7}, at::kDouble, 5));
  // Rows with a non-unit element stride.
  expectMatchesMatmul(wide.slice(1, 0, 60, 2), random({30, 7}, at::kDouble, 6));
  // Leading dims [2, 3]: six rows, the result keeps them.
  expectMatchesMatmul(random({2, 3, 9}, at::kDouble, 7),
                      random({9, 5}, at::kDouble, 8));
  // A matrix that is a column window of a wider one (leading dim > N).
  const torch::Tensor b = random({9, 20}, at::kDouble, 9).slice(1, 4, 11);
  expectMatchesMatmul(random({4, 9}, at::kDouble, 10), b);
  // Neither stride 1: the matrix is copied to a layout the BLAS takes.
  expectMatchesMatmul(
      random({4, 9}, at::kDouble, 11),
      random({18, 14}, at::kDouble, 12).slice(0, 0, 18, 2).slice(1, 0, 14, 2));
}

TEST_F(FewRowProduct, BatchesMultiplyEachEntryByItsOwnMatrix) {
  const torch::Tensor bias = random({6}, at::kFloat, 30);
  for (int64_t rows = 1; rows <= ops::kMaxFewRows; ++rows) {
    const torch::Tensor x = random({5, rows, 9}, at::kFloat, 31 + rows);
    const torch::Tensor b = random({5, 9, 6}, at::kFloat, 50 + rows);
    expectMatchesMatmul(x, b);
    expectMatchesMatmul(x, b, bias);
    expectMatchesMatmul(x, random({5, 6, 9}, at::kFloat, 60).transpose(1, 2));
  }
  // EBT-GRC's selection: one row a beam over a window of its nodes (a
  // slice that leaves out the last node of each matrix).
  const torch::Tensor nodes = random({7, 12, 16}, at::kDouble, 70);
  expectMatchesMatmul(random({7, 1, 11}, at::kDouble, 71),
                      nodes.slice(1, 0, 11));
  expectMatchesMatmul(random({7, 1, 11}, at::kDouble, 72),
                      nodes.slice(1, 1, 12));
  // Rows with a non-unit element stride; matrices neither stride 1 of.
  expectMatchesMatmul(
      random({7, 2, 22}, at::kDouble, 73).slice(2, 0, 22, 2),
      random({7, 22, 6}, at::kDouble, 74).slice(1, 0, 22, 2).slice(2, 0, 6, 2));
}

TEST_F(FewRowProduct, LeavesOtherProductsToAten) {
  const torch::Tensor b = random({8, 6}, at::kFloat, 13);
  EXPECT_FALSE(
      ops::fewRowProduct(random({ops::kMaxFewRows + 1, 8}, at::kFloat, 14), b)
          .defined());
  EXPECT_FALSE(
      ops::fewRowProduct(random({2, 8}, at::kDouble, 15), b).defined());
  EXPECT_FALSE(ops::fewRowProduct(random({2, 8}, at::kFloat, 16), b,
                                  random({2, 6}, at::kFloat, 17))
                   .defined());
  // Batched: more rows a batch entry, a broadcast or mismatched batch.
  EXPECT_FALSE(
      ops::fewRowProduct(random({3, ops::kMaxFewRows + 1, 8}, at::kFloat, 19),
                         random({3, 8, 6}, at::kFloat, 20))
          .defined());
  EXPECT_FALSE(ops::fewRowProduct(random({3, 1, 8}, at::kFloat, 21),
                                  random({1, 8, 6}, at::kFloat, 22))
                   .defined());
  EXPECT_FALSE(ops::fewRowProduct(random({1, 1, 8}, at::kFloat, 23),
                                  random({3, 8, 6}, at::kFloat, 24))
                   .defined());
  EXPECT_FALSE(ops::fewRowProduct(torch::ones({2, 8}, at::kLong),
                                  torch::ones({8, 6}, at::kLong))
                   .defined());
  // Autograd recording a graph through the product takes ATen's path;
  // without recording the same operands take the few-row path.
  const torch::Tensor w = b.clone().requires_grad_(true);
  const torch::Tensor x = random({2, 8}, at::kFloat, 18);
  EXPECT_FALSE(ops::fewRowProduct(x, w).defined());
  torch::NoGradGuard noGrad;
  EXPECT_TRUE(ops::fewRowProduct(x, w).defined());
}
