#include "rvnn/Runtime/BlasKernels.h"

#include <cstdlib>

#include <dlfcn.h>

namespace rvnn::runtime {

BlasKernels blasKernels() {
  // OpenBLAS is reached through LibTorch's libblas.so.3, so its entry points
  // are looked up at run time rather than linked: another BLAS has none.
  using Text = char *(*)();
  auto config =
      reinterpret_cast<Text>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  auto coreName =
      reinterpret_cast<Text>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  BlasKernels blas;
  if (!config || !coreName)
    return blas;
  blas.library = config();
  blas.kernels = coreName();
  blas.namedByEnvironment = std::getenv("OPENBLAS_CORETYPE") != nullptr;
  return blas;
}

std::string describe(const BlasKernels &blas) {
  if (blas.library.empty())
    return "not OpenBLAS";
  return "OpenBLAS " + blas.kernels + " kernels (" +
         (blas.namedByEnvironment ? "OPENBLAS_CORETYPE" : "detected") + ")";
}

nlohmann::json toJson(const BlasKernels &blas) {
  return {{"library", blas.library},
          {"kernels", blas.kernels},
          {"named_by_environment", blas.namedByEnvironment}};
}

} // namespace rvnn::runtime
