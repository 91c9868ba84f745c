// Products of a few rows by a matrix as one BLAS matrix-vector product a row.
// The BLAS is looked up in the process rather than linked: it must be the
// one LibTorch loaded (Debian's libblas.so.3, OpenBLAS), never a second copy.
//
// RecordFunction has a member only without NDEBUG: this file must see the
// layout of the LibTorch it links (built with NDEBUG) in every build type.
#ifndef NDEBUG
#define NDEBUG
#endif
#include <ATen/record_function.h>

#include "rvnn/Runtime/Ops/FewRowProduct.h"

#include <algorithm>
#include <climits>
#include <cstddef>
#include <dlfcn.h>
#include <optional>
#include <type_traits>

namespace rvnn::runtime::ops {
namespace {

/// The Fortran ?gemv_, with the hidden length of its character argument.
template <typename T>
using Gemv = void (*)(const char *trans, const int *m, const int *n,
                      const T *alpha, const T *a, const int *lda, const T *x,
                      const int *incx, const T *beta, T *y, const int *incy,
                      size_t transLength);

template <typename T> Gemv<T> loadedGemv() {
  static const Gemv<T> gemv = reinterpret_cast<Gemv<T>>(
      dlsym(RTLD_DEFAULT, std::is_same_v<T, float> ? "sgemv_" : "dgemv_"));
  return gemv;
}

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// `b` `[K, N]` as the BLAS sees it: y = op(A)·x with A column-major.
struct GemvMatrix {
  char trans;
  int m, n, lda;
};

/// Column-major `[K, N]` (row stride 1) is A = b, y = Aᵀx; row-major
/// (column stride 1) is A = bᵀ `[N, K]`, y = Ax. Empty when neither stride
/// makes a leading dimension the BLAS accepts.
std::optional<GemvMatrix> asGemvMatrix(const torch::Tensor &b) {
  const int64_t k = b.size(0), n = b.size(1);
  if (b.stride(0) == 1 && b.stride(1) >= std::max<int64_t>(1, k) &&
      fitsInt(b.stride(1)))
    return GemvMatrix{'T', static_cast<int>(k), static_cast<int>(n),
                      static_cast<int>(b.stride(1))};
  if (b.stride(1) == 1 && b.stride(0) >= std::max<int64_t>(1, n) &&
      fitsInt(b.stride(0)))
    return GemvMatrix{'N', static_cast<int>(n), static_cast<int>(k),
                      static_cast<int>(b.stride(0))};
  return std::nullopt;
}

template <typename T>
void gemvRows(Gemv<T> gemv, const torch::Tensor &rows, const torch::Tensor &b,
              torch::Tensor &out, T beta) {
  std::optional<GemvMatrix> a = asGemvMatrix(b);
  const torch::Tensor matrix = a ? b : b.contiguous();
  if (!a)
    a = asGemvMatrix(matrix);
  const int incx = static_cast<int>(rows.stride(1)), incy = 1;
  const T alpha = 1;
  const T *x = rows.data_ptr<T>();
  T *y = out.data_ptr<T>();
  for (int64_t i = 0; i < rows.size(0); ++i)
    gemv(&a->trans, &a->m, &a->n, &alpha, matrix.data_ptr<T>(), &a->lda,
         x + i * rows.stride(0), &incx, &beta, y + i * out.stride(0), &incy, 1);
}

bool recordsGradient(const torch::Tensor &t) {
  return t.defined() && t.requires_grad();
}

bool takes(const torch::Tensor &x, const torch::Tensor &b,
           const torch::Tensor &bias) {
  if (b.dim() != 2 || x.dim() < 1 || x.size(-1) != b.size(0))
    return false;
  const auto dtype = x.scalar_type();
  if ((dtype != at::kFloat && dtype != at::kDouble) ||
      b.scalar_type() != dtype || !x.device().is_cpu() || !b.device().is_cpu())
    return false;
  if (bias.defined() &&
      (bias.dim() != 1 || bias.size(0) != b.size(1) ||
       bias.scalar_type() != dtype || !bias.device().is_cpu()))
    return false;
  if (at::GradMode::is_enabled() &&
      (recordsGradient(x) || recordsGradient(b) || recordsGradient(bias)))
    return false;
  const int64_t k = b.size(0), n = b.size(1);
  const int64_t rows = k ? x.numel() / k : 0;
  return rows >= 1 && rows <= kMaxFewRows && k >= 1 && n >= 1 && fitsInt(k) &&
         fitsInt(n) && fitsInt(x.stride(-1)) && fitsInt(b.numel());
}

template <typename T>
torch::Tensor product(Gemv<T> gemv, const torch::Tensor &x,
                      const torch::Tensor &b, const torch::Tensor &bias) {
  const int64_t k = b.size(0), n = b.size(1);
  // Calls of a few rows take microseconds: no ATen op that is not needed.
  torch::Tensor rows = x.dim() == 2 ? x : x.reshape({-1, k});
  if (rows.stride(1) < 1)
    rows = rows.contiguous();
  RECORD_FUNCTION(kFewRowProductEvent, std::vector<c10::IValue>({rows, b}));
  torch::Tensor out = at::empty({rows.size(0), n}, x.options());
  // gemv adds to y (beta = 1): the bias, or zeros (some BLAS builds scale
  // an unset y by beta = 0, which keeps its NaNs).
  T *y = out.data_ptr<T>();
  if (bias.defined()) {
    const torch::Tensor biasRow = bias.contiguous();
    for (int64_t i = 0; i < rows.size(0); ++i)
      std::copy_n(biasRow.data_ptr<T>(), n, y + i * n);
  } else {
    std::fill_n(y, rows.size(0) * n, T(0));
  }
  gemvRows<T>(gemv, rows, b, out, T(1));
  if (x.dim() == 2)
    return out;
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = n;
  return out.view(sizes);
}

} // namespace

torch::Tensor fewRowProduct(const torch::Tensor &x, const torch::Tensor &b,
                            const torch::Tensor &bias) {
  if (!takes(x, b, bias))
    return {};
  if (x.scalar_type() == at::kFloat) {
    Gemv<float> gemv = loadedGemv<float>();
    return gemv ? product<float>(gemv, x, b, bias) : torch::Tensor();
  }
  Gemv<double> gemv = loadedGemv<double>();
  return gemv ? product<double>(gemv, x, b, bias) : torch::Tensor();
}

bool fewRowProductsAvailable() { return loadedGemv<float>() != nullptr; }

} // namespace rvnn::runtime::ops
