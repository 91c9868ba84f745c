// Parameters and neural-network basics.
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace mlir::rvnn;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The ranked tensor type of `value`, or null. Shape inference may run on IR
/// that has not been verified yet, so it never assumes operand types.
static RankedTensorType rankedType(Value value) {
  return value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
}

/// Result = the type of `input` (elementwise and other shape-preserving ops).
static LogicalResult
inferSameAsInput(std::optional<Location> location, Value input,
                 SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType type = rankedType(input);
  if (!type)
    return emitOptionalError(location, "expects a ranked tensor input");
  inferred.emplace_back(type.getShape(), type.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `kind` or `kind(scale)`, e.g. `xavier_uniform`, `normal(0.02)`.
static ParseResult parseParamInit(OpAsmParser &parser, InitKindAttr &init,
                                  FloatAttr &scale) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<InitKind> kind = symbolizeInitKind(keyword);
  if (!kind)
    return parser.emitError(loc, "unknown initialiser '")
           << keyword
           << "' (expected zeros, ones, constant, normal, uniform or "
              "xavier_uniform)";
  init = InitKindAttr::get(parser.getContext(), *kind);
  if (succeeded(parser.parseOptionalLParen())) {
    double value;
    if (parser.parseFloat(value) || parser.parseRParen())
      return failure();
    scale = parser.getBuilder().getF64FloatAttr(value);
  }
  return success();
}

static void printParamInit(OpAsmPrinter &printer, Operation *,
                           InitKindAttr init, FloatAttr scale) {
  printer << stringifyInitKind(init.getValue());
  if (scale) {
    printer << '(';
    printer.printFloat(scale.getValue());
    printer << ')';
  }
}

/// A bare pooling keyword: `first`, `last`, `mean` or `max`.
static ParseResult parsePoolKind(OpAsmParser &parser, PoolKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<PoolKind> value = symbolizePoolKind(keyword);
  if (!value)
    return parser.emitError(loc, "unknown pooling kind '")
           << keyword << "' (expected first, last, mean or max)";
  kind = PoolKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printPoolKind(OpAsmPrinter &printer, Operation *,
                          PoolKindAttr kind) {
  printer << stringifyPoolKind(kind.getValue());
}

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnNNOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ParamOp
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  // The Symbol trait already requires a SymbolTable parent.
  RankedTensorType type = getType();
  if (!type.hasStaticShape())
    return emitOpError("parameter type must have a static shape, got ") << type;
  InitKind kind = getInit();
  StringRef kindName = stringifyInitKind(kind);
  std::optional<APFloat> scale = getScale();
  switch (kind) {
  case InitKind::zeros:
  case InitKind::ones:
    if (scale)
      return emitOpError("init ") << kindName << " takes no scale";
    break;
  case InitKind::constant:
    if (!scale)
      return emitOpError(
          "init constant needs a scale (the constant value), e.g. "
          "constant(0.0)");
    break;
  case InitKind::xavier_uniform:
    if (type.getRank() < 2)
      return emitOpError("init xavier_uniform needs rank >= 2 (fan-in and "
                         "fan-out), got rank ")
             << type.getRank();
    [[fallthrough]];
  case InitKind::normal:
  case InitKind::uniform:
    if (scale && !(scale->convertToDouble() > 0.0))
      return emitOpError("init ") << kindName << " needs scale > 0, got "
                                  << scale->convertToDouble();
    break;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ParamGetOp
//===----------------------------------------------------------------------===//

LogicalResult ParamGetOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  Operation *symbol =
      symbolTable.lookupNearestSymbolFrom(getOperation(), getNameAttr());
  if (!symbol)
    return emitOpError("unknown parameter ") << getNameAttr();
  auto param = dyn_cast<ParamOp>(symbol);
  if (!param)
    return emitOpError() << getNameAttr() << " is a '" << symbol->getName()
                         << "', not an rvnn.param";
  if (param.getType() != getType())
    return emitOpError("result type ")
           << getType() << " does not match the declared type "
           << param.getType() << " of " << getNameAttr();
  return success();
}

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, LinearOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType weight = rankedType(adaptor.getWeight());
  if (!input || !weight || input.getRank() < 1 || weight.getRank() != 2)
    return emitOptionalError(location,
                             "expects input rank >= 1 and weight rank 2");
  SmallVector<int64_t> dims(input.getShape());
  dims.back() = weight.getDimSize(0);
  inferred.emplace_back(dims, input.getElementType());
  return success();
}

LogicalResult LinearOp::verify() {
  NamedTensor input = named("input", getInput());
  NamedTensor weight = named("weight", getWeight());
  if (failed(verifyRank(*this, input, 1, "[..., in]", /*atLeast=*/true)) ||
      failed(verifyRank(*this, weight, 2, "[out, in]")) ||
      failed(verifyDimsMatch(*this, "in-size", input, input.type.getRank() - 1,
                             weight, 1)))
    return failure();
  if (Value bias = getBias()) {
    NamedTensor biasTensor = named("bias", bias);
    if (failed(verifyRank(*this, biasTensor, 1, "[out]")) ||
        failed(verifyDimsMatch(*this, "out-size", biasTensor, 0, weight, 0)))
      return failure();
  }
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    EmbeddingOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType table = rankedType(adaptor.getTable());
  RankedTensorType ids = rankedType(adaptor.getIds());
  if (!table || !ids || table.getRank() != 2)
    return emitOptionalError(location, "expects a rank-2 table and ranked ids");
  SmallVector<int64_t> dims(ids.getShape());
  dims.push_back(table.getDimSize(1));
  inferred.emplace_back(dims, table.getElementType());
  return success();
}

LogicalResult EmbeddingOp::verify() {
  if (failed(verifyRank(*this, named("table", getTable()), 2, "[V, D]")))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    LayerNormOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  return inferSameAsInput(location, adaptor.getInput(), inferred);
}

LogicalResult LayerNormOp::verify() {
  RankedTensorType input = getInput().getType();
  if (failed(verifyRank(*this, named("input", getInput()), 1, "[..., D]",
                        /*atLeast=*/true)))
    return failure();
  int64_t size = input.getShape().back();
  for (auto [name, value] : {std::pair<StringRef, Value>{"gamma", getGamma()},
                             std::pair<StringRef, Value>{"beta", getBeta()}}) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getRank() != 1 || !dimsCompatible(type.getDimSize(0), size) ||
        type.getElementType() != input.getElementType())
      return emitOpError() << name << " must be "
                           << RankedTensorType::get({size},
                                                    input.getElementType())
                           << " (the input's last dim and element type), got "
                           << type;
  }
  if (!(getEpsilon().convertToDouble() > 0.0))
    return emitOpError("epsilon must be > 0, got ")
           << getEpsilon().convertToDouble();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// DropoutOp
//===----------------------------------------------------------------------===//

LogicalResult DropoutOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, DropoutOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  return inferSameAsInput(location, adaptor.getInput(), inferred);
}

LogicalResult DropoutOp::verify() {
  double rate = getRate().convertToDouble();
  if (!(rate >= 0.0 && rate < 1.0))
    return emitOpError("rate must be in [0, 1), got ") << rate;
  int64_t rank = getInput().getType().getRank();
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t dim : getSharedDims()) {
    if (dim < 0 || dim >= rank)
      return emitOpError("shared_dims entry ")
             << dim << " is out of range for rank " << rank;
    if (!seen.insert(dim).second)
      return emitOpError("shared_dims lists dim ") << dim << " twice";
  }
  return verifyInferredShapes(getOperation());
}

OpFoldResult DropoutOp::fold(FoldAdaptor) {
  // Dropping nothing is the identity in both modes and draws no randomness.
  if (getRate().isZero())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ModeSelectOp
//===----------------------------------------------------------------------===//

LogicalResult ModeSelectOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    ModeSelectOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType training = rankedType(adaptor.getTraining());
  RankedTensorType evaluation = rankedType(adaptor.getEvaluation());
  if (!training || !evaluation)
    return emitOptionalError(location, "expects ranked tensor operands");
  if (training.getRank() != evaluation.getRank())
    return emitOptionalError(location, "operands of rank ", training.getRank(),
                             " and ", evaluation.getRank(),
                             " (they need one rank)");
  // A size is static where both modes agree on it.
  SmallVector<int64_t> shape;
  for (auto [a, b] : llvm::zip(training.getShape(), evaluation.getShape()))
    shape.push_back(a == b ? a : ShapedType::kDynamic);
  inferred.emplace_back(shape, training.getElementType());
  return success();
}

LogicalResult ModeSelectOp::verify() {
  SmallVector<ShapedTypeComponents> inferred;
  if (failed(inferReturnTypeComponents(getContext(), getLoc(), getOperands(),
                                       nullptr, nullptr, {}, inferred)))
    return failure();
  // Exactly the join: a static size the modes disagree on would be wrong in
  // one of them.
  auto expected = RankedTensorType::get(inferred.front().getDims(),
                                        getType().getElementType());
  if (getType() != expected)
    return emitOpError() << "result type " << getType() << " should be "
                         << expected
                         << " (a size is static only where both operands "
                            "have it)";
  return success();
}

OpFoldResult ModeSelectOp::fold(FoldAdaptor) {
  // Both modes select the same value.
  if (getTraining() == getEvaluation())
    return getTraining();
  return {};
}

//===----------------------------------------------------------------------===//
// EvalOptionOp
//===----------------------------------------------------------------------===//

LogicalResult EvalOptionOp::verify() {
  // A plain identifier, so that `--option NAME=VALUE` lists parse
  // unambiguously.
  StringRef name = getName();
  auto isLowerOrUnderscore = [](char c) {
    return (c >= 'a' && c <= 'z') || c == '_';
  };
  bool valid = !name.empty() && isLowerOrUnderscore(name.front()) &&
               llvm::all_of(name, [&](char c) {
                 return isLowerOrUnderscore(c) || (c >= '0' && c <= '9');
               });
  if (!valid)
    return emitOpError("name must be a lower-case identifier "
                       "([a-z_][a-z0-9_]*), got '")
           << name << "'";
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp, MaskedSoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, SoftmaxOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  return inferSameAsInput(location, adaptor.getInput(), inferred);
}

LogicalResult SoftmaxOp::verify() {
  if (failed(verifyDimInRange(getOperation(), getDim(),
                              getInput().getType().getRank(),
                              /*fromEnd=*/true)))
    return failure();
  return verifyInferredShapes(getOperation());
}

LogicalResult MaskedSoftmaxOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    MaskedSoftmaxOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  return inferSameAsInput(location, adaptor.getInput(), inferred);
}

LogicalResult MaskedSoftmaxOp::verify() {
  NamedTensor input = named("input", getInput());
  NamedTensor mask = named("mask", getMask());
  if (failed(verifySameElementType(*this, {input, mask})) ||
      failed(verifySameShape(*this, mask, input)) ||
      failed(verifyDimInRange(getOperation(), getDim(), input.type.getRank(),
                              /*fromEnd=*/true)))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// CrossEntropyOp
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    CrossEntropyOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType logits = rankedType(adaptor.getLogits());
  if (!logits)
    return emitOptionalError(location, "expects ranked logits");
  inferred.emplace_back(ArrayRef<int64_t>{}, logits.getElementType());
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  NamedTensor logits = named("logits", getLogits());
  NamedTensor labels = named("labels", getLabels());
  if (failed(verifyRank(*this, logits, 2, "[N, C]")) ||
      failed(verifyRank(*this, labels, 1, "[N]")) ||
      failed(verifyDimsMatch(*this, "batch dim N", labels, 0, logits, 0)))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// BroadcastLikeOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastLikeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    BroadcastLikeOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType ref = rankedType(adaptor.getRef());
  if (!input || !ref)
    return emitOptionalError(location, "expects ranked input and ref");
  inferred.emplace_back(ref.getShape(), input.getElementType());
  return success();
}

LogicalResult BroadcastLikeOp::verify() {
  // A dynamic input dim may be 1 at run time; a dynamic ref dim may equal
  // the input dim: only two different static sizes are an error.
  if (failed(verifyBroadcastable(*this, named("input", getInput()),
                                 named("ref", getRef()))))
    return failure();
  return verifyInferredShapes(getOperation());
}

OpFoldResult BroadcastLikeOp::fold(FoldAdaptor) {
  // Broadcasting a tensor to its own shape is the identity.
  if (getInput() == getRef() && getInput().getType() == getResult().getType())
    return getInput();
  // A fully static input whose type is the result type needs no broadcast.
  RankedTensorType input = getInput().getType();
  if (input == getResult().getType() && input.hasStaticShape())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// PoolOp
//===----------------------------------------------------------------------===//

LogicalResult PoolOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, PoolOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType h = rankedType(adaptor.getH());
  if (!h || h.getRank() != 3)
    return emitOptionalError(location, "expects h of rank 3");
  inferred.emplace_back(ArrayRef<int64_t>{h.getDimSize(0), h.getDimSize(2)},
                        h.getElementType());
  return success();
}

LogicalResult PoolOp::verify() {
  RankedTensorType h = getH().getType();
  RankedTensorType mask = getMask().getType();
  if (failed(verifyRank(*this, named("h", getH()), 3, "[N, S, D]")))
    return failure();
  if (mask.getRank() != 2 || mask.getElementType() != h.getElementType() ||
      failed(
          verifyCompatibleShape(mask.getShape(), h.getShape().take_front(2))))
    return emitOpError("mask must be ")
           << RankedTensorType::get(h.getShape().take_front(2),
                                    h.getElementType())
           << " (h's [N, S] and element type), got " << mask;
  return verifyInferredShapes(getOperation());
}
