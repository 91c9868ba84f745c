#ifndef RVNN_RUNTIME_OPS_GATING_H
#define RVNN_RUNTIME_OPS_GATING_H

#include <torch/types.h>

/// Reference (ATen) implementations of the rvnn gating ops
/// (RvnnGatingOps.td).
namespace rvnn::runtime::ops {

/// rvnn.gate: `g⊙newValue + (1-g)⊙oldValue`; `g` broadcasts (e.g. `[N, S, 1]`).
torch::Tensor gate(const torch::Tensor &g, const torch::Tensor &newValue,
                   const torch::Tensor &oldValue);

/// rvnn.cumax: `cumsum(softmax(x, dim), dim)`.
torch::Tensor cumax(const torch::Tensor &x, int64_t dim = -1);

/// cumax's cotangent of `x` for the result's cotangent `dy`.
torch::Tensor cumaxBackward(const torch::Tensor &x, int64_t dim,
                            const torch::Tensor &dy);

/// rvnn.soft_depth_mix (Self-IRU): `σ(alpha⊙deep + (1-alpha)⊙shallow)`;
/// `alpha` broadcasts.
torch::Tensor softDepthMix(const torch::Tensor &alpha,
                           const torch::Tensor &deep,
                           const torch::Tensor &shallow);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_GATING_H
