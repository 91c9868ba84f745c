#ifndef RVNN_RUNTIME_TRAIN_RADAM_H
#define RVNN_RUNTIME_TRAIN_RADAM_H

#include <tuple>
#include <vector>

#include <torch/arg.h>
#include <torch/optim/optimizer.h>

namespace rvnn::runtime::train {

/// Hyperparameters of RAdam; defaults are torch.optim.RAdam's.
struct RAdamOptions
    : public torch::optim::OptimizerCloneableOptions<RAdamOptions> {
  RAdamOptions(double lr = 1e-3) : lr_(lr) {}
  TORCH_ARG(double, lr);
  using betas_t = std::tuple<double, double>;
  TORCH_ARG(betas_t, betas) = std::make_tuple(0.9, 0.999);
  TORCH_ARG(double, eps) = 1e-8;
  /// L2 penalty added to the gradient (torch.optim.RAdam's default,
  /// non-decoupled weight decay).
  TORCH_ARG(double, weight_decay) = 0;

public:
  double get_lr() const override { return lr(); }
  void set_lr(const double lr) override { this->lr(lr); }
};

/// Per-parameter moments of RAdam.
struct RAdamParamState
    : public torch::optim::OptimizerCloneableParamState<RAdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(torch::Tensor, exp_avg);
  TORCH_ARG(torch::Tensor, exp_avg_sq);
};

/// Rectified Adam (Liu et al. 2020, "On the Variance of the Adaptive Learning
/// Rate and Beyond"), step for step the update of torch.optim.RAdam: Adam's
/// moments, and while the variance of the adaptive rate is intractable
/// (rho_t <= 5, the first five steps) a bias-corrected momentum step without
/// the adaptive denominator. LibTorch ships no RAdam.
class RAdam : public torch::optim::Optimizer {
public:
  explicit RAdam(std::vector<torch::Tensor> params, RAdamOptions options = {});

  torch::Tensor step(LossClosure closure = nullptr) override;

  /// Has the next step() multiply every gradient by `scale` as it reads it
  /// (gradient clipping) instead of a pass that scales them in place first;
  /// the update is the same, bit for bit.
  void scaleNextGradients(double scale) { gradScale_ = scale; }

  /// Writes every parameter's step and moments, keyed by the parameter's
  /// position across the parameter groups.
  void save(torch::serialize::OutputArchive &archive) const override;
  /// Reads what save() wrote; throws std::runtime_error when the number of
  /// parameters or a moment's shape or dtype does not match, leaving the
  /// current state untouched.
  void load(torch::serialize::InputArchive &archive) override;

private:
  double gradScale_ = 1;
};

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_RADAM_H
