// Gradient collectors: contributions that the compiled backward's vjps hand
// straight to a tensor's collector instead of returning a tensor of its size
// per loop step. GEMM rows become one weight-gradient GEMM for all the steps
// that multiply by a parameter; a slice's window cotangent is added into one
// running gradient of the tensor the loop slices.
#ifndef RVNN_LIB_RUNTIME_EXEC_GRADCOLLECTOR_H
#define RVNN_LIB_RUNTIME_EXEC_GRADCOLLECTOR_H

#include <torch/types.h>

namespace rvnn::runtime {

/// The tensor as one forward pass uses it: a view of `tensor` whose autograd
/// node collects what vjps hand it (deferWeightGrad, windowGrad) and, when
/// autograd reaches it after every use, adds that to the gradient the uses
/// returned. `tensor` itself without gradient recording, when it needs no
/// gradient, or when it already collects.
torch::Tensor collectGrad(const torch::Tensor &tensor);

/// Whether `tensor` comes from collectGrad (vjps can hand its collector
/// their contributions).
bool collectsGrad(const torch::Tensor &tensor);

/// Multiplies out the rows the collector of `tensor` (collectGrad) holds
/// into its running gradient, so that they stop taking memory; nothing for
/// a tensor without one.
void multiplyOutCollected(const torch::Tensor &tensor);

/// For a gemm vjp whose weight gradient is `lhsRowsᵀ · dyRows` (or, with
/// `transposed`, `dyRowsᵀ · lhsRows`): when `weight` comes from collectGrad,
/// the backward is not itself recorded and the rows are smaller than the
/// product (rows·(K + N) < K·N), hands the rows to its collector and returns
/// deferredZero(weight); otherwise an undefined tensor (compute the gradient
/// as usual).
torch::Tensor deferWeightGrad(const torch::Tensor &weight,
                              const torch::Tensor &lhsRows,
                              const torch::Tensor &dyRows, bool transposed);

/// For a gemm vjp whose bias gradient is the column sums of `dyRows`, after
/// deferWeightGrad took those rows: when `bias` is a vector from collectGrad
/// and the backward is not itself recorded, hands the rows to its collector
/// (they are held already: no memory added) and returns deferredZero(bias);
/// otherwise an undefined tensor.
torch::Tensor deferBiasGrad(const torch::Tensor &bias,
                            const torch::Tensor &dyRows);

/// aᵀ · b for row blocks `a` [R, M] and `b` [R, N], a weight gradient's
/// product: by the generated kernels where the build has them
/// (ops::jitProduct takes aᵀ as the view it is), else by the BLAS.
torch::Tensor transposedProduct(const torch::Tensor &a, const torch::Tensor &b);

/// rvnn_exec.shape_witness: zeros in `like`'s shape holding one element.
/// When `like` comes from collectGrad (on the CPU), the witness is tied to
/// its collector (windowGrad).
torch::Tensor shapeWitness(const torch::Tensor &like);

/// A collector's running gradient of a tensor and the deferredZero a vjp
/// that added into it returns for the tensor.
struct WindowGrad {
  torch::Tensor sum;
  torch::Tensor zero;
};

/// When `source` comes from collectGrad, or is a witness tied to a
/// collector, and the backward is not itself recorded: the collector's
/// running gradient of that tensor (zeros at first), for a slice vjp to add
/// its window cotangent into, and the deferredZero it then returns. Otherwise
/// undefined tensors.
WindowGrad windowGrad(const torch::Tensor &source);

/// Zeros in `like`'s shape standing for a contribution a collector adds
/// later. A compiled backward that returns it as an operand's gradient
/// returns no gradient for it.
torch::Tensor deferredZero(const torch::Tensor &like);

/// Whether `grad` is a deferredZero.
bool isDeferredZero(const torch::Tensor &grad);

} // namespace rvnn::runtime

#endif // RVNN_LIB_RUNTIME_EXEC_GRADCOLLECTOR_H
