#ifndef RVNN_CODEGEN_CUDAKERNELS_H
#define RVNN_CODEGEN_CUDAKERNELS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::rvnn {

/// Name of the CUDA kernel ABI, recorded in the manifest (rvnn-cuda-v1,
/// docs/compiled-model-format.md).
inline constexpr llvm::StringRef
    kCudaKernelAbi(::rvnn::contract::kCudaKernelAbi.data(),
                   ::rvnn::contract::kCudaKernelAbi.size());

/// What the CUDA kernels are generated for.
struct CudaTarget {
  /// GPU architectures; one PTX file (and cubin) each.
  std::vector<std::string> chips = {"sm_80", "sm_90"};
  /// PTX ISA version (NVPTX feature).
  std::string features = "+ptx80";
};

/// One architecture's files, names inside the compiled-model directory.
struct CudaArchFiles {
  std::string chip;
  /// `kernels.<chip>.ptx`.
  std::string ptx;
  /// `kernels.<chip>.cubin`; empty when ptxas was not found.
  std::string cubin;
};

/// What emitCudaKernels wrote.
struct CudaKernelsInfo {
  std::vector<CudaArchFiles> archs;
  /// The PTX entries, `rvnn_kernel_<name>`, sorted.
  std::vector<std::string> symbols;
  /// The ptxas that assembled the cubins and its version line; empty when
  /// none was found.
  std::string assembler;
  /// Why there are no cubins (ptxas not found); empty when there are.
  std::string missingAssembler;
  /// Why there is no CUDA code at all (f64 math without libdevice; `archs`
  /// and `symbols` are empty); empty when there is.
  std::string unsupported;
  /// The library's entries that have no CUDA code (kernels with a row
  /// reduction), sorted.
  std::vector<std::string> cpuOnly;
};

/// Generates CUDA code for a kernels module (the nested `builtin.module`
/// marked `rvnn_exec.kernels`; it is cloned, not changed): the
/// `rvnn-lower-kernels-to-ptx` pipeline for `target`'s chips writes
/// `directory/kernels.<chip>.ptx`, and, when ptxas is found (`$RVNN_PTXAS`
/// if set, an empty value meaning none; else `ptxas` on PATH, else
/// /usr/local/cuda/bin/ptxas), assembles each into `kernels.<chip>.cubin`.
/// Files are written under temporary names and renamed. A missing ptxas is
/// not an error (the result says so), nor is a missing libdevice
/// (`$CUDA_ROOT`, `$CUDA_HOME` or `$CUDA_PATH`/nvvm/libdevice) for kernels
/// that need it (f64 transcendental math: the result has no files and says
/// why); a failing lowering or a failing ptxas is, with a diagnostic on the
/// module naming the step.
FailureOr<CudaKernelsInfo> emitCudaKernels(ModuleOp kernels,
                                           llvm::StringRef directory,
                                           const CudaTarget &target);

} // namespace mlir::rvnn

#endif // RVNN_CODEGEN_CUDAKERNELS_H
