#ifndef RVNN_RUNTIME_TRAIN_OPTIMISER_H
#define RVNN_RUNTIME_TRAIN_OPTIMISER_H

#include <memory>
#include <string>
#include <vector>

#include "rvnn/Runtime/Train/Lookahead.h"
#include "rvnn/Runtime/Train/OptimiserConfig.h"

namespace rvnn::runtime::train {

/// The optimiser a training run uses, built from an OptimiserConfig: LibTorch's
/// Adam or AdamW, or RAdam, optionally wrapped in Lookahead. Gives the trainer
/// and the scheduler one learning rate to read and set, and one state to
/// checkpoint.
class Optimiser {
public:
  /// Throws std::invalid_argument for an unknown name or a bad
  /// hyperparameter.
  Optimiser(std::vector<torch::Tensor> params, const OptimiserConfig &config);

  const std::string &name() const { return name_; }
  /// Drops the gradients, so that backward stores each parameter's gradient
  /// instead of adding it to zeros. The update is still the one of zeroed
  /// gradients: step() gives a parameter that had a gradient and got none
  /// since a zero one.
  void zeroGrad();
  /// One update from the gradients multiplied by `gradScale` (gradient
  /// clipping, measureGradClip): RAdam applies it as it reads them; the
  /// others get the gradients scaled in place first.
  void step(double gradScale = 1);
  double lr() const;
  void setLr(double lr);

  /// The optimiser that updates the parameters every step (inside Lookahead
  /// when there is one).
  torch::optim::Optimizer &base() { return *base_; }
  /// Null unless the name ends in "_lookahead".
  const Lookahead *lookahead() const { return lookahead_.get(); }

  /// Writes the name, the learning rate, the base optimiser's state (moments,
  /// step counters) and the Lookahead state.
  void save(torch::serialize::OutputArchive &archive) const;
  /// Reads what save() wrote; throws std::runtime_error when the saved
  /// optimiser is a different one or its state does not fit the parameters.
  void load(torch::serialize::InputArchive &archive);

private:
  std::string name_;
  std::unique_ptr<torch::optim::Optimizer> base_;
  std::unique_ptr<Lookahead> lookahead_;
  /// The parameters whose gradients the last zeroGrad() dropped.
  std::vector<torch::Tensor> zeroedGrads_;
};

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_OPTIMISER_H
