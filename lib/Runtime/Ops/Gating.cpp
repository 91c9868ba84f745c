#include "rvnn/Runtime/Ops/Gating.h"

namespace rvnn::runtime::ops {

torch::Tensor gate(const torch::Tensor &g, const torch::Tensor &newValue,
                   const torch::Tensor &oldValue) {
  // One pass instead of four; ATen's lerp returns either end exactly for a
  // weight of 0 or 1 (the masks that gate most of the time).
  return at::lerp(oldValue, newValue, g);
}

torch::Tensor cumax(const torch::Tensor &x, int64_t dim) {
  return at::softmax(x, dim).cumsum(dim);
}

torch::Tensor softDepthMix(const torch::Tensor &alpha,
                           const torch::Tensor &deep,
                           const torch::Tensor &shallow) {
  return at::sigmoid(alpha * deep + (1 - alpha) * shallow);
}

} // namespace rvnn::runtime::ops
