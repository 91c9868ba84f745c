// Deferred weight gradients: one GEMM per parameter for all the loop steps
// that multiply by it, instead of one [K, N] product per step.
#ifndef RVNN_LIB_RUNTIME_EXEC_DEFERREDWEIGHTGRAD_H
#define RVNN_LIB_RUNTIME_EXEC_DEFERREDWEIGHTGRAD_H

#include <torch/types.h>

namespace rvnn::runtime {

/// The parameter as the forward pass uses it: a view of `param` whose
/// autograd node (one per forward pass) collects the GEMM operands that
/// gemm vjps hand it (deferWeightGrad) and, when autograd reaches it after
/// every use, adds their product to the gradient the uses returned. Without
/// gradient recording, `param` itself.
torch::Tensor collectWeightGrad(const torch::Tensor &param);

/// For a gemm vjp whose weight gradient is `lhsRowsᵀ · dyRows` (or, with
/// `transposed`, `dyRowsᵀ · lhsRows`): when `weight` comes from
/// collectWeightGrad, the backward is not itself recorded and the rows are
/// smaller than the product (rows·(K + N) < K·N), hands the rows to its
/// collector and returns a deferred zero (isDeferredZero); otherwise an
/// undefined tensor (compute the gradient as usual).
torch::Tensor deferWeightGrad(const torch::Tensor &weight,
                              const torch::Tensor &lhsRows,
                              const torch::Tensor &dyRows, bool transposed);

/// Whether `grad` is the placeholder deferWeightGrad returns: zeros (a
/// broadcast of one element) standing for a contribution the collector adds
/// later. A compiled backward that returns it as an operand's gradient
/// returns no gradient for it.
bool isDeferredZero(const torch::Tensor &grad);

} // namespace rvnn::runtime

#endif // RVNN_LIB_RUNTIME_EXEC_DEFERREDWEIGHTGRAD_H
