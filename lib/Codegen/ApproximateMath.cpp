// rvnn-approximate-math: MLIR's polynomial approximations of f32
// transcendental functions, so kernels need no libm for them.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNAPPROXIMATEMATH
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {
struct ApproximateMathPass
    : public mlir::rvnn::impl::RvnnApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // AVX2-specific rsqrt stays off: it needs the x86vector dialect, and
    // math.rsqrt lowers to a division by an exact sqrt.
    populateMathPolynomialApproximationPatterns(
        patterns, MathPolynomialApproximationOptions{/*enableAvx2=*/false});
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
