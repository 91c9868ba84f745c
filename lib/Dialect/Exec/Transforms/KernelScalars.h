//===- KernelScalars.h - A dispatch body on scalars -------------*- C++ -*-===//
//
// The scalar forward and reverse-mode sweep of a dispatch body inside a
// linalg.generic region, shared by the kernel generators of
// rvnn-exec-outline-kernels (elementwise kernels, and kernels with a row
// reduction, KernelStages.h). Element-level rules come from ScalarRules.h;
// the ops they do not cover, row reductions, are left to the caller.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSCALARS_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSCALARS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::rvnn::exec {

/// The scalar of a body op that has no element-level rule (a row
/// reduction), at the generic being built.
using RowReductionScalar = function_ref<Value(Operation *op)>;

/// The adjoint contributions of a row reduction to its operands (a null
/// Value for none), given the adjoint of its result; no values stop the
/// sweep there.
using RowReductionAdjoint =
    function_ref<SmallVector<Value>(Operation *op, Value dResult)>;

/// Emits the scalar forward of a dispatch body at `b` (inside a generic),
/// the body's block arguments standing for `inputs`; records every body
/// value's scalar in `scalar`. A row reduction's scalar comes from
/// `rowReduction`. With `stopAt`, only the ops before it. An op whose result
/// `scalar` holds already (a value an earlier stage kept) is not emitted.
void emitForwardScalars(OpBuilder &b, Location loc, Block &body,
                        ValueRange inputs, DenseMap<Value, Value> &scalar,
                        RowReductionScalar rowReduction = nullptr,
                        Operation *stopAt = nullptr);

/// Reverse mode over the body after emitForwardScalars: seeds the yielded
/// values with `seeds`, then walks the ops backwards accumulating each
/// value's adjoint per use into `adjoint`. Ops on no path to a result are
/// skipped. A row reduction's operands get `rowReduction`'s contributions
/// (row operands none: the caller sums theirs over the rows).
void emitReverseSweep(OpBuilder &b, Location loc, Block &body, ValueRange seeds,
                      const DenseMap<Value, Value> &scalar,
                      DenseMap<Value, Value> &adjoint,
                      RowReductionAdjoint rowReduction = nullptr);

/// The adjoint of each of the body's arguments at `positions` after
/// emitReverseSweep, 0 for those on no path to a result.
SmallVector<Value> argumentAdjoints(OpBuilder &b, Location loc, Block &body,
                                    ArrayRef<unsigned> positions,
                                    const DenseMap<Value, Value> &adjoint);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSCALARS_H
