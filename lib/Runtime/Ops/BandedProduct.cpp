// Products of a batched matrix read on a band of columns per row (CRvNN's
// neighbour matrices, rvnn-exec-band-neighbour-products). A row of the
// neighbour matrix spreads its unit of weight over the nearest existing
// positions: a few columns of S, so a loop over the band does a small part
// of the dense product's work, even at a lower rate than the BLAS.
#include "rvnn/Runtime/Ops/BandedProduct.h"
#include "rvnn/Runtime/VectorClones.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace rvnn::runtime::ops {
namespace {

using torch::Tensor;

/// One AVX2 register of T (the baseline build splits it in two SSE ones),
/// and its unaligned, aliasing form for loads and stores.
template <typename T> struct Lanes {
  typedef T type __attribute__((vector_size(32)));
  typedef T unaligned
      __attribute__((vector_size(32), aligned(sizeof(T)), __may_alias__));
  static constexpr int64_t size = 32 / sizeof(T);

  static RVNN_ALWAYS_INLINE void load(type &into, const T *at) {
    into = *reinterpret_cast<const unaligned *>(at);
  }
  static RVNN_ALWAYS_INLINE void store(T *at, const type &value) {
    *reinterpret_cast<unaligned *>(at) = value;
  }
};

/// Columns of a result row that one pass over the band sums in registers:
/// chunks of eight registers (as many independent chains of additions), then
/// of one, then single columns.
template <typename T> constexpr int64_t kWideChunk = 8 * Lanes<T>::size;
template <typename T> constexpr int64_t kNarrowChunk = Lanes<T>::size;

/// out[c + u] = base[c + u] + Σ_i w(i)·x(i)[c + u] for u < Width over
/// i in [0, count) in order (base null: 0; base added last, as ATen's
/// base + product rounds). The sums are registers of lanes, so that the
/// compiler neither keeps them in memory nor reorders the loops.
template <int64_t Width, typename T, typename Weight, typename Row>
RVNN_ALWAYS_INLINE void sumChunk(T *__restrict out, const T *__restrict base,
                                 int64_t count, const Weight &w, const Row &x,
                                 int64_t c) {
  using Vector = typename Lanes<T>::type;
  constexpr int64_t kLanes = Lanes<T>::size, kRegisters = Width / kLanes;
  static_assert(Width % kLanes == 0, "a chunk is whole registers");
  Vector sum[kRegisters] = {};
  for (int64_t i = 0; i < count; ++i) {
    const T weight = w(i);
    const T *row = x(i) + c;
    for (int64_t r = 0; r < kRegisters; ++r) {
      Vector lanes;
      Lanes<T>::load(lanes, row + r * kLanes);
      sum[r] += weight * lanes;
    }
  }
  for (int64_t r = 0; r < kRegisters; ++r) {
    if (base) {
      Vector lanes;
      Lanes<T>::load(lanes, base + c + r * kLanes);
      sum[r] = lanes + sum[r];
    }
    Lanes<T>::store(out + c + r * kLanes, sum[r]);
  }
}

/// One column of sumChunk.
template <typename T, typename Weight, typename Row>
RVNN_ALWAYS_INLINE void sumColumn(T *__restrict out, const T *__restrict base,
                                  int64_t count, const Weight &w, const Row &x,
                                  int64_t c) {
  T sum = 0;
  for (int64_t i = 0; i < count; ++i)
    sum += w(i) * x(i)[c];
  out[c] = base ? base[c] + sum : sum;
}

/// sumChunk over the n columns of out, widest chunks first.
template <typename T, typename Weight, typename Row>
RVNN_ALWAYS_INLINE void sumRows(T *__restrict out, const T *__restrict base,
                                int64_t count, const Weight &w, const Row &x,
                                int64_t n) {
  int64_t c = 0;
  for (; c + kWideChunk<T> <= n; c += kWideChunk<T>)
    sumChunk<kWideChunk<T>>(out, base, count, w, x, c);
  for (; c + kNarrowChunk<T> <= n; c += kNarrowChunk<T>)
    sumChunk<kNarrowChunk<T>>(out, base, count, w, x, c);
  for (; c < n; ++c)
    sumColumn(out, base, count, w, x, c);
}

/// y = base + Σ_k a[k]·x[k·stride ..] over k in [lo, hi), n elements of y
/// (base null: 0), k in order.
template <typename T>
RVNN_ALWAYS_INLINE void bandRowBody(T *__restrict y, const T *__restrict base,
                                    const T *__restrict a,
                                    const T *__restrict x, int64_t stride,
                                    int64_t lo, int64_t hi, int64_t n) {
  sumRows(
      y, base, hi - lo, [&](int64_t i) RVNN_INLINED { return a[lo + i]; },
      [&](int64_t i) RVNN_INLINED { return x + (lo + i) * stride; }, n);
}

template <typename T>
RVNN_TARGET_AVX2 void bandRowAvx2(T *y, const T *base, const T *a, const T *x,
                                  int64_t stride, int64_t lo, int64_t hi,
                                  int64_t n) {
  bandRowBody(y, base, a, x, stride, lo, hi, n);
}

template <typename T>
void bandRowBaseline(T *y, const T *base, const T *a, const T *x,
                     int64_t stride, int64_t lo, int64_t hi, int64_t n) {
  bandRowBody(y, base, a, x, stride, lo, hi, n);
}

template <typename T>
void bandRow(T *y, const T *base, const T *a, const T *x, int64_t stride,
             int64_t lo, int64_t hi, int64_t n) {
  (useAvx2Builds() ? bandRowAvx2<T> : bandRowBaseline<T>)(y, base, a, x, stride,
                                                          lo, hi, n);
}

/// out[j] = x_j·y for the J rows x_j = x + j·stride of n elements, each in
/// eight interleaved partial sums (so that it vectorises) added pairwise at
/// the end: J dots side by side, so that their chains of additions overlap.
template <int J, typename T>
RVNN_ALWAYS_INLINE void dotsBody(const T *__restrict x, int64_t stride,
                                 const T *__restrict y, int64_t n,
                                 T *__restrict out) {
  using Vector = typename Lanes<T>::type;
  constexpr int64_t kLanes = Lanes<T>::size, kRegisters = 8 / kLanes;
  Vector partial[J][kRegisters] = {};
  int64_t k = 0;
  for (; k + 8 <= n; k += 8)
    for (int64_t r = 0; r < kRegisters; ++r) {
      Vector yLanes;
      Lanes<T>::load(yLanes, y + k + r * kLanes);
      for (int j = 0; j < J; ++j) {
        Vector xLanes;
        Lanes<T>::load(xLanes, x + j * stride + k + r * kLanes);
        partial[j][r] += xLanes * yLanes;
      }
    }
  for (int j = 0; j < J; ++j) {
    T p[8];
    std::memcpy(p, partial[j], sizeof(p));
    T sum = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
    for (int64_t tail = k; tail < n; ++tail)
      sum += x[j * stride + tail] * y[tail];
    out[j] = sum;
  }
}

/// Dots side by side.
constexpr int kDotsAtOnce = 4;

/// Shapes and pointers of one banded product: lhs [B, M, K], band [B, M, 2],
/// rhs [B, K, N], all contiguous.
template <typename T> struct Banded {
  int64_t batch, rows, inner, columns;
  const T *lhs;
  const int64_t *band;
  const T *rhs;

  const T *lhsRow(int64_t b, int64_t m) const {
    return lhs + (b * rows + m) * inner;
  }
  const T *rhsRow(int64_t b, int64_t k) const {
    return rhs + (b * inner + k) * columns;
  }
  /// Row m's band (checkBand checked it).
  std::pair<int64_t, int64_t> range(int64_t b, int64_t m) const {
    const int64_t *entry = band + (b * rows + m) * 2;
    return {entry[0], entry[1]};
  }
};

/// out = base + the product (base null: 0), base and out [B, M, N].
template <typename T> void forward(const Banded<T> &p, const T *base, T *out) {
  at::parallel_for(0, p.batch, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b)
      for (int64_t m = 0; m < p.rows; ++m) {
        auto [lo, hi] = p.range(b, m);
        const int64_t offset = (b * p.rows + m) * p.columns;
        bandRow(out + offset, base ? base + offset : nullptr, p.lhsRow(b, m),
                p.rhsRow(b, 0), p.columns, lo, hi, p.columns);
      }
  });
}

/// For each column k of lhs, the rows m whose band holds k, ascending: the
/// band transposed (rows of rowsOf(k) = rows[start[k] .. start[k + 1])).
struct ColumnRows {
  std::vector<int64_t> start, rows;
};

template <typename T> ColumnRows columnRows(const Banded<T> &p, int64_t b) {
  ColumnRows t;
  t.start.assign(p.inner + 1, 0);
  for (int64_t m = 0; m < p.rows; ++m) {
    auto [lo, hi] = p.range(b, m);
    for (int64_t k = lo; k < hi; ++k)
      ++t.start[k + 1];
  }
  for (int64_t k = 0; k < p.inner; ++k)
    t.start[k + 1] += t.start[k];
  t.rows.resize(t.start[p.inner]);
  std::vector<int64_t> next(t.start.begin(), t.start.end() - 1);
  for (int64_t m = 0; m < p.rows; ++m) {
    auto [lo, hi] = p.range(b, m);
    for (int64_t k = lo; k < hi; ++k)
      t.rows[next[k]++] = m;
  }
  return t;
}

/// Batch entry b's dlhs (zeros outside the band) and drhs, where not null:
/// dlhs[m, k] = dy[m]·rhs[k] a few k at once; drhs[k] = Σ_m lhs[m, k]·dy[m]
/// over the rows whose band holds k, ascending (the order of adding each
/// row's share in turn), summed in registers.
template <typename T>
RVNN_ALWAYS_INLINE void backwardBody(const Banded<T> &p, int64_t b, const T *dy,
                                     const ColumnRows *transposed, T *dlhs,
                                     T *drhs) {
  if (dlhs)
    for (int64_t m = 0; m < p.rows; ++m) {
      auto [lo, hi] = p.range(b, m);
      const T *g = dy + (b * p.rows + m) * p.columns;
      T *row = dlhs + (b * p.rows + m) * p.inner;
      std::fill(row, row + p.inner, T(0));
      int64_t k = lo;
      for (; k + kDotsAtOnce <= hi; k += kDotsAtOnce)
        dotsBody<kDotsAtOnce>(p.rhsRow(b, k), p.columns, g, p.columns, row + k);
      for (; k < hi; ++k)
        dotsBody<1>(p.rhsRow(b, k), p.columns, g, p.columns, row + k);
    }
  if (drhs)
    for (int64_t k = 0; k < p.inner; ++k) {
      const int64_t *rows = transposed->rows.data() + transposed->start[k];
      sumRows(
          drhs + (b * p.inner + k) * p.columns, static_cast<const T *>(nullptr),
          transposed->start[k + 1] - transposed->start[k],
          [&](int64_t i) RVNN_INLINED { return p.lhsRow(b, rows[i])[k]; },
          [&](int64_t i)
              RVNN_INLINED { return dy + (b * p.rows + rows[i]) * p.columns; },
          p.columns);
    }
}

template <typename T>
RVNN_TARGET_AVX2 void backwardAvx2(const Banded<T> &p, int64_t b, const T *dy,
                                   const ColumnRows *transposed, T *dlhs,
                                   T *drhs) {
  backwardBody(p, b, dy, transposed, dlhs, drhs);
}

template <typename T>
void backwardBaseline(const Banded<T> &p, int64_t b, const T *dy,
                      const ColumnRows *transposed, T *dlhs, T *drhs) {
  backwardBody(p, b, dy, transposed, dlhs, drhs);
}

template <typename T>
void backward(const Banded<T> &p, const T *dy, T *dlhs, T *drhs) {
  auto entry = useAvx2Builds() ? backwardAvx2<T> : backwardBaseline<T>;
  at::parallel_for(0, p.batch, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const ColumnRows transposed = drhs ? columnRows(p, b) : ColumnRows();
      entry(p, b, dy, &transposed, dlhs, drhs);
    }
  });
}

/// Whether the loops take these operands (else ATen on the masked lhs).
bool loopsTake(const Tensor &lhs, const Tensor &band, const Tensor &rhs) {
  const auto type = lhs.scalar_type();
  return lhs.device().is_cpu() && rhs.device().is_cpu() &&
         band.device().is_cpu() &&
         (type == at::kFloat || type == at::kDouble) &&
         rhs.scalar_type() == type && band.scalar_type() == at::kLong &&
         lhs.dim() == 3 && rhs.dim() == 3 && band.dim() == 3 &&
         rhs.size(0) == lhs.size(0) && rhs.size(1) == lhs.size(2) &&
         band.size(0) == lhs.size(0) && band.size(1) == lhs.size(1) &&
         band.size(2) == 2;
}

/// The share of lhs's entries in the band above which the BLAS's dense
/// product (on the masked lhs) is faster than the loops. Measured on CRvNN,
/// ListOps 200-220 x 32, one thread (bench/README.md, session 17): the loops
/// on every band (share 1) and the dense product alone were both slower.
constexpr double kDenseAbove = 0.3;

/// Checks that every row's [lo, hi) lies within the `columns` of lhs (a band
/// comes from a compiled op; a wrong one must not read out of bounds, nor be
/// masked away silently); on the CPU, returns the band's total width from
/// the same pass (the band is a few hundred pairs, which ATen's elementwise
/// ops would each dispatch for). Off the CPU the check is queued on the
/// device (at::_assert_async) instead of waited for, and the width is not
/// read: a host synchronisation per product would cost more than the
/// product.
std::optional<int64_t> checkBand(const Tensor &band, int64_t columns) {
  TORCH_CHECK(band.dim() >= 1 && band.size(-1) == 2,
              "a band holds [lo, hi) pairs, got sizes ", band.sizes());
  if (!band.device().is_cpu()) {
    const Tensor lo = band.select(-1, 0), hi = band.select(-1, 1);
    const Tensor outside = ((lo < 0) | (hi < lo) | (hi > columns)).any();
    at::_assert_async(outside.logical_not());
    return std::nullopt;
  }
  const Tensor pairs = band.to(at::kLong).contiguous();
  const int64_t *entry = pairs.data_ptr<int64_t>();
  int64_t width = 0;
  for (int64_t i = 0, n = pairs.numel() / 2; i < n; ++i) {
    const int64_t lo = entry[2 * i], hi = entry[2 * i + 1];
    TORCH_CHECK(lo >= 0 && lo <= hi && hi <= columns, "a band range [", lo,
                ", ", hi, ") is outside the ", columns, " columns of lhs");
    width += hi - lo;
  }
  return width;
}

/// Whether the dense product (ATen, on the masked lhs) runs: where the loops
/// do not take the operands, or the band covers so much of lhs that the
/// BLAS wins.
bool denseProduct(const Tensor &lhs, const Tensor &band, const Tensor &rhs) {
  const std::optional<int64_t> width = checkBand(band, lhs.size(-1));
  return !width || !loopsTake(lhs, band, rhs) ||
         double(*width) > kDenseAbove * double(lhs.numel());
}

bool recording(std::initializer_list<Tensor> tensors) {
  return torch::GradMode::is_enabled() &&
         std::any_of(tensors.begin(), tensors.end(), [](const Tensor &t) {
           return t.defined() && t.requires_grad();
         });
}

template <typename T>
Banded<T> view(const Tensor &lhs, const Tensor &band, const Tensor &rhs) {
  return {lhs.size(0),      lhs.size(1),       lhs.size(2),
          rhs.size(2),      lhs.data_ptr<T>(), band.data_ptr<int64_t>(),
          rhs.data_ptr<T>()};
}

} // namespace

Tensor bandIndicator(const Tensor &band, int64_t columns,
                     const torch::TensorOptions &options) {
  Tensor column = at::arange(columns, band.options()).view({1, 1, columns});
  Tensor lo = band.select(-1, 0).unsqueeze(-1);
  Tensor hi = band.select(-1, 1).unsqueeze(-1);
  return ((column >= lo) & (column < hi)).to(options);
}

namespace {

/// `x` `[B, M, K]` ⊙ the band's indicator: on the CPU one pass that copies
/// each row's band and zeroes the rest (the indicator takes six ATen ops and
/// a tensor of x's size); the ATen product where autograd records it.
Tensor keepBand(const Tensor &x, const Tensor &band) {
  const auto type = x.scalar_type();
  if (recording({x}) || !x.device().is_cpu() || !band.device().is_cpu() ||
      (type != at::kFloat && type != at::kDouble) ||
      band.scalar_type() != at::kLong || x.dim() != 3 || band.dim() != 3 ||
      band.size(0) != x.size(0) || band.size(1) != x.size(1))
    return x * bandIndicator(band, x.size(-1), x.options());
  const Tensor source = x.contiguous(), pairs = band.contiguous();
  Tensor kept = at::empty_like(source);
  const int64_t rows = source.size(0) * source.size(1), columns = x.size(2);
  const int64_t *range = pairs.data_ptr<int64_t>();
  AT_DISPATCH_FLOATING_TYPES(type, "keep_band", [&] {
    const scalar_t *in = source.data_ptr<scalar_t>();
    scalar_t *out = kept.data_ptr<scalar_t>();
    for (int64_t row = 0; row < rows; ++row, in += columns, out += columns) {
      // checkBand has checked 0 <= lo <= hi <= columns.
      const int64_t lo = range[2 * row], hi = range[2 * row + 1];
      std::fill(out, out + lo, scalar_t(0));
      std::copy(in + lo, in + hi, out + lo);
      std::fill(out + hi, out + columns, scalar_t(0));
    }
  });
  return kept;
}

} // namespace

Tensor bandedProduct(const Tensor &lhs, const Tensor &band, const Tensor &rhs,
                     const Tensor &accumulator) {
  if (denseProduct(lhs, band, rhs) || recording({lhs, rhs, accumulator})) {
    Tensor result = at::matmul(keepBand(lhs, band), rhs);
    return accumulator.defined() ? accumulator + result : result;
  }
  const Tensor a = lhs.contiguous(), r = band.contiguous(),
               x = rhs.contiguous();
  Tensor result = at::empty({a.size(0), a.size(1), x.size(2)}, x.options());
  // An accumulator of the result's shape and type is added row by row as the
  // row is written; one that broadcasts is added after.
  const bool addedInLoop = accumulator.defined() &&
                           accumulator.sizes() == result.sizes() &&
                           accumulator.scalar_type() == result.scalar_type();
  const Tensor base = addedInLoop ? accumulator.contiguous() : Tensor();
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "banded_product", [&] {
    forward(view<scalar_t>(a, r, x),
            addedInLoop ? base.data_ptr<scalar_t>() : nullptr,
            result.data_ptr<scalar_t>());
  });
  return accumulator.defined() && !addedInLoop ? accumulator + result : result;
}

std::pair<Tensor, Tensor>
bandedProductBackward(const Tensor &lhs, const Tensor &band, const Tensor &rhs,
                      const Tensor &dy, bool lhsWanted, bool rhsWanted) {
  if (denseProduct(lhs, band, rhs) || dy.scalar_type() != lhs.scalar_type() ||
      dy.sizes() != at::IntArrayRef({lhs.size(0), lhs.size(1), rhs.size(2)})) {
    return {lhsWanted ? keepBand(at::matmul(dy, rhs.transpose(-2, -1)), band)
                      : Tensor(),
            rhsWanted ? at::matmul(keepBand(lhs, band).transpose(-2, -1), dy)
                      : Tensor()};
  }
  const Tensor a = lhs.contiguous(), r = band.contiguous(),
               x = rhs.contiguous(), g = dy.contiguous();
  Tensor dlhs = lhsWanted ? at::empty_like(a) : Tensor();
  Tensor drhs = rhsWanted ? at::empty_like(x) : Tensor();
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "banded_product_grad", [&] {
    backward(view<scalar_t>(a, r, x), g.data_ptr<scalar_t>(),
             lhsWanted ? dlhs.data_ptr<scalar_t>() : nullptr,
             rhsWanted ? drhs.data_ptr<scalar_t>() : nullptr);
  });
  return {dlhs, drhs};
}

double bandedProductMultiplyAdds(const Tensor &lhs, const Tensor &band,
                                 const Tensor &rhs) {
  std::optional<int64_t> width = checkBand(band, lhs.size(-1));
  // Off the CPU the profile pays the synchronisation the products avoid.
  if (!width)
    width = (band.select(-1, 1) - band.select(-1, 0)).sum().item<int64_t>();
  return static_cast<double>(*width) * static_cast<double>(rhs.size(-1));
}

} // namespace rvnn::runtime::ops
