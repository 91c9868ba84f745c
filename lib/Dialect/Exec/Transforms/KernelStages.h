//===- KernelStages.h - Stages of a kernel with a row reduction -*- C++ -*-===//
//
// The building blocks of the kernels whose dispatch body holds a row
// reduction (a layer norm or a softmax, RowReductionKernel.h):
// linalg.generic stages over the full iteration space, its rows (per-row
// statistics) and its columns (the gradients of row operands), all in one
// function for the forward and one for its compiler-derived backward.
//
// Every full-size stage reads all the dispatch's inputs (row operands along
// the last dim) plus what earlier stages computed, so each recomputes the
// cheap elementwise scalars it needs instead of keeping them: the
// temporaries are the row reduction's operands, per-row values and, in a
// backward, the transcendental scalars before the reduction
// (keepTranscendentals).
//
//===----------------------------------------------------------------------===//

#ifndef RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSTAGES_H
#define RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSTAGES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"

namespace mlir::rvnn::exec {

/// How a kernel reads one of its inputs at an element of its iteration
/// space (the results' type).
enum class InputKind {
  /// An input of the results' type, at the element.
  full,
  /// A row operand (`[D]`, D the type's last dim: a layer norm's gamma or
  /// beta), along the last dim.
  row,
  /// A broadcast operand (ScalarRules.h: a gate's `g`), at the element's
  /// index in its other dims and 0 in its dims of size 1.
  broadcast
};

/// What the kernel generator knows of a dispatch.
struct KernelSignature {
  /// The type of the results and of every full input.
  RankedTensorType type;
  /// Per input, how the kernel reads it.
  SmallVector<InputKind> inputKinds;
  /// The body's row reduction (ScalarRules.h), or null (a purely
  /// elementwise kernel).
  Operation *rowReduction = nullptr;
  /// Broadcast inputs whose element adjoint is that of a full input (at the
  /// mapped position): a bias added to it and nothing else reading either.
  /// Their cotangent sums that input's instead of recomputing the adjoints.
  DenseMap<unsigned, unsigned> adjointOfFullInput;

  /// The positions of the inputs of `kind`.
  SmallVector<unsigned> positions(InputKind kind) const;
};

/// The indexing map over the iteration space of `type` of an input of
/// `kind` and type `inputType`.
AffineMap kernelInputMap(RankedTensorType type, InputKind kind, Type inputType);

/// How a row reduction combines the terms of a row.
enum class RowFold { sum, max };

/// Builds the generics of one kernel function over the signature's type
/// (rank R): the full space, its rows (the first R-1 dims) and its columns
/// (the last dim).
class Stages {
public:
  using Iterator = utils::IteratorType;
  using BodyBuilder = function_ref<void(OpBuilder &, Location, ValueRange)>;
  /// The terms a row reduction folds at one element, given the generic's
  /// element scalars (the dispatch's inputs, the stage's extra operands, then
  /// the running values).
  using TermBuilder =
      function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;
  /// The adjoints of the inputs at `positions` at one element, given the
  /// generic's element scalars (the dispatch's inputs, then the stage's
  /// extra operands).
  using AdjointBuilder = function_ref<SmallVector<Value>(
      OpBuilder &, Location, ValueRange elements,
      ArrayRef<unsigned> positions)>;

  Stages(OpBuilder &b, Location loc, const KernelSignature &signature,
         ValueRange inputs);

  AffineMap full() const { return b.getMultiDimIdentityMap(numDims); }
  AffineMap rows() const { return full().getMajorSubMap(numDims - 1); }
  AffineMap column() const {
    return AffineMap::get(numDims, 0, b.getAffineDimExpr(numDims - 1));
  }
  SmallVector<Iterator> parallel() const {
    return SmallVector<Iterator>(numDims, Iterator::parallel);
  }
  /// Reduces all dims but the last: one value per column.
  SmallVector<Iterator> columnReduction() const;

  Value emptyFull() { return empty(type.getShape()); }
  Value emptyRows() { return empty(type.getShape().drop_back()); }
  Value zeros(Value destination);
  Value constant(double value);
  Value input(unsigned position) const { return inputs[position]; }
  const KernelSignature &signature() const { return kernelSignature; }
  /// D, the row length, and 1 / D, as scalars of the element type (built on
  /// first use).
  Value rowLength();
  Value inverseRowLength();

  /// A generic over the full space reading the dispatch's inputs, then
  /// `extra` (with `extraMaps`), into `outs` (with `outMaps`).
  SmallVector<Value> generic(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                             ValueRange outs, ArrayRef<AffineMap> outMaps,
                             ArrayRef<Iterator> kinds, BodyBuilder body);

  /// A generic over the rows alone, reading and writing `[rows]` tensors.
  Value rowwise(ValueRange ins, BodyBuilder body);

  /// One per-row value per fold: the fold of `term`'s terms over each row of
  /// the full space (reading the inputs and `extra` like generic()).
  SmallVector<Value> rowFolds(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                              ArrayRef<RowFold> folds, TermBuilder term);
  /// rowFolds() with `numSums` sums.
  SmallVector<Value> rowSums(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                             unsigned numSums, TermBuilder term) {
    return rowFolds(extra, extraMaps,
                    SmallVector<RowFold>(numSums, RowFold::sum), term);
  }

  /// The cotangents of the broadcast inputs at `positions` (to be written
  /// into `dxs[position]`): for each, a generic over the full space that
  /// sums over its broadcast dims the cotangent in `grads` of the full input
  /// it shares its adjoint with (KernelSignature::adjointOfFullInput), or
  /// else `adjoints`' value for it, reading the inputs and `extra`; a row
  /// fold (rowSums) where that sum is over the last dim alone (a gate's `g`,
  /// one value per row).
  SmallVector<Value> broadcastCotangents(ArrayRef<unsigned> positions,
                                         ValueRange extra,
                                         ArrayRef<AffineMap> extraMaps,
                                         ValueRange dxs, ArrayRef<Value> grads,
                                         AdjointBuilder adjoints);

  /// The cotangents of the full and broadcast inputs, into `grads` at their
  /// positions: the full ones in one generic over the full space (reading the
  /// inputs and `extra`) into their `dxs`, the broadcast ones by
  /// broadcastCotangents().
  void inputCotangents(ValueRange extra, ArrayRef<AffineMap> extraMaps,
                       ValueRange dxs, AdjointBuilder adjoints,
                       MutableArrayRef<Value> grads);

  /// The full-size tensors of the body values `values` (operands of the
  /// body's op `stopAt`): the kernel's input for a block argument, else
  /// computed by the ops before `stopAt`, all in one generic. After
  /// keepTranscendentals(), that generic also yields the results of all the
  /// ops that evaluate a transcendental function (evaluatesTranscendental,
  /// ScalarRules.h) before `stopAt`, for keptValues().
  SmallVector<Value> bodyValues(Block &body, ArrayRef<Value> values,
                                Operation *stopAt);

  /// Makes bodyValues() keep those scalars: a backward whose last
  /// stage sweeps the whole body reads them instead of computing them again
  /// (a GRC gate's three sigmoids).
  void keepTranscendentals() { keepTranscendental = true; }
  /// The body values bodyValues() kept, each with its full-size tensor.
  ArrayRef<std::pair<Value, Value>> keptValues() const { return kept; }

private:
  Value empty(ArrayRef<int64_t> shape);
  /// `rowValues` (one per row) written into `destination`, which the full
  /// space reads through `map`, a map that reads no last dim.
  Value writeRows(Value rowValues, Value destination, AffineMap map);
  /// generic(); with `splitRows`, over (rows..., k, l) instead, every
  /// operand read along the last dim expanded to [..., D / kLanes, kLanes].
  SmallVector<Value> genericOver(bool splitRows, ValueRange extra,
                                 ArrayRef<AffineMap> extraMaps, ValueRange outs,
                                 ArrayRef<AffineMap> outMaps,
                                 ArrayRef<Iterator> kinds, BodyBuilder body);
  std::pair<Value, AffineMap> splitLastDim(Value operand, AffineMap map);
  Value foldStart(RowFold fold, Value destination);

  OpBuilder &b;
  Location loc;
  RankedTensorType type;
  unsigned numDims;
  ValueRange inputs;
  const KernelSignature &kernelSignature;
  SmallVector<AffineMap> inputMaps;
  /// A full-size input, for dynamic sizes.
  Value like;
  Value length, inverseLength;
  bool keepTranscendental = false;
  SmallVector<std::pair<Value, Value>> kept;
};

/// Emits a body's scalars at one element of a full-space generic whose
/// operands are the dispatch's inputs, then a stage's extra operands.
using BodyScalars =
    function_ref<void(OpBuilder &, Location, ValueRange elements,
                      DenseMap<Value, Value> &scalar)>;

/// The forward's last stage: the body's results at every element, into
/// `outs`, reading `stats` (with `statsMaps`); `scalars` emits the body's
/// scalars from those operands.
SmallVector<Value> emitBodyResults(Stages &s, Block &body, ValueRange stats,
                                   ArrayRef<AffineMap> statsMaps,
                                   ValueRange outs, BodyScalars scalars);

/// The cotangent of the result of the body's row reduction `reduction`:
/// that of the kernel result it is, when only that result reads it, else
/// reverse mode over the ops after it in a generic reading `stats` (with
/// `statsMaps`) and the results' cotangents `dys`; `scalars` emits the
/// forward scalars from those operands.
Value emitReductionCotangent(Stages &s, Block &body, Operation *reduction,
                             ValueRange stats, ArrayRef<AffineMap> statsMaps,
                             ValueRange dys, BodyScalars scalars);

/// A kernel function begun at a builder: the builder of its body and its
/// arguments, split as the forward (`inputs`, then one destination per
/// result in `outs`) or the backward (`inputs`, one cotangent per result in
/// `dys`, then one destination per input's cotangent in `outs`) takes them.
struct KernelFunction {
  OpBuilder builder;
  ValueRange inputs, dys, outs;
};

/// Begins `func.func @K(x..., out...) -> (out...)`, K the dispatch's kernel.
KernelFunction beginForwardKernel(OpBuilder &b, DispatchOp dispatch);
/// Begins `func.func @<name>(x..., dy..., dx...) -> (dx...)`.
KernelFunction beginBackwardKernel(OpBuilder &b, DispatchOp dispatch,
                                   StringRef name);

} // namespace mlir::rvnn::exec

#endif // RVNN_LIB_DIALECT_EXEC_TRANSFORMS_KERNELSTAGES_H
