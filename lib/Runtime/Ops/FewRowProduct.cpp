// Products of a few rows by a matrix (or a batch of them, each by its own
// matrix) as one BLAS matrix-vector product a row.
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

/// A matrix `[K, N]` as the BLAS sees it: y = op(A)·x with A column-major.
struct GemvMatrix {
  char trans;
  int m, n, lda;
};

/// The matrices' last two dims `[K, N]` as the BLAS sees them: column-major
/// (row stride 1) is A = b, y = Aᵀx; row-major (column stride 1) is A = bᵀ
/// `[N, K]`, y = Ax. Empty when neither stride makes a leading dimension the
/// BLAS accepts.
std::optional<GemvMatrix> gemvMatrixOf(const torch::Tensor &matrices) {
  const int64_t k = matrices.size(-2), n = matrices.size(-1);
  const int64_t rowStride = matrices.stride(-2),
                columnStride = matrices.stride(-1);
  if (rowStride == 1 && columnStride >= std::max<int64_t>(1, k) &&
      fitsInt(columnStride))
    return GemvMatrix{'T', static_cast<int>(k), static_cast<int>(n),
                      static_cast<int>(columnStride)};
  if (columnStride == 1 && rowStride >= std::max<int64_t>(1, n) &&
      fitsInt(rowStride))
    return GemvMatrix{'N', static_cast<int>(n), static_cast<int>(k),
                      static_cast<int>(rowStride)};
  return std::nullopt;
}

/// The product's operands as rows `[batch, M, K]` and matrices: a 2-D `b`
/// is one matrix every row multiplies (batch 1), a 3-D one `[batch, K, N]` a
/// matrix per batch entry of a 3-D `x`.
struct Operands {
  torch::Tensor rows, matrices;

  /// Elements from one batch entry's matrix to the next's (0: one matrix).
  int64_t matrixStride() const {
    return matrices.dim() == 3 ? matrices.stride(0) : 0;
  }
};

Operands operands(const torch::Tensor &x, const torch::Tensor &b) {
  const int64_t k = b.size(-2);
  torch::Tensor rows = b.dim() == 3   ? x
                       : x.dim() == 2 ? x.unsqueeze(0)
                                      : x.reshape({1, -1, k});
  Operands o{rows, b};
  if (o.rows.stride(2) < 1)
    o.rows = o.rows.contiguous();
  if (!gemvMatrixOf(o.matrices))
    o.matrices = o.matrices.contiguous();
  return o;
}

template <typename T>
void gemvRows(Gemv<T> gemv, const Operands &o, torch::Tensor &out, T beta) {
  const GemvMatrix a = *gemvMatrixOf(o.matrices);
  const int incx = static_cast<int>(o.rows.stride(2)), incy = 1;
  const T alpha = 1;
  const int64_t batch = o.rows.size(0), m = o.rows.size(1), n = out.size(-1);
  const T *matrix = o.matrices.data_ptr<T>();
  const int64_t matrixStride = o.matrixStride();
  const T *x = o.rows.data_ptr<T>();
  T *y = out.data_ptr<T>();
  for (int64_t e = 0; e < batch; ++e)
    for (int64_t i = 0; i < m; ++i)
      gemv(&a.trans, &a.m, &a.n, &alpha, matrix + e * matrixStride, &a.lda,
           x + e * o.rows.stride(0) + i * o.rows.stride(1), &incx, &beta,
           y + (e * m + i) * n, &incy, 1);
}

bool recordsGradient(const torch::Tensor &t) {
  return t.defined() && t.requires_grad();
}

bool onCpuAs(const torch::Tensor &t, at::ScalarType dtype) {
  return t.scalar_type() == dtype && t.device().is_cpu();
}

/// Whether `x` and `b` are a product of few rows: by one matrix, or batched
/// (3-D `x` and `b` of one batch size).
bool fewRowShapes(const torch::Tensor &x, const torch::Tensor &b) {
  if (b.dim() == 3)
    return x.dim() == 3 && x.size(0) == b.size(0) && x.size(2) == b.size(1) &&
           x.size(1) >= 1 && x.size(1) <= kMaxFewRows;
  if (b.dim() != 2 || x.dim() < 1 || x.size(-1) != b.size(0))
    return false;
  const int64_t k = b.size(0);
  const int64_t rows = k ? x.numel() / k : 0;
  return rows >= 1 && rows <= kMaxFewRows;
}

bool takes(const torch::Tensor &x, const torch::Tensor &b,
           const torch::Tensor &bias) {
  if (!fewRowShapes(x, b))
    return false;
  const auto dtype = x.scalar_type();
  if ((dtype != at::kFloat && dtype != at::kDouble) || !onCpuAs(x, dtype) ||
      !onCpuAs(b, dtype))
    return false;
  if (bias.defined() &&
      (bias.dim() != 1 || bias.size(0) != b.size(-1) || !onCpuAs(bias, dtype)))
    return false;
  if (at::GradMode::is_enabled() &&
      (recordsGradient(x) || recordsGradient(b) || recordsGradient(bias)))
    return false;
  const int64_t k = b.size(-2), n = b.size(-1);
  return k >= 1 && n >= 1 && fitsInt(k) && fitsInt(n) &&
         fitsInt(x.stride(-1)) && fitsInt(k * n);
}

template <typename T>
torch::Tensor product(Gemv<T> gemv, const torch::Tensor &x,
                      const torch::Tensor &b, const torch::Tensor &bias) {
  // Calls of a few rows take microseconds: no ATen op that is not needed.
  const Operands o = operands(x, b);
  RECORD_FUNCTION(kFewRowProductEvent,
                  std::vector<c10::IValue>(
                      {b.dim() == 3 ? o.rows : o.rows[0], o.matrices}));
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = b.size(-1);
  torch::Tensor out = at::empty(sizes, x.options());
  // gemv adds to y (beta = 1): the bias, or zeros (some BLAS builds scale
  // an unset y by beta = 0, which keeps its NaNs).
  const int64_t rows = o.rows.size(0) * o.rows.size(1), n = b.size(-1);
  T *y = out.data_ptr<T>();
  if (bias.defined()) {
    const torch::Tensor biasRow = bias.contiguous();
    for (int64_t i = 0; i < rows; ++i)
      std::copy_n(biasRow.data_ptr<T>(), n, y + i * n);
  } else {
    std::fill_n(y, rows * n, T(0));
  }
  gemvRows<T>(gemv, o, out, T(1));
  return out;
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
