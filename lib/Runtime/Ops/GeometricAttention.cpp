// rvnn.geometric_attention: the ATen reference, and a fused CPU kernel with
// its own backward. The reference builds the "closer keys" products from
// index arithmetic and two gathers over [N, H, S, S] int64 indices, and its
// autograd graph keeps a dozen [N, H, S, S] tensors. The fused kernel reads
// the prefix sums directly in row scans, takes both log-sigmoids from one
// exp and one log1p pass (ATen's vectorised kernels), multiplies the
// per-head blocks by LIBXSMM's kernels, and recomputes the weights in
// backward from the saved operands instead of saving them.
#include "rvnn/Runtime/Ops/Attention.h"
#include "rvnn/Runtime/Ops/JitProduct.h"
#include "rvnn/Runtime/VectorClones.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

namespace rvnn::runtime::ops {

namespace {

using torch::Tensor;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
/// F.normalize's floor on the row sum.
constexpr double kNormFloor = 1e-12;

/// Where the spans of a row's keys change: below `mirrorFrom` a key's mirror
/// image 2i - j lies past the end, above `mirrorTo` before the start.
struct KeySpans {
  KeySpans(int64_t i, int64_t length)
      : mirrorFrom(std::max<int64_t>(0, 2 * i - length + 1)),
        mirrorTo(std::min(2 * i + 1, length - 1)) {}
  int64_t mirrorFrom, mirrorTo;
};

/// The keys closer to query i than key j are lo < k <= hi (see the
/// reference), so a row reads its prefix sums at hi + 1 and lo + 1. Calls
/// `visit(j, hi + 1, lo + 1)` for every key j of a row of `length`, in runs
/// whose indices are affine in j, so that the loops vectorise: j < i reads
/// hi + 1 = min(2i - j + 1, length), lo + 1 = j + 1; j > i reads
/// hi + 1 = j, lo + 1 = max(2i - j + 1, 0); j = i has lo = hi = i.
template <typename Visit>
RVNN_ALWAYS_INLINE void forEachKey(int64_t i, int64_t length,
                                   const Visit &visit) {
  const auto [mirrorFrom, mirrorTo] = KeySpans(i, length);
  for (int64_t j = 0; j < mirrorFrom; ++j)
    visit(j, length, j + 1);
  for (int64_t j = mirrorFrom; j < i; ++j)
    visit(j, 2 * i - j + 1, j + 1);
  visit(i, i + 1, i + 1);
  for (int64_t j = i + 1; j <= mirrorTo; ++j)
    visit(j, j, 2 * i - j + 1);
  for (int64_t j = mirrorTo + 1; j < length; ++j)
    visit(j, j, int64_t{0});
}

/// Σ_{j < n} term(j) in double, in eight independent partial sums so that
/// the loop vectorises (a single running sum would need reassociation).
template <typename Term>
RVNN_ALWAYS_INLINE double sumInLanes(int64_t n, const Term &term) {
  constexpr int64_t kLanes = 8;
  double lanes[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
    for (int64_t lane = 0; lane < kLanes; ++lane)
      lanes[lane] += term(j + lane);
  double sum = 0;
  for (; j < n; ++j)
    sum += term(j);
  for (double lane : lanes)
    sum += lane;
  return sum;
}

/// One query row: its scalars and where it reads.
template <typename T> struct Row {
  const T *keep; // mask row, S entries (0: pad key)
  T scale, front, back, bias;
  int64_t i, length;
};

/// min(x, 0) without a branch (the logits' signs are random: a mispredicted
/// branch an element doubled the row scans' time, and compilers keep the
/// branch of `x < 0 ? x : 0`). Exact for finite x of magnitude below half
/// the largest; -inf below that.
template <typename T> inline T minZero(T x) {
  return (x - std::abs(x)) * T(0.5);
}

/// The logit of a blocked key: finite, so that minZero(-l) = 0, and low
/// enough that P = 0 (exp(-|l|) = 0 and log P = minZero(l) = -inf).
template <typename T>
constexpr T kBlockedLogit = std::numeric_limits<T>::lowest();

/// Operands as contiguous tensors of one dtype, and the sizes.
struct Operands {
  Tensor q, k, v, back, front, mask;
  double scale, bias;
  int64_t length;
  bool normalize;

  int64_t rows() const { return q.size(0) * q.size(1) * length; }
};

Operands operands(const Tensor &q, const Tensor &k, const Tensor &v,
                  const Tensor &back, const Tensor &front, const Tensor &mask,
                  const Tensor &scale, const Tensor &bias, bool normalize) {
  return {q.contiguous(),
          k.contiguous(),
          v.contiguous(),
          back.contiguous(),
          front.contiguous(),
          mask.to(q.scalar_type()).contiguous(),
          scale.item<double>(),
          bias.item<double>(),
          q.size(2),
          normalize};
}

/// Where the rows read their scalars, looked up once (a tensor's
/// data_ptr checks its storage and dtype on every call).
template <typename T> struct RowSource {
  explicit RowSource(const Operands &o)
      : mask(o.mask.data_ptr<T>()), front(o.front.data_ptr<T>()),
        back(o.back.data_ptr<T>()), scale(T(o.scale)), bias(T(o.bias)),
        length(o.length), perSample(o.q.size(1) * o.length) {}

  Row<T> operator()(int64_t r) const {
    return {mask + r / perSample * length,
            scale,
            front[r],
            back[r],
            bias,
            r % length,
            length};
  }

  const T *mask, *front, *back;
  T scale, bias;
  int64_t length, perSample;
};

/// x(0), ..., x(n - 1) (references to doubles) replaced by their running
/// sums. Four blocks of the range are summed side by side, then offset by
/// the totals before them: a single running sum waits on every addition.
template <typename At> RVNN_ALWAYS_INLINE void runningSums(int64_t n, At x) {
  constexpr int64_t kBlocks = 4;
  const int64_t block = n / kBlocks;
  double totals[kBlocks] = {};
  for (int64_t k = 0; k < block; ++k)
    for (int64_t b = 0; b < kBlocks; ++b)
      x(b * block + k) = totals[b] += x(b * block + k);
  for (int64_t j = kBlocks * block; j < n; ++j)
    x(j) = totals[kBlocks - 1] += x(j);
  double offset = 0;
  for (int64_t b = 1; b < kBlocks; ++b) {
    offset += totals[b - 1];
    const int64_t end = b + 1 < kBlocks ? (b + 1) * block : n;
    for (int64_t j = b * block; j < end; ++j)
      x(j) += offset;
  }
}

/// Flushes denormal floats to zero (x86's FTZ and DAZ) on this thread while
/// alive. The weights are products of many (1 - P): a few percent of them
/// are denormal (6% of NDR's at 112 tokens), and arithmetic on denormals
/// runs at a small fraction of the normal rate (NDR's backward pass took
/// twice as long). Values below 1.2e-38 change by less than that.
class FlushDenormalsScope {
#if defined(__SSE2__)
public:
  FlushDenormalsScope() : saved_(_mm_getcsr()) {
    _mm_setcsr(saved_ | kFlushToZero | kDenormalsAreZero);
  }
  ~FlushDenormalsScope() { _mm_setcsr(saved_); }
  FlushDenormalsScope(const FlushDenormalsScope &) = delete;
  FlushDenormalsScope &operator=(const FlushDenormalsScope &) = delete;

private:
  static constexpr unsigned kFlushToZero = 0x8000, kDenormalsAreZero = 0x40;
  unsigned saved_;
#endif
};

template <typename T, typename Body>
RVNN_ALWAYS_INLINE void rowRange(const RowSource<T> &rows, const Body &body,
                                 int64_t begin, int64_t end, double *scratch) {
  for (int64_t r = begin; r < end; ++r)
    body(rows(r), r, scratch);
}

/// rowRange built for AVX2 (VectorClones.h): the row loops are most of the
/// op's time, and AVX2 runs them 8 floats wide where the baseline build
/// takes 4.
template <typename T, typename Body>
RVNN_TARGET_AVX2 void rowRangeAvx2(const RowSource<T> &rows, const Body &body,
                                   int64_t begin, int64_t end,
                                   double *scratch) {
  rowRange(rows, body, begin, end, scratch);
}

/// Runs `body(row, r, scratch)` for every query row, in parallel chunks,
/// with 2·(S + 1) doubles of scratch per chunk. Bodies are RVNN_INLINED
/// lambdas, so that the AVX2 build compiles them.
template <typename T, typename Body>
void forEachRow(const Operands &o, const Body &body) {
  const RowSource<T> rows(o);
  at::parallel_for(0, o.rows(), 16, [&](int64_t begin, int64_t end) {
    const FlushDenormalsScope flush;
    std::vector<double> scratch(2 * (o.length + 1));
    if (useAvx2Builds())
      rowRangeAvx2(rows, body, begin, end, scratch.data());
    else
      rowRange(rows, body, begin, end, scratch.data());
  });
}

/// x · y for every (sample, head) block: LIBXSMM's kernels for float where
/// the build has them (the BLAS multiplies these small blocks at a fraction
/// of their rate), else ATen's.
Tensor blockProduct(const Tensor &x, const Tensor &y) {
  if (Tensor jit = jitBatchedProduct(x, y); jit.defined())
    return jit;
  return at::matmul(x, y);
}

/// The attention weights and what their backward reads. With l the logit,
/// log P = min(l, 0) - log(1 + e) and log(1 - P) = min(-l, 0) - log(1 + e)
/// for e = exp(-|l|): one exp and one log1p serve both log-sigmoids, and
/// σ(±l) are 1 / (1 + e) and e / (1 + e).
struct Weights {
  Tensor qk;        // q·kᵀ
  Tensor logits;    // kBlockedLogit where blocked
  Tensor e;         // exp(-|l|), 0 where blocked
  Tensor attention; // A_ij, normalised if asked
  Tensor sums;      // unnormalised row sums, double [rows]
};

Weights weights(const Operands &o) {
  // Also for ATen's passes on this thread (forEachRow sets its own).
  const FlushDenormalsScope flush;
  Weights w;
  w.qk = blockProduct(o.q, o.k.transpose(-1, -2));
  w.logits = at::empty_like(w.qk);
  w.e = at::empty_like(w.qk);
  const int64_t s = o.length;
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_logits", [&] {
    const scalar_t *qk = w.qk.data_ptr<scalar_t>();
    scalar_t *l = w.logits.data_ptr<scalar_t>(), *e = w.e.data_ptr<scalar_t>();
    forEachRow<scalar_t>(
        o, [&](const Row<scalar_t> &r, int64_t row, double *) RVNN_INLINED {
          const scalar_t *qkRow = qk + row * s;
          scalar_t *lRow = l + row * s, *eRow = e + row * s;
          // Keys before i take the back bias, keys after it the front bias (the
          // reference's order of additions); a loop for each side, and the
          // blocked keys replaced after, so that the loops vectorise.
          auto side = [&](int64_t begin, int64_t end, scalar_t sideBias) {
            for (int64_t j = begin; j < end; ++j)
              lRow[j] = (qkRow[j] * r.scale + sideBias) + r.bias;
          };
          side(0, r.i, r.back);
          side(r.i + 1, s, r.front);
          lRow[r.i] = kBlockedLogit<scalar_t>;
          for (int64_t j = 0; j < s; ++j) {
            lRow[j] = r.keep[j] != 0 ? lRow[j] : kBlockedLogit<scalar_t>;
            eRow[j] = -std::abs(lRow[j]);
          }
        });
  });
  w.e.exp_();
  const Tensor log1pE = at::log1p(w.e);
  // log A_ij = log P_ij + Σ_{lo < k <= hi} log(1 - P_ik), from a prefix sum
  // accumulated in double as ATen's CPU cumsum does.
  w.attention = at::empty_like(w.qk);
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_weights", [&] {
    const scalar_t *l = w.logits.data_ptr<scalar_t>();
    const scalar_t *log1p = log1pE.data_ptr<scalar_t>();
    scalar_t *out = w.attention.data_ptr<scalar_t>();
    forEachRow<scalar_t>(o, [&](const Row<scalar_t> &r, int64_t row,
                                double *prefix) RVNN_INLINED {
      const scalar_t *lRow = l + row * s, *log1pRow = log1p + row * s;
      scalar_t *outRow = out + row * s;
      prefix[0] = 0;
      for (int64_t j = 0; j < s; ++j)
        prefix[j + 1] = double(minZero(-lRow[j]) - log1pRow[j]);
      runningSums(s, [&](int64_t j) -> double & { return prefix[j + 1]; });
      forEachKey(r.i, s, [&](int64_t j, int64_t hi, int64_t lo) {
        outRow[j] = (scalar_t(prefix[hi]) - scalar_t(prefix[lo])) +
                    (minZero(lRow[j]) - log1pRow[j]);
      });
    });
  });
  w.attention.exp_();
  w.sums = at::empty({o.rows()}, w.qk.options().dtype(at::kDouble));
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_sums", [&] {
    scalar_t *a = w.attention.data_ptr<scalar_t>();
    double *sums = w.sums.data_ptr<double>();
    forEachRow<scalar_t>(
        o, [&](const Row<scalar_t> &, int64_t row, double *) RVNN_INLINED {
          scalar_t *aRow = a + row * s;
          const double sum =
              sumInLanes(s, [&](int64_t j) { return double(aRow[j]); });
          sums[row] = sum;
          if (o.normalize) {
            const scalar_t norm = scalar_t(std::max(sum, kNormFloor));
            for (int64_t j = 0; j < s; ++j)
              aRow[j] /= norm;
          }
        });
  });
  return w;
}

/// The cotangent of a row's prefix sums from that of its log-weights: key j
/// read prefix[hi + 1] - prefix[lo + 1] (forEachKey), so dPrefix[t] gains
/// dLogA[j] where hi + 1 = t and loses it where lo + 1 = t. Span by span
/// of forEachKey, each loop writes distinct entries (so it vectorises), and
/// the far keys' common entry takes one sum: `dPrefix[t] +=` key after key
/// would be a chain through memory. dPrefix[0] is never read.
RVNN_ALWAYS_INLINE void prefixCotangent(int64_t i, int64_t length,
                                        const double *__restrict dLogA,
                                        double *__restrict dPrefix) {
  std::fill(dPrefix, dPrefix + length + 1, 0.0);
  const auto [mirrorFrom, mirrorTo] = KeySpans(i, length);
  // j < mirrorFrom: hi + 1 = length, lo + 1 = j + 1.
  dPrefix[length] = sumInLanes(mirrorFrom, [&](int64_t j) { return dLogA[j]; });
  for (int64_t j = 0; j < mirrorFrom; ++j)
    dPrefix[j + 1] = -dLogA[j];
  // mirrorFrom <= j < i: hi + 1 = 2i - j + 1 (down to i + 2), lo + 1 = j + 1.
  for (int64_t j = mirrorFrom; j < i; ++j)
    dPrefix[2 * i - j + 1] += dLogA[j];
  for (int64_t j = mirrorFrom; j < i; ++j)
    dPrefix[j + 1] -= dLogA[j];
  // j = i reads prefix[i + 1] - prefix[i + 1]: nothing. i < j <= mirrorTo:
  // hi + 1 = j, lo + 1 = 2i - j + 1 (down to 0 at j = 2i + 1).
  for (int64_t j = i + 1; j <= mirrorTo; ++j)
    dPrefix[j] += dLogA[j];
  for (int64_t j = i + 1; j <= mirrorTo; ++j)
    dPrefix[2 * i - j + 1] -= dLogA[j];
  // j > mirrorTo: hi + 1 = j, lo + 1 = 0.
  for (int64_t j = mirrorTo + 1; j < length; ++j)
    dPrefix[j] += dLogA[j];
}

/// Per query row: the cotangents of its logits (scaled into dScores), of its
/// back and front biases, and its parts of dScale and dBias.
struct LogitGrads {
  Tensor dScores, dBack, dFront, dScaleRows, dBiasRows;
};

/// From the weights' cotangent `dA` and the forward's weights.
LogitGrads logitGrads(const Operands &o, const Weights &w, const Tensor &dA) {
  LogitGrads g{at::empty_like(dA), at::empty_like(o.back),
               at::empty_like(o.front), at::empty_like(w.sums),
               at::empty_like(w.sums)};
  const int64_t s = o.length;
  AT_DISPATCH_FLOATING_TYPES(dA.scalar_type(), "geometric_logit_grads", [&] {
    using T = scalar_t;
    const T *attention = w.attention.data_ptr<T>(), *dAll = dA.data_ptr<T>();
    const T *logits = w.logits.data_ptr<T>(), *exps = w.e.data_ptr<T>();
    const T *products = w.qk.data_ptr<T>();
    const double *sums = w.sums.data_ptr<double>();
    T *dScoresAll = g.dScores.data_ptr<T>(), *dBack = g.dBack.data_ptr<T>();
    T *dFront = g.dFront.data_ptr<T>();
    double *dScaleRows = g.dScaleRows.data_ptr<double>();
    double *dBiasRows = g.dBiasRows.data_ptr<double>();
    forEachRow<T>(o, [&](const Row<T> &r, int64_t row,
                         double *scratch) RVNN_INLINED {
      const int64_t offset = row * s;
      const T *a = attention + offset, *dARow = dAll + offset;
      const T *l = logits + offset, *e = exps + offset, *qk = products + offset;
      double *dLogA = scratch, *dPrefix = scratch + s + 1;
      // Back through A / max(ΣA, floor): the weights are normalised.
      const double sum = sums[row];
      const T norm = T(std::max(sum, kNormFloor));
      // d log A = dA·A (A unnormalised).
      if (o.normalize) {
        const double dSum =
            sum >= kNormFloor
                ? -sumInLanes(s, [&](int64_t j) { return dARow[j] * a[j]; }) /
                      std::max(sum, kNormFloor)
                : 0;
        for (int64_t j = 0; j < s; ++j)
          dLogA[j] = (dARow[j] / norm + T(dSum)) * (a[j] * norm);
      } else {
        for (int64_t j = 0; j < s; ++j)
          dLogA[j] = dARow[j] * a[j];
      }
      // It reaches log P directly and log(1 - P_k) through the prefix sums:
      // d log(1 - P_k) = Σ_{t > k} dPrefix[t], left in dPrefix[k + 1].
      prefixCotangent(r.i, s, dLogA, dPrefix);
      runningSums(s, [&](int64_t j) -> double & { return dPrefix[s - j]; });
      // d/dl log σ(l) = σ(-l), d/dl log σ(-l) = -σ(l), with σ(|l|) =
      // 1 / (1 + e), σ(-|l|) = e / (1 + e) selected by arithmetic rather
      // than a branch on the sign (see minZero). Blocked entries have A = 0
      // and σ(l) = 0: no gradient. dScores holds dLogit until scaled.
      T *dScores = dScoresAll + offset;
      for (int64_t j = 0; j < s; ++j) {
        const T inverse = T(1) / (T(1) + e[j]);
        const T positive = T(l[j] >= 0), negative = T(1) - positive;
        const T sigmoid = inverse * (positive + negative * e[j]);
        const T sigmoidOfMinus = inverse * (positive * e[j] + negative);
        dScores[j] = T(dLogA[j]) * sigmoidOfMinus - T(dPrefix[j + 1]) * sigmoid;
      }
      const auto dLogit = [&](int64_t j) { return double(dScores[j]); };
      const double before = sumInLanes(r.i, dLogit);
      const double after = sumInLanes(
          s - r.i - 1, [&](int64_t j) { return dLogit(r.i + 1 + j); });
      const double dScale =
          sumInLanes(s, [&](int64_t j) { return double(dScores[j] * qk[j]); });
      const double dBias = sumInLanes(s, dLogit);
      for (int64_t j = 0; j < s; ++j)
        dScores[j] *= r.scale;
      dBack[row] = T(before);
      dFront[row] = T(after);
      dScaleRows[row] = dScale;
      dBiasRows[row] = dBias;
    });
  });
  return g;
}

/// The sum of `values` in order: the same whatever the thread count.
double sumInOrder(const Tensor &values) {
  const double *data = values.data_ptr<double>();
  return std::accumulate(data, data + values.numel(), 0.0);
}

/// The cotangents of q, k, v, back, front, mask (none: data), scale and bias
/// for the output's cotangent `dOutput`; the weights are recomputed from the
/// operands rather than saved.
std::vector<Tensor> backwardFrom(const Operands &o, const Tensor &scale,
                                 const Tensor &bias, const Tensor &dOutput) {
  const FlushDenormalsScope flush;
  const Tensor dOut = dOutput.contiguous();
  const Weights w = weights(o);
  const LogitGrads g =
      logitGrads(o, w, blockProduct(dOut, o.v.transpose(-1, -2)));
  const auto scalar = [](double value, const Tensor &like) {
    return at::full(like.sizes(), value, like.options());
  };
  return {blockProduct(g.dScores, o.k),
          blockProduct(g.dScores.transpose(-1, -2), o.q),
          blockProduct(w.attention.transpose(-1, -2), dOut),
          g.dBack,
          g.dFront,
          Tensor(),
          scalar(sumInOrder(g.dScaleRows), scale),
          scalar(sumInOrder(g.dBiasRows), bias)};
}

class GeometricAttentionFunction
    : public torch::autograd::Function<GeometricAttentionFunction> {
public:
  static Tensor forward(torch::autograd::AutogradContext *ctx, Tensor q,
                        Tensor k, Tensor v, Tensor back, Tensor front,
                        Tensor mask, Tensor scale, Tensor bias,
                        bool normalize) {
    Operands o = operands(q, k, v, back, front, mask, scale, bias, normalize);
    // Only the operands: backward recomputes the weights (one GEMM and the
    // row passes) instead of holding a dozen [N, H, S, S] tensors.
    ctx->save_for_backward(
        {o.q, o.k, o.v, o.back, o.front, o.mask, scale, bias});
    ctx->saved_data["normalize"] = normalize;
    return blockProduct(weights(o).attention, o.v);
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &q = saved[0], &scale = saved[6], &bias = saved[7];
    Operands o{q,
               saved[1],
               saved[2],
               saved[3],
               saved[4],
               saved[5],
               scale.item<double>(),
               bias.item<double>(),
               q.size(2),
               ctx->saved_data["normalize"].toBool()};
    torch::autograd::variable_list operandGrads =
        backwardFrom(o, scale, bias, grads[0]);
    operandGrads.push_back(Tensor()); // normalize
    return operandGrads;
  }
};

bool fusedKernelTakes(std::initializer_list<const Tensor *> operands) {
  const Tensor &q = **operands.begin();
  if (!q.device().is_cpu() ||
      (q.scalar_type() != at::kFloat && q.scalar_type() != at::kDouble) ||
      q.dim() != 4)
    return false;
  return std::all_of(operands.begin(), operands.end(), [&](const Tensor *t) {
    return t->device().is_cpu() && t->scalar_type() == q.scalar_type();
  });
}

} // namespace

Tensor geometricAttentionReference(const Tensor &q, const Tensor &k,
                                   const Tensor &v, const Tensor &back,
                                   const Tensor &front, const Tensor &mask,
                                   const Tensor &scale, const Tensor &bias,
                                   bool normalize) {
  const int64_t length = q.size(2);
  auto pos = at::arange(length, at::TensorOptions(q.device()).dtype(at::kLong));
  auto i = pos.unsqueeze(1), j = pos.unsqueeze(0);
  auto after = (j > i).to(q.scalar_type());
  auto before = (j < i).to(q.scalar_type());
  auto logits = at::matmul(q, k.transpose(-1, -2)) * scale +
                after * front.unsqueeze(-1) + before * back.unsqueeze(-1) +
                bias;
  auto padKeys = (mask == 0).view({mask.size(0), 1, 1, mask.size(1)});
  logits = logits.masked_fill(padKeys | (i == j), kNegInf);

  // log P and log(1 - P); blocked keys get P = 0, so log(1 - P) = 0 and they
  // drop out of every product.
  auto logP = at::log_sigmoid(logits);
  auto logNotP = at::log_sigmoid(-logits);
  // prefix[t] = Σ_{k < t} log(1 - P_ik), so a product over keys lo < k <= hi is
  // prefix[hi + 1] - prefix[lo + 1].
  auto prefix = at::constant_pad_nd(logNotP.cumsum(-1), {1, 0}, 0);

  // Keys closer to i than j: for j < i, j < k <= 2i - j (the right key at
  // equal distance wins the tie, so it counts as closer); for j > i,
  // 2i - j < k <= j - 1. Indices past either end clamp to the sequence.
  auto mirror = 2 * i - j;
  auto hi = at::where(j < i, mirror.clamp_max(length - 1),
                      at::where(j > i, j - 1, i));
  auto lo = at::where(j < i, j, at::where(j > i, mirror.clamp_min(-1), i));
  auto shape = logits.sizes();
  auto logNotCloser = prefix.gather(-1, (hi + 1).expand(shape)) -
                      prefix.gather(-1, (lo + 1).expand(shape));

  auto attention = at::exp(logNotCloser + logP);
  if (normalize)
    // F.normalize(p = 1) as NDR does: an all-zero row stays zero.
    attention =
        attention / attention.sum(-1, /*keepdim=*/true).clamp_min(kNormFloor);
  return at::matmul(attention, v);
}

Tensor geometricAttention(const Tensor &q, const Tensor &k, const Tensor &v,
                          const Tensor &back, const Tensor &front,
                          const Tensor &mask, const Tensor &scale,
                          const Tensor &bias, bool normalize) {
  if (!fusedKernelTakes({&q, &k, &v, &back, &front, &scale, &bias}) ||
      !mask.device().is_cpu())
    return geometricAttentionReference(q, k, v, back, front, mask, scale, bias,
                                       normalize);
  return GeometricAttentionFunction::apply(q, k, v, back, front, mask, scale,
                                           bias, normalize);
}

std::optional<std::vector<Tensor>> geometricAttentionBackward(
    const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &back,
    const Tensor &front, const Tensor &mask, const Tensor &scale,
    const Tensor &bias, bool normalize, const Tensor &dOut) {
  if (!fusedKernelTakes({&q, &k, &v, &back, &front, &scale, &bias, &dOut}) ||
      !mask.device().is_cpu())
    return std::nullopt;
  return backwardFrom(
      operands(q, k, v, back, front, mask, scale, bias, normalize), scale, bias,
      dOut);
}

} // namespace rvnn::runtime::ops
