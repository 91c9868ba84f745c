#ifndef RVNN_CODEGEN_KERNELLIBRARY_H
#define RVNN_CODEGEN_KERNELLIBRARY_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::rvnn {

/// Name of the ABI of the generated entry points, recorded in the manifest:
/// `void rvnn_kernel_<name>(void **args)`, args[i] = &descriptor_i (MLIR's
/// strided memref descriptor) in the kernel's argument order.
inline constexpr llvm::StringRef
    kKernelAbi(::rvnn::contract::kKernelAbi.data(),
               ::rvnn::contract::kKernelAbi.size());
/// File name of the kernel library inside a compiled-model directory.
inline constexpr llvm::StringLiteral kKernelLibraryFile = "kernels.so";

/// What the kernel library is compiled for.
struct KernelTarget {
  /// LLVM target triple; empty: the host's.
  std::string triple;
  /// The x86-64 level to compile for (LLVM's CPU name, one of
  /// contract::kKernelCpuLevels: x86-64-v3 is AVX2 + FMA, x86-64-v4 adds
  /// AVX-512); empty: the newest level this machine runs, tuned for its CPU.
  std::string cpu;
  /// Extra LLVM target features ("+avx512f,..."); empty: the CPU's.
  std::string features;
};

/// What emitKernelLibrary wrote.
struct KernelLibraryInfo {
  /// File name inside the directory (kernels.so).
  std::string fileName;
  std::string triple;
  std::string cpu;
  /// The CPU the code is tuned for (LLVM's `tune-cpu`); empty: the level's
  /// generic tuning.
  std::string tuneCpu;
  /// Exported entry points, `rvnn_kernel_<name>`, sorted.
  std::vector<std::string> symbols;
};

/// Compiles a kernels module (the nested `builtin.module` marked
/// `rvnn_exec.kernels`; it is cloned, not changed) into
/// `directory/kernels.so`: the `rvnn-lower-kernels-to-llvm` pipeline, LLVM IR,
/// LLVM's O3 pipeline for `target`, an object file, and a link with the
/// system `cc -shared`. The library is written under a temporary name and
/// renamed. Fails with a diagnostic on the module (the failing command named)
/// when any step fails.
FailureOr<KernelLibraryInfo> emitKernelLibrary(ModuleOp kernels,
                                               llvm::StringRef directory,
                                               const KernelTarget &target);

} // namespace mlir::rvnn

#endif // RVNN_CODEGEN_KERNELLIBRARY_H
