//===- Rematerialize.h - Recompute cheap residuals in backward --*- C++ -*-===//
//
// Part of rvnn-exec-differentiate: which primal values the backward reads
// are kept (residuals) and which it recomputes.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_REMATERIALIZE_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_REMATERIALIZE_H

#include "rvnn/Dialect/Exec/IR/ExecOps.h"

namespace mlir::rvnn::exec {

/// Recomputes at the start of `backward` every primal value it reads that
/// elementwise ops, fused dispatches of them and concatenations compute from
/// other values it reads anyway: such a value then costs one pass instead of
/// a residual as large as itself (a GRC cell's gelu(pre)·mask, its gate sum
/// and the concatenated children). Nothing that draws random numbers is
/// recomputed, and no value becomes a residual that was not one already.
void rematerializeElementwise(FuncOp backward);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_REMATERIALIZE_H
