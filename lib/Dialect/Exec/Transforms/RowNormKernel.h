//===- RowNormKernel.h - Kernels with a layer norm --------------*- C++ -*-===//
//
// The kernel IR of a dispatch whose body holds a layer norm (a row
// reduction) among its elementwise ops (KernelStages.h), for the forward and
// for its compiler-derived backward. Statistics follow ATen's layer norm:
// biased variance of the centred input, rstd = 1 / sqrt(var + epsilon), both
// once per row.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ROWNORMKERNEL_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ROWNORMKERNEL_H

#include "KernelStages.h"

namespace mlir::rvnn::exec {

/// Writes `func.func @K(x..., out...) -> (out...)` at `b`: the layer norm's
/// input (materialised unless it is an input), its row sums and sums of
/// squared deviations, then one elementwise generic of the whole body into
/// the outs.
void emitRowNormKernel(OpBuilder &b, DispatchOp dispatch,
                       const KernelSignature &signature);

/// Writes `func.func @<name>(x..., dy..., dx...) -> (dx...)`: the forward's
/// statistics again, the layer norm's output cotangent (reverse mode over
/// the ops after it), its row sums `Σ dŷ·γ` and `Σ dŷ·γ·x̂`, the row
/// operands' cotangents as column sums, then reverse mode over the whole
/// body with the layer norm's rule `rstd·(dŷ·γ - mean(dŷ·γ) - x̂·mean(dŷ·γ·x̂))`.
void emitRowNormKernelGrad(OpBuilder &b, DispatchOp dispatch,
                           const KernelSignature &signature, StringRef name);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ROWNORMKERNEL_H
