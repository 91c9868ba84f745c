//===- ScalarRules.h - Per-element rules of fusable ops --------*- C++ -*-===//
//
// The one table of the elementwise contract ops that rvnn-exec-fuse-elementwise
// groups into dispatches and rvnn-exec-outline-kernels compiles: which ops
// qualify, how each expands to arith/math ops on one element, and its
// reverse-mode derivative (following ATen, the runtime's reference).
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_SCALARRULES_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_SCALARRULES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::rvnn::exec {

/// The ranked tensor type `T` (f32 or f64 elements) of a fusable op: an
/// `rvnn_exec.elementwise` with a float function (all but `or`), `sigmoid`,
/// `gelu`, `relu`, `gate` or `broadcast_like` whose operands and result all
/// have type `T`, except where isBroadcastOperandUse allows a broadcast
/// operand of `T`. Null for every other op.
RankedTensorType getFusableType(Operation *op);

/// Whether `use` may be a broadcast operand of its fusable owner's type: a
/// gate's `g`, or the input of a `broadcast_like` (a bias that
/// rvnn-exec-fuse-linear-epilogue moved into a kernel).
bool isBroadcastOperandUse(OpOperand &use);

/// Whether `operand` is a broadcast operand of `type`: a ranked tensor of
/// its rank and element type, not `type` itself, each dim either `type`'s
/// (the same static size, or dynamic in both) or a static 1.
bool isBroadcastOperand(Type operand, RankedTensorType type);

/// The type `T` of a row reduction a dispatch can fuse, for ops of rank >= 2
/// over f32 or f64 that reduce along the last dim: a `layer_norm` with input
/// and result of type `T`, `gamma` and `beta` rank-1 tensors of `T`'s
/// element type and last dim (a kernel's row operands); a `softmax`, or a
/// `masked_softmax` whose input, mask and result all have type `T`. Null for
/// every other op.
RankedTensorType getFusableRowReductionType(Operation *op);

/// getFusableType or getFusableRowReductionType: the type by which
/// rvnn-exec-fuse-elementwise groups `op` with its producers and users.
RankedTensorType getKernelMemberType(Operation *op);

/// Whether `op` evaluates a transcendental function per element (gelu's
/// erf, sigmoid's exp, `exp`, `log`, `tanh`, `sqrt`, `erf`): a value worth
/// keeping rather than computing again (Rematerialize.h, KernelStages.h).
bool evaluatesTranscendental(Operation *op);

/// Emits, at `b`'s insertion point, the element-level computation of the
/// fusable op `op` on the scalars `operands` (one per operand of `op`, of
/// `op`'s element type) and returns the result scalar.
Value emitScalarForward(OpBuilder &b, Location loc, Operation *op,
                        ValueRange operands);

/// Emits the reverse-mode rule of the fusable op `op`: given its operand
/// scalars, the result scalar `result` (from emitScalarForward) and the
/// adjoint `dResult` of the result, returns the adjoint contribution to each
/// operand, in operand order (null for an operand read for its shape only).
SmallVector<Value> emitScalarAdjoints(OpBuilder &b, Location loc, Operation *op,
                                      ValueRange operands, Value result,
                                      Value dResult);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_SCALARRULES_H
