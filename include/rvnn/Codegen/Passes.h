#ifndef RVNN_CODEGEN_PASSES_H
#define RVNN_CODEGEN_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "rvnn/Dialect/Exec/ExecContract.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::rvnn {
#define GEN_PASS_DECL
#include "rvnn/Codegen/Passes.h.inc"

/// Prefix of the packed entry point added for every kernel:
/// `void rvnn_kernel_<name>(void **args)` (the execution contract's).
inline constexpr llvm::StringRef
    kKernelEntryPrefix(::rvnn::contract::kKernelSymbolPrefix.data(),
                       ::rvnn::contract::kKernelSymbolPrefix.size());

/// Name of the one gpu.module (and gpu.binary) the CUDA pipelines produce.
inline constexpr llvm::StringLiteral kCudaKernelsModule = "rvnn_kernels";

/// The buffers a kernel's arguments become: contiguous (identity layouts,
/// `rvnn-cuda-v1`) or with only the innermost dimension contiguous
/// (`rvnn-memref-v4`, the CPU's).
enum class KernelArgumentLayout { Contiguous, RowStrided };

/// Tensors -> buffers for both targets: one-shot bufferization across
/// function boundaries with `layout`.
void addBufferizeKernelsPasses(OpPassManager &pm, KernelArgumentLayout layout);

/// Kernels module (linalg on tensors, destination-passing style) -> LLVM
/// dialect with C interfaces and packed entry points: one-shot bufferize
/// (function boundaries, row-strided arguments), drop results equal to their
/// destination argument, buffer deallocation, chunks of vector ops
/// (`rvnn-vectorize-kernels`), linalg -> loops for the rest, polynomial
/// math, C wrappers, LLVM dialect, `rvnn-add-kernel-entry-points`.
/// Registered as `rvnn-lower-kernels-to-llvm`.
void buildLowerKernelsToLLVMPipeline(OpPassManager &pm);

void registerLowerKernelsToLLVMPipeline();

/// Options of the CUDA kernel pipelines.
struct LowerKernelsToNVVMOptions
    : public PassPipelineOptions<LowerKernelsToNVVMOptions> {
  ListOption<std::string> chips{
      *this, "chips",
      llvm::cl::desc("GPU architectures to generate code for, one NVVM "
                     "target each (default: sm_80,sm_90)")};
  Option<std::string> features{*this, "features",
                               llvm::cl::desc("PTX ISA version for NVPTX"),
                               llvm::cl::init("+ptx80")};
  Option<unsigned> optLevel{*this, "O",
                            llvm::cl::desc("LLVM optimisation level of the "
                                           "device code"),
                            llvm::cl::init(3)};
};

/// The architectures the compiler generates CUDA code for by default.
inline constexpr llvm::StringLiteral kDefaultCudaChips[] = {"sm_80", "sm_90"};

/// Kernels module (linalg on tensors, destination-passing style) -> one
/// `gpu.module @rvnn_kernels` in the NVVM (LLVM) dialect, one kernel
/// `rvnn_kernel_<name>` per kernel function with the `rvnn-cuda-v1`
/// signature, an NVVM target attached per chip: one-shot bufferize,
/// collapse to 1-D, linalg -> parallel loops, polynomial math, tiling by the
/// contract's block size, mapping to blocks and threads, outlining,
/// `rvnn-gpu-kernel-entry-points`, NVVM. Registered as
/// `rvnn-lower-kernels-to-nvvm`.
void buildLowerKernelsToNVVMPipeline(OpPassManager &pm,
                                     const LowerKernelsToNVVMOptions &options);

/// The NVVM pipeline, then `gpu-module-to-binary{format=isa}`: the
/// gpu.module becomes a `gpu.binary @rvnn_kernels` holding one PTX text per
/// chip. Registered as `rvnn-lower-kernels-to-ptx`.
void buildLowerKernelsToPTXPipeline(OpPassManager &pm,
                                    const LowerKernelsToNVVMOptions &options);

void registerLowerKernelsToNVVMPipelines();

/// External models (bufferization, deallocation, the NVVM target) and LLVM IR
/// translations the kernel lowerings need, for the tools' registry and for
/// emitKernelLibrary and emitCudaKernels.
void registerCodegenInterfaces(DialectRegistry &registry);

#define GEN_PASS_REGISTRATION
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

#endif // RVNN_CODEGEN_PASSES_H
