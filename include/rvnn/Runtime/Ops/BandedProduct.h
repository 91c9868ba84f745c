#ifndef RVNN_RUNTIME_OPS_BANDEDPRODUCT_H
#define RVNN_RUNTIME_OPS_BANDEDPRODUCT_H

#include <torch/types.h>

namespace rvnn::runtime::ops {

/// The dense `[B, M, K]` indicator (of `options`) of a band `[B, M, 2]` of
/// column ranges `[lo, hi)`.
torch::Tensor bandIndicator(const torch::Tensor &band, int64_t columns,
                            const torch::TensorOptions &options);

/// rvnn_exec.gemm with a band: `(lhs ⊙ band) · rhs`, plus `accumulator`
/// (broadcast) when defined; `lhs` `[B, M, K]`, `rhs` `[B, K, N]`. On the CPU
/// (float or double, autograd not recording) one pass over the band of each
/// row, reading nothing of `lhs` outside it, unless the band covers more than
/// 30% of `lhs`; otherwise ATen on the masked `lhs` (differentiable). Throws
/// when a range of `band` is not within lhs's columns.
torch::Tensor bandedProduct(const torch::Tensor &lhs, const torch::Tensor &band,
                            const torch::Tensor &rhs,
                            const torch::Tensor &accumulator = {});

/// The cotangents of bandedProduct's `lhs` (zero outside the band) and `rhs`
/// for the result's cotangent `dy`, each undefined unless wanted.
std::pair<torch::Tensor, torch::Tensor>
bandedProductBackward(const torch::Tensor &lhs, const torch::Tensor &band,
                      const torch::Tensor &rhs, const torch::Tensor &dy,
                      bool lhsWanted, bool rhsWanted);

/// The multiply-adds of bandedProduct: N times the band's total width.
double bandedProductMultiplyAdds(const torch::Tensor &lhs,
                                 const torch::Tensor &band,
                                 const torch::Tensor &rhs);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_BANDEDPRODUCT_H
