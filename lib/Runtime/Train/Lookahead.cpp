#include "rvnn/Runtime/Train/Lookahead.h"

#include <stdexcept>
#include <string>

#include <torch/serialize/archive.h>
#include <torch/types.h>

#include "StateIO.h"

namespace rvnn::runtime::train {

Lookahead::Lookahead(torch::optim::Optimizer &inner, LookaheadOptions options)
    : inner_(inner), options_(options) {
  if (options.k < 1 || !(options.alpha > 0 && options.alpha <= 1))
    throw std::invalid_argument(
        "lookahead: k must be >= 1 and alpha in (0, 1]");
  torch::NoGradGuard noGrad;
  for (const auto &group : inner.param_groups()) {
    for (const auto &param : group.params()) {
      fast_.push_back(param);
      slow_.push_back(param.detach().clone());
    }
  }
}

void Lookahead::step() {
  inner_.step();
  if (++fastSteps_ < options_.k)
    return;
  fastSteps_ = 0;
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < fast_.size(); ++i) {
    // slow + alpha (fast - slow) in one pass, without a temporary.
    slow_[i].lerp_(fast_[i], options_.alpha);
    fast_[i].copy_(slow_[i]);
  }
}

void Lookahead::save(torch::serialize::OutputArchive &archive) const {
  archive.write("fast_steps", c10::IValue(fastSteps_));
  archive.write("params", c10::IValue(static_cast<int64_t>(slow_.size())));
  for (size_t i = 0; i < slow_.size(); ++i)
    archive.write("slow/" + std::to_string(i), slow_[i], /*is_buffer=*/true);
}

void Lookahead::load(torch::serialize::InputArchive &archive) {
  const int64_t saved = readInt(archive, "params", "lookahead state: 'params'");
  if (saved != static_cast<int64_t>(fast_.size()))
    throw std::runtime_error("lookahead state has " + std::to_string(saved) +
                             " slow weights, the optimiser " +
                             std::to_string(fast_.size()) + " parameters");
  const int64_t fastSteps =
      readInt(archive, "fast_steps", "lookahead state: 'fast_steps'");
  if (fastSteps < 0 || fastSteps >= options_.k)
    throw std::runtime_error("lookahead state: fast_steps " +
                             std::to_string(fastSteps) + " is not below k " +
                             std::to_string(options_.k));
  std::vector<torch::Tensor> slow;
  for (size_t i = 0; i < fast_.size(); ++i)
    slow.push_back(
        readStateLike(archive, "slow/" + std::to_string(i), fast_[i],
                      "lookahead slow weight #" + std::to_string(i)));
  slow_ = std::move(slow);
  fastSteps_ = fastSteps;
}

} // namespace rvnn::runtime::train
