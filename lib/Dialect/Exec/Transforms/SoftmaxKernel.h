//===- SoftmaxKernel.h - Kernels with a softmax -----------------*- C++ -*-===//
//
// The kernel IR of a dispatch whose body holds a softmax or a masked
// softmax along the last dim (a row reduction) among its elementwise ops
// (KernelStages.h), for the forward and for its compiler-derived backward.
// Statistics follow ATen's softmax: the row max, then exp(x - max) summed,
// its reciprocal applied to each exp.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_SOFTMAXKERNEL_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_SOFTMAXKERNEL_H

#include "KernelStages.h"

namespace mlir::rvnn::exec {

/// Writes `func.func @K(x..., out...) -> (out...)` at `b`: the softmax's
/// operands (materialised unless they are inputs), the row max, the
/// reciprocal of the row sum of exp(x - max) (and, masked, the sum of the
/// masked probabilities), then one elementwise generic of the whole body
/// into the outs.
void emitSoftmaxKernel(OpBuilder &b, DispatchOp dispatch,
                       const KernelSignature &signature);

/// Writes `func.func @<name>(x..., dy..., dx...) -> (dx...)`: the forward's
/// statistics again, the softmax output's cotangent dp (reverse mode over
/// the ops after it), its row sums, then reverse mode over the whole body
/// with softmax's rule `s·(dp - Σ dp·s)`, or masked_softmax's
/// (ops::maskedSoftmaxBackward in the runtime, its closed form included).
void emitSoftmaxKernelGrad(OpBuilder &b, DispatchOp dispatch,
                           const KernelSignature &signature, StringRef name);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_SOFTMAXKERNEL_H
