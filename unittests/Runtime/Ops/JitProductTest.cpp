#include "rvnn/Runtime/Ops/JitProduct.h"

#include <gtest/gtest.h>

#include <torch/torch.h>

namespace ops = rvnn::runtime::ops;

namespace {

torch::Tensor random(std::vector<int64_t> sizes, uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randn(sizes);
}

/// The product, which must have taken the generated kernels, against the
/// double-precision product (LIBXSMM picks its kernels from the CPU: the
/// check runs whichever this machine gets).
void expectMatchesDouble(const torch::Tensor &x, const torch::Tensor &b,
                         const torch::Tensor &bias = {}) {
  torch::Tensor jit = ops::jitProduct(x, b, bias);
  ASSERT_TRUE(jit.defined()) << "x " << x.sizes() << " b " << b.sizes();
  torch::Tensor reference = at::matmul(x.to(at::kDouble), b.to(at::kDouble));
  if (bias.defined())
    reference = reference + bias.to(at::kDouble);
  EXPECT_EQ(jit.sizes(), reference.sizes());
  EXPECT_EQ(jit.scalar_type(), at::kFloat);
  const double scale = std::sqrt(static_cast<double>(b.size(0)));
  EXPECT_TRUE(at::allclose(jit.to(at::kDouble), reference, 0, 1e-5 * scale))
      << "x " << x.sizes() << " b " << b.sizes() << ": "
      << (jit.to(at::kDouble) - reference).abs().max().item<double>();
}

/// Products of every shape jitProduct takes: AVX-512 kernels.
class JitProduct : public ::testing::Test {
protected:
  void SetUp() override {
    if (!ops::jitProductsTakeEveryShape())
      GTEST_SKIP() << "no LIBXSMM AVX-512 kernels in this build or on this CPU";
  }
};

/// Narrow products, which AVX2 kernels take too: few rows by a row-major
/// matrix, batches whose K or N is small.
class JitNarrowProduct : public ::testing::Test {
protected:
  void SetUp() override {
    if (ops::jitProductKernels().empty())
      GTEST_SKIP() << "no LIBXSMM kernels in this build or on this CPU";
  }
};

} // namespace

TEST_F(JitProduct, MatchesDoubleForEveryLayoutAndRowCount) {
  // [N, K] weights of the models' sizes and odd ones.
  for (auto [n, k] :
       {std::pair<int64_t, int64_t>{512, 256}, {48, 40}, {1, 64}, {37, 3}}) {
    const torch::Tensor w = random({n, k}, 1 + n);
    const torch::Tensor bias = random({n}, 2 + n);
    for (int64_t rows : {1, 2, 7, 8, 9, 64, 301}) {
      const torch::Tensor x = random({rows, k}, 3 + rows);
      expectMatchesDouble(x, w.t());              // a linear layer's wᵀ
      expectMatchesDouble(x, w.t(), bias);        // with its bias
      expectMatchesDouble(x, w.t().contiguous()); // a row-major [K, N]
      expectMatchesDouble(x, w.t().contiguous(), bias);
      // A linear layer's input cotangent dy·w.
      expectMatchesDouble(random({rows, n}, 4 + rows), w);
    }
  }
}

TEST_F(JitProduct, TakesStridedRowsLeadingDimsAndMatrixWindows) {
  const torch::Tensor wide = random({6, 100}, 5);
  // Rows that are a column window of a wider tensor (a gate's slice).
  expectMatchesDouble(wide.slice(1, 30, 60), random({30, 7}, 6));
  // Rows with a non-unit element stride are copied.
  expectMatchesDouble(wide.slice(1, 0, 60, 2), random({30, 7}, 7));
  // Leading dims [2, 3]: six rows, the result keeps them.
  expectMatchesDouble(random({2, 3, 9}, 8), random({9, 5}, 9));
  // Matrices that are windows of wider ones (leading dim > N or > K).
  const torch::Tensor rowMajor = random({9, 20}, 10).slice(1, 4, 11);
  expectMatchesDouble(random({4, 9}, 11), rowMajor);
  const torch::Tensor columnMajor = random({20, 9}, 12).slice(0, 4, 11).t();
  expectMatchesDouble(random({4, 9}, 13), columnMajor);
}

TEST_F(JitProduct, TakesTransposedRowsWithoutCopies) {
  // A loop collector's weight gradient aᵀ·b: the rows are a column-major
  // view, by a row-major matrix (the kernels' transposed-B form) and by a
  // column-major one (a layout copy first).
  for (int64_t rows : {1, 5, 120}) {
    const torch::Tensor a = random({300, rows}, 20 + rows);
    expectMatchesDouble(a.t(), random({300, 64}, 21));
    expectMatchesDouble(a.t(), random({64, 300}, 22).t(), random({64}, 23));
  }
}

TEST_F(JitProduct, RunsDeepProductsInBlocksOfDepth) {
  // Depths past one cache block of the matrix (512 columns of A take 256 of
  // depth a block): one block, two (with and without a remainder), more
  // (with and without), each layout.
  for (int64_t depth : {256, 300, 512, 1000, 2048}) {
    const torch::Tensor w = random({512, depth}, 30 + depth);
    const torch::Tensor bias = random({512}, 31);
    for (int64_t rows : {3, 200}) {
      const torch::Tensor x = random({rows, depth}, 32 + rows);
      expectMatchesDouble(x, w.t(), bias);
      expectMatchesDouble(x, w.t().contiguous(), bias);
      expectMatchesDouble(random({depth, rows}, 33).t(), w.t().contiguous());
    }
  }
}

TEST_F(JitProduct, LeavesOtherProductsToTheCaller) {
  const torch::Tensor b = random({8, 6}, 14);
  const torch::Tensor x = random({2, 8}, 15);
  EXPECT_FALSE(ops::jitProduct(x.to(at::kDouble), b.to(at::kDouble)).defined());
  EXPECT_FALSE(ops::jitProduct(x, b, random({2, 6}, 16)).defined());
  // Neither stride of the matrix is 1.
  EXPECT_FALSE(
      ops::jitProduct(
          x, random({16, 12}, 17).slice(0, 0, 16, 2).slice(1, 0, 12, 2))
          .defined());
  // Autograd recording a graph through the product takes ATen's path;
  // without recording the same operands take the kernels.
  const torch::Tensor w = b.clone().requires_grad_(true);
  EXPECT_FALSE(ops::jitProduct(x, w).defined());
  torch::NoGradGuard noGrad;
  EXPECT_TRUE(ops::jitProduct(x, w).defined());
}

TEST_F(JitNarrowProduct, MatchesDoubleForRowMajorMatrices) {
  // The logic models' recurrent products ([2, 400] · [400, 1600] and its
  // input cotangent), RIR-EBT-GRC's cell on a beam ([7, 512] · [512, 512]),
  // odd sizes; rows as they lie and transposed (a column-major view).
  for (auto [k, n] : {std::pair<int64_t, int64_t>{400, 1600},
                      {1600, 400},
                      {512, 512},
                      {37, 3}}) {
    const torch::Tensor b = random({k, n}, 40 + k);
    const torch::Tensor bias = random({n}, 41 + n);
    for (int64_t rows :
         {int64_t(2), int64_t(7), ops::kMaxRowsOfAvx2JitProducts}) {
      const torch::Tensor x = random({rows, k}, 42 + rows);
      expectMatchesDouble(x, b);
      expectMatchesDouble(x, b, bias);
      expectMatchesDouble(random({k, rows}, 43 + rows).t(), b);
      // Matrix windows of a wider row-major tensor, leading dims.
      expectMatchesDouble(x, random({k, n + 5}, 44).slice(1, 2, n + 2));
    }
    expectMatchesDouble(random({2, 3, k}, 45), b);
  }
}

TEST_F(JitNarrowProduct, AvxTwoKernelsLeaveWideProductsToTheCaller) {
  if (ops::jitProductsTakeEveryShape())
    GTEST_SKIP() << "AVX-512 kernels take every product";
  const torch::Tensor b = random({64, 48}, 50);
  // One row (one gemv is as fast), more than kMaxRowsOfAvx2JitProducts, a
  // column-major matrix (the kernels would run with the rows as their
  // narrow dimension).
  EXPECT_FALSE(ops::jitProduct(random({1, 64}, 51), b).defined());
  EXPECT_FALSE(
      ops::jitProduct(random({ops::kMaxRowsOfAvx2JitProducts + 1, 64}, 52), b)
          .defined());
  EXPECT_FALSE(
      ops::jitProduct(random({4, 64}, 53), random({48, 64}, 54).t()).defined());
  EXPECT_TRUE(ops::jitProduct(random({4, 64}, 57), b).defined());
  // Batches: K and N past kMaxNarrowDimOfAvx2BatchedProducts, or only M
  // narrow, go to the BLAS; a narrow K or N takes the kernels.
  const int64_t wide = ops::kMaxNarrowDimOfAvx2BatchedProducts + 1;
  EXPECT_FALSE(ops::jitBatchedProduct(random({2, 4, wide}, 55),
                                      random({2, wide, wide}, 56))
                   .defined());
  EXPECT_TRUE(ops::jitBatchedProduct(random({2, wide, wide}, 58),
                                     random({2, wide, 4}, 59))
                  .defined());
  EXPECT_TRUE(
      ops::jitBatchedProduct(random({2, wide, 4}, 60), random({2, 4, wide}, 61))
          .defined());
}

// Attention's per-head products: x·y, xᵀ·y (x a transposed view, no copy)
// and x·yᵀ (y copied), against double, on odd sizes and NDR's.
TEST_F(JitNarrowProduct, MultipliesBatchesOfMatrices) {
  for (auto [s, d] : {std::pair<int64_t, int64_t>{112, 32}, {33, 8}, {5, 3}}) {
    const torch::Tensor q = random({2, 3, s, d}, 20 + s);
    const torch::Tensor k = random({2, 3, s, d}, 21 + s);
    const torch::Tensor a = random({2, 3, s, s}, 22 + s);
    auto expectProduct = [](const torch::Tensor &x, const torch::Tensor &y) {
      torch::Tensor jit = ops::jitBatchedProduct(x, y);
      ASSERT_TRUE(jit.defined()) << "x " << x.sizes() << " y " << y.sizes();
      torch::Tensor reference =
          at::matmul(x.to(at::kDouble), y.to(at::kDouble));
      EXPECT_EQ(jit.sizes(), reference.sizes());
      EXPECT_TRUE(at::allclose(jit.to(at::kDouble), reference, 0,
                               1e-5 * std::sqrt(double(x.size(-1)))))
          << "x " << x.sizes() << " y " << y.sizes();
    };
    expectProduct(q, k.transpose(-1, -2)); // scores q·kᵀ
    expectProduct(a, k);                   // weights·v
    expectProduct(a.transpose(-1, -2), q); // dv = Aᵀ·dOut
    expectProduct(random({4, s, d}, 23), random({4, d, s}, 24));
  }
}

TEST_F(JitNarrowProduct, LeavesOtherBatchesToTheCaller) {
  const torch::Tensor x = random({2, 4, 3}, 25), y = random({2, 3, 5}, 26);
  EXPECT_TRUE(ops::jitBatchedProduct(x, y).defined());
  EXPECT_FALSE(
      ops::jitBatchedProduct(x.to(at::kDouble), y.to(at::kDouble)).defined());
  // Batches that differ (at::matmul would broadcast them), 2-D operands.
  EXPECT_FALSE(ops::jitBatchedProduct(x, y.narrow(0, 0, 1)).defined());
  EXPECT_FALSE(ops::jitBatchedProduct(x[0], y[0]).defined());
  // An x that is neither contiguous nor a transposed contiguous matrix.
  EXPECT_FALSE(
      ops::jitBatchedProduct(random({2, 8, 3}, 27).slice(1, 0, 8, 2), y)
          .defined());
  const torch::Tensor recorded = y.clone().requires_grad_(true);
  EXPECT_FALSE(ops::jitBatchedProduct(x, recorded).defined());
}

// Whether or not LIBXSMM is in the build: the same elements as ATen's copy,
// contiguous, for float (LIBXSMM's transposition) and the rest (ATen's).
TEST(TransposedCopy, MatchesAtenForEveryShapeAndLayout) {
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{512, 256}, {3, 7}, {1, 9}, {9, 1}, {0, 4}})
    for (auto dtype : {at::kFloat, at::kDouble}) {
      const torch::Tensor matrix = random(shape, 31).to(dtype);
      for (const torch::Tensor &m : {matrix, matrix.t()}) {
        const torch::Tensor copy = ops::transposedCopy(m);
        EXPECT_TRUE(copy.is_contiguous());
        EXPECT_TRUE(at::equal(copy, m.t())) << m.sizes() << " " << dtype;
      }
    }
}
