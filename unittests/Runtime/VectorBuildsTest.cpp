// The loops built twice (VectorClones.h): the AVX2 build and the baseline
// x86-64 build must give the same bits, so that a run does not depend on the
// CPU it runs on, and so that the other tests, which take the AVX2 build on
// an AVX2 machine, vouch for the baseline one too.
#include "rvnn/Runtime/Ops/Attention.h"
#include "rvnn/Runtime/Ops/BandedProduct.h"
#include "rvnn/Runtime/Train/ClipGradNorm.h"
#include "rvnn/Runtime/Train/RAdamUpdate.h"
#include "rvnn/Runtime/VectorClones.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <vector>

using namespace rvnn::runtime;

namespace {

using Results = std::vector<torch::Tensor>;

/// `compute` under the AVX2 builds and under the baseline builds agree bit
/// for bit; skipped on a CPU without AVX2 (only the baseline build runs).
void expectBuildsAgree(const std::function<Results()> &compute) {
  if (!useAvx2Builds())
    GTEST_SKIP() << "this CPU runs only the baseline builds";
  const Results avx2 = compute();
  Results baseline;
  {
    const BaselineBuildsOnly only;
    {
      const BaselineBuildsOnly nested; // guards nest
    }
    ASSERT_FALSE(useAvx2Builds());
    baseline = compute();
  }
  EXPECT_TRUE(useAvx2Builds());
  ASSERT_EQ(avx2.size(), baseline.size());
  for (size_t i = 0; i < avx2.size(); ++i) {
    ASSERT_TRUE(avx2[i].defined() && baseline[i].defined()) << "result " << i;
    EXPECT_TRUE(at::equal(avx2[i], baseline[i]))
        << "result " << i << ": max difference "
        << (avx2[i] - baseline[i]).abs().max().item<double>();
  }
}

} // namespace

TEST(VectorBuilds, GeometricAttentionForwardAndBackward) {
  const int64_t n = 2, h = 2, s = 37, dh = 12;
  for (auto dtype : {torch::kFloat, torch::kDouble})
    for (bool normalize : {false, true}) {
      SCOPED_TRACE(std::string(c10::toString(dtype)) +
                   (normalize ? " normalized" : " unnormalized"));
      torch::manual_seed(3);
      const auto options = torch::TensorOptions(dtype);
      const auto q = torch::randn({n, h, s, dh}, options);
      const auto k = torch::randn({n, h, s, dh}, options);
      const auto v = torch::randn({n, h, s, dh}, options);
      const auto back = torch::randn({n, h, s}, options);
      const auto front = torch::randn({n, h, s}, options);
      const auto scale = torch::tensor(0.4, options);
      const auto bias = torch::tensor(-0.2, options);
      const auto dOut = torch::randn({n, h, s, dh}, options);
      auto mask = torch::ones({n, s}, options);
      mask[1].slice(0, 25) = 0;
      expectBuildsAgree([&] {
        Results results = {ops::geometricAttention(q, k, v, back, front, mask,
                                                   scale, bias, normalize)};
        auto grads = ops::geometricAttentionBackward(
            q, k, v, back, front, mask, scale, bias, normalize, dOut);
        EXPECT_TRUE(grads.has_value());
        for (const torch::Tensor &grad : grads.value_or(Results{}))
          if (grad.defined())
            results.push_back(grad);
        return results;
      });
    }
}

TEST(VectorBuilds, BandedProductForwardAndBackward) {
  for (auto dtype : {torch::kFloat, torch::kDouble}) {
    SCOPED_TRACE(c10::toString(dtype));
    torch::manual_seed(5);
    const auto options = torch::TensorOptions(dtype);
    const auto lhs = torch::randn({3, 9, 40}, options);
    // 77 columns: a wide chunk of registers, narrow ones, single columns.
    const auto rhs = torch::randn({3, 40, 77}, options);
    const auto dy = torch::randn({3, 9, 77}, options);
    // Row ranges of up to 8 of the 40 columns (several dots side by side
    // and single ones): the loops, not the BLAS.
    const auto lo = torch::randint(0, 33, {3, 9, 1}, torch::kLong);
    const auto band = torch::cat(
        {lo, lo + torch::randint(0, 9, lo.sizes(), torch::kLong)}, -1);
    expectBuildsAgree([&] {
      torch::NoGradGuard plain;
      auto grads = ops::bandedProductBackward(lhs, band, rhs, dy, true, true);
      return Results{ops::bandedProduct(lhs, band, rhs), grads.first,
                     grads.second};
    });
  }
}

TEST(VectorBuilds, RAdamUpdateRectifiedAndNot) {
  for (auto dtype : {torch::kFloat, torch::kDouble}) {
    SCOPED_TRACE(c10::toString(dtype));
    expectBuildsAgree([&] {
      torch::manual_seed(7);
      auto param = torch::randn({1003}, dtype);
      auto avg = torch::zeros_like(param), avgSq = torch::zeros_like(param);
      // Steps 1-5 unrectified, 6-8 rectified; weight decay on.
      for (int64_t t = 1; t <= 8; ++t)
        train::radamUpdate(
            param, torch::randn_like(param), avg, avgSq,
            train::RAdamStepScalars::at(t, 1e-2, 0.9, 0.999, 1e-8, 1e-2));
      return Results{param, avg, avgSq};
    });
  }
}

TEST(VectorBuilds, GradientNorm) {
  for (auto dtype : {torch::kFloat, torch::kDouble}) {
    SCOPED_TRACE(c10::toString(dtype));
    torch::manual_seed(9);
    std::vector<torch::Tensor> params;
    for (int64_t size : {1, 7, 8, 1001}) {
      params.push_back(torch::zeros({size}, dtype));
      params.back().mutable_grad() = torch::randn({size}, dtype) * 30;
    }
    expectBuildsAgree([&] {
      const train::GradClip clip = train::measureGradClip(params, 1.0);
      return Results{torch::tensor(clip.totalNorm, torch::kDouble),
                     torch::tensor(clip.scale, torch::kDouble)};
    });
  }
}
