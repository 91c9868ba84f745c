//===- KernelScalars.h - A dispatch body on scalars -------------*- C++ -*-===//
//
// The scalar forward and reverse-mode sweep of a dispatch body inside a
// linalg.generic region, shared by the kernel generators of
// rvnn-exec-outline-kernels (elementwise kernels, and kernels with a row
// reduction, RowNormKernel.h). Element-level rules come from ScalarRules.h;
// the one op they do not cover, a layer norm, is left to the caller.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSCALARS_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSCALARS_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::rvnn::exec {

/// The scalar of a body op that has no element-level rule (a layer norm), at
/// the generic being built.
using RowNormScalar = function_ref<Value(Operation *op)>;

/// The adjoint contribution of a layer norm to its input, given the adjoint
/// of its result; a null Value stops the sweep there.
using RowNormAdjoint = function_ref<Value(Operation *op, Value dResult)>;

/// Emits the scalar forward of a dispatch body at `b` (inside a generic),
/// the body's block arguments standing for `inputs`; records every body
/// value's scalar in `scalar`. A layer norm's scalar comes from `rowNorm`.
/// With `stopAt`, only the ops before it.
void emitForwardScalars(OpBuilder &b, Location loc, Block &body,
                        ValueRange inputs, DenseMap<Value, Value> &scalar,
                        RowNormScalar rowNorm = nullptr,
                        Operation *stopAt = nullptr);

/// Reverse mode over the body after emitForwardScalars: seeds the yielded
/// values with `seeds`, then walks the ops backwards accumulating each
/// value's adjoint per use into `adjoint`. Ops on no path to a result are
/// skipped. A layer norm's input gets `rowNorm`'s contribution (its gamma
/// and beta none: row operands are summed over rows by the caller).
void emitReverseSweep(OpBuilder &b, Location loc, Block &body, ValueRange seeds,
                      const DenseMap<Value, Value> &scalar,
                      DenseMap<Value, Value> &adjoint,
                      RowNormAdjoint rowNorm = nullptr);

/// The adjoint of each of the body's arguments at `positions` after
/// emitReverseSweep, 0 for those on no path to a result.
SmallVector<Value> argumentAdjoints(OpBuilder &b, Location loc, Block &body,
                                    ArrayRef<unsigned> positions,
                                    const DenseMap<Value, Value> &adjoint);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSCALARS_H
