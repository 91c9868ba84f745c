// Soft-mask attention: geometric attention, masked attention and the
// neighbour retriever.
#include "rvnn/Dialect/Rvnn/IR/RvnnOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVectorExtras.h"

using namespace mlir;
using namespace mlir::rvnn;

#define GET_OP_CLASSES
#include "rvnn/Dialect/Rvnn/IR/RvnnAttentionOps.cpp.inc"

// Operand layouts.
static constexpr StringRef kHeads[] = {"N", "H", "S", "Dh"};
static constexpr StringRef kBias[] = {"N", "H", "S"};
static constexpr StringRef kSeq[] = {"N", "S"};

/// Binds every (name, value, layout) triple in order; stops at the first
/// mismatch.
static LogicalResult
bindAll(DimBinder &binder,
        ArrayRef<std::tuple<StringRef, Value, ArrayRef<StringRef>>> operands) {
  for (auto [name, value, layout] : operands)
    if (failed(binder.bind(name, value.getType(), layout)))
      return failure();
  return success();
}

/// Infers a result `[dims...]` (named by `layout`) of the bound element type.
static LogicalResult
inferFromBinding(const DimBinder &binder, ArrayRef<StringRef> layout,
                 SmallVectorImpl<ShapedTypeComponents> &inferred) {
  SmallVector<int64_t> dims = llvm::map_to_vector(
      layout, [&](StringRef dimName) { return binder.get(dimName); });
  inferred.emplace_back(dims, binder.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// GeometricAttentionOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  GeometricAttentionOp::Adaptor adaptor) {
  return bindAll(binder, {{"q", adaptor.getQ(), kHeads},
                          {"k", adaptor.getK(), kHeads},
                          {"v", adaptor.getV(), kHeads},
                          {"back", adaptor.getBack(), kBias},
                          {"front", adaptor.getFront(), kBias},
                          {"mask", adaptor.getMask(), kSeq},
                          {"scale", adaptor.getScale(), {}},
                          {"bias", adaptor.getBias(), {}}});
}

LogicalResult GeometricAttentionOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    GeometricAttentionOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kHeads, inferred);
}

LogicalResult GeometricAttentionOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// MaskedAttentionOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  MaskedAttentionOp::Adaptor adaptor) {
  return bindAll(binder, {{"q", adaptor.getQ(), kHeads},
                          {"k", adaptor.getK(), kHeads},
                          {"v", adaptor.getV(), kHeads},
                          {"mask", adaptor.getMask(), kSeq}});
}

LogicalResult MaskedAttentionOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    MaskedAttentionOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kHeads, inferred);
}

LogicalResult MaskedAttentionOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// NeighbourRetrieveOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  NeighbourRetrieveOp::Adaptor adaptor) {
  return bindAll(binder, {{"exist", adaptor.getExist(), kSeq},
                          {"mask", adaptor.getMask(), kSeq}});
}

LogicalResult NeighbourRetrieveOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    NeighbourRetrieveOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  static constexpr StringRef kPairs[] = {"N", "S", "S"};
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kPairs, inferred);
}

LogicalResult NeighbourRetrieveOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}

//===----------------------------------------------------------------------===//
// DiagonalScanOp
//===----------------------------------------------------------------------===//

static LogicalResult bindOperands(DimBinder &binder,
                                  DiagonalScanOp::Adaptor adaptor) {
  static constexpr StringRef kInput[] = {"N", "S", "D"};
  static constexpr StringRef kDiagonal[] = {"D", "P"};
  return bindAll(binder, {{"u", adaptor.getU(), kInput},
                          {"a_re", adaptor.getARe(), kDiagonal},
                          {"a_im", adaptor.getAIm(), kDiagonal},
                          {"b_re", adaptor.getBRe(), kDiagonal},
                          {"b_im", adaptor.getBIm(), kDiagonal},
                          {"c_re", adaptor.getCRe(), kDiagonal},
                          {"c_im", adaptor.getCIm(), kDiagonal},
                          {"mask", adaptor.getMask(), kSeq}});
}

LogicalResult DiagonalScanOp::inferReturnTypeComponents(
    MLIRContext *, std::optional<Location> location,
    DiagonalScanOp::Adaptor adaptor,
    SmallVectorImpl<ShapedTypeComponents> &inferred) {
  static constexpr StringRef kOutput[] = {"N", "S", "D"};
  DimBinder binder;
  if (failed(bindOperands(binder, adaptor)))
    return emitOptionalError(location, binder.getError());
  return inferFromBinding(binder, kOutput, inferred);
}

LogicalResult DiagonalScanOp::verify() {
  DimBinder binder;
  if (failed(bindOperands(binder, Adaptor(*this))))
    return emitOpError(binder.getError());
  return verifyInferredShapes(getOperation());
}
