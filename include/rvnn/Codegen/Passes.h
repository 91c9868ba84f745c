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

/// Kernels module (linalg on tensors, destination-passing style) -> LLVM
/// dialect with C interfaces and packed entry points: one-shot bufferize
/// (function boundaries, identity layouts), drop results equal to their
/// destination argument, buffer deallocation, linalg -> loops, polynomial
/// math, C wrappers, LLVM dialect, `rvnn-add-kernel-entry-points`.
/// Registered as `rvnn-lower-kernels-to-llvm`.
void buildLowerKernelsToLLVMPipeline(OpPassManager &pm);

void registerLowerKernelsToLLVMPipeline();

/// External models (bufferization, deallocation) and LLVM IR translations the
/// kernel lowering needs, for the tools' registry and for emitKernelLibrary.
void registerCodegenInterfaces(DialectRegistry &registry);

#define GEN_PASS_REGISTRATION
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

#endif // RVNN_CODEGEN_PASSES_H
