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

/// What a backward recomputes instead of keeping.
enum class Recomputable {
  /// Whatever elementwise ops, fused dispatches of them and concatenations
  /// compute: a loop whose body runs over its whole state every step
  /// (`recurse`), where memory would otherwise grow with every step's
  /// temporaries.
  elementwise,
  /// The same, except values that take a transcendental function per
  /// element (gelu, sigmoid, exp, log, tanh, sqrt, erf): a polynomial of
  /// tens of operations, which costs more than reading the value back.
  /// `balanced_reduce`, whose body runs once per tree node, so what it keeps
  /// adds up to about twice its first level (eager autograd keeps them too).
  arithmetic
};

/// Recomputes at the start of `backward` every primal value it reads that
/// the `allowed` ops compute from other values it reads anyway: such a
/// value then costs one pass instead of a residual as large as itself (a GRC
/// cell's concatenated children; its gelu(pre)·mask where elementwise).
/// Nothing that draws random numbers is recomputed, and no value becomes a
/// residual that was not one already.
void rematerializeElementwise(FuncOp backward, Recomputable allowed);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_REMATERIALIZE_H
