// Beam-search primitives: selection (topk, argmax, one_hot) and beam
// bookkeeping (gather, expand, accumulate, align, marginalize).
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::rvnn;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnBeamOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Beam shape checks (RvnnVerifiers.h has the dialect's general ones)
//===----------------------------------------------------------------------===//

/// Dims 0 (batch N) and 1 (beam B) of every value must match those of the
/// first one. Ranks must have been checked (>= 2).
static LogicalResult verifyBatchBeamDims(Operation *op,
                                         ArrayRef<NamedTensor> values) {
  for (const NamedTensor &value : values.drop_front()) {
    if (failed(
            verifyDimsMatch(op, "batch dim N", value, 0, values.front(), 0)) ||
        failed(verifyDimsMatch(op, "beam dim B", value, 1, values.front(), 1)))
      return failure();
  }
  return success();
}

/// A static beam dimension must hold at least one beam.
static LogicalResult verifyBeamWidth(Operation *op, NamedTensor value,
                                     unsigned dim) {
  int64_t size = value.type.getDimSize(dim);
  if (ShapedType::isDynamic(size) || size >= 1)
    return success();
  return op->emitOpError() << "beam width must be >= 1, but '" << value.name
                           << "' dim " << dim << " is " << size;
}

//===----------------------------------------------------------------------===//
// Shared shape inference
//===----------------------------------------------------------------------===//

/// The more static of two compatible dimension sizes.
static int64_t mergeDims(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) ? rhs : lhs;
}

/// A product of dimension sizes: dynamic unless both are static (and the
/// product fits).
static int64_t mulDims(int64_t lhs, int64_t rhs) {
  int64_t product;
  if (ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) ||
      llvm::MulOverflow(lhs, rhs, product))
    return ShapedType::kDynamic;
  return product;
}

/// `lhs` with its dynamic dims refined from `rhs` where the ranks agree.
static SmallVector<int64_t> mergeShapes(ArrayRef<int64_t> lhs,
                                        ArrayRef<int64_t> rhs) {
  SmallVector<int64_t> dims(lhs);
  if (lhs.size() == rhs.size())
    for (auto [dim, other] : llvm::zip_equal(dims, rhs))
      dim = mergeDims(dim, other);
  return dims;
}

static RankedTensorType rankedType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// The inference hooks guard only what they index; the verifiers give the
/// detailed diagnostics first.
static LogicalResult inferenceRankError(std::optional<Location> location,
                                        StringRef opName, StringRef layout) {
  return emitOptionalError(location, "'", opName, "' expects ", layout);
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::inferReturnTypeComponents(
    MLIRContext *context, std::optional<Location> location,
    TopKOp::Adaptor adaptor, SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t k = adaptor.getKAttr().getInt();
  if (input.getRank() < 1 || k < 1)
    return inferenceRankError(location, getOperationName(),
                              "input of rank >= 1 and k >= 1");
  SmallVector<int64_t> dims =
      mergeShapes(input.getShape(), rankedType(adaptor.getMask()).getShape());
  dims.back() = k;
  inferred.emplace_back(dims, input.getElementType());
  inferred.emplace_back(dims, IntegerType::get(context, 64));
  return success();
}

LogicalResult TopKOp::verify() {
  NamedTensor input = named("input", getInput());
  NamedTensor mask = named("mask", getMask());
  int64_t k = getKAttr().getInt();
  if (failed(verifyAtLeast(*this, "beam width k", k, 1)) ||
      failed(verifyRank(*this, input, 1, "[..., S]", /*atLeast=*/true)) ||
      failed(verifySameShape(*this, mask, input)) ||
      failed(verifySameElementType(*this, {input, mask})))
    return failure();
  // The mask has the input's shape, so either may give the static size.
  int64_t size =
      mergeDims(input.type.getShape().back(), mask.type.getShape().back());
  if (!ShapedType::isDynamic(size) && k > size)
    return emitOpError() << "k = " << k
                         << " exceeds the size of the last dim of 'input' ("
                         << size << ")";
  return verifyInferredShapes(getOperation());
}

void TopKOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // Only Gumbel top-k draws random numbers; plain top-k is pure.
  if (!getGumbel())
    return;
  effects.emplace_back(MemoryEffects::Read::get(),
                       RandomGeneratorResource::get());
  effects.emplace_back(MemoryEffects::Write::get(),
                       RandomGeneratorResource::get());
}

Speculation::Speculatability TopKOp::getSpeculatability() {
  return getGumbel() ? Speculation::NotSpeculatable : Speculation::Speculatable;
}

namespace {
/// A beam width of 1 without noise is greedy selection: topk {k = 1} whose
/// values are unused becomes argmax. When the values are used the op stays,
/// so the rewrite never has to rebuild them and is always valid.
struct TopKToArgMax : public OpRewritePattern<TopKOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TopKOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKAttr().getInt() != 1 || op.getGumbel())
      return rewriter.notifyMatchFailure(op, "not a noise-free beam width 1");
    if (!op.getValues().use_empty())
      return rewriter.notifyMatchFailure(op, "values are used");
    auto argmax = rewriter.create<ArgMaxOp>(
        op.getLoc(), op.getIndices().getType(), op.getInput(), op.getMask());
    rewriter.replaceAllUsesWith(op.getIndices(), argmax.getIndices());
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void TopKOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<TopKToArgMax>(context);
}

//===----------------------------------------------------------------------===//
// ArgMaxOp
//===----------------------------------------------------------------------===//

LogicalResult ArgMaxOp::inferReturnTypeComponents(
    MLIRContext *context, std::optional<Location> location,
    ArgMaxOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  if (input.getRank() < 1)
    return inferenceRankError(location, getOperationName(),
                              "input of rank >= 1");
  SmallVector<int64_t> dims =
      mergeShapes(input.getShape(), rankedType(adaptor.getMask()).getShape());
  dims.back() = 1;
  inferred.emplace_back(dims, IntegerType::get(context, 64));
  return success();
}

LogicalResult ArgMaxOp::verify() {
  NamedTensor input = named("input", getInput());
  NamedTensor mask = named("mask", getMask());
  if (failed(verifyRank(*this, input, 1, "[..., S]", /*atLeast=*/true)) ||
      failed(verifySameShape(*this, mask, input)) ||
      failed(verifySameElementType(*this, {input, mask})))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// OneHotOp
//===----------------------------------------------------------------------===//

LogicalResult OneHotOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, OneHotOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType indices = rankedType(adaptor.getIndices());
  RankedTensorType ref = rankedType(adaptor.getRef());
  if (indices.getRank() < 1 || ref.getRank() != indices.getRank())
    return inferenceRankError(location, getOperationName(),
                              "indices and ref of the same rank >= 1");
  SmallVector<int64_t> dims =
      mergeShapes(indices.getShape().drop_back(), ref.getShape().drop_back());
  dims.push_back(indices.getShape().back());
  dims.push_back(ref.getShape().back());
  inferred.emplace_back(dims, ref.getElementType());
  return success();
}

LogicalResult OneHotOp::verify() {
  NamedTensor indices = named("indices", getIndices());
  NamedTensor ref = named("ref", getRef());
  if (failed(verifyRank(*this, indices, 1, "[..., K]", /*atLeast=*/true)) ||
      failed(verifyRank(*this, ref, indices.type.getRank(),
                        "[..., S] with the rank of 'indices'")))
    return failure();
  for (int64_t dim = 0, e = indices.type.getRank() - 1; dim < e; ++dim)
    if (failed(verifyDimsMatch(*this, "leading dim", ref, dim, indices, dim)))
      return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// BeamGatherOp
//===----------------------------------------------------------------------===//

LogicalResult BeamGatherOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    BeamGatherOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (input.getRank() < 2 || indices.getRank() != 2)
    return inferenceRankError(location, getOperationName(),
                              "input [N, B, ...] and indices [N, K]");
  SmallVector<int64_t> dims(input.getShape());
  dims[0] = mergeDims(dims[0], indices.getDimSize(0));
  dims[1] = indices.getDimSize(1);
  inferred.emplace_back(dims, input.getElementType());
  return success();
}

LogicalResult BeamGatherOp::verify() {
  NamedTensor input = named("input", getInput());
  NamedTensor indices = named("indices", getIndices());
  if (failed(verifyAtLeast(*this, "factor", getFactorAttr().getInt(), 1)) ||
      failed(verifyRank(*this, input, 2, "[N, B, ...]", /*atLeast=*/true)) ||
      failed(verifyRank(*this, indices, 2, "[N, K]")) ||
      failed(verifyDimsMatch(*this, "batch dim N", indices, 0, input, 0)) ||
      failed(verifyBeamWidth(*this, input, 1)) ||
      failed(verifyBeamWidth(*this, indices, 1)))
    return failure();
  return verifyInferredShapes(getOperation());
}

namespace {
/// A gather from beam_expand(x, f) reads x[c / f]: gather from x with the
/// factors multiplied, so the f-times-larger expansion is never built.
struct BeamGatherOfExpand : public OpRewritePattern<BeamGatherOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BeamGatherOp op,
                                PatternRewriter &rewriter) const override {
    auto expand = op.getInput().getDefiningOp<BeamExpandOp>();
    if (!expand)
      return rewriter.notifyMatchFailure(op, "input is not a beam_expand");
    int64_t factor =
        op.getFactorAttr().getInt() * expand.getFactorAttr().getInt();
    rewriter.replaceOpWithNewOp<BeamGatherOp>(
        op, op.getType(), expand.getInput(), op.getIndices(),
        rewriter.getI64IntegerAttr(factor));
    return success();
  }
};
} // namespace

void BeamGatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<BeamGatherOfExpand>(context);
}

//===----------------------------------------------------------------------===//
// BeamExpandOp
//===----------------------------------------------------------------------===//

LogicalResult BeamExpandOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    BeamExpandOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType input = rankedType(adaptor.getInput());
  int64_t factor = adaptor.getFactorAttr().getInt();
  if (input.getRank() < 2 || factor < 1)
    return inferenceRankError(location, getOperationName(),
                              "input [N, B, ...] and factor >= 1");
  SmallVector<int64_t> dims(input.getShape());
  dims[1] = mulDims(dims[1], factor);
  inferred.emplace_back(dims, input.getElementType());
  return success();
}

LogicalResult BeamExpandOp::verify() {
  NamedTensor input = named("input", getInput());
  if (failed(verifyAtLeast(*this, "factor", getFactorAttr().getInt(), 1)) ||
      failed(verifyRank(*this, input, 2, "[N, B, ...]", /*atLeast=*/true)) ||
      failed(verifyBeamWidth(*this, input, 1)))
    return failure();
  return verifyInferredShapes(getOperation());
}

OpFoldResult BeamExpandOp::fold(FoldAdaptor) {
  // A fold must keep the result type; a refining or relaxing factor-1 expand
  // is left to the canonicalisation pattern below.
  if (getFactorAttr().getInt() == 1 && getInput().getType() == getType())
    return getInput();
  return {};
}

namespace {
/// factor = 1 with a different (compatible) result type: a tensor.cast.
struct BeamExpandOfOneToCast : public OpRewritePattern<BeamExpandOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BeamExpandOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getFactorAttr().getInt() != 1 ||
        op.getInput().getType() == op.getType())
      return rewriter.notifyMatchFailure(op, "not a type-changing factor 1");
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(),
                                                op.getInput());
    return success();
  }
};
} // namespace

void BeamExpandOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<BeamExpandOfOneToCast>(context);
}

//===----------------------------------------------------------------------===//
// BeamAccumulateOp
//===----------------------------------------------------------------------===//

LogicalResult BeamAccumulateOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    BeamAccumulateOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType accu = rankedType(adaptor.getAccu());
  RankedTensorType probs = rankedType(adaptor.getProbs());
  RankedTensorType indices = rankedType(adaptor.getIndices());
  if (accu.getRank() != 2 || probs.getRank() != 3 || indices.getRank() != 3)
    return inferenceRankError(
        location, getOperationName(),
        "accu [N, B], probs [N, B, S] and indices [N, B, K]");
  int64_t batch = mergeDims(mergeDims(accu.getDimSize(0), probs.getDimSize(0)),
                            indices.getDimSize(0));
  int64_t beams = mergeDims(mergeDims(accu.getDimSize(1), probs.getDimSize(1)),
                            indices.getDimSize(1));
  inferred.emplace_back(
      ArrayRef<int64_t>{batch, mulDims(beams, indices.getDimSize(2))},
      accu.getElementType());
  return success();
}

LogicalResult BeamAccumulateOp::verify() {
  NamedTensor accu = named("accu", getAccu());
  NamedTensor probs = named("probs", getProbs());
  NamedTensor indices = named("indices", getIndices());
  if (failed(verifyRank(*this, accu, 2, "[N, B]")) ||
      failed(verifyRank(*this, probs, 3, "[N, B, S]")) ||
      failed(verifyRank(*this, indices, 3, "[N, B, K]")) ||
      failed(verifyBatchBeamDims(*this, {accu, probs, indices})) ||
      failed(verifyBeamWidth(*this, accu, 1)) ||
      failed(verifyBeamWidth(*this, indices, 2)) ||
      failed(verifySameElementType(*this, {accu, probs})))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// BeamAlignOp
//===----------------------------------------------------------------------===//

LogicalResult BeamAlignOp::inferReturnTypeComponents(
    MLIRContext *context, std::optional<Location> location,
    BeamAlignOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType accu = rankedType(adaptor.getAccu());
  if (accu.getRank() != 2)
    return inferenceRankError(location, getOperationName(), "accu [N, B]");
  inferred.emplace_back(
      mergeShapes(accu.getShape(),
                  rankedType(adaptor.getBeamMask()).getShape()),
      IntegerType::get(context, 64));
  return success();
}

LogicalResult BeamAlignOp::verify() {
  NamedTensor accu = named("accu", getAccu());
  NamedTensor beamMask = named("beam_mask", getBeamMask());
  double temperature = getTemperature().convertToDouble();
  if (!(temperature > 0.0) || std::isinf(temperature))
    return emitOpError() << "temperature must be finite and > 0, got "
                         << temperature;
  if (failed(verifyRank(*this, accu, 2, "[N, B]")) ||
      failed(verifyRank(*this, beamMask, 2, "[N, B]")) ||
      failed(verifyBatchBeamDims(*this, {accu, beamMask})) ||
      failed(verifyBeamWidth(*this, accu, 1)) ||
      failed(verifySameElementType(*this, {accu, beamMask})))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// BeamMarginalizeOp
//===----------------------------------------------------------------------===//

LogicalResult BeamMarginalizeOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    BeamMarginalizeOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  RankedTensorType roots = rankedType(adaptor.getRoots());
  RankedTensorType accu = rankedType(adaptor.getAccu());
  RankedTensorType beamMask = rankedType(adaptor.getBeamMask());
  if (roots.getRank() != 3 || accu.getRank() != 2 || beamMask.getRank() != 2)
    return inferenceRankError(location, getOperationName(),
                              "roots [N, B, D], accu and beam_mask [N, B]");
  int64_t batch = mergeDims(mergeDims(roots.getDimSize(0), accu.getDimSize(0)),
                            beamMask.getDimSize(0));
  inferred.emplace_back(ArrayRef<int64_t>{batch, roots.getDimSize(2)},
                        roots.getElementType());
  return success();
}

LogicalResult BeamMarginalizeOp::verify() {
  NamedTensor roots = named("roots", getRoots());
  NamedTensor accu = named("accu", getAccu());
  NamedTensor beamMask = named("beam_mask", getBeamMask());
  if (failed(verifyRank(*this, roots, 3, "[N, B, D]")) ||
      failed(verifyRank(*this, accu, 2, "[N, B]")) ||
      failed(verifyRank(*this, beamMask, 2, "[N, B]")) ||
      failed(verifyBatchBeamDims(*this, {roots, accu, beamMask})) ||
      failed(verifyBeamWidth(*this, roots, 1)) ||
      failed(verifySameElementType(*this, {roots, accu, beamMask})))
    return failure();
  return verifyInferredShapes(getOperation());
}
