#include "rvnn/Runtime/Train/Lookahead.h"

#include <stdexcept>
#include <string>

#include <torch/serialize/archive.h>
#include <torch/types.h>

#include "StateIO.h"
#include "rvnn/Runtime/VectorClones.h"

#include <ATen/Dispatch.h>

#include <cmath>

namespace rvnn::runtime::train {
namespace {

/// slow += weight (fast - slow), then fast = slow, in one pass: lerp_'s
/// formula (from the slow end for a weight below 0.5, else from the fast
/// end), each operation rounded, as the baseline build and the AVX2 one
/// both compute it. (ATen's own vectorised builds fuse the multiply-add, so
/// lerp_ itself rounds differently from machine to machine.)
template <typename T>
RVNN_ALWAYS_INLINE void syncBody(T *__restrict slow, T *__restrict fast,
                                 int64_t n, T weight) {
  if (std::abs(weight) < T(0.5)) {
    for (int64_t i = 0; i < n; ++i)
      fast[i] = slow[i] = slow[i] + weight * (fast[i] - slow[i]);
  } else {
    const T fromFast = T(1) - weight;
    for (int64_t i = 0; i < n; ++i)
      fast[i] = slow[i] = fast[i] - (fast[i] - slow[i]) * fromFast;
  }
}

/// syncBody built for AVX2 (VectorClones.h).
template <typename T>
RVNN_TARGET_AVX2 void syncAvx2(T *slow, T *fast, int64_t n, T weight) {
  syncBody(slow, fast, n, weight);
}

/// The sync of one parameter: one pass over contiguous CPU weights of one
/// floating dtype (ATen's lerp_ and copy_ took two: about 0.6 ms for
/// BBT-GRC's 430k weights, a tenth of a step at batch 1 every k steps),
/// else ATen's ops with the same rounding.
void sync(torch::Tensor &slow, torch::Tensor &fast, double alpha) {
  const bool onePass = slow.device().is_cpu() && fast.device().is_cpu() &&
                       slow.is_contiguous() && fast.is_contiguous() &&
                       slow.scalar_type() == fast.scalar_type() &&
                       slow.sizes() == fast.sizes() &&
                       (slow.scalar_type() == torch::kFloat ||
                        slow.scalar_type() == torch::kDouble);
  if (!onePass) {
    // The weight in the element type, as in the loop.
    const torch::Tensor weight = torch::scalar_tensor(alpha, slow.options());
    const torch::Tensor step = fast - slow;
    if (std::abs(alpha) < 0.5)
      slow.add_(step.mul_(weight));
    else
      slow.copy_(fast - step.mul_(1 - weight));
    fast.copy_(slow);
    return;
  }
  AT_DISPATCH_FLOATING_TYPES(slow.scalar_type(), "lookaheadSync", [&] {
    // ATen rounds a scalar weight to the element type.
    const auto weight = static_cast<scalar_t>(alpha);
    scalar_t *slowData = slow.data_ptr<scalar_t>();
    scalar_t *fastData = fast.data_ptr<scalar_t>();
    if (useAvx2Builds())
      syncAvx2(slowData, fastData, slow.numel(), weight);
    else
      syncBody(slowData, fastData, slow.numel(), weight);
  });
}

} // namespace

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
  for (size_t i = 0; i < fast_.size(); ++i)
    sync(slow_[i], fast_[i], options_.alpha);
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
