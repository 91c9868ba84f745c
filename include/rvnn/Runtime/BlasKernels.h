#ifndef RVNN_RUNTIME_BLASKERNELS_H
#define RVNN_RUNTIME_BLASKERNELS_H

#include <string>

#include <nlohmann/json.hpp>

namespace rvnn::runtime {

/// The GEMM kernels of LibTorch's BLAS: what a step's GEMM floor is measured
/// against. OpenBLAS built for many CPUs (DYNAMIC_ARCH, as Debian ships it)
/// picks them by CPU model when it loads, unless OPENBLAS_CORETYPE names
/// them; their SGEMM rates differ by 2x on one core (bench/README.md,
/// session 27).
struct BlasKernels {
  /// openblas_get_config() ("OpenBLAS 0.3.21 DYNAMIC_ARCH ..."); empty
  /// where LibTorch's BLAS is not OpenBLAS.
  std::string library;
  /// openblas_get_corename() ("Haswell").
  std::string kernels;
  /// Whether OPENBLAS_CORETYPE chose them rather than OpenBLAS's detection.
  bool namedByEnvironment = false;
};

BlasKernels blasKernels();

/// "OpenBLAS Haswell kernels (OPENBLAS_CORETYPE)": one line for a report.
std::string describe(const BlasKernels &blas);

/// {"library", "kernels", "named_by_environment"}.
nlohmann::json toJson(const BlasKernels &blas);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_BLASKERNELS_H
