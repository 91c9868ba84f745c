#ifndef RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H
#define RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H

#include <vector>

#include <torch/types.h>

namespace rvnn::runtime::train {

/// torch::nn::utils::clip_grad_norm_ with the 2-norm: the gradients of
/// `params` (undefined ones skipped) are scaled in place by
/// maxNorm / (total + 1e-6) when that is below 1; returns the total norm.
/// For CPU gradients of one floating dtype, all contiguous, it takes one pass
/// to measure (squares summed in double) and one to scale only when it
/// clips: ATen's form takes a norm, a stack and a multiplication per
/// parameter every step, which at these models' sizes costs as much as the
/// optimiser's update. Anything else: torch::nn::utils::clip_grad_norm_.
double clipGradNorm(const std::vector<torch::Tensor> &params, double maxNorm);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H
