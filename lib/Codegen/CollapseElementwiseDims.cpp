// rvnn-collapse-elementwise-dims: elementwise linalg.generic ops iterate over
// one flat dimension, so the GPU mapping has one loop whatever the rank.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNCOLLAPSEELEMENTWISEDIMS
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

/// All dimensions of `op` as one group when every iterator is parallel and
/// every indexing map is the identity (then the operands share one shape and
/// element i of the flat iteration reads and writes element i of each);
/// nothing otherwise. A body that reads `linalg.index` depends on the
/// multi-dimensional index and is left alone. Only ops on buffers: on
/// tensors with dynamic dimensions MLIR 19's collapse builds its result's
/// `tensor.expand_shape` without the output shape, which does not verify.
SmallVector<ReassociationIndices> collapsibleDims(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumLoops() < 2 || generic.hasIndexSemantics())
    return {};
  if (generic.getNumParallelLoops() != generic.getNumLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return {};
  ReassociationIndices all;
  for (int64_t dim = 0, e = generic.getNumLoops(); dim < e; ++dim)
    all.push_back(dim);
  return {all};
}

struct CollapseElementwiseDimsPass
    : public mlir::rvnn::impl::RvnnCollapseElementwiseDimsBase<
          CollapseElementwiseDimsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, collapsibleDims);
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
