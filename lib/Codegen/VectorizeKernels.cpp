// rvnn-vectorize-kernels: a CPU kernel's linalg ops on f32 buffers whose
// innermost loop has a static extent that is a multiple of 8 become loops
// over their other dimensions (tiles of 1) and over chunks of 16 (or 8)
// elements of the innermost one, each chunk upstream's linalg vectorisation
// lowered to 1-D vector ops. LLVM's loop vectoriser had to find this by
// itself, and in kernels with several row folds it vectorised a fold's lane
// loop across rows with gathers (bench/README.md, session 39).
//
// The loops visit the elements in the scalar loops' order and a fold over
// the innermost dimension adds a chunk's elements to the running value one
// after another, so the results are the bits the scalar loops compute.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNVECTORIZEKERNELS
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

/// Elements of a chunk: one AVX-512 vector of f32 where the extent allows,
/// else one AVX vector (LLVM splits or widens for other targets).
int64_t chunkOf(int64_t extent) {
  for (int64_t chunk : {16, 8})
    if (extent % chunk == 0)
      return chunk;
  return 0;
}

bool onF32Buffers(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           auto memref = dyn_cast<MemRefType>(type);
           return memref && memref.getElementType().isF32();
         });
}

/// The tile sizes of `op`: 1 for every loop but the innermost, a chunk of
/// that (0, untiled, where the chunk is the whole extent); none where the
/// innermost extent is dynamic or not a multiple of 8.
std::optional<SmallVector<int64_t>> tileSizes(linalg::LinalgOp op) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (extents.empty() || ShapedType::isDynamic(extents.back()))
    return std::nullopt;
  int64_t chunk = chunkOf(extents.back());
  if (chunk == 0)
    return std::nullopt;
  SmallVector<int64_t> sizes(extents.size(), 1);
  sizes.back() = chunk == extents.back() ? 0 : chunk;
  return sizes;
}

/// Tiles `op` into chunks and vectorises the chunk's op; a chunk op the
/// vectoriser does not take stays (scalar loops, as before).
void vectorizeInChunks(RewriterBase &rewriter, linalg::LinalgOp op) {
  std::optional<SmallVector<int64_t>> sizes = tileSizes(op);
  if (!sizes)
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(
      rewriter, op, linalg::LinalgTilingOptions().setTileSizes(*sizes));
  if (failed(tiled))
    return;
  rewriter.eraseOp(op);
  if (succeeded(linalg::vectorizeOpPrecondition(tiled->op)))
    (void)linalg::vectorize(rewriter, tiled->op);
}

/// The vectorised chunks' n-D vector ops (unit dims, broadcasts, folds) as
/// 1-D vector loads, stores and arithmetic, which LLVM lowers directly.
LogicalResult lowerToOneDimVectors(func::FuncOp func) {
  RewritePatternSet patterns(func.getContext());
  vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
  vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerParallel);
  vector::populateVectorShapeCastLoweringPatterns(patterns);
  vector::populateVectorTransferLoweringPatterns(patterns,
                                                 /*maxTransferRank=*/1);
  vector::populateVectorToVectorCanonicalizationPatterns(patterns);
  return applyPatternsAndFoldGreedily(func, std::move(patterns));
}

struct VectorizeKernelsPass
    : public mlir::rvnn::impl::RvnnVectorizeKernelsBase<VectorizeKernelsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (onF32Buffers(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      vectorizeInChunks(rewriter, op);
    if (failed(lowerToOneDimVectors(getOperation())))
      signalPassFailure();
  }
};

} // namespace
