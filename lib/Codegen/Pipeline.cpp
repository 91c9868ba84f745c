// rvnn-lower-kernels-to-llvm: kernels module (linalg on tensors, destination
// passing) -> LLVM dialect with packed entry points.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/RequestCWrappers.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/BufferViewFlowOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {

/// A kernel argument's buffer on the CPU (`rvnn-memref-v4`): the innermost
/// dimension contiguous, so the loops over it vectorise; the other strides
/// and the offset dynamic, so a slice or a row broadcast of a larger tensor
/// is passed as it is instead of being copied first.
BaseMemRefType rowStridedArgument(TensorType type, Attribute memorySpace,
                                  func::FuncOp,
                                  const bufferization::BufferizationOptions &) {
  auto ranked = cast<RankedTensorType>(type);
  if (ranked.getRank() == 0)
    return MemRefType::get({}, ranked.getElementType(),
                           MemRefLayoutAttrInterface(), memorySpace);
  SmallVector<int64_t> strides(ranked.getRank(), ShapedType::kDynamic);
  strides.back() = 1;
  auto layout =
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, strides);
  return MemRefType::get(ranked.getShape(), ranked.getElementType(), layout,
                         memorySpace);
}

/// Whether the allocation `alloc` can go on the stack: of a static size of
/// at most 16 KiB and at the function's top level (an alloca in a loop
/// would grow the stack every iteration).
bool isSmallFunctionBuffer(Value alloc) {
  constexpr int64_t kMaxStackBytes = 16 * 1024;
  auto type = dyn_cast<MemRefType>(alloc.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return false;
  int64_t bytes =
      type.getNumElements() * type.getElementTypeBitWidth() / CHAR_BIT;
  return bytes <= kMaxStackBytes &&
         isa<func::FuncOp>(alloc.getParentRegion()->getParentOp());
}

} // namespace

void mlir::rvnn::addBufferizeKernelsPasses(OpPassManager &pm,
                                           KernelArgumentLayout layout) {
  bufferization::OneShotBufferizationOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.setFunctionBoundaryTypeConversion(
      bufferization::LayoutMapOption::IdentityLayoutMap);
  if (layout == KernelArgumentLayout::RowStrided)
    bufferization.functionArgTypeConverterFn = rowStridedArgument;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
}

void mlir::rvnn::buildLowerKernelsToLLVMPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createRvnnFuseKernelRows());
  addBufferizeKernelsPasses(pm, KernelArgumentLayout::RowStrided);
  // A row loop carries its destinations and writes each row in place:
  // folding the copy of a row onto itself and the loop's unchanged buffers
  // leaves the function returning its arguments, which are then dropped.
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  // A row loop's temporaries are one row each: allocated once before the
  // loop, on the stack.
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(isSmallFunctionBuffer));
  bufferization::buildBufferDeallocationPipeline(
      pm, bufferization::BufferDeallocationPipelineOptions());
  pm.addPass(createBufferizationToMemRefPass());
  // The SIMD: chunks of the innermost dimension as vector ops; the ops it
  // leaves become loops over scalar bodies, which LLVM may vectorise.
  pm.addNestedPass<func::FuncOp>(createRvnnVectorizeKernels());
  // A transfer the vectoriser's lowering left (a permuted read of one
  // element) as loops of loads.
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createRvnnApproximateMath());
  pm.addNestedPass<func::FuncOp>(LLVM::createRequestCWrappersPass());
  // -> LLVM dialect. Math the approximations left (f64, sqrt, abs, ...)
  // becomes LLVM intrinsics, then libm calls (the library links libm).
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createRvnnAddKernelEntryPoints());
}

void mlir::rvnn::registerLowerKernelsToLLVMPipeline() {
  PassPipelineRegistration<>(
      "rvnn-lower-kernels-to-llvm",
      "Lower a kernels module (linalg on tensors, destination-passing "
      "style) to the LLVM dialect with rvnn_kernel_<name>(void **) entry "
      "points",
      buildLowerKernelsToLLVMPipeline);
}

void mlir::rvnn::registerCodegenInterfaces(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  linalg::LinalgDialect, math::MathDialect,
                  memref::MemRefDialect, NVVM::NVVMDialect, scf::SCFDialect,
                  tensor::TensorDialect, vector::VectorDialect>();
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferViewFlowOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  memref::registerBufferViewFlowOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  // The CUDA path: NVVM targets serialise gpu.modules to PTX through
  // LLVM IR.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}
