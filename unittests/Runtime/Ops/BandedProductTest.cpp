#include "rvnn/Runtime/Ops/BandedProduct.h"

#include "GradCheck.h"

#include <gtest/gtest.h>
#include <torch/autograd.h>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;

namespace {

/// A band [B, M, 2] over K columns: row widths up to `widest`, some rows
/// empty, some starting at 0 or ending at K.
torch::Tensor randomBand(int64_t batch, int64_t rows, int64_t columns,
                         int64_t widest, uint64_t seed) {
  auto draws = uniformDoubles({batch, rows, 2}, 0, 1, seed);
  auto lo = (draws.select(-1, 0) * double(columns)).floor().to(at::kLong);
  auto width = (draws.select(-1, 1) * double(widest + 1)).floor().to(at::kLong);
  auto hi = at::minimum(lo + width, at::full_like(lo, columns));
  return at::stack({lo, hi}, -1);
}

/// (lhs ⊙ band)·rhs + accumulator in ATen: the definition.
torch::Tensor reference(const torch::Tensor &lhs, const torch::Tensor &band,
                        const torch::Tensor &rhs, const torch::Tensor &acc) {
  return acc +
         at::matmul(lhs * ops::bandIndicator(band, lhs.size(-1), lhs.options()),
                    rhs);
}

struct Case {
  int64_t widest;  // narrow bands take the loops (8: several dots at once),
                   // wide ones the BLAS
  int64_t columns; // N: whole register chunks and a remainder
};

} // namespace

// Forward and graph-free backward against ATen's masked product and its
// autograd, float and double, on the loops and on the dense path.
TEST(BandedProduct, MatchesTheMaskedProduct) {
  for (Case c :
       {Case{2, 19}, Case{3, 32}, Case{3, 77}, Case{8, 77}, Case{20, 19}})
    for (auto dtype : {at::kFloat, at::kDouble}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) + " widest " +
                   std::to_string(c.widest) + " N " +
                   std::to_string(c.columns));
      const double tol = dtype == at::kFloat ? 1e-5 : 1e-12;
      auto lhs = uniformDoubles({3, 7, 20}, -1, 1, 40).to(dtype);
      auto rhs = uniformDoubles({3, 20, c.columns}, -1, 1, 41).to(dtype);
      auto acc = uniformDoubles({1, 1, c.columns}, -1, 1, 42).to(dtype);
      auto dy = uniformDoubles({3, 7, c.columns}, -1, 1, 43).to(dtype);
      auto band = randomBand(3, 7, 20, c.widest, 44);
      torch::Tensor y;
      std::pair<torch::Tensor, torch::Tensor> grads;
      {
        torch::NoGradGuard plain;
        y = ops::bandedProduct(lhs, band, rhs, acc);
        grads = ops::bandedProductBackward(lhs, band, rhs, dy, true, true);
      }
      auto l = lhs.clone().requires_grad_(), r = rhs.clone().requires_grad_();
      auto expected = reference(l, band, r, acc);
      EXPECT_TRUE(at::allclose(y, expected.detach(), tol, tol));
      auto want = torch::autograd::grad({expected}, {l, r}, {dy});
      EXPECT_TRUE(at::allclose(grads.first, want[0], tol, tol)) << "lhs";
      EXPECT_TRUE(at::allclose(grads.second, want[1], tol, tol)) << "rhs";
      auto rhsOnly =
          ops::bandedProductBackward(lhs, band, rhs, dy, false, true);
      EXPECT_FALSE(rhsOnly.first.defined());
      EXPECT_TRUE(at::equal(rhsOnly.second, grads.second));
    }
}

// An accumulator of the result's shape is added as each row is written,
// rounding as the product followed by the sum does: bit for bit.
TEST(BandedProduct, AddsAWholeAccumulatorAsTheProductThenTheSum) {
  torch::NoGradGuard plain;
  for (int64_t widest : {3, 20}) {
    auto lhs = uniformDoubles({3, 7, 20}, -1, 1, 45).to(at::kFloat);
    auto rhs = uniformDoubles({3, 20, 19}, -1, 1, 46).to(at::kFloat);
    auto acc = uniformDoubles({3, 7, 19}, -1, 1, 47).to(at::kFloat);
    auto band = randomBand(3, 7, 20, widest, 48);
    EXPECT_TRUE(at::equal(ops::bandedProduct(lhs, band, rhs, acc),
                          acc + ops::bandedProduct(lhs, band, rhs)))
        << "widest " << widest;
  }
}

// The loops' backward against central differences of the loops' forward
// (double, autograd off throughout).
TEST(BandedProduct, LoopGradientsMatchFiniteDifferences) {
  torch::NoGradGuard plain;
  auto lhs = uniformDoubles({2, 5, 12}, -1, 1, 50);
  auto rhs = uniformDoubles({2, 12, 3}, -1, 1, 51);
  auto weights = uniformDoubles({2, 5, 3}, -1, 1, 52);
  auto band = randomBand(2, 5, 12, 3, 53);
  auto [dlhs, drhs] =
      ops::bandedProductBackward(lhs, band, rhs, weights, true, true);
  auto loss = [&](const torch::Tensor &a, const torch::Tensor &b) {
    return (ops::bandedProduct(a, band, b) * weights).sum().item<double>();
  };
  const double eps = 1e-6;
  for (auto [input, grad, isLhs] :
       {std::tuple{lhs, dlhs, true}, std::tuple{rhs, drhs, false}}) {
    auto flat = input.view({-1});
    auto expected = grad.reshape({-1});
    for (int64_t i = 0; i < flat.numel(); ++i) {
      const double saved = flat[i].item<double>();
      flat[i] = saved + eps;
      const double up = isLhs ? loss(input, rhs) : loss(lhs, input);
      flat[i] = saved - eps;
      const double down = isLhs ? loss(input, rhs) : loss(lhs, input);
      flat[i] = saved;
      EXPECT_NEAR((up - down) / (2 * eps), expected[i].item<double>(), 1e-7)
          << (isLhs ? "lhs" : "rhs") << " element " << i;
    }
  }
}

// Through autograd (the reference kernels' path) the product is the masked
// one, differentiable: against finite differences.
TEST(BandedProduct, RecordedGradientsMatchFiniteDifferences) {
  auto band = randomBand(2, 4, 6, 3, 60);
  expectGradientsMatchFiniteDifferences(
      [&](const std::vector<torch::Tensor> &in) {
        return ops::bandedProduct(in[0], band, in[1], in[2]);
      },
      {uniformDoubles({2, 4, 6}, -1, 1, 61),
       uniformDoubles({2, 6, 5}, -1, 1, 62),
       uniformDoubles({2, 4, 5}, -1, 1, 63)});
}

TEST(BandedProduct, RefusesABandOutsideTheColumns) {
  torch::NoGradGuard plain;
  auto lhs = at::ones({1, 2, 4}), rhs = at::ones({1, 4, 3});
  for (auto pairs :
       {std::vector<int64_t>{0, 1, 2, 5}, std::vector<int64_t>{-1, 1, 2, 3},
        std::vector<int64_t>{0, 1, 3, 2}}) {
    auto band = at::tensor(pairs, at::kLong).view({1, 2, 2});
    EXPECT_THROW(ops::bandedProduct(lhs, band, rhs), c10::Error);
    EXPECT_THROW(ops::bandedProductBackward(lhs, band, rhs, at::ones({1, 2, 3}),
                                            true, true),
                 c10::Error);
  }
}
