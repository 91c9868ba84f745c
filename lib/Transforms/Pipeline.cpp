#include "rvnn/Transforms/Pipeline.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "rvnn/Conversion/Passes.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"
#include "rvnn/Transforms/Passes.h"

using namespace mlir;

void rvnn::buildFrontPipeline(OpPassManager &pm,
                              const CompilePipelineOptions &options) {
  if (!options.library.empty())
    pm.addPass(createRvnnLinkLibrary(RvnnLinkLibraryOptions{options.library}));
  // Fixed-depth self-recursive cells become call trees the inliner flattens.
  pm.addPass(createRvnnExpandRecursion());
  pm.addPass(createInlinerPass());
  pm.addPass(createRvnnInferShapes());
  pm.addPass(createCanonicalizerPass());
  // Once more: the sizes a shared cell computes from its arguments (tensor.dim
  // of an argument now static) have folded to constants, so what they shape
  // (an empty tensor, an expand_shape) is static now and refines its users.
  pm.addPass(createRvnnInferShapes());
  pm.addPass(createCanonicalizerPass());
  // After shape inference: a slice's whole-dim test needs the static sizes.
  pm.addPass(createRvnnFoldSliceConcat());
  // Canonicalisation folds tensor.dim of a reshape into affine.apply (e.g.
  // dim 0 of collapse_shape [[0, 1], [2]] of [N, S, D] -> N·S); lower it to
  // arith on index, which lowers to the contract's index arithmetic.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCSEPass());
  // Batch what recurrences compute from their inputs alone, then share the
  // shape queries it adds.
  pm.addPass(createRvnnHoistStepInvariant());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSymbolDCEPass());
}

void rvnn::buildCompilePipeline(OpPassManager &pm,
                                const CompilePipelineOptions &options) {
  buildFrontPipeline(pm, options);
  pm.addPass(createRvnnLowerToExec());
  pm.addPass(exec::createRvnnExecBandNeighbourProducts());
  pm.addPass(exec::createRvnnExecFuseElementwise());
  pm.addPass(exec::createRvnnExecFuseLinearEpilogue());
  pm.addPass(exec::createRvnnExecOutlineKernels());
  pm.addPass(exec::createRvnnExecDifferentiate());
  // The derived functions query sizes per value; share the duplicates.
  pm.addPass(createCSEPass());
  // The backward functions fuse like the forward; groups are final now (the
  // dropouts are split), so a gelu left alone gets its own kernel.
  pm.addPass(exec::createRvnnExecFuseElementwise(
      exec::RvnnExecFuseElementwiseOptions{/*loneKernels=*/true}));
  pm.addPass(exec::createRvnnExecOutlineKernels());
  pm.addPass(exec::createRvnnExecCheckContract());
}

void rvnn::registerCompilePipeline() {
  PassPipelineRegistration<CompilePipelineOptions>(
      "rvnn-front",
      "The front end: link cells, expand bounded self-recursion, inline, infer "
      "shapes and canonicalize (twice), fold concatenated unit slices, lower "
      "affine.apply to arith, CSE, hoist and batch what recurrences compute "
      "from their inputs alone, canonicalize, CSE, drop unused symbols",
      buildFrontPipeline);
  PassPipelineRegistration<CompilePipelineOptions>(
      "rvnn-compile",
      "The compile pipeline up to plan export: rvnn-front, then "
      "rvnn-lower-to-exec, rvnn-exec-band-neighbour-products, "
      "rvnn-exec-fuse-elementwise, rvnn-exec-fuse-linear-epilogue, "
      "rvnn-exec-outline-kernels, rvnn-exec-differentiate and "
      "rvnn-exec-check-contract",
      buildCompilePipeline);
}
