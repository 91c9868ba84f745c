#ifndef RVNN_TARGET_PLANEXPORT_H
#define RVNN_TARGET_PLANEXPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "rvnn/Codegen/CudaKernels.h"
#include "rvnn/Codegen/KernelLibrary.h"
#include "llvm/Support/JSON.h"

namespace mlir::rvnn {

/// Serialises a compiled module (after the compile pipeline: rvnn_exec ops
/// only) to the plan JSON: parameters, then every function as a list of ops
/// over numbered values. The format version and names come from the
/// execution contract (rvnn/Dialect/Exec/ExecContract.h). Fails, with a
/// diagnostic on the offending op, for an op outside the contract or IR the
/// format cannot carry (non-tensor values other than index, unsupported
/// attributes).
FailureOr<llvm::json::Value> exportPlan(ModuleOp module);

/// Writes plan.json and manifest.json (versions, the SHA-256 of the source
/// and of every file of the model) into `directory`. Every file is written
/// into a staging directory inside it first and moved in (the manifest
/// last) only when all were written, so a compile that fails leaves the
/// previous model there whole and never a half-written one. When the module
/// holds a kernels module (`rvnn_exec.kernels`), its kernels are compiled for
/// `target` into `kernels.so` (emitKernelLibrary), listed in `files` with role
/// `kernels`, and described by the manifest's `kernels` object (ABI, library,
/// target triple, CPU, entry symbols); the same kernels are compiled for
/// `cudaTarget`'s chips into `kernels.<chip>.ptx` (role `ptx`) and, when ptxas
/// is found, `kernels.<chip>.cubin` (role `cubin`) (emitCudaKernels), described
/// by `kernels.cuda` (ABI, block size, files per arch, entry symbols, the
/// assembler or why there are no cubins).
LogicalResult writeCompiledModel(ModuleOp module, StringRef directory,
                                 StringRef sourcePath, StringRef sourceText,
                                 const KernelTarget &target = KernelTarget(),
                                 const CudaTarget &cudaTarget = CudaTarget());

} // namespace mlir::rvnn

#endif // RVNN_TARGET_PLANEXPORT_H
