// Matrix products by kernels LIBXSMM generates at run time for the shape and
// the CPU (its JIT "small matrix multiplication" kernels).
//
// RecordFunction has a member only without NDEBUG: this file must see the
// layout of the LibTorch it links (built with NDEBUG) in every build type.
#ifndef NDEBUG
#define NDEBUG
#endif
#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include "rvnn/Runtime/Ops/JitProduct.h"

#include <algorithm>
#include <climits>
#include <initializer_list>
#include <optional>
#include <vector>

#ifdef RVNN_HAVE_LIBXSMM
#include <libxsmm.h>
#endif

namespace rvnn::runtime::ops {

#ifdef RVNN_HAVE_LIBXSMM
namespace {

bool fitsInt(int64_t v) { return v >= 0 && v <= INT_MAX; }

/// Which products LIBXSMM's kernels multiply. AVX-512 ones: every product
/// jitProduct and jitBatchedProduct take. AVX2 ones multiply larger
/// products slower than OpenBLAS's, which pack them for the caches (NDR at
/// batch 1: a 1.4x slower step; bench/README.md, session 30), but some
/// narrow ones faster (kMaxRowsOfAvx2JitProducts,
/// kMaxNarrowDimOfAvx2BatchedProducts).
enum class KernelScope { None, NarrowShapes, Every };

KernelScope kernelScope() {
  static const KernelScope scope = [] {
    libxsmm_init();
    const int arch = libxsmm_get_target_archid();
    return arch >= LIBXSMM_X86_AVX512_CORE ? KernelScope::Every
           : arch >= LIBXSMM_X86_AVX2      ? KernelScope::NarrowShapes
                                           : KernelScope::None;
  }();
  return scope;
}

/// A column-major matrix operand: element (i, j) at data[i + j·ld].
struct ColumnMajor {
  const float *data;
  int64_t ld;
};

/// Elements of A's block the kernels read for every column of C: kept in the
/// L2 cache (512 KiB). LIBXSMM does not pack, so with the whole depth of a
/// wide A each column streams it from memory: [2048, 2048] · [2048, 120]
/// ran at a third of the blocked rate (bench/README.md, session 31).
constexpr int64_t kBlockOfA = int64_t(128) << 10;

/// Column-major C [m, n] (leading dim ldc) = A [m, k] · op(B) + beta·C, beta
/// 0 (C is not read) or 1; op(B) is B [k, n], or with `transposedB` the
/// transpose of B stored [n, k]. The depth runs in blocks whose part of A
/// stays in the cache. False, C untouched, when LIBXSMM has no kernel for
/// it.
bool multiply(int64_t m, int64_t n, int64_t k, ColumnMajor a, ColumnMajor b,
              bool transposedB, float *c, int64_t ldc, float beta) {
  for (int64_t v : {m, n, k, a.ld, b.ld, ldc})
    if (!fitsInt(v))
      return false;
  const int64_t depth = std::min(k, std::max<int64_t>(32, kBlockOfA / m));
  const int flags =
      transposedB ? LIBXSMM_GEMM_FLAG_TRANS_B : LIBXSMM_GEMM_FLAG_NONE;
  const int lda = a.ld, ldb = b.ld, ildc = ldc;
  const float alpha = 1, accumulate = 1;
  auto kernel = [&](int64_t blockDepth, const float *blockBeta) {
    return libxsmm_smmdispatch(m, n, blockDepth, &lda, &ldb, &ildc, &alpha,
                               blockBeta, &flags, nullptr);
  };
  // Only the kernels the blocks use: each dispatch is a lookup in LIBXSMM's
  // registry (about half a microsecond), and most products are one block.
  const int64_t lastDepth = k % depth ? k % depth : depth;
  const bool middleBlocks = k > depth + lastDepth;
  const libxsmm_smmfunction first = kernel(std::min(k, depth), &beta);
  const libxsmm_smmfunction next =
      middleBlocks ? kernel(depth, &accumulate) : nullptr;
  const libxsmm_smmfunction last =
      k > depth ? kernel(lastDepth, &accumulate) : nullptr;
  if (!first || (middleBlocks && !next) || (k > depth && !last))
    return false;
  for (int64_t p = 0; p < k; p += depth) {
    const libxsmm_smmfunction run =
        p == 0 ? first : (p + depth >= k ? last : next);
    // Depth p is A's column p and B's row p (of the stored [n, k]: column p).
    run(a.data + p * a.ld, b.data + (transposedB ? p * b.ld : p), c);
  }
  return true;
}

bool cpuFloat(const torch::Tensor &t) {
  return t.scalar_type() == at::kFloat && t.device().is_cpu();
}

bool recordsGradient(std::initializer_list<const torch::Tensor *> operands) {
  return at::GradMode::is_enabled() &&
         std::any_of(operands.begin(), operands.end(),
                     [](const torch::Tensor *t) {
                       return t->defined() && t->requires_grad();
                     });
}

bool takes(const torch::Tensor &x, const torch::Tensor &b,
           const torch::Tensor &bias) {
  if (b.dim() != 2 || x.dim() < 1 || x.size(-1) != b.size(0) || !cpuFloat(x) ||
      !cpuFloat(b) || x.numel() == 0 || b.numel() == 0)
    return false;
  if (bias.defined() && (bias.dim() != 1 || bias.size(0) != b.size(1) ||
                         !cpuFloat(bias) || !bias.is_contiguous()))
    return false;
  return !recordsGradient({&x, &b, &bias});
}

/// A [r, c] matrix as a column-major operand, if one of its strides is 1:
/// a row-major matrix is, as it lies, its transpose [c, r] column-major.
struct Layout {
  ColumnMajor operand;
  bool rowMajor;
};
std::optional<Layout> layout(const torch::Tensor &t) {
  const float *data = t.data_ptr<float>();
  if (t.stride(1) == 1 && t.stride(0) >= std::max<int64_t>(1, t.size(1)))
    return Layout{{data, t.stride(0)}, true};
  if (t.stride(0) == 1 && t.stride(1) >= std::max<int64_t>(1, t.size(0)))
    return Layout{{data, t.stride(1)}, false};
  return std::nullopt;
}

/// A copy of `t` in the other layout (LIBXSMM's JIT transposition); `from`
/// is its layout, `buffer` receives the copy.
Layout otherLayout(const torch::Tensor &t, const Layout &from,
                   torch::Tensor &buffer) {
  const int64_t r = t.size(0), c = t.size(1);
  buffer = at::empty({r * c}, t.options());
  float *out = buffer.data_ptr<float>();
  // The stored column-major matrix is [c, r] (row-major t) or [r, c].
  const int64_t m = from.rowMajor ? c : r, n = from.rowMajor ? r : c;
  libxsmm_otrans(out, from.operand.data, sizeof(float), m, n, from.operand.ld,
                 n);
  return Layout{{out, n}, !from.rowMajor};
}

/// Every row (or, with `columns`, every column) of the row-major `y` set to
/// the bias, which the kernels then add to.
void fillWithBias(torch::Tensor &y, const torch::Tensor &bias, bool columns) {
  const float *values = bias.data_ptr<float>();
  float *out = y.data_ptr<float>();
  const int64_t rows = y.size(0), width = y.size(1);
  for (int64_t i = 0; i < rows; ++i) {
    if (columns)
      std::fill_n(out + i * width, width, values[i]);
    else
      std::copy_n(values, width, out + i * width);
  }
}

/// y [R, N] = rows [R, K] · b [K, N] (+ bias) written row-major, which is
/// column-major yᵀ = bᵀ · rowsᵀ when b is row-major (A = bᵀ as it lies),
/// and column-major y = rows · b, transposed afterwards, when b is
/// column-major and rows too. A column-major b with row-major rows takes
/// the cheaper of transposing b (K·N elements, then the first form) or the
/// rows (R·K, then the second form, R·N more for the result).
bool product(const torch::Tensor &rows, const torch::Tensor &b,
             const torch::Tensor &bias, torch::Tensor &y) {
  const int64_t r = rows.size(0), k = b.size(0), n = b.size(1);
  std::optional<Layout> x = layout(rows), matrix = layout(b);
  if (!x || !matrix)
    return false;
  const float beta = bias.defined() ? 1 : 0;
  torch::Tensor copy;
  if (!matrix->rowMajor && x->rowMajor) {
    if (k * n <= r * (k + n))
      matrix = otherLayout(b, *matrix, copy);
    else
      x = otherLayout(rows, *x, copy);
  }
  if (matrix->rowMajor) {
    if (bias.defined())
      fillWithBias(y, bias, false);
    return multiply(n, r, k, matrix->operand, x->operand, !x->rowMajor,
                    y.data_ptr<float>(), n, beta);
  }
  torch::Tensor yT = at::empty({n, r}, y.options());
  if (bias.defined())
    fillWithBias(yT, bias, true);
  if (!multiply(r, n, k, x->operand, matrix->operand, false,
                yT.data_ptr<float>(), r, beta))
    return false;
  libxsmm_otrans(y.data_ptr<float>(), yT.data_ptr<float>(), sizeof(float), r, n,
                 r, n);
  return true;
}

/// Whether `rows` rows by `matrix` is a product AVX2 kernels multiply
/// faster than the BLAS: 2 to kMaxRowsOfAvx2JitProducts rows (one row: one
/// gemv is as fast) by a row-major matrix (product's first form; with the
/// rows as the kernel's narrow dimension they run ten times slower).
bool fewRowsByRowMajor(int64_t rows, const Layout &matrix) {
  return rows >= 2 && rows <= kMaxRowsOfAvx2JitProducts && matrix.rowMajor;
}

/// Whether batches of `[M, K]·[K, N]` are products AVX2 kernels multiply
/// faster than the BLAS: K or N at most kMaxNarrowDimOfAvx2BatchedProducts
/// (a narrow M alone is slower).
bool narrowBatchedShape(int64_t k, int64_t n) {
  return std::min(k, n) <= kMaxNarrowDimOfAvx2BatchedProducts;
}

} // namespace

torch::Tensor jitProduct(const torch::Tensor &x, const torch::Tensor &b,
                         const torch::Tensor &bias) {
  const KernelScope scope = kernelScope();
  if (scope == KernelScope::None || !takes(x, b, bias))
    return {};
  const std::optional<Layout> matrix = layout(b);
  if (!matrix || (scope == KernelScope::NarrowShapes &&
                  !fewRowsByRowMajor(x.numel() / b.size(0), *matrix)))
    return {};
  const int64_t k = b.size(0), n = b.size(1);
  torch::Tensor rows = x.dim() == 2 ? x : x.reshape({-1, k});
  if (!layout(rows))
    rows = rows.contiguous();
  RECORD_FUNCTION(kJitProductEvent, std::vector<c10::IValue>({rows, b}));
  torch::Tensor y = at::empty({rows.size(0), n}, x.options());
  if (!product(rows, b, bias, y))
    return {};
  if (x.dim() == 2)
    return y;
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = n;
  return y.view(sizes);
}

torch::Tensor jitBatchedProduct(const torch::Tensor &x,
                                const torch::Tensor &y) {
  const KernelScope scope = kernelScope();
  if (scope == KernelScope::None || x.dim() < 3 || x.dim() != y.dim() ||
      !cpuFloat(x) || !cpuFloat(y) || x.numel() == 0 || y.numel() == 0 ||
      x.size(-1) != y.size(-2) || recordsGradient({&x, &y}) ||
      x.sizes().slice(0, x.dim() - 2) != y.sizes().slice(0, y.dim() - 2) ||
      (scope == KernelScope::NarrowShapes &&
       !narrowBatchedShape(x.size(-1), y.size(-1))))
    return {};
  const bool xTransposed = !x.is_contiguous();
  if (xTransposed && !x.transpose(-1, -2).is_contiguous())
    return {};
  // The kernels take B transposed but not A: a transposed y is copied.
  const torch::Tensor rows = y.contiguous();
  RECORD_FUNCTION(kJitBatchedProductEvent, std::vector<c10::IValue>({x, y}));
  const int64_t m = x.size(-2), k = x.size(-1), n = y.size(-1);
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.back() = n;
  torch::Tensor out = at::empty(sizes, x.options());
  const float *xData = x.data_ptr<float>(), *yData = rows.data_ptr<float>();
  float *outData = out.data_ptr<float>();
  // Row-major out = x · y is column-major outᵀ = yᵀ · xᵀ: A is y as it
  // lies, B is x (or, stored [k, m], its transpose).
  auto multiplyMatrix = [&](int64_t b) {
    return multiply(n, m, k, {yData + b * k * n, n},
                    {xData + b * m * k, xTransposed ? m : k}, xTransposed,
                    outData + b * m * n, n, 0);
  };
  const int64_t matrices = x.numel() / (m * k);
  if (!multiplyMatrix(0))
    return {};
  at::parallel_for(1, matrices, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b)
      multiplyMatrix(b);
  });
  return out;
}

torch::Tensor transposedCopy(const torch::Tensor &matrix) {
  if (matrix.dim() != 2 || !cpuFloat(matrix) || !matrix.is_contiguous() ||
      matrix.numel() == 0 || !fitsInt(matrix.size(0)) ||
      !fitsInt(matrix.size(1)))
    return matrix.t().contiguous();
  const int64_t r = matrix.size(0), c = matrix.size(1);
  torch::Tensor out = at::empty({c, r}, matrix.options());
  // Row-major [r, c] is column-major [c, r]; the copy, column-major [r, c],
  // is the row-major transpose.
  libxsmm_otrans(out.data_ptr<float>(), matrix.data_ptr<float>(), sizeof(float),
                 c, r, c, r);
  return out;
}

std::string jitProductKernels() {
  return kernelScope() != KernelScope::None ? libxsmm_get_target_arch()
                                            : std::string();
}

bool jitProductsTakeEveryShape() { return kernelScope() == KernelScope::Every; }

#else

torch::Tensor jitProduct(const torch::Tensor &, const torch::Tensor &,
                         const torch::Tensor &) {
  return {};
}

torch::Tensor jitBatchedProduct(const torch::Tensor &, const torch::Tensor &) {
  return {};
}

torch::Tensor transposedCopy(const torch::Tensor &matrix) {
  return matrix.t().contiguous();
}

std::string jitProductKernels() { return {}; }

bool jitProductsTakeEveryShape() { return false; }

#endif

} // namespace rvnn::runtime::ops
