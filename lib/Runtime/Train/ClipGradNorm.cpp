#include "rvnn/Runtime/Train/ClipGradNorm.h"

#include <cmath>
#include <optional>

#include <torch/nn/utils/clip_grad.h>

namespace rvnn::runtime::train {
namespace {

/// Sum of squares in double. Independent partial sums, so that the loop
/// vectorises without reassociating floating-point additions (-ffast-math).
template <typename T> double sumOfSquares(const T *__restrict data, int64_t n) {
  constexpr int64_t kLanes = 8;
  double lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j)
      lanes[j] += static_cast<double>(data[i + j]) * data[i + j];
  double sum = 0;
  for (; i < n; ++i)
    sum += static_cast<double>(data[i]) * data[i];
  for (double lane : lanes)
    sum += lane;
  return sum;
}

/// The defined gradients of `params` when the fast form applies to them.
std::optional<std::vector<torch::Tensor>>
fastGradients(const std::vector<torch::Tensor> &params) {
  std::vector<torch::Tensor> grads;
  for (const torch::Tensor &param : params) {
    const torch::Tensor &grad = param.grad();
    if (!grad.defined())
      continue;
    if (!grad.device().is_cpu() || !grad.is_contiguous() ||
        (grad.scalar_type() != torch::kFloat &&
         grad.scalar_type() != torch::kDouble) ||
        (!grads.empty() && grad.scalar_type() != grads[0].scalar_type()))
      return std::nullopt;
    grads.push_back(grad);
  }
  return grads;
}

} // namespace

double clipGradNorm(const std::vector<torch::Tensor> &params, double maxNorm) {
  std::optional<std::vector<torch::Tensor>> grads = fastGradients(params);
  if (!grads)
    return torch::nn::utils::clip_grad_norm_(params, maxNorm);
  double sum = 0;
  for (const torch::Tensor &grad : *grads)
    AT_DISPATCH_FLOATING_TYPES(grad.scalar_type(), "clipGradNorm", [&] {
      sum += sumOfSquares(grad.data_ptr<scalar_t>(), grad.numel());
    });
  const double total = std::sqrt(sum);
  const double coefficient = maxNorm / (total + 1e-6);
  if (coefficient < 1) {
    torch::NoGradGuard noGrad;
    for (torch::Tensor &grad : *grads)
      grad.mul_(coefficient);
  }
  return total;
}

} // namespace rvnn::runtime::train
