#ifndef RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H
#define RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H

#include <vector>

#include <torch/types.h>

namespace rvnn::runtime::train {

/// The clipping of one step, as torch::nn::utils::clip_grad_norm_ with the
/// 2-norm decides it: the total norm of the defined gradients, and the factor
/// they are scaled by, maxNorm / (total + 1e-6) when that is below 1, else 1.
struct GradClip {
  double totalNorm = 0;
  double scale = 1;
};

/// Measures the clipping of `params`' gradients (undefined ones skipped)
/// without scaling them: the optimiser applies the scale as it reads them
/// (Optimiser::step), which saves a pass over every gradient. The squares
/// are summed in double for every gradient, whatever its dtype, layout or
/// device, so that the norm does not depend on them: torch's float32 norm of
/// a large tensor is off by 1e-5 relative or more (bench/TRAINING.md). On
/// the CPU it is one pass: ATen's form takes a norm, a stack and a
/// multiplication per parameter every step, which at these models' sizes
/// costs as much as the optimiser's update.
GradClip measureGradClip(const std::vector<torch::Tensor> &params,
                         double maxNorm);

/// Multiplies the defined gradients of `params` in place by `scale` (as
/// clip_grad_norm_ does, in their element type); nothing when it is 1.
void scaleGradients(const std::vector<torch::Tensor> &params, double scale);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_CLIPGRADNORM_H
