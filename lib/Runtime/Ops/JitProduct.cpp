// Matrix products by kernels LIBXSMM generates at run time for the shape and
// the CPU (its JIT "small matrix multiplication" kernels).
//
// RecordFunction has a member only without NDEBUG: this file must see the
// layout of the LibTorch it links (built with NDEBUG) in every build type.
#ifndef NDEBUG
#define NDEBUG
#endif
#include <ATen/record_function.h>

#include "rvnn/Runtime/Ops/JitProduct.h"

#include <climits>

#ifdef RVNN_HAVE_LIBXSMM
#include <libxsmm.h>

#endif

namespace rvnn::runtime::ops {

#ifdef RVNN_HAVE_LIBXSMM
namespace {

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// Whether LIBXSMM's kernels are used: only AVX-512 ones. Its AVX2 kernels
/// (`LIBXSMM_TARGET=hsw`) multiply the models' larger products slower than
/// OpenBLAS's, which pack them for the caches (NDR at batch 1: a 1.4x
/// slower step; bench/README.md, session 30).
bool useKernels() {
  static const bool used = [] {
    libxsmm_init();
    return libxsmm_get_target_archid() >= LIBXSMM_X86_AVX512_CORE;
  }();
  return used;
}

/// Column-major C [m, n] (leading dim ldc) = A [m, k] · B [k, n] + beta·C,
/// beta 0 (C is not read) or 1. False when LIBXSMM has no kernel for it.
bool multiply(int64_t m, int64_t n, int64_t k, const float *a, int64_t lda,
              const float *b, int64_t ldb, float *c, int64_t ldc, float beta) {
  for (int64_t v : {m, n, k, lda, ldb, ldc})
    if (!fitsInt(v))
      return false;
  const int im = m, in = n, ik = k, ilda = lda, ildb = ldb, ildc = ldc;
  const int flags = LIBXSMM_GEMM_FLAG_NONE;
  const float alpha = 1;
  libxsmm_smmfunction kernel = libxsmm_smmdispatch(
      im, in, ik, &ilda, &ildb, &ildc, &alpha, &beta, &flags, nullptr);
  if (!kernel)
    return false;
  kernel(a, b, c);
  return true;
}

bool takes(const torch::Tensor &x, const torch::Tensor &b,
           const torch::Tensor &bias) {
  auto cpuFloat = [](const torch::Tensor &t) {
    return t.scalar_type() == at::kFloat && t.device().is_cpu();
  };
  if (b.dim() != 2 || x.dim() < 1 || x.size(-1) != b.size(0) || !cpuFloat(x) ||
      !cpuFloat(b) || x.numel() == 0 || b.numel() == 0)
    return false;
  if (bias.defined() &&
      (bias.dim() != 1 || bias.size(0) != b.size(1) || !cpuFloat(bias)))
    return false;
  auto records = [](const torch::Tensor &t) {
    return t.defined() && t.requires_grad();
  };
  return !(at::GradMode::is_enabled() &&
           (records(x) || records(b) || records(bias)));
}

/// y [R, N] = rows [R, K] · b with b row-major (column stride 1): yᵀ = bᵀ ·
/// rowsᵀ in column-major terms, every operand as it lies.
bool rowMajorProduct(const torch::Tensor &rows, const torch::Tensor &b,
                     torch::Tensor &y, float beta) {
  return multiply(b.size(1), rows.size(0), b.size(0), b.data_ptr<float>(),
                  b.stride(0), rows.data_ptr<float>(), rows.stride(0),
                  y.data_ptr<float>(), y.size(1), beta);
}

/// y [R, N] = rows · b with b column-major (row stride 1, a linear layer's
/// wᵀ): column-major y = rows · b needs rows column-major, so the rows are
/// transposed (R·K elements against R·K·N products) and so is the result.
bool columnMajorProduct(const torch::Tensor &rows, const torch::Tensor &b,
                        const torch::Tensor &bias, torch::Tensor &y) {
  const torch::Tensor rowsT = rows.t().contiguous(); // [K, R]
  // A new buffer even for the bias: the expanded bias can be the bias.
  torch::Tensor yT = at::empty({b.size(1), rows.size(0)}, y.options());
  if (bias.defined())
    yT.copy_(bias.unsqueeze(1).expand_as(yT));
  if (!multiply(rows.size(0), b.size(1), b.size(0), rowsT.data_ptr<float>(),
                rows.size(0), b.data_ptr<float>(), b.stride(1),
                yT.data_ptr<float>(), rows.size(0), bias.defined() ? 1 : 0))
    return false;
  y.copy_(yT.t());
  return true;
}

} // namespace

torch::Tensor jitProduct(const torch::Tensor &x, const torch::Tensor &b,
                         const torch::Tensor &bias) {
  if (!useKernels() || !takes(x, b, bias))
    return {};
  const int64_t k = b.size(0), n = b.size(1);
  const bool rowMajor = b.stride(1) == 1 && b.stride(0) >= n;
  if (!rowMajor && !(b.stride(0) == 1 && b.stride(1) >= k))
    return {};
  torch::Tensor rows = x.dim() == 2 ? x : x.reshape({-1, k});
  if (rows.stride(1) != 1 || rows.stride(0) < k)
    rows = rows.contiguous();
  RECORD_FUNCTION(kJitProductEvent, std::vector<c10::IValue>({rows, b}));
  torch::Tensor y = at::empty({rows.size(0), n}, x.options());
  bool done;
  if (rowMajor) {
    if (bias.defined())
      y.copy_(bias.expand_as(y));
    done = rowMajorProduct(rows, b, y, bias.defined() ? 1 : 0);
  } else {
    done = columnMajorProduct(rows, b, bias, y);
  }
  if (!done)
    return {};
  if (x.dim() == 2)
    return y;
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = n;
  return y.view(sizes);
}

std::string jitProductKernels() {
  return useKernels() ? libxsmm_get_target_arch() : std::string();
}

#else

torch::Tensor jitProduct(const torch::Tensor &, const torch::Tensor &,
                         const torch::Tensor &) {
  return {};
}

std::string jitProductKernels() { return {}; }

#endif

} // namespace rvnn::runtime::ops
