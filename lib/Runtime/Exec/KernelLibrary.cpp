#include "rvnn/Runtime/KernelLibrary.h"
#include "rvnn/Runtime/Plan.h"

#include <dlfcn.h>

namespace rvnn::runtime {

bool CudaKernelCode::has(std::string_view name) const {
  return entries.count(KernelLibrary::forwardSymbol(name)) &&
         entries.count(KernelLibrary::backwardSymbol(name));
}

std::string KernelLibrary::forwardSymbol(std::string_view kernel) {
  return std::string(kKernelSymbolPrefix) + std::string(kernel);
}

std::string KernelLibrary::backwardSymbol(std::string_view kernel) {
  return forwardSymbol(kernel) + std::string(kKernelGradSuffix);
}

KernelLibrary::KernelLibrary(std::string path, const std::string &abi,
                             const std::vector<std::string> &symbols,
                             const std::vector<std::string> &kernelNames,
                             std::shared_ptr<const CudaKernelCode> cudaCode)
    : file(std::move(path)), cuda(std::move(cudaCode)) {
  if (abi != kKernelAbi)
    throw PlanError(file + ": kernel ABI '" + abi +
                    "' is not supported by this runtime (calls '" +
                    std::string(kKernelAbi) +
                    "'); recompile the model with this release");
  // The model's own code: resolve everything now and keep its symbols out
  // of the global namespace.
  dlerror();
  handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = dlerror();
    throw PlanError(file + ": cannot load the kernel library: " +
                    (reason ? reason : "unknown dlopen error"));
  }
  try {
    for (const std::string &symbol : symbols)
      resolve(symbol);
    for (const std::string &name : kernelNames)
      kernels.try_emplace(
          name,
          GeneratedKernel{name, resolve(forwardSymbol(name)),
                          resolve(backwardSymbol(name)),
                          cuda && cuda->has(name) ? cuda.get() : nullptr});
  } catch (...) {
    dlclose(handle);
    throw;
  }
}

KernelLibrary::~KernelLibrary() {
  if (handle)
    dlclose(handle);
}

KernelEntry KernelLibrary::resolve(const std::string &symbol) const {
  dlerror();
  void *address = dlsym(handle, symbol.c_str());
  if (!address || dlerror())
    throw PlanError(file + ": missing kernel symbol '" + symbol +
                    "' (the library does not match the plan; recompile the "
                    "model)");
  return reinterpret_cast<KernelEntry>(address);
}

const GeneratedKernel &KernelLibrary::kernel(const std::string &name) const {
  auto it = kernels.find(name);
  if (it == kernels.end())
    throw PlanError(file + ": no kernel '" + name + "' was loaded");
  return it->second;
}

} // namespace rvnn::runtime
