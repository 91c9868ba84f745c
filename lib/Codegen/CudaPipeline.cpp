// rvnn-lower-kernels-to-nvvm / rvnn-lower-kernels-to-ptx: kernels module
// (linalg on tensors, destination passing) -> one gpu.module of rvnn-cuda-v1
// entry points in the NVVM dialect -> PTX per chip, all upstream MLIR passes
// but the collapse and the entry points.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "rvnn/Dialect/Exec/ExecContract.h"

using namespace mlir;

void mlir::rvnn::buildLowerKernelsToNVVMPipeline(
    OpPassManager &pm, const LowerKernelsToNVVMOptions &options) {
  // Tensors -> contiguous buffers, written in place (the flat loop below
  // needs contiguous operands); rvnn-gpu-kernel-entry-points checks that
  // nothing else is left on the host.
  addBufferizeKernelsPasses(pm, KernelArgumentLayout::Contiguous);
  // Kernels return nothing: their results are their destination arguments.
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  pm.addPass(createBufferizationToMemRefPass());
  // One flat loop per kernel, whatever the rank: the launch is then n / B
  // blocks of B threads, one element each.
  pm.addPass(createRvnnCollapseElementwiseDims());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Polynomials for exp/tanh/erf/log: no libdevice call in the PTX.
  pm.addPass(createRvnnApproximateMath());
  // Blocks of the contract's size; the bound check stays inside the block
  // (no min/max bounds), so every block has the same static thread count.
  pm.addNestedPass<func::FuncOp>(createParallelLoopTilingPass(
      {::rvnn::contract::kCudaBlockSize}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addPass(createParallelLoopToGpuPass());
  // Folds the launch bounds to constants, so that outlining records the
  // block size and sinking moves the index computations into the kernel.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createGpuLauchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createRvnnGpuKernelEntryPoints());
  // Views (the collapsed operands) -> descriptor arithmetic NVVM lowers.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  SmallVector<std::string> chips(options.chips.begin(), options.chips.end());
  if (chips.empty())
    chips.assign(std::begin(kDefaultCudaChips), std::end(kDefaultCudaChips));
  for (const std::string &chip : chips) {
    GpuNVVMAttachTargetOptions target;
    target.chip = chip;
    target.features = options.features;
    target.optLevel = options.optLevel;
    pm.addPass(createGpuNVVMAttachTarget(target));
  }
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertSCFToCFPass());
  device.addPass(createConvertGpuOpsToNVVMOps());
  // What convert-gpu-to-nvvm has no pattern for (math.fma) -> intrinsics.
  device.addPass(createConvertMathToLLVMPass());
  // The math the polynomials leave (floor, abs, sqrt, copysign) is now
  // libdevice calls; NVPTX has an instruction for each.
  device.addPass(createRvnnReplaceLibdeviceCalls());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::rvnn::buildLowerKernelsToPTXPipeline(
    OpPassManager &pm, const LowerKernelsToNVVMOptions &options) {
  buildLowerKernelsToNVVMPipeline(pm, options);
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::rvnn::registerLowerKernelsToNVVMPipelines() {
  PassPipelineRegistration<LowerKernelsToNVVMOptions>(
      "rvnn-lower-kernels-to-nvvm",
      "Lower a kernels module (linalg on tensors, destination-passing style) "
      "to one gpu.module of rvnn-cuda-v1 kernels rvnn_kernel_<name> in the "
      "NVVM dialect, with an NVVM target per chip",
      buildLowerKernelsToNVVMPipeline);
  PassPipelineRegistration<LowerKernelsToNVVMOptions>(
      "rvnn-lower-kernels-to-ptx",
      "rvnn-lower-kernels-to-nvvm, then gpu-module-to-binary{format=isa}: a "
      "gpu.binary with the PTX of the kernels for each chip",
      buildLowerKernelsToPTXPipeline);
}
