#include "rvnn/Runtime/Train/RAdam.h"
#include "rvnn/Runtime/Train/RAdamUpdate.h"

#include <memory>
#include <stdexcept>
#include <string>

#include <torch/serialize/archive.h>
#include <torch/types.h>

#include "StateIO.h"
#include "StateKey.h"

namespace rvnn::runtime::train {

RAdam::RAdam(std::vector<torch::Tensor> params, RAdamOptions options)
    : torch::optim::Optimizer(
          {torch::optim::OptimizerParamGroup(std::move(params))},
          std::make_unique<RAdamOptions>(options)) {
  auto [beta1, beta2] = options.betas();
  if (!(options.lr() >= 0) || !(options.eps() >= 0) ||
      !(options.weight_decay() >= 0) || !(beta1 >= 0 && beta1 < 1) ||
      !(beta2 >= 0 && beta2 < 1))
    throw std::invalid_argument(
        "radam: lr, eps and weight_decay must be >= 0 and betas in [0, 1)");
}

torch::Tensor RAdam::step(LossClosure closure) {
  torch::NoGradGuard noGrad;
  torch::Tensor loss;
  if (closure) {
    torch::AutoGradMode enableGrad(true);
    loss = closure();
  }
  for (auto &group : param_groups_) {
    const auto &options = static_cast<const RAdamOptions &>(group.options());
    const auto [beta1, beta2] = options.betas();
    for (auto &param : group.params()) {
      if (!param.grad().defined())
        continue;
      auto &slot = state_[optimizerStateKey(param)];
      if (!slot) {
        auto fresh = std::make_unique<RAdamParamState>();
        fresh->exp_avg(torch::zeros_like(param, at::MemoryFormat::Preserve));
        fresh->exp_avg_sq(torch::zeros_like(param, at::MemoryFormat::Preserve));
        slot = std::move(fresh);
      }
      auto &state = static_cast<RAdamParamState &>(*slot);
      state.step(state.step() + 1);
      torch::Tensor data = param.detach();
      RAdamStepScalars scalars =
          RAdamStepScalars::at(state.step(), options.lr(), beta1, beta2,
                               options.eps(), options.weight_decay());
      scalars.gradScale = gradScale_;
      radamUpdate(data, param.grad(), state.exp_avg(), state.exp_avg_sq(),
                  scalars);
    }
  }
  gradScale_ = 1;
  return loss;
}

void RAdam::save(torch::serialize::OutputArchive &archive) const {
  int64_t index = 0;
  for (const auto &group : param_groups_) {
    for (const auto &param : group.params()) {
      auto found = state_.find(optimizerStateKey(param));
      if (found != state_.end()) {
        const auto &state =
            static_cast<const RAdamParamState &>(*found->second);
        const std::string suffix = "/" + std::to_string(index);
        archive.write("step" + suffix, c10::IValue(state.step()));
        archive.write("exp_avg" + suffix, state.exp_avg(), /*is_buffer=*/true);
        archive.write("exp_avg_sq" + suffix, state.exp_avg_sq(),
                      /*is_buffer=*/true);
      }
      ++index;
    }
  }
  archive.write("params", c10::IValue(index));
}

void RAdam::load(torch::serialize::InputArchive &archive) {
  const int64_t saved = readInt(archive, "params", "radam state: 'params'");
  int64_t count = 0;
  for (const auto &group : param_groups_)
    count += static_cast<int64_t>(group.params().size());
  if (saved != count)
    throw std::runtime_error("radam state has " + std::to_string(saved) +
                             " parameters, the optimiser " +
                             std::to_string(count));

  decltype(state_) loaded;
  int64_t index = 0;
  for (const auto &group : param_groups_) {
    for (const auto &param : group.params()) {
      const std::string suffix = "/" + std::to_string(index);
      const std::string what =
          "radam state of parameter #" + std::to_string(index);
      c10::IValue step;
      if (archive.try_read("step" + suffix, step)) {
        auto state = std::make_unique<RAdamParamState>();
        state->step(step.toInt());
        state->exp_avg(readStateLike(archive, "exp_avg" + suffix, param,
                                     what + " exp_avg"));
        state->exp_avg_sq(readStateLike(archive, "exp_avg_sq" + suffix, param,
                                        what + " exp_avg_sq"));
        loaded[optimizerStateKey(param)] = std::move(state);
      }
      ++index;
    }
  }
  state_ = std::move(loaded);
}

} // namespace rvnn::runtime::train
