// Tensors of zeros or ones as broadcasts of one element: a deferred zero
// gradient, an evaluation-mode dropout mask. They take no memory of their
// size, ops can recognise them (a product with ones is its other operand),
// and a generated kernel reads one row of them that is made once.
#ifndef RVNN_RUNTIME_OPS_CONSTANTELEMENTS_H
#define RVNN_RUNTIME_OPS_CONSTANTELEMENTS_H

#include <torch/types.h>

namespace rvnn::runtime::ops {

enum class Constant { Zero, One };

/// `constant` in `like`'s dtype and device, broadcast to `sizes`: a view of
/// one element that lives as long as the process and is never written.
torch::Tensor broadcastConstant(Constant constant, const torch::Tensor &like,
                                at::IntArrayRef sizes);

/// Whether `tensor` is a broadcastConstant of `constant`.
bool isBroadcastConstant(const torch::Tensor &tensor, Constant constant);

/// A contiguous row of `length` elements of `constant` in `tensor`'s dtype
/// and device, made once per length and kept: for a kernel operand that is
/// a broadcastConstant (kernels read their innermost dim contiguously).
/// Undefined when `tensor` is no broadcastConstant.
torch::Tensor constantRow(const torch::Tensor &tensor, int64_t length);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_CONSTANTELEMENTS_H
