// rvnn.neighbour_retrieve towards the right on the CPU. The ATen composition
// (rightNeighbours in Attention.cpp) builds five [N, S, S] tensors forward
// and autograd a dozen nodes backward; CRvNN calls it twice per iteration.
// Row i of a sample, with w_j = e_j·m_j for j > i (0 otherwise),
// C_ij = Σ_{k<=j} w_k (accumulated in double and rounded per entry, as
// ATen's CPU cumsum does) and C_{i,-1} = 0:
//   R_ij = m_i·(w_j                      if C_ij <= 1   (branch A)
//               max(0, 1 - C_{i,j-1})    otherwise      (branch B)).
// Backward, g_ij = m_i·dR_ij: dw_j = g_ij·[A_ij] - Σ_{k>j} g_ik·[B⁺_ik] with
// B⁺ where 1 - C_{i,k-1} >= 0 (clamp's subgradient, as ATen passes it),
// de_j = Σ_i dw_ij·m_j·[j > i], and the mask's (when it has one: RIR-CRvNN's
// chunk masks) dm_j = Σ_i dw_ij·e_j·[j > i] + Σ_k dR_jk·R_jk/m_j, the second
// term from the row's own factor m_j.
#include "NeighbourRetrieveCpu.h"

#include "rvnn/Runtime/Ops/Attention.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace rvnn::runtime::ops {

namespace {

using torch::Tensor;
using torch::autograd::variable_list;

/// Branch of entry (i, j) and the clamp's argument 1 - C_{i,j-1}.
struct Entry {
  bool takesWeight = false;
  double remainder = 0;
};

/// Whether every row of a sample is zero after the entry where its
/// accumulated weight first exceeds 1: with finite, non-negative `exist` and
/// `mask` the accumulation never falls back to 1 (and no NaN or infinity
/// reaches a product with a zero), so sweeps may stop there.
template <typename T>
bool rowsEndAtTheirCrossing(const T *exist, const T *mask, int64_t length) {
  for (int64_t j = 0; j < length; ++j)
    if (!std::isfinite(exist[j]) || !std::isfinite(mask[j]) ||
        exist[j] < T(0) || mask[j] < T(0))
      return false;
  return true;
}

/// Fills `entries` (and `out`, when given) for row i of a sample of
/// `length` positions; returns the end of what it filled. With `toCrossing`
/// (rowsEndAtTheirCrossing holds), entries j <= i, which hold no weight, and
/// those after the crossing are left out, the row's zeros written as such.
template <typename T>
int64_t sweepRow(const T *exist, const T *mask, int64_t length, int64_t i,
                 bool toCrossing, std::vector<Entry> &entries, T *out) {
  double accumulated = 0;
  T before = 0;
  int64_t j = toCrossing ? i + 1 : 0;
  if (out)
    std::fill(out, out + j, T(0));
  for (; j < length; ++j) {
    const T weight = j > i ? exist[j] * mask[j] : T(0);
    accumulated += double(weight);
    const T total = T(accumulated);
    Entry &entry = entries[j];
    entry.takesWeight = total <= T(1);
    entry.remainder = double(T(1) - before);
    if (out) {
      const T value =
          entry.takesWeight ? weight : std::max(T(1) - before, T(0));
      out[j] = mask[i] * value;
    }
    before = total;
    if (toCrossing && !entry.takesWeight) {
      ++j;
      break;
    }
  }
  if (out)
    std::fill(out + j, out + length, T(0));
  return j;
}

template <typename T>
void forwardSamples(const T *exist, const T *mask, int64_t samples,
                    int64_t length, T *out) {
  at::parallel_for(0, samples, 1, [&](int64_t begin, int64_t end) {
    std::vector<Entry> entries(length);
    for (int64_t n = begin; n < end; ++n) {
      const T *e = exist + n * length, *m = mask + n * length;
      const bool toCrossing = rowsEndAtTheirCrossing(e, m, length);
      for (int64_t i = 0; i < length; ++i)
        sweepRow(e, m, length, i, toCrossing, entries,
                 out + (n * length + i) * length);
    }
  });
}

/// Σ_{j>i} dR_ij·R_ij/m_i: row i's cotangent of its own mask factor.
template <typename T>
T rowFactorGrad(const T *exist, const T *mask, const T *g, int64_t length,
                int64_t i, const std::vector<Entry> &entries) {
  T sum = 0;
  for (int64_t j = i + 1; j < length; ++j) {
    const T value = entries[j].takesWeight
                        ? exist[j] * mask[j]
                        : std::max(T(entries[j].remainder), T(0));
    sum += g[j] * value;
  }
  return sum;
}

/// The cotangents of exist and, when `gradMask` is not null, of mask.
template <typename T>
void backwardSamples(const T *exist, const T *mask, const T *grad,
                     int64_t samples, int64_t length, T *gradExist,
                     T *gradMask) {
  at::parallel_for(0, samples, 1, [&](int64_t begin, int64_t end) {
    std::vector<Entry> entries(length);
    for (int64_t n = begin; n < end; ++n) {
      const T *e = exist + n * length, *m = mask + n * length;
      T *de = gradExist + n * length;
      T *dm = gradMask ? gradMask + n * length : nullptr;
      std::fill(de, de + length, T(0));
      if (dm)
        std::fill(dm, dm + length, T(0));
      // The mask's cotangent reads every entry's g (a NaN in it must
      // reach dm), so it sweeps whole rows.
      const bool toCrossing = !dm && rowsEndAtTheirCrossing(e, m, length);
      for (int64_t i = 0; i < length; ++i) {
        if (m[i] == T(0) && !dm)
          continue;
        // After the crossing dw_ij = 0: no term, and no suffix either.
        const int64_t swept =
            sweepRow<T>(e, m, length, i, toCrossing, entries, nullptr);
        const T *g = grad + (n * length + i) * length;
        if (dm)
          dm[i] += rowFactorGrad(e, m, g, length, i, entries);
        if (m[i] == T(0))
          continue;
        // Σ_{k>j} g_ik·[B⁺_ik], from the right.
        T suffix = 0;
        for (int64_t j = swept - 1; j > i; --j) {
          const T gij = m[i] * g[j];
          const T dw = (entries[j].takesWeight ? gij : T(0)) - suffix;
          de[j] += dw * m[j];
          if (dm)
            dm[j] += dw * e[j];
          if (!entries[j].takesWeight && entries[j].remainder >= 0)
            suffix += gij;
        }
      }
    }
  });
}

/// Row i's band: from i outwards (step +1 rightwards, -1 leftwards), the
/// columns up to and including the first where the accumulated weight,
/// rounded as sweepRow rounds it, exceeds 1 (a NaN never does: the band
/// then runs to the end, as the NaNs do). A row with mask_i = 0 is zero but
/// has the row's values as its derivative by mask_i: its band is the same.
template <typename T>
void bandRow(const T *exist, const T *mask, int64_t length, int64_t i,
             int64_t step, int64_t *band) {
  const int64_t end = step > 0 ? length : -1;
  int64_t last = end - step;
  double accumulated = 0;
  for (int64_t j = i + step; j != end; j += step) {
    accumulated += double(exist[j] * mask[j]);
    if (T(accumulated) > T(1)) {
      last = j;
      break;
    }
  }
  band[0] = step > 0 ? i + 1 : last;
  band[1] = step > 0 ? last + 1 : i;
}

struct RightNeighboursFunction
    : public torch::autograd::Function<RightNeighboursFunction> {
  static Tensor forward(torch::autograd::AutogradContext *ctx, Tensor exist,
                        Tensor mask) {
    exist = exist.contiguous();
    mask = mask.contiguous();
    ctx->save_for_backward({exist, mask});
    const int64_t samples = exist.size(0), length = exist.size(1);
    Tensor out = at::empty({samples, length, length}, exist.options());
    AT_DISPATCH_FLOATING_TYPES(
        exist.scalar_type(), "neighbour_retrieve_cpu", [&] {
          forwardSamples<scalar_t>(exist.data_ptr<scalar_t>(),
                                   mask.data_ptr<scalar_t>(), samples, length,
                                   out.data_ptr<scalar_t>());
        });
    return out;
  }

  static variable_list backward(torch::autograd::AutogradContext *ctx,
                                variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor &exist = saved[0], &mask = saved[1];
    // A recorded backward (create_graph) takes the differentiable ATen
    // composition, recomputed with grad mode on.
    if (at::GradMode::is_enabled()) {
      Tensor out = neighbourRetrieveReference(exist, mask, Direction::Right);
      return torch::autograd::grad({out}, {exist, mask}, {grads[0]},
                                   /*retain_graph=*/true,
                                   /*create_graph=*/true,
                                   /*allow_unused=*/true);
    }
    auto [gradExist, gradMask] = rightNeighboursCpuBackward(
        exist, mask, grads[0], ctx->needs_input_grad(1));
    return {gradExist, gradMask};
  }
};

} // namespace

bool neighbourRetrieveCpuTakes(const Tensor &exist, const Tensor &mask) {
  const auto type = exist.scalar_type();
  return exist.device().is_cpu() && mask.device().is_cpu() &&
         (type == at::kFloat || type == at::kDouble) &&
         mask.scalar_type() == type && exist.dim() == 2 &&
         exist.sizes() == mask.sizes();
}

Tensor rightNeighboursCpu(const Tensor &exist, const Tensor &mask) {
  return RightNeighboursFunction::apply(exist, mask);
}

Tensor neighbourBandCpu(const Tensor &exist, const Tensor &mask,
                        bool rightwards) {
  const Tensor e = exist.contiguous(), m = mask.contiguous();
  const int64_t samples = e.size(0), length = e.size(1);
  Tensor band = at::empty({samples, length, 2}, e.options().dtype(at::kLong));
  int64_t *out = band.data_ptr<int64_t>();
  AT_DISPATCH_FLOATING_TYPES(e.scalar_type(), "neighbour_band_cpu", [&] {
    const scalar_t *ep = e.data_ptr<scalar_t>(), *mp = m.data_ptr<scalar_t>();
    at::parallel_for(0, samples, 1, [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n)
        for (int64_t i = 0; i < length; ++i)
          bandRow(ep + n * length, mp + n * length, length, i,
                  rightwards ? 1 : -1, out + (n * length + i) * 2);
    });
  });
  return band;
}

std::pair<Tensor, Tensor> rightNeighboursCpuBackward(const Tensor &exist,
                                                     const Tensor &mask,
                                                     const Tensor &dy,
                                                     bool maskWanted) {
  const Tensor e = exist.contiguous(), m = mask.contiguous(),
               grad = dy.contiguous();
  Tensor gradExist = at::empty_like(e);
  Tensor gradMask = maskWanted ? at::empty_like(m) : Tensor();
  AT_DISPATCH_FLOATING_TYPES(
      e.scalar_type(), "neighbour_retrieve_cpu_grad", [&] {
        backwardSamples<scalar_t>(
            e.data_ptr<scalar_t>(), m.data_ptr<scalar_t>(),
            grad.data_ptr<scalar_t>(), e.size(0), e.size(1),
            gradExist.data_ptr<scalar_t>(),
            maskWanted ? gradMask.data_ptr<scalar_t>() : nullptr);
      });
  return {gradExist, gradMask};
}

} // namespace rvnn::runtime::ops
