// Gating: gated convex mixes and the cumulative softmax.
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::rvnn;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnGatingOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared by the gated mixes (gate, soft_depth_mix)
//===----------------------------------------------------------------------===//

/// Verifies the operands of a gated mix `gate ⊙ lhs + (1 - gate) ⊙ rhs`:
/// `lhs` and `rhs` have compatible types, and `gate` has their element type
/// and broadcasts to them.
static LogicalResult verifyGatedMix(Operation *op, StringRef gateName,
                                    Value gate, StringRef lhsName, Value lhs,
                                    StringRef rhsName, Value rhs) {
  NamedTensor g = named(gateName, gate), l = named(lhsName, lhs),
              r = named(rhsName, rhs);
  if (failed(verifySameElementType(op, {l, r, g})) ||
      failed(verifySameShape(op, r, l)) ||
      failed(verifyBroadcastable(op, g, l)))
    return failure();
  return verifyInferredShapes(op);
}

/// Infers the result of a gated mix: the shape shared by `lhs` and `rhs`
/// (static wherever either is static, or where the gate has a static size
/// other than 1), with their element type.
static LogicalResult
inferGatedMix(std::optional<Location> location, Value gate, Value lhs,
              Value rhs, SmallVectorImpl<ShapedTypeComponents> &inferred) {
  auto gateType = dyn_cast<RankedTensorType>(gate.getType());
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
  if (!gateType || !lhsType || !rhsType)
    return emitOptionalError(location, "expects ranked tensor operands");
  if (lhsType.getRank() != rhsType.getRank() ||
      gateType.getRank() > lhsType.getRank())
    return emitOptionalError(location, "mixed operands ", lhsType, " and ",
                             rhsType, " with gate ", gateType,
                             " have incompatible ranks");
  SmallVector<int64_t> dims(lhsType.getShape());
  int64_t offset = lhsType.getRank() - gateType.getRank();
  for (auto [index, dim] : llvm::enumerate(dims)) {
    int64_t other = rhsType.getDimSize(index);
    if (!dimsCompatible(dim, other))
      return emitOptionalError(location, "mixed operands ", lhsType, " and ",
                               rhsType, " have incompatible shapes");
    if (ShapedType::isDynamic(dim))
      dim = other;
    if (static_cast<int64_t>(index) >= offset && ShapedType::isDynamic(dim)) {
      int64_t gateSize = gateType.getDimSize(index - offset);
      if (gateSize != 1)
        dim = gateSize;
    }
  }
  inferred.emplace_back(dims, lhsType.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// GateOp
//===----------------------------------------------------------------------===//

LogicalResult GateOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, GateOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  return inferGatedMix(location, adaptor.getG(), adaptor.getNewValue(),
                       adaptor.getOldValue(), inferred);
}

LogicalResult GateOp::verify() {
  return verifyGatedMix(getOperation(), "g", getG(), "new_value", getNewValue(),
                        "old_value", getOldValue());
}

/// The operand a gate reduces to: g⊙x + (1-g)⊙x = x, and a constant splat
/// gate of 0 keeps `old_value`, of 1 takes `new_value`. Null if none. (Like
/// any algebraic simplification, this ignores inf/NaN in the dropped
/// operand.)
static Value getKeptOperand(GateOp op) {
  if (op.getNewValue() == op.getOldValue())
    return op.getNewValue();
  if (matchPattern(op.getG(), m_AnyZeroFloat()))
    return op.getOldValue();
  if (matchPattern(op.getG(), m_OneFloat()))
    return op.getNewValue();
  return {};
}

OpFoldResult GateOp::fold(FoldAdaptor) {
  // A fold must keep the result type; see GateToCast for the other case.
  Value kept = getKeptOperand(*this);
  if (kept && kept.getType() == getType())
    return kept;
  return {};
}

namespace {
/// A gate that reduces to an operand less static than its result (shape
/// inference refined the result) becomes a tensor.cast of that operand.
struct GateToCast : OpRewritePattern<GateOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(GateOp op,
                                PatternRewriter &rewriter) const override {
    Value kept = getKeptOperand(op);
    if (!kept || kept.getType() == op.getType() ||
        !tensor::CastOp::areCastCompatible(kept.getType(), op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(), kept);
    return success();
  }
};
} // namespace

void GateOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<GateToCast>(context);
}

//===----------------------------------------------------------------------===//
// CumaxOp
//===----------------------------------------------------------------------===//

LogicalResult CumaxOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location, CumaxOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getX().getType());
  if (!type)
    return emitOptionalError(location, "expects a ranked tensor operand");
  inferred.emplace_back(type.getShape(), type.getElementType());
  return success();
}

LogicalResult CumaxOp::verify() {
  if (failed(verifyDimInRange(getOperation(), getDim(),
                              getX().getType().getRank(), /*fromEnd=*/false)))
    return failure();
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// SoftDepthMixOp
//===----------------------------------------------------------------------===//

LogicalResult SoftDepthMixOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    SoftDepthMixOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  return inferGatedMix(location, adaptor.getAlpha(), adaptor.getDeep(),
                       adaptor.getShallow(), inferred);
}

LogicalResult SoftDepthMixOp::verify() {
  return verifyGatedMix(getOperation(), "alpha", getAlpha(), "deep", getDeep(),
                        "shallow", getShallow());
}
