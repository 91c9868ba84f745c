// rvnn-fuse-kernel-rows: a kernel of several stages over the same rows (a
// layer norm's or a softmax's, KernelStages.h: per-row statistics, then the
// results, each stage a generic over the whole tensor) becomes one loop over
// its rows that runs every stage on one row, so a stage's temporaries are
// one row (in L1) instead of whole tensors written out and read back.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNFUSEKERNELROWS
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

/// A tensor whose dim 0 is dynamic: the kernel's rows (every full,
/// broadcast and per-row tensor of a generated kernel has them first).
bool hasRows(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() > 0 && type.isDynamicDim(0);
}

/// `type` with one row.
RankedTensorType oneRow(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[0] = 1;
  return tensor.clone(shape);
}

/// What the loop does: the ops it runs on one row, and the values it
/// carries from row to row.
struct RowLoop {
  /// The row ops, in order: generics and fills over rows, the empty tensors
  /// and reshapes they use, and the sizes of their rows.
  SmallVector<Operation *> ops;
  /// Function arguments a returned row tensor is written into (each the
  /// first destination of a chain of row ops), and that tensor.
  SmallVector<std::pair<BlockArgument, Value>> destinations;
  /// Column reductions (a fold over the rows into a tensor without them,
  /// a layer norm's gamma gradient): the initial value, defined before the
  /// loop, and the result.
  SmallVector<std::pair<OpOperand *, OpResult>> accumulators;
};

class RowLoopPlanner {
public:
  explicit RowLoopPlanner(func::FuncOp func) : func(func) {}

  /// The loop of `func`, or failure where its ops are not all either row
  /// ops or ops before them, or where there is only one stage to fuse.
  FailureOr<RowLoop> plan();

private:
  bool isRowValue(Value value) const {
    Operation *def = value.getDefiningOp();
    return def && rowOps.contains(def);
  }
  LogicalResult classify(Operation *op);
  LogicalResult classifyLinalg(linalg::LinalgOp op);
  LogicalResult addReturned(Value returned);

  func::FuncOp func;
  DenseSet<Operation *> rowOps;
  RowLoop loop;
  unsigned numStages = 0;
};

FailureOr<RowLoop> RowLoopPlanner::plan() {
  Block &body = func.getBody().front();
  for (Operation &op : body.without_terminator())
    if (failed(classify(&op)))
      return failure();
  if (numStages < 2)
    return failure();
  for (Value returned : body.getTerminator()->getOperands())
    if (hasRows(returned) && isRowValue(returned) &&
        failed(addReturned(returned)))
      return failure();
  // A column reduction is whole after the loop only.
  for (auto [init, result] : loop.accumulators)
    for (Operation *user : result.getUsers())
      if (!isa<func::ReturnOp>(user))
        return failure();
  // Row ops read other row ops and write only what the loop carries out.
  for (Operation *op : loop.ops)
    for (Operation *user : op->getUsers())
      if (!rowOps.contains(user) && !isa<func::ReturnOp>(user))
        return failure();
  return loop;
}

LogicalResult RowLoopPlanner::classify(Operation *op) {
  bool readsRows = llvm::any_of(op->getOperands(), hasRows);
  bool readsRowOp = llvm::any_of(
      op->getOperands(), [&](Value operand) { return isRowValue(operand); });
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!readsRows)
      return readsRowOp ? failure() : success();
    return classifyLinalg(linalgOp);
  }
  bool rowOp = false;
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    // The row count becomes 1 in the loop; other sizes of a row op's
    // tensor are read there.
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return failure();
    rowOp = (*index == 0 && hasRows(dim.getSource())) || readsRowOp;
  } else if (isa<tensor::EmptyOp>(op)) {
    rowOp = hasRows(op->getResult(0));
  } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    rowOp = hasRows(expand.getSrc());
    if (rowOp && (!hasRows(expand.getResult()) ||
                  expand.getReassociationIndices()[0].size() != 1))
      return failure();
  } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    rowOp = hasRows(collapse.getSrc());
    if (rowOp && (!hasRows(collapse.getResult()) ||
                  collapse.getReassociationIndices()[0].size() != 1))
      return failure();
  } else if (readsRows || readsRowOp || op->getNumRegions() != 0) {
    // Anything else on rows (an extract, a loop) is not something the loop
    // knows how to run one row at a time.
    return failure();
  }
  if (rowOp)
    rowOps.insert(op), loop.ops.push_back(op);
  return success();
}

LogicalResult RowLoopPlanner::classifyLinalg(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp, linalg::FillOp>(op) || op.hasIndexSemantics() ||
      !op.hasPureTensorSemantics())
    return failure();
  // The loop dim of the rows: dim 0 of every operand with rows, and in no
  // other result of any map.
  std::optional<unsigned> rowDim;
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!hasRows(operand.get()))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(0));
    if (!dim || (rowDim && *rowDim != dim.getPosition()))
      return failure();
    rowDim = dim.getPosition();
  }
  for (OpOperand &operand : op->getOpOperands()) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [position, result] : llvm::enumerate(map.getResults()))
      if ((position != 0 || !hasRows(operand.get())) &&
          result.isFunctionOfDim(*rowDim))
        return failure();
  }
  bool rowResults = llvm::all_of(op->getResults(), hasRows);
  bool columnReduction = llvm::none_of(op->getResults(), hasRows);
  utils::IteratorType rowIterator = op.getIteratorTypesArray()[*rowDim];
  if (rowResults && rowIterator != utils::IteratorType::parallel)
    return failure();
  if (!rowResults) {
    if (!columnReduction || rowIterator != utils::IteratorType::reduction)
      return failure();
    // The loop carries its running values: they start before it and are
    // read after it only.
    for (auto [init, result] :
         llvm::zip_equal(op.getDpsInitsMutable(), op->getResults())) {
      if (isRowValue(init.get()) || !init.get().hasOneUse())
        return failure();
      loop.accumulators.push_back({&init, cast<OpResult>(result)});
    }
  }
  rowOps.insert(op);
  loop.ops.push_back(op);
  ++numStages;
  return success();
}

/// A returned row tensor is written into a destination argument: the first
/// destination of its chain of row ops, which nothing else reads.
LogicalResult RowLoopPlanner::addReturned(Value returned) {
  Value value = returned;
  while (isRowValue(value)) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(value.getDefiningOp());
    if (!dps)
      return failure();
    value =
        dps.getDpsInitOperand(cast<OpResult>(value).getResultNumber())->get();
  }
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || !argument.hasOneUse() ||
      llvm::is_contained(llvm::make_first_range(loop.destinations), argument))
    return failure();
  loop.destinations.push_back({argument, returned});
  return success();
}

/// Row `row` of `source`, which has rows.
tensor::ExtractSliceOp sliceRow(OpBuilder &b, Location loc, Value source,
                                Value row) {
  int64_t rank = cast<RankedTensorType>(source.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = row;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return b.create<tensor::ExtractSliceOp>(loc, source, offsets, sizes, strides);
}

/// Emits the row op `op` for one row, its operands mapped by `mapping`.
void emitRowOp(OpBuilder &b, Operation *op, IRMapping &mapping, Value one) {
  Location loc = op->getLoc();
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    if (dim.getConstantIndex() == 0) {
      mapping.map(dim.getResult(), one);
      return;
    }
  } else if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    SmallVector<OpFoldResult> sizes = empty.getMixedSizes();
    sizes[0] = b.getIndexAttr(1);
    for (OpFoldResult &size : llvm::drop_begin(sizes))
      if (auto value = dyn_cast<Value>(size))
        size = mapping.lookupOrDefault(value);
    auto rowEmpty =
        b.create<tensor::EmptyOp>(loc, sizes, empty.getType().getElementType());
    mapping.map(empty.getResult(), rowEmpty.getResult());
    return;
  } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    SmallVector<OpFoldResult> shape = getMixedValues(
        expand.getStaticOutputShape(), expand.getOutputShape(), b);
    shape[0] = b.getIndexAttr(1);
    for (OpFoldResult &size : llvm::drop_begin(shape))
      if (auto value = dyn_cast<Value>(size))
        size = mapping.lookupOrDefault(value);
    auto rowExpand = b.create<tensor::ExpandShapeOp>(
        loc, oneRow(expand.getType()), mapping.lookupOrDefault(expand.getSrc()),
        expand.getReassociationIndices(), shape);
    mapping.map(expand.getResult(), rowExpand.getResult());
    return;
  } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    auto rowCollapse = b.create<tensor::CollapseShapeOp>(
        loc, mapping.lookupOrDefault(collapse.getSrc()),
        collapse.getReassociationIndices());
    mapping.map(collapse.getResult(), rowCollapse.getResult());
    return;
  }
  Operation *clone = b.clone(*op, mapping);
  // A generic's or fill's results are its destinations, now one row.
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(clone))
    for (OpResult result : clone->getResults())
      result.setType(dps.getTiedOpOperand(result)->get().getType());
}

/// Replaces `func`'s row ops by the loop `plan` describes, before its
/// return.
void emitRowLoop(func::FuncOp func, const RowLoop &plan) {
  Operation *terminator = func.getBody().front().getTerminator();
  OpBuilder b(terminator);
  Location loc = func.getLoc();
  Value rowSource = *llvm::find_if(func.getArguments(), hasRows);
  Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
  Value one = b.create<arith::ConstantIndexOp>(loc, 1);
  Value rows = b.create<tensor::DimOp>(loc, rowSource, 0);

  SmallVector<Value> inits;
  for (auto [argument, value] : plan.destinations)
    inits.push_back(argument);
  for (auto [init, result] : plan.accumulators)
    inits.push_back(init->get());
  auto loop = b.create<scf::ForOp>(
      loc, zero, rows, one, inits,
      [&](OpBuilder &nb, Location, Value row, ValueRange carried) {
        IRMapping mapping;
        size_t numDestinations = plan.destinations.size();
        // Each destination's row is written back where it was read, with
        // the same sizes, so bufferization writes it in place.
        SmallVector<tensor::ExtractSliceOp> destinationRows;
        for (auto [i, destination] : llvm::enumerate(plan.destinations)) {
          destinationRows.push_back(sliceRow(nb, loc, carried[i], row));
          mapping.map(Value(destination.first), destinationRows.back());
        }
        for (auto [i, accumulator] : llvm::enumerate(plan.accumulators))
          mapping.map(accumulator.first->get(), carried[numDestinations + i]);
        for (BlockArgument argument : func.getArguments())
          if (hasRows(argument) && !mapping.contains(argument) &&
              !argument.use_empty())
            mapping.map(Value(argument), sliceRow(nb, loc, argument, row));
        for (Operation *op : plan.ops)
          emitRowOp(nb, op, mapping, one);

        SmallVector<Value> yielded;
        for (auto [i, destination] : llvm::enumerate(plan.destinations)) {
          tensor::ExtractSliceOp slice = destinationRows[i];
          yielded.push_back(nb.create<tensor::InsertSliceOp>(
              loc, mapping.lookup(destination.second), carried[i],
              slice.getMixedOffsets(), slice.getMixedSizes(),
              slice.getMixedStrides()));
        }
        for (auto [init, result] : plan.accumulators)
          yielded.push_back(mapping.lookup(Value(result)));
        nb.create<scf::YieldOp>(loc, yielded);
      });

  for (auto [i, destination] : llvm::enumerate(plan.destinations))
    Value(destination.second)
        .replaceUsesWithIf(loop.getResult(i), [&](OpOperand &use) {
          return use.getOwner() == terminator;
        });
  for (auto [i, accumulator] : llvm::enumerate(plan.accumulators))
    Value(accumulator.second)
        .replaceUsesWithIf(
            loop.getResult(plan.destinations.size() + i),
            [&](OpOperand &use) { return use.getOwner() == terminator; });
  for (Operation *op : llvm::reverse(plan.ops))
    op->erase();
}

struct FuseKernelRowsPass
    : public mlir::rvnn::impl::RvnnFuseKernelRowsBase<FuseKernelRowsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FailureOr<RowLoop> plan = RowLoopPlanner(func).plan();
    if (succeeded(plan))
      emitRowLoop(func, *plan);
  }
};

} // namespace
