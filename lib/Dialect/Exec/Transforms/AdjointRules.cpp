//===- AdjointRules.cpp - Reverse-mode rules of the execution ops ---------===//
//
// Elementwise arithmetic and views are differentiated into contract ops (so
// the backward fuses like the forward); every other differentiable op gets
// an rvnn_exec.vjp, which the runtime serves with a generated backward
// kernel or ATen's backward.
//
//===----------------------------------------------------------------------===//

#include "AdjointRules.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::rvnn::exec;

namespace {

/// An operand of a primal op whose value the op's derivative reads only for
/// the cotangents of the operands in `readFor` (none: never; its shape is
/// all the derivative needs).
struct ValueRead {
  Value operand;
  SmallVector<Value, 2> readFor;
};

} // namespace

/// What the derivative of each op that rvnn_exec.vjp differentiates reads of
/// its operands by value, as ATen's derivatives.yaml records what each
/// backward formula saves: the one place that says so. The runtime's rules
/// (lib/Runtime/Exec/VjpOp.cpp) and ATen autograd through the reference
/// implementations must then give the same cotangents for any values of the
/// operands that are read only for their shape. Operands not listed here
/// (and every operand of an op not listed) are read by value.
static SmallVector<ValueRead> valueReads(Operation *op) {
  using Reads = SmallVector<ValueRead>;
  return llvm::TypeSwitch<Operation *, Reads>(op)
      // Selections and views: the cotangent lands in zeros of the source's
      // shape (the indices are read by value).
      .Case([](SliceOp slice) { return Reads{{slice.getSource(), {}}}; })
      .Case([](BeamGatherOp gather) { return Reads{{gather.getInput(), {}}}; })
      .Case([](BeamExpandOp expand) { return Reads{{expand.getInput(), {}}}; })
      .Case([](EmbeddingOp embedding) {
        return Reads{{embedding.getTable(), {}}};
      })
      .Case([](UnchunkOp unchunk) {
        return Reads{{unchunk.getX(), {}}, {unchunk.getRef(), {}}};
      })
      // Bilinear in lhs and rhs; bias and accumulator are added.
      .Case([](GemmOp gemm) {
        return Reads{{gemm.getLhs(), {gemm.getRhs()}},
                     {gemm.getRhs(), {gemm.getLhs()}},
                     {gemm.getBias(), {}},
                     {gemm.getAccumulator(), {}}};
      })
      // beta is added after the normalisation.
      .Case([](LayerNormOp norm) {
        return Reads{{norm.getInput(), {norm.getInput(), norm.getGamma()}},
                     {norm.getGamma(), {norm.getInput()}},
                     {norm.getBeta(), {}}};
      })
      // Linear in h and cand for a given selection.
      .Case([](PairMergeOp merge) {
        return Reads{{merge.getH(), {merge.getSel()}},
                     {merge.getCand(), {merge.getSel()}},
                     {merge.getSel(), {merge.getH(), merge.getCand()}}};
      })
      // accu is added to the log of the picked probabilities.
      .Case([](BeamAccumulateOp accumulate) {
        return Reads{{accumulate.getAccu(), {}},
                     {accumulate.getProbs(), {accumulate.getProbs()}}};
      })
      // Linear in the roots for given weights.
      .Case([](BeamMarginalizeOp marginalize) {
        return Reads{{marginalize.getRoots(),
                      {marginalize.getAccu(), marginalize.getBeamMask()}}};
      })
      // Passes the cotangent to one operand; neither value is read.
      .Case([](ModeSelectOp select) {
        return Reads{{select.getTraining(), {}}, {select.getEvaluation(), {}}};
      })
      // Linear in u for given parameters: u's value is read for the
      // parameters' cotangents only.
      .Case([](DiagonalScanOp scan) {
        return Reads{{scan.getU(),
                      {scan.getARe(), scan.getAIm(), scan.getBRe(),
                       scan.getBIm(), scan.getCRe(), scan.getCIm()}}};
      })
      // Every kind but max is linear in h for a given mask.
      .Case([](PoolOp pool) {
        if (pool.getKind() == mlir::rvnn::PoolKind::max)
          return Reads{};
        return Reads{{pool.getH(), {}}};
      })
      .Default([](Operation *) { return Reads{}; });
}

/// The operands of `op` whose values the cotangents of the operands that
/// satisfy `wanted` read.
static llvm::DenseSet<Value>
operandsReadByValue(Operation *op, llvm::function_ref<bool(Value)> wanted) {
  llvm::DenseSet<Value> partial, read;
  for (const ValueRead &entry : valueReads(op)) {
    if (!entry.operand)
      continue;
    partial.insert(entry.operand);
    if (llvm::any_of(entry.readFor, wanted))
      read.insert(entry.operand);
  }
  for (Value operand : op->getOperands())
    if (!partial.contains(operand))
      read.insert(operand);
  return read;
}

bool mlir::rvnn::exec::isDifferentiableType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

bool mlir::rvnn::exec::hasDifferentiableResults(Operation *op) {
  return !isa<ConstantOp, DimOp, IndexArithOp, CompareOp, ConvertOp, AllocOp,
              ShapeWitnessOp, DropoutMaskOp, DrawPositionOp,
              RedrawDropoutMaskOp, ArgMaxOp, OneHotOp, NeighbourBandOp>(op);
}

bool mlir::rvnn::exec::passesCotangent(OpOperand &operand) {
  auto unchunk = dyn_cast<UnchunkOp>(operand.getOwner());
  return !unchunk || &operand != &unchunk.getRefMutable();
}

bool mlir::rvnn::exec::drawsRandomNumbers(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
    return isa<mlir::rvnn::RandomGeneratorResource>(e.getResource());
  });
}

LogicalResult ReverseSweep::fail(Operation *op, StringRef why) {
  failedOp = op;
  failureReason = why.str();
  return failure();
}

void ReverseSweep::accumulate(Value primal, Value cotangent) {
  if (!isActive(primal))
    return;
  Value &slot = adjoints[primal];
  slot = slot ? backward
                    .create<ElementwiseOp>(cotangent.getLoc(), slot.getType(),
                                           ElementwiseFn::add,
                                           ValueRange{slot, cotangent})
                    .getResult()
              : cotangent;
}

Value ReverseSweep::sizeOf(Value primal, int64_t dim) {
  auto type = cast<RankedTensorType>(primal.getType());
  if (!type.isDynamicDim(dim))
    return backward.create<ConstantOp>(
        primal.getLoc(), backward.getIndexAttr(type.getDimSize(dim)));
  Value &size = sizes[{primal, dim}];
  if (size)
    return size;
  OpBuilder primalSide(primal.getContext());
  if (Operation *def = primal.getDefiningOp())
    primalSide.setInsertionPointAfter(def);
  else
    primalSide.setInsertionPointToStart(primal.getParentBlock());
  Value index = primalSide.create<ConstantOp>(primal.getLoc(),
                                              primalSide.getIndexAttr(dim));
  size = primalSide.create<DimOp>(primal.getLoc(), primal, index);
  return size;
}

SmallVector<Value> ReverseSweep::dynamicSizes(Value primal) {
  auto type = cast<RankedTensorType>(primal.getType());
  SmallVector<Value> result;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.isDynamicDim(dim))
      result.push_back(sizeOf(primal, dim));
  return result;
}

Value ReverseSweep::zerosLike(Value primal) {
  return backward.create<AllocOp>(primal.getLoc(), primal.getType(),
                                  dynamicSizes(primal));
}

Value ReverseSweep::shapeWitness(Value primal) {
  OpBuilder primalSide(primal.getContext());
  if (Operation *def = primal.getDefiningOp())
    primalSide.setInsertionPointAfter(def);
  else
    primalSide.setInsertionPointToStart(primal.getParentBlock());
  return primalSide.create<ShapeWitnessOp>(primal.getLoc(), primal);
}

void ReverseSweep::passShapeWitnesses(const llvm::DenseSet<Value> &retained) {
  Region *backwardRegion = backward.getInsertionBlock()->getParent();
  llvm::SetVector<Value> primals;
  for (OpOperand *operand : shapeOnlyOperands)
    primals.insert(operand->get());
  for (Value primal : primals) {
    // A value the backward also reads by value is a residual anyway.
    auto readByValue = [&](OpOperand &use) {
      return backwardRegion->isAncestor(use.getOwner()->getParentRegion()) &&
             !shapeOnlyOperands.contains(&use);
    };
    if (retained.contains(primal) ||
        llvm::any_of(primal.getUses(), readByValue))
      continue;
    Value witness = shapeWitness(primal);
    primal.replaceUsesWithIf(witness, [&](OpOperand &use) {
      return shapeOnlyOperands.contains(&use);
    });
  }
}

LogicalResult ReverseSweep::differentiateElementwise(Operation *op,
                                                     Value cotangent) {
  auto elementwise = cast<ElementwiseOp>(op);
  Location loc = op->getLoc();
  Type type = elementwise.getType();
  auto apply = [&](ElementwiseFn fn, ValueRange inputs) -> Value {
    return backward.create<ElementwiseOp>(loc, type, fn, inputs);
  };
  Value lhs = elementwise.getInputs()[0];
  Value rhs =
      elementwise.getInputs().size() > 1 ? elementwise.getInputs()[1] : Value();
  Value result = elementwise.getResult();
  switch (elementwise.getFn()) {
  case ElementwiseFn::add:
    accumulate(lhs, cotangent);
    accumulate(rhs, cotangent);
    return success();
  case ElementwiseFn::sub:
    accumulate(lhs, cotangent);
    if (isActive(rhs))
      accumulate(rhs, apply(ElementwiseFn::neg, cotangent));
    return success();
  case ElementwiseFn::mul:
    if (isActive(lhs))
      accumulate(lhs, apply(ElementwiseFn::mul, {cotangent, rhs}));
    if (isActive(rhs))
      accumulate(rhs, apply(ElementwiseFn::mul, {cotangent, lhs}));
    return success();
  case ElementwiseFn::div: {
    Value scaled = apply(ElementwiseFn::div, {cotangent, rhs});
    accumulate(lhs, scaled);
    // d(a/b)/db = -(a/b)/b.
    if (isActive(rhs))
      accumulate(rhs, apply(ElementwiseFn::neg,
                            apply(ElementwiseFn::mul, {scaled, result})));
    return success();
  }
  case ElementwiseFn::neg:
    accumulate(lhs, apply(ElementwiseFn::neg, cotangent));
    return success();
  case ElementwiseFn::exp:
    accumulate(lhs, apply(ElementwiseFn::mul, {cotangent, result}));
    return success();
  case ElementwiseFn::log:
    accumulate(lhs, apply(ElementwiseFn::div, {cotangent, lhs}));
    return success();
  default:
    return emitVjp(op, cotangent);
  }
}

LogicalResult ReverseSweep::differentiateView(Operation *op, Value cotangent) {
  Location loc = op->getLoc();
  Value source = op->getOperand(0);
  if (!isActive(source))
    return success();
  Type sourceType = source.getType();
  if (isa<ReshapeOp>(op)) {
    accumulate(source, backward.create<ReshapeOp>(loc, sourceType, cotangent,
                                                  dynamicSizes(source)));
  } else if (isa<CastOp>(op)) {
    accumulate(source, backward.create<CastOp>(loc, sourceType, cotangent));
  } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    SmallVector<int64_t> inverse(permutation.size());
    for (auto [resultDim, sourceDim] : llvm::enumerate(permutation))
      inverse[sourceDim] = resultDim;
    accumulate(source, backward.create<TransposeOp>(loc, sourceType, cotangent,
                                                    inverse));
  } else if (isa<BroadcastLikeOp>(op)) {
    accumulate(source, backward.create<SumToLikeOp>(loc, sourceType, cotangent,
                                                    source));
  }
  return success();
}

LogicalResult ReverseSweep::differentiateConcat(Operation *op,
                                                Value cotangent) {
  auto concat = cast<ConcatOp>(op);
  Location loc = op->getLoc();
  int64_t axis = concat.getDim();
  auto resultType = cast<RankedTensorType>(concat.getType());
  int64_t rank = resultType.getRank();
  // Input i is the slice of the cotangent at the sum of the sizes before it.
  Value offset = backward.create<ConstantOp>(loc, backward.getIndexAttr(0));
  for (auto [index, input] : llvm::enumerate(concat.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (isActive(input)) {
      SmallVector<int64_t> staticOffsets(rank, 0), staticSizes(type.getShape());
      staticOffsets[axis] = ShapedType::kDynamic;
      SmallVector<Value> offsets{offset};
      SmallVector<Value> sizes = dynamicSizes(input);
      accumulate(input, backward.create<SliceOp>(loc, type, cotangent, offsets,
                                                 sizes, ValueRange{},
                                                 staticOffsets, staticSizes,
                                                 SmallVector<int64_t>(rank, 1),
                                                 ArrayRef<int64_t>{}));
    }
    if (index + 1 < concat.getInputs().size())
      offset = backward.create<IndexArithOp>(loc, IndexArithKind::add, offset,
                                             sizeOf(input, axis));
  }
  return success();
}

namespace {
/// A dim of a value: stands for that dim's size.
using DimRef = std::pair<Value, int64_t>;

std::optional<int64_t> constantIndex(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
    return attr.getInt();
  return std::nullopt;
}

/// The first dim, going back through the producers, whose size `{value,
/// dim}` provably copies: operands of same-shape ops, gemm rows, concat's
/// other dims, the dim query behind a slice's dynamic size. Two dims with
/// the same root have the same size.
DimRef sizeRoot(Value value, int64_t dim);

/// The root of an index value that is a dim query, if it is one.
std::optional<DimRef> sizeRootOfIndex(Value size) {
  auto query = size.getDefiningOp<DimOp>();
  if (!query)
    return std::nullopt;
  std::optional<int64_t> dim = constantIndex(query.getIndex());
  if (!dim)
    return std::nullopt;
  return sizeRoot(query.getSource(), *dim);
}

/// The root of entry `dim` of `shape` when it is dynamic: its size is the
/// matching operand of `sizes` (one per dynamic entry, in order).
std::optional<DimRef> dynamicSizeRoot(ArrayRef<int64_t> shape,
                                      OperandRange sizes, int64_t dim) {
  if (!ShapedType::isDynamic(shape[dim]))
    return std::nullopt;
  return sizeRootOfIndex(
      sizes[llvm::count_if(shape.take_front(dim), ShapedType::isDynamic)]);
}

DimRef sizeRoot(Value value, int64_t dim) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return {value, dim};
  auto resultRank = cast<RankedTensorType>(value.getType()).getRank();
  auto operandWithSameShape = [&]() -> Value {
    if (isa<CastOp, GeluOp, SigmoidOp, ReluOp, DropoutOp, LayerNormOp,
            ElementwiseOp>(def) ||
        def->hasTrait<OpTrait::SameOperandsAndResultShape>())
      return def->getOperand(0);
    return {};
  };
  if (Value operand = operandWithSameShape()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (type && type.getRank() == resultRank)
      return sizeRoot(operand, dim);
  }
  if (auto gemm = dyn_cast<GemmOp>(def)) {
    if (gemm.getLhs().getType().getRank() == resultRank && dim < resultRank - 1)
      return sizeRoot(gemm.getLhs(), dim);
  }
  if (auto concat = dyn_cast<ConcatOp>(def)) {
    if (dim != static_cast<int64_t>(concat.getDim()))
      return sizeRoot(concat.getInputs().front(), dim);
  }
  if (auto reshape = dyn_cast<ReshapeOp>(def)) {
    // A dynamic dim's size is an operand (a collapse of children [N, 2, D]
    // into [N, 2D] reads N of the children).
    if (std::optional<DimRef> root = dynamicSizeRoot(
            reshape.getType().getShape(), reshape.getSizes(), dim))
      return *root;
  }
  if (auto slice = dyn_cast<SliceOp>(def)) {
    // The source dim behind result dim `dim`, and its dynamic size operand.
    ArrayRef<int64_t> dropped = slice.getDroppedDims();
    int64_t sourceDim = -1;
    for (int64_t kept = -1; kept < dim;)
      if (!llvm::is_contained(dropped, ++sourceDim))
        ++kept;
    if (std::optional<DimRef> root = dynamicSizeRoot(
            slice.getStaticSizes(), slice.getSizes(), sourceDim))
      return *root;
  }
  return {value, dim};
}

/// Whether `slice` takes all of its source along `dim`, from offset 0.
bool coversDim(SliceOp slice, int64_t dim) {
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  auto sourceType = cast<RankedTensorType>(slice.getSource().getType());
  if (offsets[dim] != 0)
    return false;
  if (!ShapedType::isDynamic(sizes[dim]))
    return sizes[dim] == sourceType.getDimSize(dim);
  std::optional<DimRef> root = dynamicSizeRoot(sizes, slice.getSizes(), dim);
  return root && *root == sizeRoot(slice.getSource(), dim);
}

/// The dim along which `slices` tile their common source, with the slices
/// in order along it: static unit-stride slices that cover every other dim
/// and follow each other from 0 to the dim's static end. Null otherwise.
std::optional<int64_t>
tilingDim(SmallVectorImpl<std::pair<SliceOp, Value>> &slices) {
  if (slices.size() < 2)
    return std::nullopt;
  SliceOp first = slices.front().first;
  auto sourceType = cast<RankedTensorType>(first.getSource().getType());
  for (int64_t axis = 0, rank = sourceType.getRank(); axis < rank; ++axis) {
    if (sourceType.isDynamicDim(axis))
      continue;
    auto fits = [&](std::pair<SliceOp, Value> entry) {
      SliceOp slice = entry.first;
      if (!slice.getOffsets().empty() || !slice.getStrides().empty() ||
          llvm::any_of(slice.getStaticStrides(),
                       [](int64_t stride) { return stride != 1; }) ||
          ShapedType::isDynamic(slice.getStaticSizes()[axis]))
        return false;
      for (int64_t other = 0; other < rank; ++other)
        if (other != axis && !coversDim(slice, other))
          return false;
      return true;
    };
    if (!llvm::all_of(slices, fits))
      continue;
    auto offset = [&](std::pair<SliceOp, Value> entry) {
      return entry.first.getStaticOffsets()[axis];
    };
    llvm::stable_sort(slices, [&](const auto &a, const auto &b) {
      return offset(a) < offset(b);
    });
    int64_t end = 0;
    for (auto &[slice, cotangent] : slices) {
      if (slice.getStaticOffsets()[axis] != end)
        return std::nullopt;
      end += slice.getStaticSizes()[axis];
    }
    if (end == sourceType.getDimSize(axis))
      return axis;
    return std::nullopt;
  }
  return std::nullopt;
}
} // namespace

Value ReverseSweep::adjointOf(Value primal) {
  completeSlices(primal);
  return adjoints.lookup(primal);
}

void ReverseSweep::completeSlices(Value source) {
  auto pending = pendingSlices.find(source);
  if (pending == pendingSlices.end())
    return;
  SmallVector<std::pair<SliceOp, Value>> slices = std::move(pending->second);
  pendingSlices.erase(pending);
  std::optional<int64_t> axis = tilingDim(slices);
  if (Value sum = adjoints.lookup(source); sum && !axis) {
    // Into the windows of the cotangent the source has already, instead of
    // into zeros of its shape that an add would then sum with it.
    for (auto &[slice, cotangent] : slices)
      if (cotangent)
        sum = backward.create<AddIntoWindowOp>(
            slice.getLoc(), sum.getType(), sum, cotangent, slice.getOffsets(),
            slice.getSizes(), slice.getStrides(), slice.getStaticOffsets(),
            slice.getStaticSizes(), slice.getStaticStrides(),
            slice.getDroppedDims());
    adjoints[source] = sum;
    return;
  }
  if (!axis) {
    // One vjp for all of them: the runtime adds every cotangent into its
    // window of one zero tensor, instead of a zero source per slice and a
    // sum of them (EBT-GRC's overlapping left and right children).
    SmallVector<Operation *> ops;
    SmallVector<Value> cotangents;
    for (auto &[slice, cotangent] : slices) {
      ops.push_back(slice);
      cotangents.push_back(cotangent);
    }
    (void)emitVjp(ops, cotangents); // a slice's vjp cannot be refused
    return;
  }
  // Each cotangent, with the unit dims its slice dropped put back, is the
  // source's cotangent at its place: their concatenation is all of it.
  SmallVector<Value> pieces;
  for (auto &[slice, cotangent] : slices) {
    auto sourceType = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> shape(sourceType.getShape());
    shape[*axis] = slice.getStaticSizes()[*axis];
    auto pieceType = RankedTensorType::get(shape, sourceType.getElementType());
    Value piece = cotangent ? cotangent : zerosLike(slice.getResult());
    if (piece.getType() != pieceType)
      piece = backward.create<ReshapeOp>(slice.getLoc(), pieceType, piece,
                                         dynamicSizes(slice.getResult()));
    pieces.push_back(piece);
  }
  accumulate(source, backward.create<ConcatOp>(
                         source.getLoc(), source.getType(), pieces, *axis));
}

LogicalResult ReverseSweep::differentiateGate(GateOp gate, Value cotangent) {
  // gate = g*new + (1-g)*old, g broadcast to new's type.
  Location loc = gate.getLoc();
  Value g = gate.getG(), newValue = gate.getNewValue(),
        oldValue = gate.getOldValue();
  Type type = newValue.getType();
  auto apply = [&](ElementwiseFn fn, ValueRange inputs) -> Value {
    return backward.create<ElementwiseOp>(loc, type, fn, inputs);
  };
  Value broadcastG =
      g.getType() == type
          ? g
          : backward.create<BroadcastLikeOp>(loc, type, g, cotangent)
                .getResult();
  Value towardsNew = apply(ElementwiseFn::mul, {cotangent, broadcastG});
  accumulate(newValue, towardsNew);
  if (isActive(oldValue))
    accumulate(oldValue, apply(ElementwiseFn::sub, {cotangent, towardsNew}));
  if (isActive(g)) {
    Value towardsG =
        apply(ElementwiseFn::mul,
              {cotangent, apply(ElementwiseFn::sub, {newValue, oldValue})});
    accumulate(g,
               g.getType() == type
                   ? towardsG
                   : backward.create<SumToLikeOp>(loc, g.getType(), towardsG, g)
                         .getResult());
  }
  return success();
}

LogicalResult ReverseSweep::emitVjp(ArrayRef<Operation *> ops,
                                    ArrayRef<Value> cotangents) {
  llvm::SetVector<Value> primals;
  llvm::DenseSet<Value> receiving;
  SmallVector<Value> results;
  for (Operation *op : ops) {
    if (drawsRandomNumbers(op))
      return fail(op, "draws random numbers");
    if (op->getNumRegions() && !isa<DispatchOp>(op))
      return fail(op, "holds a region");
    primals.insert(op->operand_begin(), op->operand_end());
    for (OpOperand &operand : op->getOpOperands())
      if (passesCotangent(operand))
        receiving.insert(operand.get());
    llvm::append_range(results, op->getResults());
  }
  SmallVector<int64_t> gradInputs;
  SmallVector<Type> gradTypes;
  for (auto [index, primal] : llvm::enumerate(primals))
    if (isActive(primal) && receiving.contains(primal)) {
      gradInputs.push_back(index);
      gradTypes.push_back(primal.getType());
    }
  SmallVector<Value> complete;
  for (auto [result, cotangent] : llvm::zip_equal(results, cotangents))
    complete.push_back(cotangent ? cotangent : zerosLike(result));

  Location loc = ops.front()->getLoc();
  auto vjp = backward.create<VjpOp>(loc, gradTypes, primals.getArrayRef(),
                                    complete, gradInputs);
  // Float tensors read only for their shape may become shape witnesses
  // (passShapeWitnesses); an index operand is small.
  llvm::DenseSet<Value> read;
  for (Operation *op : ops)
    for (Value value :
         operandsReadByValue(op, [&](Value v) { return isActive(v); }))
      read.insert(value);
  for (OpOperand &operand : vjp.getPrimalsMutable())
    if (!read.contains(operand.get()) &&
        isDifferentiableType(operand.get().getType()))
      shapeOnlyOperands.insert(&operand);
  Block *body = backward.createBlock(&vjp.getBody());
  IRMapping toBody;
  for (Value primal : primals)
    toBody.map(primal, body->addArgument(primal.getType(), loc));
  OpBuilder inner = OpBuilder::atBlockEnd(body);
  SmallVector<Value> yielded;
  for (Operation *op : ops)
    llvm::append_range(yielded, inner.clone(*op, toBody)->getResults());
  inner.create<YieldOp>(loc, yielded);
  backward.setInsertionPointAfter(vjp);
  for (auto [index, grad] : llvm::zip(gradInputs, vjp.getGrads()))
    accumulate(primals[index], grad);
  return success();
}

LogicalResult ReverseSweep::differentiate(Operation *op,
                                          ArrayRef<Value> cotangents) {
  if (!hasDifferentiableResults(op) ||
      llvm::none_of(op->getOperands(), [&](Value v) { return isActive(v); }))
    return success();
  if (isa<DropoutOp>(op))
    return fail(op, "must be split into dropout_mask and a product first");
  if (isa<ElementwiseOp>(op))
    return differentiateElementwise(op, cotangents.front());
  if (isa<ReshapeOp, CastOp, TransposeOp, BroadcastLikeOp>(op))
    return differentiateView(op, cotangents.front());
  if (isa<ConcatOp>(op))
    return differentiateConcat(op, cotangents.front());
  if (auto gate = dyn_cast<GateOp>(op))
    return differentiateGate(gate, cotangents.front());
  if (auto slice = dyn_cast<SliceOp>(op)) {
    pendingSlices[slice.getSource()].push_back({slice, cotangents.front()});
    return success();
  }
  return emitVjp(op, cotangents);
}
