#ifndef RVNN_RUNTIME_KERNELLIBRARY_H
#define RVNN_RUNTIME_KERNELLIBRARY_H

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "rvnn/Dialect/Exec/ExecContract.h"

namespace rvnn::runtime {

/// The ABI of the generated kernels this runtime calls (the manifest's
/// `kernels.abi`): `void rvnn_kernel_<K>(void **args)`, args[i] =
/// &descriptor_i, MLIR's strided memref descriptor `{T *allocated; T *aligned;
/// int64_t offset; int64_t sizes[R]; int64_t strides[R];}` of a contiguous
/// row-major buffer. Forward `rvnn_kernel_<K>(ins..., outs...)` writes the
/// caller-allocated outs; backward `rvnn_kernel_<K>_grad(ins..., douts...,
/// dins...)` writes one gradient per input. The names come from the
/// execution contract (ExecContract.h), shared with the compiler.
using contract::kKernelAbi;
using contract::kKernelGradSuffix;
using contract::kKernelSymbolPrefix;

/// A generated entry point (ABI above).
using KernelEntry = void (*)(void **args);

/// A kernel's forward and compiler-derived backward entry points.
struct GeneratedKernel {
  std::string name; ///< the dispatch's `kernel` attribute
  KernelEntry forward = nullptr;
  KernelEntry backward = nullptr;
};

/// The generated kernel library of a compiled model (kernels.so), opened
/// with dlopen(RTLD_NOW | RTLD_LOCAL) and closed when destroyed.
class KernelLibrary {
public:
  /// Opens `path`, checks `abi` against kKernelAbi and resolves every symbol
  /// in `symbols` (the manifest's list) and both entry points of every kernel
  /// in `kernels` (the plan's dispatches). Throws PlanError naming the file
  /// and the ABI, dlerror() or the missing symbol.
  KernelLibrary(std::string path, const std::string &abi,
                const std::vector<std::string> &symbols,
                const std::vector<std::string> &kernels);
  ~KernelLibrary();
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  /// The entry points of kernel `name`; throws PlanError when the library
  /// was not loaded for it.
  const GeneratedKernel &kernel(const std::string &name) const;
  const std::string &path() const { return file; }

  static std::string forwardSymbol(std::string_view kernel);
  static std::string backwardSymbol(std::string_view kernel);

private:
  KernelEntry resolve(const std::string &symbol) const;

  std::string file;
  void *handle = nullptr;
  std::map<std::string, GeneratedKernel, std::less<>> kernels;
};

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_KERNELLIBRARY_H
