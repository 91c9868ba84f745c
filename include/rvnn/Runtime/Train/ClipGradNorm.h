#ifndef RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H
#define RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H

#include <vector>

#include <torch/types.h>

namespace rvnn::runtime::train {

/// torch::nn::utils::clip_grad_norm_ with the 2-norm: the gradients of
/// `params` (undefined ones skipped) are scaled in place by
/// maxNorm / (total + 1e-6) when that is below 1; returns the total norm.
/// The squares are summed in double for every gradient, whatever its dtype,
/// layout or device, so that the norm does not depend on them: torch's
/// float32 norm of a large tensor is off by 1e-5 relative or more
/// (bench/TRAINING.md). On the CPU it takes one pass to measure and one to
/// scale only when it clips: ATen's form takes a norm, a stack and a
/// multiplication per parameter every step, which at these models' sizes
/// costs as much as the optimiser's update.
double clipGradNorm(const std::vector<torch::Tensor> &params, double maxNorm);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H
