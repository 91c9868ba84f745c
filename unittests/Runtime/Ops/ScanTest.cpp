#include "rvnn/Runtime/Ops/Scan.h"

#include "GradCheck.h"

#include <gtest/gtest.h>
#include <torch/autograd.h>

#include <complex>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using Inputs = std::vector<torch::Tensor>;

namespace {

const auto kDouble = at::TensorOptions().dtype(at::kDouble);

/// u `[N, S, D]` and the six `[D, P]` parameters: |a| < 1 as a discretised
/// stable diagonal is.
Inputs scanInputs(int64_t samples, int64_t length, int64_t channels,
                  int64_t states, uint64_t seed) {
  Inputs in{uniformDoubles({samples, length, channels}, -1, 1, seed)};
  for (uint64_t i = 0; i < 6; ++i)
    in.push_back(uniformDoubles({channels, states}, i < 2 ? -0.65 : -1,
                                i < 2 ? 0.65 : 1, seed + 1 + i));
  return in;
}

/// Sample 0 full, sample 1 padded at the end, sample 2 with a masked hole.
torch::Tensor scanMask(int64_t samples, int64_t length) {
  auto mask = at::ones({samples, length}, kDouble);
  if (samples > 1)
    mask[1].narrow(0, length - 3, 3).zero_();
  if (samples > 2)
    mask[2][2] = 0;
  return mask;
}

/// The recurrence straight from its definition, in std::complex<double>.
torch::Tensor naiveScan(const Inputs &in, const torch::Tensor &mask,
                        bool reverse) {
  auto u = in[0].accessor<double, 3>();
  auto ar = in[1].accessor<double, 2>(), ai = in[2].accessor<double, 2>(),
       br = in[3].accessor<double, 2>(), bi = in[4].accessor<double, 2>(),
       cr = in[5].accessor<double, 2>(), ci = in[6].accessor<double, 2>();
  auto m = mask.accessor<double, 2>();
  const int64_t N = in[0].size(0), S = in[0].size(1), D = in[0].size(2),
                P = in[1].size(1);
  auto y = at::zeros({N, S, D}, kDouble);
  auto out = y.accessor<double, 3>();
  for (int64_t n = 0; n < N; ++n)
    for (int64_t d = 0; d < D; ++d) {
      std::vector<std::complex<double>> x(P);
      for (int64_t k = 0; k < S; ++k) {
        const int64_t t = reverse ? S - 1 - k : k;
        if (m[n][t] == 0)
          continue;
        double sum = 0;
        for (int64_t p = 0; p < P; ++p) {
          const std::complex<double> a(ar[d][p], ai[d][p]),
              b(br[d][p], bi[d][p]), c(cr[d][p], ci[d][p]);
          x[p] = a * x[p] + b * u[n][t][d];
          sum += (c * x[p]).real();
        }
        out[n][t][d] = sum;
      }
    }
  return y;
}

torch::Tensor scan(const Inputs &in, const torch::Tensor &mask, bool reverse) {
  return ops::diagonalScan(in[0], in[1], in[2], in[3], in[4], in[5], in[6],
                           mask, reverse);
}

torch::Tensor scanReference(const Inputs &in, const torch::Tensor &mask,
                            bool reverse) {
  return ops::diagonalScanReference(in[0], in[1], in[2], in[3], in[4], in[5],
                                    in[6], mask, reverse);
}

} // namespace

TEST(ScanOps, DiagonalScanMatchesNaiveLoop) {
  Inputs in = scanInputs(3, 8, 4, 5, 70);
  auto mask = scanMask(3, 8);
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    auto naive = naiveScan(in, mask, reverse);
    EXPECT_TRUE(at::allclose(scan(in, mask, reverse), naive, 1e-12, 1e-12));
    EXPECT_TRUE(
        at::allclose(scanReference(in, mask, reverse), naive, 1e-12, 1e-12));
  }
}

// With a prefix mask, the reverse scan is the forward scan of each sample's
// reversed valid prefix, reversed back (S4D's bidirectional layer).
TEST(ScanOps, DiagonalScanReverseIsTheReversedValidPrefix) {
  Inputs in = scanInputs(2, 7, 3, 4, 80);
  auto mask = scanMask(2, 7);
  auto reversed = scan(in, mask, /*reverse=*/true);
  for (int64_t n = 0; n < 2; ++n) {
    const int64_t length = mask[n].sum().item<int64_t>();
    Inputs prefix = in;
    prefix[0] = in[0][n].narrow(0, 0, length).flip({0}).unsqueeze(0);
    auto forward = scan(prefix, at::ones({1, length}, kDouble), false);
    EXPECT_TRUE(at::allclose(reversed[n].narrow(0, 0, length),
                             forward[0].flip({0}), 1e-12, 1e-12));
    EXPECT_EQ(
        reversed[n].narrow(0, length, 7 - length).abs().sum().item<double>(),
        0.0);
  }
}

TEST(ScanOps, DiagonalScanGradientsMatchFiniteDifferences) {
  Inputs in = scanInputs(3, 6, 2, 3, 90);
  auto mask = scanMask(3, 6);
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    expectGradientsMatchFiniteDifferences(
        [&](const Inputs &x) { return scan(x, mask, reverse); }, in);
  }
}

// The explicit reverse scan against autograd through the ATen composition,
// in float and double, with and without a graph.
TEST(ScanOps, DiagonalScanBackwardMatchesReference) {
  Inputs in = scanInputs(3, 9, 4, 6, 100);
  auto mask = scanMask(3, 9);
  auto dy = uniformDoubles({3, 9, 4}, -1, 1, 110);
  for (auto [type, tol] :
       {std::pair{at::kFloat, 1e-5}, std::pair{at::kDouble, 1e-12}}) {
    const at::ScalarType dtype = type;
    for (bool reverse : {false, true}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) +
                   (reverse ? " reverse" : " forward"));
      auto run = [&](auto op) {
        Inputs leaves;
        for (const auto &x : in)
          leaves.push_back(x.to(dtype).requires_grad_());
        auto out = op(leaves, mask.to(dtype), reverse);
        Inputs grads = torch::autograd::grad({out}, leaves, {dy.to(dtype)});
        grads.insert(grads.begin(), out.detach());
        return grads;
      };
      Inputs kernel = run(scan), reference = run(scanReference);
      for (size_t i = 0; i < kernel.size(); ++i)
        EXPECT_TRUE(at::allclose(kernel[i], reference[i], tol, tol))
            << "entry " << i << ", max difference "
            << (kernel[i] - reference[i]).abs().max().item<double>();
      Inputs cast;
      for (const auto &x : in)
        cast.push_back(x.to(dtype));
      auto graphFree = ops::diagonalScanBackward(
          cast[0], cast[1], cast[2], cast[3], cast[4], cast[5], cast[6],
          mask.to(dtype), reverse, dy.to(dtype));
      ASSERT_TRUE(graphFree.has_value());
      for (size_t i = 0; i < 7; ++i)
        EXPECT_TRUE(at::allclose((*graphFree)[i], reference[i + 1], tol, tol))
            << "graph-free entry " << i;
    }
  }
}

// The mask's cotangent (the kernel has none) and a recorded backward take the
// ATen composition.
TEST(ScanOps, DiagonalScanMaskGradientAndDoubleBackward) {
  Inputs in = scanInputs(2, 5, 2, 3, 120);
  auto mask = scanMask(2, 5);
  auto dy = uniformDoubles({2, 5, 2}, -1, 1, 130);
  auto gradsOf = [&](auto op, bool createGraph) {
    Inputs leaves;
    for (const auto &x : in)
      leaves.push_back(x.clone().requires_grad_());
    leaves.push_back(mask.clone().requires_grad_());
    auto out =
        op(Inputs(leaves.begin(), leaves.end() - 1), leaves.back(), false);
    auto grads = torch::autograd::grad({out}, leaves, {dy}, true, createGraph);
    if (createGraph) // d/dleaves Σ grad_u², a second-order quantity.
      grads = torch::autograd::grad({grads[0].pow(2).sum()}, leaves, {}, true,
                                    false, true);
    return grads;
  };
  for (bool createGraph : {false, true}) {
    Inputs kernel = gradsOf(scan, createGraph),
           reference = gradsOf(scanReference, createGraph);
    for (size_t i = 0; i < kernel.size(); ++i) {
      ASSERT_EQ(kernel[i].defined(), reference[i].defined()) << i;
      if (kernel[i].defined()) {
        EXPECT_TRUE(at::allclose(kernel[i], reference[i], 1e-12, 1e-12))
            << (createGraph ? "second order " : "") << "entry " << i;
      }
    }
  }
}

TEST(ScanOps, DiagonalScanFallsBackOutsideTheKernel) {
  Inputs in = scanInputs(2, 4, 2, 3, 140);
  auto mask = scanMask(2, 4);
  // A non-contiguous u still runs the kernel (it copies).
  auto wide = at::cat({in[0], in[0]}, 2).narrow(2, 0, 2);
  Inputs strided = in;
  strided[0] = wide;
  EXPECT_TRUE(at::allclose(scan(strided, mask, false),
                           naiveScan(in, mask, false), 1e-12, 1e-12));
}
