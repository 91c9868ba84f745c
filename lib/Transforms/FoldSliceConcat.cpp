//===- FoldSliceConcat.cpp - Concatenated unit slices as a view -----------===//
//
// rvnn-fold-slice-concat: a tensor.concat of the unit slices x[..., j, ...]
// of one tensor (j = 0 .. K-1 in order, the unit dim dropped, every other dim
// whole) along the dim they dropped is x with that dim merged into the next:
// a collapse_shape, which the runtime makes a view where the concat copied.
// The GRC cell's [l; r] of a tree's children [N, 2, D] is one.
//
//===----------------------------------------------------------------------===//

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "rvnn/Transforms/Passes.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNFOLDSLICECONCAT
#include "rvnn/Transforms/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

/// Whether `size` is all of dim `dim` of `source`: its static size, or a
/// tensor.dim of it.
bool isWholeDim(OpFoldResult size, Value source, int64_t dim) {
  auto type = cast<RankedTensorType>(source.getType());
  if (!type.isDynamicDim(dim))
    return isConstantIntValue(size, type.getDimSize(dim));
  auto value = dyn_cast_if_present<Value>(size);
  auto query = value ? value.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  return query && query.getSource() == source &&
         query.getConstantIndex() == dim;
}

/// Whether `slice` is source[..., index, ...] at `dim`, that dim dropped and
/// the others whole.
bool isUnitSliceAt(tensor::ExtractSliceOp slice, int64_t dim, int64_t index) {
  Value source = slice.getSource();
  int64_t rank = slice.getSourceType().getRank();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  if (slice.getResultType().getRank() != rank - 1 || !dropped.test(dim) ||
      !llvm::all_of(slice.getMixedStrides(),
                    [](OpFoldResult s) { return isConstantIntValue(s, 1); }))
    return false;
  for (auto [d, offset, size] :
       llvm::enumerate(slice.getMixedOffsets(), slice.getMixedSizes())) {
    int64_t at = static_cast<int64_t>(d);
    bool matches =
        at == dim
            ? isConstantIntValue(offset, index) && isConstantIntValue(size, 1)
            : isConstantIntValue(offset, 0) && isWholeDim(size, source, at);
    if (!matches)
      return false;
  }
  return true;
}

struct ConcatOfUnitSlices : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    int64_t dim = static_cast<int64_t>(concat.getDim());
    auto first =
        concat.getInputs().front().getDefiningOp<tensor::ExtractSliceOp>();
    if (!first)
      return failure();
    Value source = first.getSource();
    auto sourceType = cast<RankedTensorType>(source.getType());
    int64_t count = static_cast<int64_t>(concat.getInputs().size());
    // The next dim takes the merged one in.
    if (dim + 1 >= sourceType.getRank() || sourceType.isDynamicDim(dim) ||
        sourceType.getDimSize(dim) != count)
      return failure();
    for (auto [index, input] : llvm::enumerate(concat.getInputs())) {
      auto slice = input.getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || slice.getSource() != source ||
          !isUnitSliceAt(slice, dim, static_cast<int64_t>(index)))
        return failure();
    }
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d < sourceType.getRank(); ++d) {
      if (d == dim + 1)
        groups.back().push_back(d);
      else
        groups.push_back({d});
    }
    Value merged = rewriter.create<tensor::CollapseShapeOp>(concat.getLoc(),
                                                            source, groups);
    if (merged.getType() != concat.getType())
      merged = rewriter.create<tensor::CastOp>(concat.getLoc(),
                                               concat.getType(), merged);
    rewriter.replaceOp(concat, merged);
    return success();
  }
};

struct RvnnFoldSliceConcat
    : public mlir::rvnn::impl::RvnnFoldSliceConcatBase<RvnnFoldSliceConcat> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ConcatOfUnitSlices>(&getContext());
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
