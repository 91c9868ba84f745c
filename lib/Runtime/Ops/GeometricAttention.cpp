// rvnn.geometric_attention: the ATen reference, and a fused CPU kernel with
// its own backward. The reference builds the "closer keys" products from
// index arithmetic and two gathers over [N, H, S, S] int64 indices, and its
// autograd graph keeps a dozen [N, H, S, S] tensors; the fused kernel reads
// the prefix sums directly in a row scan, leaves the transcendental passes to
// ATen's vectorised kernels, and recomputes the weights in backward from the
// saved operands (one GEMM) instead of saving them.
#include "rvnn/Runtime/Ops/Attention.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rvnn::runtime::ops {

namespace {

using torch::Tensor;

constexpr double kNegInf = -std::numeric_limits<double>::infinity();
/// F.normalize's floor on the row sum.
constexpr double kNormFloor = 1e-12;

/// The keys closer to i than key j are lo < k <= hi (see the reference).
struct Closer {
  int64_t lo, hi;
};

inline Closer closer(int64_t i, int64_t j, int64_t length) {
  if (j < i)
    return {j, std::min(2 * i - j, length - 1)};
  if (j > i)
    return {std::max(2 * i - j, int64_t{-1}), j - 1};
  return {i, i};
}

/// One query row: its scalars and where it reads.
template <typename T> struct Row {
  const T *keep; // mask row, S entries (0: pad key)
  T scale, front, back, bias;
  int64_t i, length;
};

template <typename T> inline bool blocked(const Row<T> &r, int64_t j) {
  return j == r.i || r.keep[j] == 0;
}

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

template <typename T> Row<T> row(const Operands &o, int64_t r) {
  const int64_t s = o.length, n = r / (o.q.size(1) * s);
  return {o.mask.data_ptr<T>() + n * s,
          T(o.scale),
          o.front.data_ptr<T>()[r],
          o.back.data_ptr<T>()[r],
          T(o.bias),
          r % s,
          s};
}

/// Runs `body(row, r, scratch)` for every query row, in parallel chunks,
/// with S + 1 doubles of scratch per chunk.
template <typename T, typename Body>
void forEachRow(const Operands &o, const Body &body) {
  at::parallel_for(0, o.rows(), 16, [&](int64_t begin, int64_t end) {
    std::vector<double> scratch(o.length + 1);
    for (int64_t r = begin; r < end; ++r)
      body(row<T>(o, r), r, scratch.data());
  });
}

/// What the attention weights are computed from; the transcendental passes
/// are ATen's (vectorised) and the row scans are here.
struct Weights {
  Tensor qk;        // q·kᵀ
  Tensor logP;      // log P_ij, -inf where blocked
  Tensor logNotP;   // log(1 - P_ij), 0 where blocked
  Tensor attention; // A_ij, normalised if asked
  Tensor sums;      // unnormalised row sums, double [rows]
};

Weights weights(const Operands &o) {
  Weights w;
  w.qk = at::matmul(o.q, o.k.transpose(-1, -2)).contiguous();
  Tensor logits = at::empty_like(w.qk);
  const int64_t s = o.length;
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_logits", [&] {
    const scalar_t *qk = w.qk.data_ptr<scalar_t>();
    scalar_t *l = logits.data_ptr<scalar_t>();
    forEachRow<scalar_t>(o, [&](const Row<scalar_t> &r, int64_t row, double *) {
      const scalar_t *qkRow = qk + row * s;
      scalar_t *lRow = l + row * s;
      // The reference's order of additions.
      for (int64_t j = 0; j < s; ++j)
        lRow[j] = blocked(r, j)
                      ? -std::numeric_limits<scalar_t>::infinity()
                      : ((qkRow[j] * r.scale + (j > r.i ? r.front : 0)) +
                         (j < r.i ? r.back : 0)) +
                            r.bias;
    });
  });
  w.logP = at::log_sigmoid(logits);
  w.logNotP = at::log_sigmoid(logits.neg_());
  // log A_ij = log P_ij + Σ_{lo < k <= hi} log(1 - P_ik), from a prefix sum
  // accumulated in double as ATen's CPU cumsum does.
  Tensor logA = at::empty_like(w.qk);
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_weights", [&] {
    const scalar_t *lp = w.logP.data_ptr<scalar_t>();
    const scalar_t *lq = w.logNotP.data_ptr<scalar_t>();
    scalar_t *out = logA.data_ptr<scalar_t>();
    forEachRow<scalar_t>(
        o, [&](const Row<scalar_t> &r, int64_t row, double *prefix) {
          const scalar_t *lqRow = lq + row * s, *lpRow = lp + row * s;
          prefix[0] = 0;
          for (int64_t j = 0; j < s; ++j)
            prefix[j + 1] = prefix[j] + double(lqRow[j]);
          for (int64_t j = 0; j < s; ++j) {
            const Closer c = closer(r.i, j, s);
            out[row * s + j] =
                (scalar_t(prefix[c.hi + 1]) - scalar_t(prefix[c.lo + 1])) +
                lpRow[j];
          }
        });
  });
  w.attention = logA.exp_();
  w.sums = w.attention.sum(-1, /*keepdim=*/true, at::kDouble);
  if (o.normalize)
    w.attention.div_(w.sums.clamp_min(kNormFloor).to(w.qk.scalar_type()));
  return w;
}

/// The cotangents of q, k, v, back, front, mask (none: data), scale and bias
/// for the output's cotangent `dOut`, from the forward's weights `w`.
std::vector<Tensor> backwardFrom(const Operands &o, Weights w,
                                 const Tensor &scale, const Tensor &bias,
                                 const Tensor &dOutput) {
  const Tensor dOut = dOutput.contiguous();
  Tensor dv = at::matmul(w.attention.transpose(-1, -2), dOut);
  Tensor dA = at::matmul(dOut, o.v.transpose(-1, -2));
  if (o.normalize) {
    // Back through A / max(ΣA, floor): the stored weights are normalised.
    Tensor norm = w.sums.clamp_min(kNormFloor);
    Tensor dSum = -(dA * w.attention).sum(-1, true, at::kDouble) / norm *
                  (w.sums >= kNormFloor);
    w.attention.mul_(norm.to(w.qk.scalar_type()));
    dA = dA / norm.to(dA.scalar_type()) + dSum.to(dA.scalar_type());
  }
  // d log A = dA·A; it reaches log P directly and log(1 - P_k) through the
  // prefix sums: d log(1 - P_k) = Σ_{t > k} dPrefix[t].
  Tensor dLogA = (dA * w.attention).contiguous();
  Tensor dLogNotP = at::empty_like(dLogA);
  const int64_t s = o.length;
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_prefix_grad", [&] {
    const scalar_t *dE = dLogA.data_ptr<scalar_t>();
    scalar_t *dlq = dLogNotP.data_ptr<scalar_t>();
    forEachRow<scalar_t>(
        o, [&](const Row<scalar_t> &r, int64_t row, double *dPrefix) {
          std::fill(dPrefix, dPrefix + s + 1, 0.0);
          for (int64_t j = 0; j < s; ++j) {
            const Closer c = closer(r.i, j, s);
            dPrefix[c.hi + 1] += dE[row * s + j];
            dPrefix[c.lo + 1] -= dE[row * s + j];
          }
          double suffix = 0;
          for (int64_t j = s - 1; j >= 0; --j) {
            suffix += dPrefix[j + 1];
            dlq[row * s + j] = scalar_t(suffix);
          }
        });
  });
  // d/dl log σ(l) = σ(-l) = exp(log(1 - P)); d/dl log σ(-l) = -σ(l) =
  // -exp(log P). Blocked entries have A = 0 and σ(l) = 0: no gradient.
  Tensor dLogits = dLogA * w.logNotP.exp() - dLogNotP * w.logP.exp();
  Tensor dFront = at::empty_like(o.front), dBack = at::empty_like(o.back);
  AT_DISPATCH_FLOATING_TYPES(w.qk.scalar_type(), "geometric_side_grad", [&] {
    const scalar_t *dl = dLogits.data_ptr<scalar_t>();
    scalar_t *front = dFront.data_ptr<scalar_t>();
    scalar_t *back = dBack.data_ptr<scalar_t>();
    forEachRow<scalar_t>(o, [&](const Row<scalar_t> &r, int64_t row, double *) {
      double before = 0, after = 0;
      for (int64_t j = 0; j < r.i; ++j)
        before += dl[row * s + j];
      for (int64_t j = r.i + 1; j < s; ++j)
        after += dl[row * s + j];
      back[row] = scalar_t(before);
      front[row] = scalar_t(after);
    });
  });
  Tensor dScale = (dLogits * w.qk).sum(at::kDouble);
  Tensor dBias = dLogits.sum(at::kDouble);
  Tensor dScores = dLogits.mul_(o.scale);
  return {at::matmul(dScores, o.k),
          at::matmul(dScores.transpose(-1, -2), o.q),
          dv,
          dBack,
          dFront,
          Tensor(),
          dScale.to(scale.scalar_type()).reshape(scale.sizes()),
          dBias.to(bias.scalar_type()).reshape(bias.sizes())};
}

class GeometricAttentionFunction
    : public torch::autograd::Function<GeometricAttentionFunction> {
public:
  static Tensor forward(torch::autograd::AutogradContext *ctx, Tensor q,
                        Tensor k, Tensor v, Tensor back, Tensor front,
                        Tensor mask, Tensor scale, Tensor bias,
                        bool normalize) {
    Operands o = operands(q, k, v, back, front, mask, scale, bias, normalize);
    Weights w = weights(o);
    // What backward reads, rather than a recomputation: inside a vjp the
    // forward runs just before the backward, so these live only briefly.
    ctx->save_for_backward({o.q, o.k, o.v, o.back, o.front, o.mask, scale, bias,
                            w.qk, w.logP, w.logNotP, w.attention, w.sums});
    ctx->saved_data["normalize"] = normalize;
    return at::matmul(w.attention, o.v);
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
    // backwardFrom scales the weights in place.
    Weights w{saved[8], saved[9], saved[10], saved[11].clone(), saved[12]};
    torch::autograd::variable_list operandGrads =
        backwardFrom(o, std::move(w), scale, bias, grads[0]);
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
  Operands o = operands(q, k, v, back, front, mask, scale, bias, normalize);
  Weights w = weights(o);
  return backwardFrom(o, std::move(w), scale, bias, dOut);
}

} // namespace rvnn::runtime::ops
