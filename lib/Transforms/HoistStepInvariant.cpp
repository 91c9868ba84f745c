// Hoists the state-independent part of an rvnn.recurse body out of the loop
// and batches it over all steps; see the pass description in
// Transforms/Passes.td.
#include "rvnn/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNHOISTSTEPINVARIANT
#include "rvnn/Transforms/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

/// A value of the loop body that is step t of a value computed before the
/// loop: `value == extract_slice(whole, t along dim)`. `dim` indexes `whole`;
/// `dropped` says whether the value lacks that dim (rank-reducing slice) or
/// has it with size 1.
struct StepSlice {
  Value whole;
  int64_t dim;
  bool dropped;
};

class Hoister : public OpBuilder::Listener {
public:
  explicit Hoister(rvnn::RecurseOp loop)
      : loop(loop), body(loop.getBody().front()), step(body.getArgument(0)),
        builder(loop) {
    builder.setListener(this);
  }

  /// Returns whether anything was hoisted.
  bool run();

private:
  bool isInvariant(Value value) const {
    return !loop->isAncestor(value.getParentRegion()->getParentOp());
  }
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    created.push_back(op);
  }
  /// `size` of dim `dim` of `value` (outside the loop) as a fold result.
  OpFoldResult sizeOf(Value value, int64_t dim) {
    auto type = cast<RankedTensorType>(value.getType());
    if (!type.isDynamicDim(dim))
      return builder.getIndexAttr(type.getDimSize(dim));
    return builder.create<tensor::DimOp>(loop.getLoc(), value, dim).getResult();
  }
  /// `type` of one step with the step dim put back (dynamic size).
  RankedTensorType wholeType(Type type, const StepSlice &slice) {
    auto ranked = cast<RankedTensorType>(type);
    SmallVector<int64_t> shape(ranked.getShape());
    if (slice.dropped)
      shape.insert(shape.begin() + slice.dim, ShapedType::kDynamic);
    else
      shape[slice.dim] = ShapedType::kDynamic;
    return RankedTensorType::get(shape, ranked.getElementType());
  }
  /// The step slices of `op`'s operands, or nothing when some operand is
  /// neither invariant nor a step slice.
  std::optional<SmallVector<std::optional<StepSlice>>> classify(Operation *op);

  bool seed(tensor::ExtractSliceOp op);
  std::optional<StepSlice> batch(Operation *op,
                                 ArrayRef<std::optional<StepSlice>> operands);
  std::optional<StepSlice> batchSlice(tensor::ExtractSliceOp op,
                                      const StepSlice &source);
  std::optional<StepSlice> batchExpand(tensor::ExpandShapeOp op,
                                       const StepSlice &source);
  std::optional<StepSlice> batchCollapse(tensor::CollapseShapeOp op,
                                         const StepSlice &source);
  std::optional<StepSlice>
  batchBroadcast(rvnn::BroadcastLikeOp op,
                 ArrayRef<std::optional<StepSlice>> operands);
  /// Step t of `slice.whole` with `op`'s result type, inserted before `op`.
  Value stepOf(const StepSlice &slice, Operation *op);
  /// The batched values the body would read a step of, with `kept` left in
  /// the body.
  size_t countCrossing(const llvm::DenseSet<Operation *> &kept) const;
  /// Leaves batched elementwise ops in the body where that makes fewer
  /// values cross into it.
  void keepElementwiseInBody();

  rvnn::RecurseOp loop;
  Block &body;
  Value step;
  OpBuilder builder; // inserts before the loop
  llvm::DenseMap<Value, StepSlice> slices;
  llvm::SetVector<Operation *> batched;
  /// Ops this pass created before the loop, some unused in the end.
  SmallVector<Operation *> created;
};

std::optional<SmallVector<std::optional<StepSlice>>>
Hoister::classify(Operation *op) {
  SmallVector<std::optional<StepSlice>> operands;
  for (Value operand : op->getOperands()) {
    auto it = slices.find(operand);
    if (it != slices.end())
      operands.push_back(it->second);
    else if (isInvariant(operand))
      operands.push_back(std::nullopt);
    else
      return std::nullopt;
  }
  return operands;
}

/// `x[o.., t, o..] [s.., 1, s..]` of a value defined before the loop, with
/// unit strides and the other offsets and sizes defined before the loop: the
/// whole range `x[o.., 0, o..] [s.., S, s..]` is cut before the loop.
bool Hoister::seed(tensor::ExtractSliceOp op) {
  if (!isInvariant(op.getSource()) ||
      !llvm::all_of(op.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return false;
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = op.getMixedSizes();
  std::optional<int64_t> stepDim;
  for (auto [dim, offset] : llvm::enumerate(offsets)) {
    auto value = dyn_cast<Value>(offset);
    if (value == step) {
      if (stepDim || getConstantIntValue(sizes[dim]) != 1)
        return false;
      stepDim = dim;
    } else if (value && !isInvariant(value)) {
      return false;
    }
  }
  for (OpFoldResult size : sizes)
    if (auto value = dyn_cast<Value>(size); value && !isInvariant(value))
      return false;
  if (!stepDim)
    return false;
  offsets[*stepDim] = builder.getIndexAttr(0);
  sizes[*stepDim] = sizeOf(op.getSource(), *stepDim);
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  Value whole = builder.create<tensor::ExtractSliceOp>(
      op.getLoc(), op.getSource(), offsets, sizes, strides);
  slices[op.getResult()] = {whole, static_cast<int64_t>(*stepDim),
                            op.getDroppedDims().test(*stepDim)};
  batched.insert(op);
  return true;
}

std::optional<StepSlice> Hoister::batchSlice(tensor::ExtractSliceOp op,
                                             const StepSlice &source) {
  // Slices along the other dims, without dropping any.
  if (op.getDroppedDims().any() ||
      !llvm::all_of(op.getStaticStrides(), [](int64_t s) { return s == 1; }))
    return std::nullopt;
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = op.getMixedSizes();
  if (!source.dropped) {
    if (getConstantIntValue(offsets[source.dim]) != 0 ||
        getConstantIntValue(sizes[source.dim]) != 1)
      return std::nullopt;
    offsets[source.dim] = builder.getIndexAttr(0);
    sizes[source.dim] = sizeOf(source.whole, source.dim);
  } else {
    offsets.insert(offsets.begin() + source.dim, builder.getIndexAttr(0));
    sizes.insert(sizes.begin() + source.dim, sizeOf(source.whole, source.dim));
  }
  SmallVector<OpFoldResult> strides(offsets.size(), builder.getIndexAttr(1));
  Value whole = builder.create<tensor::ExtractSliceOp>(
      op.getLoc(), source.whole, offsets, sizes, strides);
  return StepSlice{whole, source.dim, source.dropped};
}

/// Reassociation groups with a group of its own for the step dim, which sits
/// before group `group`.
static SmallVector<ReassociationIndices>
withStepGroup(ArrayRef<ReassociationIndices> groups, int64_t group) {
  SmallVector<ReassociationIndices> result;
  int64_t shift = 0;
  for (auto [i, indices] : llvm::enumerate(groups)) {
    if (static_cast<int64_t>(i) == group) {
      result.push_back({indices.front()});
      shift = 1;
    }
    ReassociationIndices moved;
    for (int64_t index : indices)
      moved.push_back(index + shift);
    result.push_back(moved);
  }
  if (group == static_cast<int64_t>(groups.size()))
    result.push_back({groups.empty() ? 0 : groups.back().back() + 1});
  return result;
}

std::optional<StepSlice> Hoister::batchExpand(tensor::ExpandShapeOp op,
                                              const StepSlice &source) {
  // Only a dropped step dim: it becomes a group of its own.
  if (!source.dropped || !llvm::all_of(op.getOutputShape(), [&](Value size) {
        return isInvariant(size);
      }))
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
  int64_t resultDim = source.dim == static_cast<int64_t>(groups.size())
                          ? op.getResultType().getRank()
                          : groups[source.dim].front();
  SmallVector<OpFoldResult> shape =
      getMixedValues(op.getStaticOutputShape(), op.getOutputShape(), builder);
  shape.insert(shape.begin() + resultDim, sizeOf(source.whole, source.dim));
  StepSlice result{Value(), resultDim, true};
  auto type = wholeType(op.getResultType(), result);
  result.whole = builder.create<tensor::ExpandShapeOp>(
      op.getLoc(), type, source.whole, withStepGroup(groups, source.dim),
      shape);
  return result;
}

std::optional<StepSlice> Hoister::batchCollapse(tensor::CollapseShapeOp op,
                                                const StepSlice &source) {
  if (!source.dropped)
    return std::nullopt;
  SmallVector<ReassociationIndices> groups = op.getReassociationIndices();
  // The group that starts at the step dim's position in the source.
  int64_t group = groups.size();
  for (auto [i, indices] : llvm::enumerate(groups))
    if (indices.front() >= source.dim) {
      group = i;
      break;
    }
  if (group < static_cast<int64_t>(groups.size()) &&
      groups[group].front() != source.dim)
    return std::nullopt;
  // The result groups, each one source dim further on after the step dim.
  SmallVector<ReassociationIndices> moved;
  for (auto [i, indices] : llvm::enumerate(groups)) {
    if (static_cast<int64_t>(i) == group)
      moved.push_back({source.dim});
    ReassociationIndices shifted;
    for (int64_t index : indices)
      shifted.push_back(index >= source.dim ? index + 1 : index);
    moved.push_back(shifted);
  }
  if (group == static_cast<int64_t>(groups.size()))
    moved.push_back({source.dim});
  StepSlice result{Value(), group, true};
  auto type = wholeType(op.getResultType(), result);
  result.whole = builder.create<tensor::CollapseShapeOp>(op.getLoc(), type,
                                                         source.whole, moved);
  return result;
}

std::optional<StepSlice>
Hoister::batchBroadcast(rvnn::BroadcastLikeOp op,
                        ArrayRef<std::optional<StepSlice>> operands) {
  const std::optional<StepSlice> &input = operands[0], &ref = operands[1];
  int64_t inputRank = op.getInput().getType().getRank();
  int64_t refRank = op.getRef().getType().getRank();
  // The step dim must be the same dim of both after NumPy's alignment.
  StepSlice shape = ref ? *ref : *input;
  if (!shape.dropped)
    return std::nullopt;
  Value input2 = op.getInput();
  if (input) {
    if (input->dim + (refRank - inputRank) != shape.dim || !input->dropped)
      return std::nullopt;
    input2 = input->whole;
  } else if (inputRank > refRank - shape.dim) {
    // An invariant input must not reach back to the step dim.
    return std::nullopt;
  }
  Value ref2;
  if (ref) {
    ref2 = ref->whole;
  } else {
    // A reference shape of one step: the same shape with the step dim.
    SmallVector<OpFoldResult> sizes;
    for (int64_t dim = 0; dim < refRank; ++dim)
      sizes.push_back(sizeOf(op.getRef(), dim));
    sizes.insert(sizes.begin() + shape.dim, sizeOf(input->whole, input->dim));
    ref2 = builder.create<tensor::EmptyOp>(
        op.getLoc(), sizes, op.getRef().getType().getElementType());
  }
  StepSlice result{Value(), shape.dim, true};
  auto type = wholeType(op.getType(), result);
  result.whole =
      builder.create<rvnn::BroadcastLikeOp>(op.getLoc(), type, input2, ref2);
  return result;
}

/// Arith and math elementwise ops and rvnn's unary ones.
static bool isElementwise(Operation *op) {
  return op->hasTrait<OpTrait::Elementwise>() ||
         (op->hasTrait<OpTrait::SameOperandsAndResultType>() &&
          isa<rvnn::RvnnDialect>(op->getDialect()));
}

std::optional<StepSlice>
Hoister::batch(Operation *op, ArrayRef<std::optional<StepSlice>> operands) {
  auto first = llvm::find_if(operands, [](const auto &s) { return s; });
  const StepSlice &source = **first;
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return batchSlice(slice, source);
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return first == operands.begin() ? batchExpand(expand, source)
                                     : std::nullopt;
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
    return batchCollapse(collapse, source);
  if (auto broadcast = dyn_cast<rvnn::BroadcastLikeOp>(op))
    return batchBroadcast(broadcast, operands);
  if (auto cast = dyn_cast<tensor::CastOp>(op)) {
    StepSlice result = source;
    result.whole = builder.create<tensor::CastOp>(
        op->getLoc(), wholeType(cast.getType(), source), source.whole);
    return result;
  }
  if (auto linear = dyn_cast<rvnn::LinearOp>(op)) {
    // Rows are independent: the step dim must not be the feature dim.
    int64_t rank = cast<RankedTensorType>(source.whole.getType()).getRank();
    if (first != operands.begin() || source.dim == rank - 1 || operands[1] ||
        (operands.size() > 2 && operands[2]))
      return std::nullopt;
    StepSlice result = source;
    SmallVector<Value> args{source.whole};
    args.append(op->operand_begin() + 1, op->operand_end());
    result.whole = builder.create<rvnn::LinearOp>(
        op->getLoc(), wholeType(linear.getType(), source), args,
        op->getAttrs());
    return result;
  }
  // Elementwise ops and ops along one dim: every operand a step slice of the
  // same layout.
  bool alongDim = isa<rvnn::CumaxOp, rvnn::SoftmaxOp>(op);
  if ((!alongDim && !isElementwise(op)) || op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return std::nullopt;
  for (const std::optional<StepSlice> &operand : operands)
    if (!operand || operand->dim != source.dim ||
        operand->dropped != source.dropped)
      return std::nullopt;
  OperationState state(op->getLoc(), op->getName());
  for (const std::optional<StepSlice> &operand : operands)
    state.operands.push_back(operand->whole);
  state.types.push_back(wholeType(op->getResult(0).getType(), source));
  state.attributes = op->getAttrDictionary();
  if (alongDim) {
    auto dimAttr = cast<IntegerAttr>(op->getAttr("dim"));
    int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
    int64_t dim =
        dimAttr.getInt() < 0 ? dimAttr.getInt() + rank : dimAttr.getInt();
    if (source.dropped && dim >= source.dim)
      ++dim;
    if (dim == source.dim)
      return std::nullopt;
    state.attributes.set("dim", builder.getI64IntegerAttr(dim));
  }
  StepSlice result = source;
  result.whole = builder.create(state)->getResult(0);
  return result;
}

Value Hoister::stepOf(const StepSlice &slice, Operation *op) {
  OpBuilder inside(op);
  inside.setListener(this);
  auto type = cast<RankedTensorType>(slice.whole.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), inside.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    sizes.push_back(sizeOf(slice.whole, dim));
  offsets[slice.dim] = step;
  sizes[slice.dim] = inside.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(type.getRank(), inside.getIndexAttr(1));
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  return inside.create<tensor::ExtractSliceOp>(
      op->getLoc(), resultType, slice.whole, offsets, sizes, strides);
}

size_t Hoister::countCrossing(const llvm::DenseSet<Operation *> &kept) const {
  auto hoisted = [&](Operation *op) {
    return batched.contains(op) && !kept.contains(op);
  };
  size_t count = 0;
  for (Operation *op : batched)
    if (hoisted(op) && !llvm::all_of(op->getUsers(), hoisted))
      ++count;
  return count;
}

/// Every value that crosses into the body costs a slice a step and, in the
/// backward, a slice cotangent a step, while an elementwise op costs nearly
/// nothing in the body, where the elementwise fusion puts it in the step's
/// kernel. So batched elementwise ops read only by the body (or by each
/// other) stay there, a group of connected ones at a time, when that lowers
/// the number of crossing values: FastTrees' three products of its two
/// master gates become the two gates.
void Hoister::keepElementwiseInBody() {
  llvm::SetVector<Operation *> candidates;
  for (Operation *op : batched)
    if (isElementwise(op))
      candidates.insert(op);
  // Drop candidates whose value another batched op reads whole.
  auto readWhole = [&](Operation *op) {
    return llvm::any_of(op->getUsers(), [&](Operation *user) {
      return batched.contains(user) && !candidates.contains(user);
    });
  };
  while (true) {
    SmallVector<Operation *> dropped(
        llvm::make_filter_range(candidates, readWhole));
    if (dropped.empty())
      break;
    for (Operation *op : dropped)
      candidates.remove(op);
  }
  llvm::DenseSet<Operation *> kept, seen;
  for (Operation *start : candidates) {
    if (!seen.insert(start).second)
      continue;
    // The group of candidates connected to `start` through their values.
    llvm::DenseSet<Operation *> group = kept;
    SmallVector<Operation *> work{start};
    group.insert(start);
    while (!work.empty()) {
      Operation *op = work.pop_back_val();
      SmallVector<Operation *> neighbours(op->getUsers());
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          neighbours.push_back(def);
      for (Operation *next : neighbours)
        if (candidates.contains(next) && group.insert(next).second) {
          seen.insert(next);
          work.push_back(next);
        }
    }
    if (countCrossing(group) < countCrossing(kept))
      kept = std::move(group);
  }
  for (Operation *op : kept) {
    batched.remove(op);
    slices.erase(op->getResult(0));
  }
}

bool Hoister::run() {
  bool changed = false;
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      continue;
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op); slice && seed(slice))
      continue;
    std::optional<SmallVector<std::optional<StepSlice>>> operands =
        classify(&op);
    if (!operands)
      continue;
    // Reads nothing of the loop: compute it once before the loop.
    if (llvm::none_of(*operands, [](const auto &s) { return s; })) {
      op.moveBefore(loop);
      changed = true;
      continue;
    }
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      // The size of a step slice along another dim is the whole's.
      std::optional<int64_t> index = dim.getConstantIndex();
      const StepSlice &source = *(*operands)[0];
      if (!index || (!source.dropped && *index == source.dim))
        continue;
      int64_t wholeIndex =
          source.dropped && *index >= source.dim ? *index + 1 : *index;
      Value size =
          builder.create<tensor::DimOp>(op.getLoc(), source.whole, wholeIndex);
      dim.replaceAllUsesWith(size);
      dim.erase();
      changed = true;
      continue;
    }
    if (op.getNumResults() != 1)
      continue;
    if (std::optional<StepSlice> result = batch(&op, *operands)) {
      slices[op.getResult(0)] = *result;
      batched.insert(&op);
    }
  }
  keepElementwiseInBody();
  // Uses that stay in the loop read step t of the batched value; the batched
  // ops then go. A seed slice with no batched user stays as it was.
  for (Operation *op : batched) {
    Value value = op->getResult(0);
    bool feedsBatched = llvm::any_of(value.getUsers(), [&](Operation *user) {
      return batched.contains(user);
    });
    if (isa<tensor::ExtractSliceOp>(op) && !feedsBatched &&
        isInvariant(cast<tensor::ExtractSliceOp>(op).getSource())) {
      slices.erase(value);
      continue;
    }
    changed = true;
    if (llvm::all_of(value.getUsers(),
                     [&](Operation *user) { return batched.contains(user); }))
      continue;
    Value stepValue = stepOf(slices[value], op);
    value.replaceUsesWithIf(stepValue, [&](OpOperand &use) {
      return !batched.contains(use.getOwner());
    });
  }
  for (Operation *op : llvm::reverse(batched))
    if (slices.count(op->getResult(0)) && op->use_empty())
      op->erase();
  for (Operation *op : llvm::reverse(created))
    if (isOpTriviallyDead(op))
      op->erase();
  return changed;
}

struct HoistStepInvariantPass
    : public rvnn::impl::RvnnHoistStepInvariantBase<HoistStepInvariantPass> {
  void runOnOperation() override {
    SmallVector<rvnn::RecurseOp> loops;
    getOperation()->walk([&](rvnn::RecurseOp loop) { loops.push_back(loop); });
    for (rvnn::RecurseOp loop : loops)
      Hoister(loop).run();
  }
};

} // namespace
