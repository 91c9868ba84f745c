#ifndef RVNN_RUNTIME_KERNELLIBRARY_H
#define RVNN_RUNTIME_KERNELLIBRARY_H

#include <map>
#include <memory>
#include <mutex>
#include <set>
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
using contract::kCudaBlockSize;
using contract::kCudaKernelAbi;
using contract::kKernelAbi;
using contract::kKernelGradSuffix;
using contract::kKernelSymbolPrefix;

/// A generated entry point (ABI above).
using KernelEntry = void (*)(void **args);

struct CudaModules;

/// The CUDA code of a compiled model's kernels (the manifest's
/// `kernels.cuda`, ABI kCudaKernelAbi): per GPU architecture the PTX and,
/// when ptxas assembled it, the cubin; and the entry points it holds (all
/// but those of kernels with a row reduction or a broadcast operand,
/// `cpu_only`).
struct CudaKernelCode {
  struct Image {
    std::string arch;  ///< "sm_90"
    std::string ptx;   ///< path of the PTX file
    std::string cubin; ///< path of the cubin; empty when not assembled
  };
  std::vector<Image> images;
  std::set<std::string, std::less<>> entries;
  /// The code as loaded on each device (Cuda/KernelLaunch.cpp), from the
  /// first launch there until the plan is destroyed.
  mutable std::shared_ptr<CudaModules> loaded;
  mutable std::mutex loading;

  /// Whether both entry points of kernel `name` have CUDA code.
  bool has(std::string_view name) const;
};

/// A kernel's forward and compiler-derived backward entry points.
struct GeneratedKernel {
  std::string name; ///< the dispatch's `kernel` attribute
  KernelEntry forward = nullptr;
  KernelEntry backward = nullptr;
  /// The same kernel's CUDA code; null when it has none (a row reduction or a
  /// broadcast operand, or a model compiled without PTX): on a GPU its dispatch
  /// then runs its reference body.
  const CudaKernelCode *cuda = nullptr;
};

/// The generated kernel library of a compiled model (kernels.so), opened
/// with dlopen(RTLD_NOW | RTLD_LOCAL) and closed when destroyed.
class KernelLibrary {
public:
  /// Opens `path`, checks `abi` against kKernelAbi and resolves every symbol
  /// in `symbols` (the manifest's list) and both entry points of every kernel
  /// in `kernels` (the plan's dispatches). Throws PlanError naming the file
  /// and the ABI, dlerror() or the missing symbol. `cuda` (may be null) is
  /// the same kernels' CUDA code.
  KernelLibrary(std::string path, const std::string &abi,
                const std::vector<std::string> &symbols,
                const std::vector<std::string> &kernels,
                std::shared_ptr<const CudaKernelCode> cuda = nullptr);
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
  std::shared_ptr<const CudaKernelCode> cuda;
  std::map<std::string, GeneratedKernel, std::less<>> kernels;
};

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_KERNELLIBRARY_H
