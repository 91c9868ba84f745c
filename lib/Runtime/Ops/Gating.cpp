#include "rvnn/Runtime/Ops/Gating.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>

namespace rvnn::runtime::ops {

namespace {

/// Gates up to this many elements are checked for being all open or all
/// shut on the CPU (a mask per row or per position; larger ones are gate
/// values the model computes).
constexpr int64_t kCheckedGateSize = 4096;

/// Whether every element of `g` equals `value`: a scan of its elements, not
/// the three ATen dispatches and two allocations of eq, all and item, which
/// cost more than the gate they save at batch 1.
bool everyElementIs(const torch::Tensor &g, double value) {
  const torch::Tensor dense = g.contiguous();
  bool result = true;
  AT_DISPATCH_ALL_TYPES_AND(torch::kBool, dense.scalar_type(), "gate", [&] {
    const scalar_t *data = dense.data_ptr<scalar_t>();
    const auto wanted = static_cast<scalar_t>(value);
    result = std::all_of(data, data + dense.numel(),
                         [&](scalar_t x) { return x == wanted; });
  });
  return result;
}

/// The side a gate of constant `g` passes through unchanged, if it does:
/// newValue where every weight is 1, oldValue where every weight is 0.
/// Batch-1 recursions gate finished rows by their mask, and have none
/// before the last step.
std::optional<torch::Tensor> passedThrough(const torch::Tensor &g,
                                           const torch::Tensor &newValue,
                                           const torch::Tensor &oldValue) {
  if (!g.device().is_cpu() || g.requires_grad() || g.numel() > kCheckedGateSize)
    return std::nullopt;
  const std::vector<int64_t> shape = at::infer_size(
      at::infer_size(g.sizes(), newValue.sizes()), oldValue.sizes());
  if (newValue.sizes() == shape && everyElementIs(g, 1))
    return newValue;
  if (oldValue.sizes() == shape && everyElementIs(g, 0))
    return oldValue;
  return std::nullopt;
}

} // namespace

torch::Tensor gate(const torch::Tensor &g, const torch::Tensor &newValue,
                   const torch::Tensor &oldValue) {
  if (std::optional<torch::Tensor> side = passedThrough(g, newValue, oldValue))
    return *side;
  // One pass instead of four; ATen's lerp returns either end exactly for a
  // weight of 0 or 1.
  return at::lerp(oldValue, newValue, g);
}

torch::Tensor cumax(const torch::Tensor &x, int64_t dim) {
  return at::softmax(x, dim).cumsum(dim);
}

torch::Tensor cumaxBackward(const torch::Tensor &x, int64_t dim,
                            const torch::Tensor &dy) {
  const torch::Tensor probs = at::softmax(x, dim);
  // A cumulative sum's cotangent is the reverse cumulative sum: entry k
  // reaches every output at or after k.
  const torch::Tensor dProbs = dy.flip(dim).cumsum(dim).flip(dim);
  return at::_softmax_backward_data(dProbs, probs, dim, probs.scalar_type());
}

torch::Tensor softDepthMix(const torch::Tensor &alpha,
                           const torch::Tensor &deep,
                           const torch::Tensor &shallow) {
  return at::sigmoid(alpha * deep + (1 - alpha) * shallow);
}

} // namespace rvnn::runtime::ops
