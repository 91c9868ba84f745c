// Recursion: rvnn.recurse and its yield, balanced_reduce, chunk/unchunk,
// chunk_depth and pair_merge.
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace mlir::rvnn;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnRecursionOps.cpp.inc"

/// A dimension size for diagnostics: `?` when dynamic.
static std::string dimStr(int64_t dim) {
  return ShapedType::isDynamic(dim) ? std::string("?") : std::to_string(dim);
}

/// The chunk size of rvnn.chunk and rvnn.chunk_depth: a chunk of one item
/// would never shrink the sequence.
static LogicalResult verifyChunkSize(Operation *op, int64_t size) {
  return verifyAtLeast(op, "size", size, 2);
}

/// The parent ops verify their body's yield before the generic verifier has
/// seen it; a pass that erased a yielded value's definition (upstream
/// remove-dead-values does so in non-RegionBranchOpInterface bodies) leaves a
/// null operand there, reported here instead of dereferenced.
static LogicalResult verifyNoNullOperands(YieldOp yield) {
  if (llvm::is_contained(yield->getOperands(), Value()))
    return yield.emitOpError("null operand found");
  return success();
}

//===----------------------------------------------------------------------===//
// RecurseOp
//===----------------------------------------------------------------------===//

void RecurseOp::build(OpBuilder &builder, OperationState &state,
                      HaltingPolicy halting, ValueRange inits, Value maxSteps,
                      std::optional<int64_t> steps,
                      std::optional<int64_t> evalSteps) {
  state.addOperands(inits);
  if (maxSteps)
    state.addOperands(maxSteps);
  Properties &props = state.getOrAddProperties<Properties>();
  props.operandSegmentSizes = {static_cast<int32_t>(inits.size()),
                               maxSteps ? 1 : 0};
  props.halting = HaltingPolicyAttr::get(builder.getContext(), halting);
  if (steps)
    props.steps = builder.getI64IntegerAttr(*steps);
  if (evalSteps)
    props.eval_steps = builder.getI64IntegerAttr(*evalSteps);
  state.addTypes(inits.getTypes());
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  block->addArgument(builder.getIndexType(), state.location);
  for (Value init : inits)
    block->addArgument(init.getType(), init.getLoc());
}

YieldOp RecurseOp::getYield() {
  Region &body = getBody();
  if (body.empty() || body.front().empty())
    return {};
  return dyn_cast<YieldOp>(body.front().back());
}

// (%label = %init, ...) [: types] halting <policy> [max_steps %n]
//     [steps = k] [eval_steps = k'] region [attr-dict]
ParseResult RecurseOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *context = parser.getContext();
  Properties &props = result.getOrAddProperties<Properties>();

  // The labels before `=` only name the states for the reader; the body's
  // entry block header defines the arguments.
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            OpAsmParser::Argument label;
            OpAsmParser::UnresolvedOperand init;
            if (parser.parseArgument(label) || parser.parseEqual() ||
                parser.parseOperand(init))
              return failure();
            inits.push_back(init);
            return success();
          }))
    return failure();

  SmallVector<Type> types;
  SMLoc typesLoc = parser.getCurrentLocation();
  if (!inits.empty() && parser.parseColonTypeList(types))
    return failure();

  HaltingPolicyAttr halting;
  if (parser.parseKeyword("halting") ||
      parser.parseCustomAttributeWithFallback(halting))
    return failure();
  props.halting = halting;

  // Operands: inits..., [max_steps].
  if (parser.resolveOperands(inits, types, typesLoc, result.operands))
    return failure();
  bool hasMaxSteps = false;
  if (succeeded(parser.parseOptionalKeyword("max_steps"))) {
    OpAsmParser::UnresolvedOperand maxSteps;
    if (parser.parseOperand(maxSteps) ||
        parser.resolveOperand(maxSteps, IndexType::get(context),
                              result.operands))
      return failure();
    hasMaxSteps = true;
  }
  props.operandSegmentSizes = {static_cast<int32_t>(inits.size()),
                               hasMaxSteps ? 1 : 0};
  auto parseCount = [&](StringRef keyword, IntegerAttr &attr) -> ParseResult {
    if (failed(parser.parseOptionalKeyword(keyword)))
      return success();
    int64_t value = 0;
    if (parser.parseEqual() || parser.parseInteger(value))
      return failure();
    attr = IntegerAttr::get(IntegerType::get(context, 64), value);
    return success();
  };
  if (parseCount("steps", props.steps) ||
      parseCount("eval_steps", props.eval_steps))
    return failure();

  if (parser.parseRegion(*result.addRegion()))
    return failure();
  SMLoc attrsLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  // The inherent attributes have their own syntax; the trailing dictionary
  // would silently override them.
  for (StringRef name : {"halting", "steps", "eval_steps"})
    if (result.attributes.get(name))
      return parser.emitError(attrsLoc, "'")
             << name << "' must be written before the body, not in the "
             << "attribute dictionary";
  // Computed from the operands above.
  result.attributes.erase(getOperandSegmentSizesAttrName(result.name));
  result.addTypes(types);
  return success();
}

void RecurseOp::print(OpAsmPrinter &p) {
  Region &body = getBody();
  unsigned numArgs = body.empty() ? 0 : body.front().getNumArguments();
  p << " (";
  llvm::interleaveComma(llvm::enumerate(getInits()), p, [&](auto it) {
    // Label each init with its block argument (the init itself as a
    // fallback on malformed IR).
    unsigned argIndex = it.index() + 1;
    if (argIndex < numArgs)
      p << body.front().getArgument(argIndex);
    else
      p << it.value();
    p << " = " << it.value();
  });
  p << ")";
  if (!getInits().empty())
    p << " : " << getInits().getTypes();
  p << " halting ";
  p.printStrippedAttrOrType(getHaltingAttr());
  if (Value maxSteps = getMaxSteps())
    p << " max_steps " << maxSteps;
  if (IntegerAttr steps = getStepsAttr())
    p << " steps = " << steps.getInt();
  if (IntegerAttr evalSteps = getEvalStepsAttr())
    p << " eval_steps = " << evalSteps.getInt();
  p << ' ';
  p.printRegion(body, /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getHaltingAttrName(), getStepsAttrName(),
                           getEvalStepsAttrName(),
                           getOperandSegmentSizesAttrName()});
}

LogicalResult RecurseOp::verify() {
  HaltingPolicy policy = getHalting();
  StringRef policyName = stringifyHaltingPolicy(policy);
  std::optional<int64_t> steps;
  if (IntegerAttr attr = getStepsAttr())
    steps = attr.getInt();
  bool hasMaxSteps = static_cast<bool>(getMaxSteps());

  // Bounds.
  if (steps && failed(verifyAtLeast(*this, "steps", *steps, 1)))
    return failure();
  if (IntegerAttr evalSteps = getEvalStepsAttr()) {
    if (policy != HaltingPolicy::fixed)
      return emitOpError("eval_steps is only valid with halting <fixed>, "
                         "not <")
             << policyName << ">";
    if (failed(verifyAtLeast(*this, "eval_steps", evalSteps.getInt(), 1)))
      return failure();
  }
  if (policy == HaltingPolicy::fixed) {
    if (!steps)
      return emitOpError("halting <fixed> needs the steps attribute");
    if (hasMaxSteps)
      return emitOpError("halting <fixed> takes no max_steps operand (its "
                         "step count is the steps attribute)");
  } else if (hasMaxSteps == steps.has_value()) {
    return emitOpError("halting <")
           << policyName
           << "> needs exactly one bound: the max_steps operand or the steps "
              "attribute";
  }

  // State types: inits, results, body arguments.
  OperandRange inits = getInits();
  unsigned numStates = inits.size();
  if (getNumResults() != numStates)
    return emitOpError("has ")
           << numStates << " inits but " << getNumResults() << " results";
  for (auto [index, init, result] : llvm::enumerate(inits, getResults()))
    if (init.getType() != result.getType())
      return emitOpError("result #")
             << index << " type " << result.getType()
             << " does not match init #" << index << " type " << init.getType();

  Block &block = getBodyBlock();
  if (block.getNumArguments() != numStates + 1)
    return emitOpError("body must have ")
           << numStates + 1
           << " arguments (the step index, then one per state), got "
           << block.getNumArguments();
  if (!block.getArgument(0).getType().isIndex())
    return emitOpError("body argument #0 (the step) must be index, got ")
           << block.getArgument(0).getType();
  for (auto [index, init] : llvm::enumerate(inits))
    if (block.getArgument(index + 1).getType() != init.getType())
      return emitOpError("body argument #")
             << index + 1 << " type " << block.getArgument(index + 1).getType()
             << " does not match state #" << index << " type "
             << init.getType();

  if (policy == HaltingPolicy::per_sample)
    for (auto [index, init] : llvm::enumerate(inits)) {
      auto type = dyn_cast<RankedTensorType>(init.getType());
      if (!type || type.getRank() < 1)
        return emitOpError("halting <per_sample> needs every state to be a "
                           "ranked tensor with the batch as dim 0; state #")
               << index << " has type " << init.getType();
    }

  // The yield: next state and halt.
  YieldOp yield = getYield();
  if (!yield)
    return emitOpError("body must end with rvnn.yield");
  if (failed(verifyNoNullOperands(yield)))
    return failure();
  OperandRange values = yield.getValues();
  if (values.size() != numStates)
    return yield.emitOpError("gives ")
           << values.size() << " values but the rvnn.recurse has " << numStates
           << " states";
  for (auto [index, value, init] : llvm::enumerate(values, inits))
    if (value.getType() != init.getType())
      return yield.emitOpError("value #")
             << index << " type " << value.getType()
             << " does not match state #" << index << " type "
             << init.getType();

  Value halt = yield.getHaltValue();
  if (policy != HaltingPolicy::per_sample) {
    if (halt)
      return yield.emitOpError("gives a halt value, but only halting "
                               "<per_sample> takes one (this loop is <")
             << policyName << ">)";
    return success();
  }
  if (!halt)
    return yield.emitOpError(
        "must give a halt value (`halt %h`) under halting <per_sample>");
  auto haltType = dyn_cast<RankedTensorType>(halt.getType());
  if (!haltType || haltType.getRank() != 1 ||
      !haltType.getElementType().isInteger(1))
    return yield.emitOpError("halt must be a rank-1 tensor of i1, got ")
           << halt.getType();
  for (auto [index, init] : llvm::enumerate(inits)) {
    int64_t batch = cast<RankedTensorType>(init.getType()).getDimSize(0);
    if (!dimsCompatible(haltType.getDimSize(0), batch))
      return yield.emitOpError("halt batch size ")
             << dimStr(haltType.getDimSize(0)) << " does not match dim 0 ("
             << dimStr(batch) << ") of state #" << index;
  }
  return success();
}

OperandRange RecurseOp::getEntrySuccessorOperands(RegionBranchPoint) {
  return getInits();
}

/// The statically known minimum and maximum numbers of body executions.
static InvocationBounds getStaticBounds(RecurseOp op,
                                        std::optional<int64_t> maxSteps) {
  auto clamp = [](int64_t value) {
    return static_cast<unsigned>(std::max<int64_t>(value, 0));
  };
  std::optional<int64_t> bound;
  if (IntegerAttr steps = op.getStepsAttr())
    bound = steps.getInt();
  else
    bound = maxSteps;
  switch (op.getHalting()) {
  case HaltingPolicy::fixed: {
    if (!bound)
      return InvocationBounds::getUnknown();
    int64_t eval = *bound;
    if (IntegerAttr evalSteps = op.getEvalStepsAttr())
      eval = evalSteps.getInt();
    return {clamp(std::min(*bound, eval)), clamp(std::max(*bound, eval))};
  }
  case HaltingPolicy::none:
    if (!bound)
      return InvocationBounds::getUnknown();
    return {clamp(*bound), clamp(*bound)};
  case HaltingPolicy::per_sample:
    if (!bound)
      return InvocationBounds::getUnknown();
    return {0, clamp(*bound)};
  }
  return InvocationBounds::getUnknown();
}

void RecurseOp::getSuccessorRegions(RegionBranchPoint point,
                                    SmallVectorImpl<RegionSuccessor> &regions) {
  // Entering, or leaving the body: run the body (again) or exit with the
  // state as the results. A loop known to run at least once always enters
  // the body first.
  Region &body = getBody();
  if (body.empty())
    regions.push_back(RegionSuccessor(&body));
  else
    regions.push_back(RegionSuccessor(&body, getRegionIterArgs()));
  if (point.isParent() &&
      getStaticBounds(*this, std::nullopt).getLowerBound() > 0)
    return;
  regions.push_back(RegionSuccessor(getResults()));
}

void RecurseOp::getRegionInvocationBounds(
    ArrayRef<Attribute> operands, SmallVectorImpl<InvocationBounds> &bounds) {
  std::optional<int64_t> maxSteps;
  if (getMaxSteps() && operands.size() == getNumOperands())
    if (auto constant = dyn_cast_or_null<IntegerAttr>(operands.back()))
      maxSteps = constant.getInt();
  bounds.push_back(getStaticBounds(*this, maxSteps));
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

void YieldOp::build(OpBuilder &builder, OperationState &state,
                    ValueRange values, Value halt) {
  state.addOperands(values);
  if (halt) {
    state.addOperands(halt);
    state.getOrAddProperties<Properties>().has_halt = builder.getUnitAttr();
  }
}

OperandRange YieldOp::getValues() {
  OperandRange all = getOperation()->getOperands();
  if (getHasHalt() && !all.empty())
    return all.drop_back();
  return all;
}

Value YieldOp::getHaltValue() {
  if (!getHasHalt() || getNumOperands() == 0)
    return {};
  return getOperation()->getOperands().back();
}

MutableOperandRange YieldOp::getMutableSuccessorOperands(RegionBranchPoint) {
  return MutableOperandRange(getOperation(), 0, getValues().size());
}

void YieldOp::getSuccessorRegions(ArrayRef<Attribute>,
                                  SmallVectorImpl<RegionSuccessor> &regions) {
  // Only rvnn.recurse is a RegionBranchOpInterface; a balanced_reduce body's
  // parents are not forwarded to a region or to the results as they are.
  if (auto parent = dyn_cast<RegionBranchOpInterface>((*this)->getParentOp()))
    parent.getSuccessorRegions((*this)->getParentRegion(), regions);
}

// [values] [halt %h] [attr-dict] [: types (halt's last)]
ParseResult YieldOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseOperandList(operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("halt"))) {
    OpAsmParser::UnresolvedOperand halt;
    if (parser.parseOperand(halt))
      return failure();
    operands.push_back(halt);
    result.getOrAddProperties<Properties>().has_halt =
        UnitAttr::get(parser.getContext());
  }
  SMLoc attrsLoc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  if (result.attributes.get(getHasHaltAttrName(result.name)))
    return parser.emitError(attrsLoc,
                            "write the halt operand as `halt %h`, not as a "
                            "has_halt attribute");
  SmallVector<Type> types;
  SMLoc typesLoc = parser.getCurrentLocation();
  if (!operands.empty() && parser.parseColonTypeList(types))
    return failure();
  return parser.resolveOperands(operands, types, typesLoc, result.operands);
}

void YieldOp::print(OpAsmPrinter &p) {
  OperandRange values = getValues();
  if (!values.empty())
    p << ' ' << values;
  if (Value halt = getHaltValue())
    p << " halt " << halt;
  p.printOptionalAttrDict((*this)->getAttrs(), {getHasHaltAttrName()});
  if (getNumOperands() != 0)
    p << " : " << getOperation()->getOperandTypes();
}

LogicalResult YieldOp::verify() {
  if (getHasHalt() && getNumOperands() == 0)
    return emitOpError("has_halt needs a trailing halt operand");
  return success();
}

//===----------------------------------------------------------------------===//
// BalancedReduceOp
//===----------------------------------------------------------------------===//

LogicalResult BalancedReduceOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    BalancedReduceOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  auto h = dyn_cast<RankedTensorType>(adaptor.getH().getType());
  auto mask = dyn_cast<RankedTensorType>(adaptor.getMask().getType());
  if (!h || !mask || h.getRank() != 3 || mask.getRank() != 2)
    return emitOptionalError(location,
                             "expects h of rank 3 and mask of rank 2");
  int64_t batch = h.getDimSize(0);
  if (ShapedType::isDynamic(batch))
    batch = mask.getDimSize(0);
  SmallVector<int64_t> dims = {batch, h.getDimSize(2)};
  inferred.emplace_back(dims, h.getElementType());
  return success();
}

LogicalResult BalancedReduceOp::verify() {
  int64_t arity = getArityAttr().getInt();
  RankedTensorType h = getH().getType();
  RankedTensorType mask = getMask().getType();
  NamedTensor hTensor = named("h", getH());
  NamedTensor maskTensor = named("mask", getMask());
  if (failed(verifyAtLeast(*this, "arity", arity, 2)) ||
      failed(verifyRank(*this, hTensor, 3, "[N, S, D]")) ||
      failed(verifyRank(*this, maskTensor, 2, "[N, S]")) ||
      failed(
          verifyDimsMatch(*this, "batch dim N", maskTensor, 0, hTensor, 0)) ||
      failed(
          verifyDimsMatch(*this, "sequence dim S", maskTensor, 1, hTensor, 1)))
    return failure();

  // Body: (children [?, k, D], mask [?, k]) -> parents [?, D].
  Block &block = getBody().front();
  if (block.getNumArguments() != 2)
    return emitOpError("body must have 2 arguments (children [?, k, D] and "
                       "their mask [?, k]), got ")
           << block.getNumArguments();
  int64_t hidden = h.getDimSize(2);
  auto childrenType =
      dyn_cast<RankedTensorType>(block.getArgument(0).getType());
  auto expectedChildren = RankedTensorType::get(
      {ShapedType::kDynamic, arity, hidden}, h.getElementType());
  if (!childrenType ||
      failed(verifyCompatibleShape(childrenType, expectedChildren)) ||
      childrenType.getElementType() != h.getElementType())
    return emitOpError("body argument #0 (children) must be compatible with ")
           << expectedChildren << ", got " << block.getArgument(0).getType();
  auto maskArgType = dyn_cast<RankedTensorType>(block.getArgument(1).getType());
  auto expectedMask = RankedTensorType::get({childrenType.getDimSize(0), arity},
                                            mask.getElementType());
  if (!maskArgType ||
      failed(verifyCompatibleShape(maskArgType, expectedMask)) ||
      maskArgType.getElementType() != mask.getElementType())
    return emitOpError("body argument #1 (mask) must be compatible with ")
           << expectedMask << ", got " << block.getArgument(1).getType();

  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return emitOpError("body must end with rvnn.yield");
  if (failed(verifyNoNullOperands(yield)))
    return failure();
  if (yield.getHaltValue())
    return yield.emitOpError(
        "halt is only valid in an rvnn.recurse body, not in "
        "rvnn.balanced_reduce");
  if (yield.getValues().size() != 1)
    return yield.emitOpError("must give one value (the parents [?, D]) in an "
                             "rvnn.balanced_reduce body, got ")
           << yield.getValues().size();
  Type parentsType = yield.getValues()[0].getType();
  auto parents = dyn_cast<RankedTensorType>(parentsType);
  auto expectedParents = RankedTensorType::get(
      {childrenType.getDimSize(0), hidden}, h.getElementType());
  if (!parents || failed(verifyCompatibleShape(parents, expectedParents)) ||
      parents.getElementType() != h.getElementType())
    return yield.emitOpError("parents must be compatible with ")
           << expectedParents << ", got " << parentsType;
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// ChunkOp
//===----------------------------------------------------------------------===//

std::optional<int64_t> ChunkOp::getStaticSeqLen() {
  auto x = cast<RankedTensorType>(getX().getType());
  int64_t dim = getDimAttr().getInt();
  if (dim >= 1 && dim < x.getRank() && !x.isDynamicDim(dim))
    return x.getDimSize(dim);
  RankedTensorType mask = getMask().getType();
  if (mask.getRank() == 2 && !mask.isDynamicDim(1))
    return mask.getDimSize(1);
  return std::nullopt;
}

bool ChunkOp::isSingleChunk() {
  int64_t size = getSizeAttr().getInt();
  std::optional<int64_t> seqLen = getStaticSeqLen();
  return size >= 2 && seqLen && *seqLen < size + size / 2;
}

LogicalResult ChunkOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, ChunkOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto mask = dyn_cast<RankedTensorType>(adaptor.getMask().getType());
  int64_t size = adaptor.getSizeAttr().getInt();
  int64_t dim = adaptor.getDimAttr() ? adaptor.getDimAttr().getInt() : 1;
  if (!x || !mask || mask.getRank() != 2)
    return emitOptionalError(location,
                             "expects a ranked x and a mask of rank 2");
  if (size < 2 || dim < 1 || dim >= x.getRank())
    return emitOptionalError(location, "expects size >= 2 and dim in [1, ",
                             x.getRank(), ")");
  int64_t batch = x.getDimSize(0);
  if (ShapedType::isDynamic(batch))
    batch = mask.getDimSize(0);
  int64_t seqLen = x.getDimSize(dim);
  if (ShapedType::isDynamic(seqLen))
    seqLen = mask.getDimSize(1);

  int64_t outBatch = ShapedType::kDynamic, outLen = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(seqLen)) {
    if (seqLen < size + size / 2) {
      outBatch = batch;
      outLen = seqLen;
    } else {
      int64_t numChunks = (seqLen + size - 1) / size;
      outBatch = ShapedType::isDynamic(batch) ? batch : batch * numChunks;
      outLen = size;
    }
  }
  SmallVector<int64_t> chunkDims(x.getShape());
  chunkDims[0] = outBatch;
  chunkDims[dim] = outLen;
  inferred.emplace_back(chunkDims, x.getElementType());
  SmallVector<int64_t> maskDims = {outBatch, outLen};
  inferred.emplace_back(maskDims, mask.getElementType());
  return success();
}

LogicalResult ChunkOp::verify() {
  int64_t size = getSizeAttr().getInt();
  int64_t dim = getDimAttr().getInt();
  auto x = cast<RankedTensorType>(getX().getType());
  NamedTensor xTensor = named("x", getX()),
              maskTensor = named("mask", getMask());
  if (failed(verifyChunkSize(getOperation(), size)))
    return failure();
  if (failed(verifyRank(*this, xTensor, 2, "[N, ..., S, ...]",
                        /*atLeast=*/true)))
    return failure();
  if (dim < 1 || dim >= x.getRank())
    return emitOpError("dim must be in [1, ")
           << x.getRank() << ") (dim 0 is the batch), got " << dim;
  if (failed(verifyRank(*this, maskTensor, 2, "[N, S]")))
    return failure();
  if (failed(
          verifyDimsMatch(*this, "batch dim N", maskTensor, 0, xTensor, 0)) ||
      failed(verifyDimsMatch(*this, "sequence dim S", maskTensor, 1, xTensor,
                             dim)))
    return failure();
  return verifyInferredShapes(getOperation());
}

LogicalResult ChunkOp::fold(FoldAdaptor,
                            SmallVectorImpl<OpFoldResult> &results) {
  // One chunk: the op is the identity. Types must match exactly to fold; the
  // canonicalisation pattern inserts casts otherwise.
  if (!isSingleChunk() || getX().getType() != getChunks().getType() ||
      getMask().getType() != getChunkMask().getType())
    return failure();
  results.push_back(getX());
  results.push_back(getMask());
  return success();
}

namespace {
/// A static sequence length shorter than `size + size/2` makes one chunk: the
/// results are the operands, cast to the result types where those differ.
struct CollapseSingleChunk : public OpRewritePattern<ChunkOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ChunkOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.isSingleChunk())
      return failure();
    auto castTo = [&](Value value, Type type) -> Value {
      if (value.getType() == type)
        return value;
      return rewriter.create<tensor::CastOp>(op.getLoc(), type, value);
    };
    Value chunks = castTo(op.getX(), op.getChunks().getType());
    Value chunkMask = castTo(op.getMask(), op.getChunkMask().getType());
    rewriter.replaceOp(op, {chunks, chunkMask});
    return success();
  }
};
} // namespace

void ChunkOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<CollapseSingleChunk>(context);
}

//===----------------------------------------------------------------------===//
// ChunkDepthOp
//===----------------------------------------------------------------------===//

int64_t ChunkDepthOp::depthOf(int64_t length, int64_t size) {
  int64_t depth = 0;
  while (length > 1) {
    ++depth;
    length = length < size + size / 2 ? 1 : (length + size - 1) / size;
  }
  return depth;
}

LogicalResult ChunkDepthOp::verify() {
  return verifyChunkSize(getOperation(), getSizeAttr().getInt());
}

OpFoldResult ChunkDepthOp::fold(FoldAdaptor adaptor) {
  auto length = dyn_cast_or_null<IntegerAttr>(adaptor.getLength());
  int64_t size = getSizeAttr().getInt();
  if (!length || size < 2)
    return {};
  return IntegerAttr::get(IndexType::get(getContext()),
                          depthOf(length.getInt(), size));
}

//===----------------------------------------------------------------------===//
// UnchunkOp
//===----------------------------------------------------------------------===//

LogicalResult UnchunkOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, UnchunkOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  auto x = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  auto ref = dyn_cast<RankedTensorType>(adaptor.getRef().getType());
  int64_t dim = adaptor.getDimAttr().getInt();
  if (!x || !ref || x.getRank() < 1 || ref.getRank() < 1)
    return emitOptionalError(location, "expects x and ref of rank >= 1");
  if (dim < 1 || dim > x.getRank())
    return emitOptionalError(location, "expects dim in [1, ", x.getRank(), "]");
  int64_t batch = ref.getDimSize(0);
  int64_t rows = x.getDimSize(0);
  int64_t numChunks = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(batch) && !ShapedType::isDynamic(rows) &&
      batch > 0 && rows % batch == 0)
    numChunks = rows / batch;
  SmallVector<int64_t> dims = {batch};
  ArrayRef<int64_t> shape = x.getShape();
  dims.append(shape.begin() + 1, shape.begin() + dim);
  dims.push_back(numChunks);
  dims.append(shape.begin() + dim, shape.end());
  inferred.emplace_back(dims, x.getElementType());
  return success();
}

LogicalResult UnchunkOp::verify() {
  auto x = cast<RankedTensorType>(getX().getType());
  auto ref = cast<RankedTensorType>(getRef().getType());
  int64_t dim = getDimAttr().getInt();
  if (failed(verifyRank(*this, named("x", getX()), 1, "[N·S1, ...]",
                        /*atLeast=*/true)) ||
      failed(verifyRank(*this, named("ref", getRef()), 1, "[N, ...]",
                        /*atLeast=*/true)))
    return failure();
  if (dim < 1 || dim > x.getRank())
    return emitOpError("dim must be in [1, ")
           << x.getRank() << "] (dim 0 is the batch), got " << dim;
  int64_t batch = ref.getDimSize(0);
  int64_t rows = x.getDimSize(0);
  if (!ShapedType::isDynamic(batch) && !ShapedType::isDynamic(rows) &&
      (batch == 0 ? rows != 0 : rows % batch != 0))
    return emitOpError("x dim 0 (")
           << rows << ") is not a multiple of the batch size " << batch
           << " (dim 0 of ref)";
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// PairMergeOp
//===----------------------------------------------------------------------===//

LogicalResult PairMergeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    PairMergeOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  auto h = dyn_cast<RankedTensorType>(adaptor.getH().getType());
  auto cand = dyn_cast<RankedTensorType>(adaptor.getCand().getType());
  auto sel = dyn_cast<RankedTensorType>(adaptor.getSel().getType());
  if (!h || !cand || !sel || h.getRank() < 2 || cand.getRank() != h.getRank() ||
      sel.getRank() != h.getRank() - 1)
    return emitOptionalError(location,
                             "expects h and cand of one rank >= 2 and sel of "
                             "rank one less");
  int64_t rank = h.getRank();
  SmallVector<int64_t> dims(h.getShape());
  // Leading dims: whichever operand knows them.
  for (int64_t i = 0; i < rank - 2; ++i) {
    if (ShapedType::isDynamic(dims[i]))
      dims[i] = cand.getDimSize(i);
    if (ShapedType::isDynamic(dims[i]))
      dims[i] = sel.getDimSize(i);
  }
  // Pairs: S-1 from h, else sel's pair count, else a non-broadcast cand's.
  int64_t seqLen = h.getDimSize(rank - 2);
  int64_t pairs = ShapedType::kDynamic;
  if (!ShapedType::isDynamic(seqLen) && seqLen >= 1)
    pairs = seqLen - 1;
  else if (!sel.isDynamicDim(rank - 2))
    pairs = sel.getDimSize(rank - 2);
  else if (!cand.isDynamicDim(rank - 2) && cand.getDimSize(rank - 2) != 1)
    pairs = cand.getDimSize(rank - 2);
  dims[rank - 2] = pairs;
  if (ShapedType::isDynamic(dims[rank - 1]))
    dims[rank - 1] = cand.getDimSize(rank - 1);
  inferred.emplace_back(dims, h.getElementType());
  return success();
}

LogicalResult PairMergeOp::verify() {
  RankedTensorType h = getH().getType();
  RankedTensorType cand = getCand().getType();
  RankedTensorType sel = getSel().getType();
  int64_t rank = h.getRank();
  NamedTensor hTensor = named("h", getH()),
              candTensor = named("cand", getCand()),
              selTensor = named("sel", getSel());
  if (failed(verifyRank(*this, hTensor, 2, "[..., S, D]", /*atLeast=*/true)))
    return failure();
  if (cand.getRank() != rank)
    return emitOpError("cand must have the rank of h (")
           << rank << "), got rank " << cand.getRank();
  if (sel.getRank() != rank - 1)
    return emitOpError("sel must be [..., S-1] with rank ")
           << rank - 1 << ", got rank " << sel.getRank();
  if (failed(verifySameElementType(*this, {hTensor, candTensor, selTensor})))
    return failure();
  for (unsigned i = 0; i + 2 < rank; ++i)
    if (failed(
            verifyDimsMatch(*this, "leading dim", candTensor, i, hTensor, i)) ||
        failed(verifyDimsMatch(*this, "leading dim", selTensor, i, hTensor, i)))
      return failure();
  if (failed(verifyDimsMatch(*this, "feature dim", candTensor, rank - 1,
                             hTensor, rank - 1)))
    return failure();

  int64_t seqLen = h.getDimSize(rank - 2);
  int64_t candLen = cand.getDimSize(rank - 2);
  int64_t pairs = sel.getDimSize(rank - 2);
  if (!ShapedType::isDynamic(seqLen)) {
    if (seqLen < 2)
      return emitOpError("h needs a sequence of length >= 2 to merge a pair, "
                         "got ")
             << seqLen;
    if (!ShapedType::isDynamic(candLen) && candLen != seqLen - 1 &&
        candLen != 1)
      return emitOpError("cand sequence dim must be S-1 = ")
             << seqLen - 1 << " or 1, got " << candLen;
    if (!ShapedType::isDynamic(pairs) && pairs != seqLen - 1)
      return emitOpError("sel must have S-1 = ")
             << seqLen - 1 << " pairs, got " << pairs;
  }
  if (!ShapedType::isDynamic(candLen) && candLen != 1 &&
      !dimsCompatible(candLen, pairs))
    return emitOpError("cand sequence dim ")
           << candLen << " does not match sel's pair count " << pairs;
  return verifyInferredShapes(getOperation());
}
