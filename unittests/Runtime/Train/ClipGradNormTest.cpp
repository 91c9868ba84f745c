#include "rvnn/Runtime/Train/ClipGradNorm.h"

#include <algorithm>
#include <cmath>

#include <torch/nn/utils/clip_grad.h>

#include <gtest/gtest.h>

using namespace rvnn::runtime::train;

namespace {

/// torch::nn::utils::clip_grad_norm_ from the two halves training uses
/// (there the optimiser applies the scale): measure, then scale in place.
double clipGradNorm(const std::vector<torch::Tensor> &params, double maxNorm) {
  const GradClip clip = measureGradClip(params, maxNorm);
  scaleGradients(params, clip.scale);
  return clip.totalNorm;
}

/// Parameters of a few shapes (one without a gradient) whose gradients
/// are `scale` times fixed random values, in `dtype`.
std::vector<torch::Tensor> parameters(torch::ScalarType dtype, double scale) {
  torch::manual_seed(5);
  std::vector<torch::Tensor> params;
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{7, 3}, {11}, {2, 4, 5}, {1}}) {
    torch::Tensor param = torch::randn(shape, dtype).requires_grad_(true);
    param.mutable_grad() = torch::randn(shape, dtype) * scale;
    params.push_back(param);
  }
  params.push_back(torch::randn({3}, dtype).requires_grad_(true));
  return params;
}

/// clipGradNorm against torch::nn::utils::clip_grad_norm_ on copies of the
/// same gradients: the returned norm and every clipped gradient.
void expectSameAsTorch(std::vector<torch::Tensor> ours,
                       std::vector<torch::Tensor> theirs, double maxNorm,
                       double rtol) {
  const double ourNorm = clipGradNorm(ours, maxNorm);
  const double theirNorm = torch::nn::utils::clip_grad_norm_(theirs, maxNorm);
  EXPECT_NEAR(ourNorm, theirNorm, rtol * theirNorm);
  for (size_t i = 0; i < ours.size(); ++i) {
    ASSERT_EQ(ours[i].grad().defined(), theirs[i].grad().defined());
    if (ours[i].grad().defined()) {
      EXPECT_TRUE(torch::allclose(ours[i].grad(), theirs[i].grad(), rtol, 0))
          << "gradient #" << i;
    }
  }
}

/// The 2-norm of the defined gradients of `params`, summed in float64.
double float64Norm(const std::vector<torch::Tensor> &params) {
  double sum = 0;
  for (const torch::Tensor &param : params)
    if (param.grad().defined())
      sum += param.grad().to(torch::kDouble).square().sum().item<double>();
  return std::sqrt(sum);
}

/// Float64 copies (never aliases) of the defined gradients of `params`
/// (undefined ones stay undefined).
std::vector<torch::Tensor>
float64Gradients(const std::vector<torch::Tensor> &params) {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor &param : params)
    grads.push_back(param.grad().defined()
                        ? param.grad().clone().to(torch::kDouble)
                        : torch::Tensor());
  return grads;
}

/// clipGradNorm against the float64 computation: the returned norm is the
/// float64 norm (to `normRtol`) and every gradient was scaled in place, its
/// layout kept, by maxNorm / (norm + 1e-6) when that is below 1 (to
/// `gradRtol`, the gradient's own dtype's rounding).
void expectFloat64Clipping(std::vector<torch::Tensor> &params, double maxNorm,
                           double normRtol, double gradRtol) {
  const double want = float64Norm(params);
  const double coefficient = std::min(1.0, maxNorm / (want + 1e-6));
  const std::vector<torch::Tensor> before = float64Gradients(params);
  std::vector<torch::Tensor> storage;
  for (const torch::Tensor &param : params)
    storage.push_back(param.grad());
  EXPECT_NEAR(clipGradNorm(params, maxNorm), want, normRtol * want);
  for (size_t i = 0; i < params.size(); ++i) {
    ASSERT_EQ(params[i].grad().defined(), before[i].defined());
    if (!before[i].defined())
      continue;
    EXPECT_TRUE(params[i].grad().is_same(storage[i])) << "gradient #" << i;
    EXPECT_TRUE(torch::allclose(params[i].grad().to(torch::kDouble),
                                before[i] * coefficient, gradRtol, 0))
        << "gradient #" << i;
  }
}

} // namespace

TEST(ClipGradNorm, ClipsLikeTorchInFloatAndDouble) {
  for (torch::ScalarType dtype : {torch::kFloat, torch::kDouble}) {
    const double rtol = dtype == torch::kFloat ? 1e-6 : 1e-12;
    // Total norm about 50: clipped to 1.
    expectSameAsTorch(parameters(dtype, 6.0), parameters(dtype, 6.0), 1.0,
                      rtol);
  }
}

TEST(ClipGradNorm, LeavesGradientsBelowTheBoundUntouched) {
  std::vector<torch::Tensor> params = parameters(torch::kFloat, 1e-3);
  std::vector<torch::Tensor> before;
  for (const torch::Tensor &param : params)
    before.push_back(param.grad().defined() ? param.grad().clone()
                                            : torch::Tensor());
  const double norm = clipGradNorm(params, 1.0);
  EXPECT_GT(norm, 0);
  EXPECT_LT(norm, 1.0);
  for (size_t i = 0; i < params.size(); ++i) {
    if (before[i].defined()) {
      EXPECT_TRUE(torch::equal(params[i].grad(), before[i]));
    }
  }
}

TEST(ClipGradNorm, NonContiguousGradientsAreMeasuredAndClippedInPlace) {
  std::vector<torch::Tensor> params = parameters(torch::kFloat, 6.0);
  params[0].mutable_grad() = params[0].grad().t().contiguous().t();
  params[2].mutable_grad() = (torch::randn({2, 8, 5}) * 6.0).slice(1, 0, 8, 2);
  ASSERT_FALSE(params[0].grad().is_contiguous());
  ASSERT_FALSE(params[2].grad().is_contiguous());
  expectFloat64Clipping(params, 1.0, 1e-12, 1e-6);
  EXPECT_FALSE(params[0].grad().is_contiguous());
}

TEST(ClipGradNorm, MixedDtypesShareOneFloat64Norm) {
  std::vector<torch::Tensor> params = parameters(torch::kFloat, 6.0);
  params[1].mutable_grad() = params[1].grad().to(torch::kDouble);
  params[3].mutable_grad() = params[3].grad().to(torch::kHalf);
  expectFloat64Clipping(params, 1.0, 1e-12, 1e-3);
}

TEST(ClipGradNorm, UndefinedGradientsAreSkipped) {
  std::vector<torch::Tensor> params = parameters(torch::kFloat, 6.0);
  params[0].mutable_grad() = torch::Tensor();
  expectFloat64Clipping(params, 1.0, 1e-12, 1e-6);

  std::vector<torch::Tensor> none = {torch::ones({2}).requires_grad_(true)};
  EXPECT_EQ(clipGradNorm(none, 1.0), 0.0);
  EXPECT_FALSE(none[0].grad().defined());
  EXPECT_EQ(clipGradNorm({}, 1.0), 0.0);
}

// torch 1.13's float32 norm of a large CPU tensor sums in float32 and drifts
// (bench/TRAINING.md: FastTrees' gradients, 2e-5 relative); the norm summed
// in float64 is what both sides of the recipe check clip with.
TEST(ClipGradNorm, LargeFloatGradientsKeepFloat64Accuracy) {
  torch::Tensor param = torch::zeros({800, 800}).requires_grad_(true);
  param.mutable_grad() = torch::full({800, 800}, 0.1f);
  const double want = 800 * static_cast<double>(0.1f);
  const double torchError =
      std::abs(param.grad().norm().item<double>() - want) / want;
  ASSERT_GT(torchError, 1e-5)
      << "torch's float32 norm is accurate here: the case tells nothing";
  std::vector<torch::Tensor> params = {param};
  EXPECT_NEAR(float64Norm(params), want, 1e-15 * want);
  expectFloat64Clipping(params, 1.0, 1e-12, 1e-6);
}
