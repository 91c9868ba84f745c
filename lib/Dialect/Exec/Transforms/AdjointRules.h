//===- AdjointRules.h - Reverse-mode rules of the execution ops -*- C++ -*-===//
//
// The derivative of each contract op, written as contract ops: what
// rvnn-exec-differentiate emits for one primal op in the reverse sweep.
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ADJOINTRULES_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ADJOINTRULES_H

#include "mlir/IR/Builders.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rvnn::exec {

/// Float tensors are the only values that carry cotangents.
bool isDifferentiableType(Type type);

/// Whether `op` draws from the random stream: its derivative cannot be
/// recomputed by running it again, and draws must keep their order.
bool drawsRandomNumbers(Operation *op);

/// Whether `op`'s results may depend differentiably on its operands: false
/// for shape queries, comparisons, masks, allocations and index results.
bool hasDifferentiableResults(Operation *op);

/// Whether a cotangent of `operand`'s owner can flow to `operand`: false for
/// an operand read for its size only (unchunk's `ref`).
bool passesCotangent(OpOperand &operand);

/// The state of one reverse sweep. Adjoint ops are appended to `backward`'s
/// block and may use primal values directly (the pass turns those uses into
/// residuals afterwards); shape queries of primal values are emitted on the
/// primal side, next to the value, so that only their sizes become
/// residuals.
class ReverseSweep {
public:
  ReverseSweep(OpBuilder &backward, const llvm::DenseSet<Value> &active)
      : backward(backward), active(active) {}

  bool isActive(Value value) const { return active.contains(value); }
  /// The accumulated cotangent of `primal`, or null. Call only once every
  /// use of `primal` is differentiated: it completes the slices of it.
  Value adjointOf(Value primal);
  /// Adds `cotangent` to the adjoint of `primal` (no-op if inactive).
  void accumulate(Value primal, Value cotangent);

  /// Emits the adjoint ops of `op` given the cotangents of its results
  /// (null where a result has none). Fails for an op whose derivative the
  /// contract cannot express; failedOp and failureReason then say why.
  LogicalResult differentiate(Operation *op, ArrayRef<Value> cotangents);

  /// Once the sweep is done: where the backward reads a primal value only
  /// through vjp operands whose shape is all their derivatives need, passes
  /// a shape witness instead, so that the value is no residual. Values in
  /// `retained` (alive regardless, e.g. parameters) keep their operands.
  void passShapeWitnesses(const llvm::DenseSet<Value> &retained);

  Operation *failedOp = nullptr;
  std::string failureReason;

private:
  LogicalResult fail(Operation *op, StringRef why);
  /// The dynamic sizes of `primal`, in order, computed on the primal side.
  SmallVector<Value> dynamicSizes(Value primal);
  /// The size of dim `dim` of `primal`: a constant or a primal-side query.
  Value sizeOf(Value primal, int64_t dim);
  /// A zero tensor of `primal`'s type.
  Value zerosLike(Value primal);
  /// A shape_witness of `primal` on the primal side: zeros holding no
  /// elements that stand for `primal` where only its shape is read.
  Value shapeWitness(Value primal);

  LogicalResult differentiateElementwise(Operation *op, Value cotangent);
  LogicalResult differentiateView(Operation *op, Value cotangent);
  LogicalResult differentiateConcat(Operation *op, Value cotangent);
  LogicalResult differentiateGate(GateOp gate, Value cotangent);
  /// The cotangents of the slices of `source` (recorded as the sweep meets
  /// them): one concat when the slices tile `source` along one dim (the GRC
  /// cell's gate split, a pair's left and right child); else each added
  /// into its window of the cotangent `source` has from its other uses
  /// (add_into_window), or, without one, one vjp of them all.
  void completeSlices(Value source);
  /// The fallback: one rvnn_exec.vjp of `ops` (their operands its primals,
  /// their results its body's yield, in order) applied to the cotangents of
  /// those results.
  LogicalResult emitVjp(ArrayRef<Operation *> ops, ArrayRef<Value> cotangents);

  OpBuilder &backward;
  const llvm::DenseSet<Value> &active;
  llvm::DenseMap<Value, Value> adjoints;
  /// Per sliced value, its slices and their cotangents, not yet emitted.
  llvm::MapVector<Value, SmallVector<std::pair<SliceOp, Value>>> pendingSlices;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> sizes;
  /// The vjp operands whose values their derivatives do not read.
  llvm::SetVector<OpOperand *> shapeOnlyOperands;
};

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_ADJOINTRULES_H
