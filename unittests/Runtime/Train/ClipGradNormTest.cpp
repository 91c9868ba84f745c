#include "rvnn/Runtime/Train/ClipGradNorm.h"

#include <torch/nn/utils/clip_grad.h>

#include <gtest/gtest.h>

using namespace rvnn::runtime::train;

namespace {

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

TEST(ClipGradNorm, NonContiguousGradientsTakeTorchsForm) {
  std::vector<torch::Tensor> ours = parameters(torch::kFloat, 6.0);
  std::vector<torch::Tensor> theirs = parameters(torch::kFloat, 6.0);
  for (std::vector<torch::Tensor> *params : {&ours, &theirs})
    (*params)[0].mutable_grad() = (*params)[0].grad().t().contiguous().t();
  ASSERT_FALSE(ours[0].grad().is_contiguous());
  expectSameAsTorch(ours, theirs, 1.0, 1e-6);
}
