#ifndef RVNN_RUNTIME_TRAIN_RADAMUPDATE_H
#define RVNN_RUNTIME_TRAIN_RADAMUPDATE_H

#include <torch/types.h>

namespace rvnn::runtime::train {

/// The scalars of one RAdam step of one parameter (its step count t).
struct RAdamStepScalars {
  double lr = 0, beta1 = 0, beta2 = 0, eps = 0, weightDecay = 0;
  /// 1 - beta1^t and 1 - beta2^t.
  double biasCorrection1 = 0, biasCorrection2 = 0;
  /// Whether the adaptive rate is used (rho_t > 5), and its rectification.
  bool rectified = false;
  double rectification = 0;
  /// The factor the gradient is multiplied by first (gradient clipping),
  /// rounded to the element type as ATen's in-place multiplication does.
  double gradScale = 1;

  /// The scalars of step t (>= 1).
  static RAdamStepScalars at(int64_t step, double lr, double beta1,
                             double beta2, double eps, double weightDecay);
};

/// One RAdam update in place: `avg`, `avgSq` (the moments) and `param` from
/// `grad`, with torch.optim.RAdam's operations in its order. CPU tensors of
/// one floating dtype, all contiguous: one pass over the elements (the ATen
/// form takes ten passes and five temporaries, which at the sizes of these
/// models costs as much as the backward's elementwise work). Anything else:
/// radamUpdateAten.
void radamUpdate(torch::Tensor &param, const torch::Tensor &grad,
                 torch::Tensor &avg, torch::Tensor &avgSq,
                 const RAdamStepScalars &scalars);

/// The same update as ATen tensor operations (any device); the oracle of
/// radamUpdate's tests.
void radamUpdateAten(torch::Tensor &param, const torch::Tensor &grad,
                     torch::Tensor &avg, torch::Tensor &avgSq,
                     const RAdamStepScalars &scalars);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_RADAMUPDATE_H
