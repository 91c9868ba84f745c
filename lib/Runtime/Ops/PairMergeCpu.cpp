// rvnn.pair_merge on the CPU. The ATen composition (pairMergeReference)
// makes seven passes over [..., S-1, D] forward and its autograd graph a
// dozen backward; EBT-GRC runs it on the whole beam state every step. Here a
// row (the pairs of one beam) is one pass forward and two backward. The
// derivation is the CUDA kernel's (lib/Runtime/Cuda/PairMerge.cu):
//   c_j = Σ_{i<=j} sel_i, left_j = 1 - c_j, right_j = c_j - sel_j,
//   out_j = sel_j·cand_j + left_j·h_j + right_j·h_{j+1};
//   dh_k = left_k·g_k [k < J] + right_{k-1}·g_{k-1} [k >= 1],
//   dcand_j = sel_j·g_j (summed over j when cand broadcasts),
//   dsel_i = a_i - q_i - Σ_{j>=i} (p_j - q_j) with a_j = g_j·cand_j,
//   p_j = g_j·h_j, q_j = g_j·h_{j+1}.
#include "PairMergeCpu.h"

#include "rvnn/Runtime/Ops/Recursion.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <vector>

namespace rvnn::runtime::ops {

namespace {

using torch::Tensor;
using torch::autograd::variable_list;

/// Rows (the product of the leading dims), pairs and features.
struct Rows {
  int64_t rows = 1, pairs = 0, dim = 0;
  bool broadcastCand = false;

  explicit Rows(const Tensor &h, const Tensor &cand) {
    for (int64_t i = 0; i + 2 < h.dim(); ++i)
      rows *= h.size(i);
    pairs = h.size(-2) - 1;
    dim = h.size(-1);
    broadcastCand = cand.size(-2) != pairs;
  }
};

/// left_j and right_j of one row, from c accumulated in double as ATen's
/// CPU cumsum does.
template <typename T>
void mergeWeights(const T *sel, int64_t pairs, T *left, T *right) {
  double c = 0;
  for (int64_t j = 0; j < pairs; ++j) {
    c += double(sel[j]);
    left[j] = T(1) - T(c);
    right[j] = T(c) - sel[j];
  }
}

template <typename T>
void forwardRows(const Rows &s, const T *h, const T *cand, const T *sel,
                 T *out) {
  at::parallel_for(0, s.rows, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> left(s.pairs), right(s.pairs);
    for (int64_t r = begin; r < end; ++r) {
      const T *hr = h + r * (s.pairs + 1) * s.dim;
      const T *cr = cand + r * (s.broadcastCand ? 1 : s.pairs) * s.dim;
      const T *sr = sel + r * s.pairs;
      T *outRow = out + r * s.pairs * s.dim;
      mergeWeights(sr, s.pairs, left.data(), right.data());
      for (int64_t j = 0; j < s.pairs; ++j) {
        const T *cj = cr + (s.broadcastCand ? 0 : j * s.dim);
        const T *hj = hr + j * s.dim, *hNext = hj + s.dim;
        T *o = outRow + j * s.dim;
        const T sj = sr[j], lj = left[j], rj = right[j];
        for (int64_t d = 0; d < s.dim; ++d)
          o[d] = sj * cj[d] + lj * hj[d] + rj * hNext[d];
      }
    }
  });
}

/// dh and dcand of row r: linear in g for the row's weights.
template <typename T>
void rowCotangentsOfHAndCand(const Rows &s, int64_t r, const T *sel,
                             const T *grad, T *gradH, T *gradCand,
                             std::vector<T> &left, std::vector<T> &right) {
  const int64_t candRows = s.broadcastCand ? 1 : s.pairs;
  const T *sr = sel + r * s.pairs;
  const T *g = grad + r * s.pairs * s.dim;
  T *dh = gradH + r * (s.pairs + 1) * s.dim;
  T *dc = gradCand + r * candRows * s.dim;
  mergeWeights(sr, s.pairs, left.data(), right.data());
  std::fill(dh, dh + (s.pairs + 1) * s.dim, T(0));
  std::fill(dc, dc + candRows * s.dim, T(0));
  for (int64_t j = 0; j < s.pairs; ++j) {
    const T *gj = g + j * s.dim;
    T *dhj = dh + j * s.dim, *dhNext = dhj + s.dim;
    T *dcj = dc + (s.broadcastCand ? 0 : j * s.dim);
    const T sj = sr[j], lj = left[j], rj = right[j];
    for (int64_t d = 0; d < s.dim; ++d) {
      dhj[d] += lj * gj[d];
      dhNext[d] += rj * gj[d];
      dcj[d] += sj * gj[d];
    }
  }
}

/// dsel of row r: three dot products per pair and a suffix sum.
template <typename T>
void rowCotangentOfSel(const Rows &s, int64_t r, const T *h, const T *cand,
                       const T *grad, T *gradSel, std::vector<T> &pMinusQ) {
  const T *hr = h + r * (s.pairs + 1) * s.dim;
  const T *cr = cand + r * (s.broadcastCand ? 1 : s.pairs) * s.dim;
  const T *g = grad + r * s.pairs * s.dim;
  T *ds = gradSel + r * s.pairs;
  for (int64_t j = 0; j < s.pairs; ++j) {
    const T *gj = g + j * s.dim, *cj = cr + (s.broadcastCand ? 0 : j * s.dim);
    const T *hj = hr + j * s.dim, *hNext = hj + s.dim;
    T a = 0, p = 0, q = 0;
    for (int64_t d = 0; d < s.dim; ++d) {
      a += gj[d] * cj[d];
      p += gj[d] * hj[d];
      q += gj[d] * hNext[d];
    }
    // ds_j = a_j - q_j for now; the suffix sums of p - q follow.
    ds[j] = a - q;
    pMinusQ[j] = p - q;
  }
  T suffix = 0;
  for (int64_t j = s.pairs - 1; j >= 0; --j) {
    suffix += pMinusQ[j];
    ds[j] -= suffix;
  }
}

/// `gradSel` may be null (and then `h` and `cand`, which only it reads):
/// sel's cotangent is skipped, as when sel is a one-hot of chosen pairs.
template <typename T>
void backwardRows(const Rows &s, const T *h, const T *cand, const T *sel,
                  const T *grad, T *gradH, T *gradCand, T *gradSel) {
  at::parallel_for(0, s.rows, 1, [&](int64_t begin, int64_t end) {
    std::vector<T> left(s.pairs), right(s.pairs), pMinusQ(s.pairs);
    for (int64_t r = begin; r < end; ++r) {
      rowCotangentsOfHAndCand(s, r, sel, grad, gradH, gradCand, left, right);
      if (gradSel)
        rowCotangentOfSel(s, r, h, cand, grad, gradSel, pMinusQ);
    }
  });
}

struct PairMergeCpuFunction
    : public torch::autograd::Function<PairMergeCpuFunction> {
  static Tensor forward(torch::autograd::AutogradContext *ctx, Tensor h,
                        Tensor cand, Tensor sel) {
    h = h.contiguous();
    cand = cand.contiguous();
    sel = sel.contiguous();
    ctx->save_for_backward({h, cand, sel});
    const Rows s(h, cand);
    std::vector<int64_t> sizes = h.sizes().vec();
    sizes[sizes.size() - 2] = s.pairs;
    Tensor out = at::empty(sizes, h.options());
    AT_DISPATCH_FLOATING_TYPES(h.scalar_type(), "pair_merge_cpu", [&] {
      forwardRows<scalar_t>(s, h.data_ptr<scalar_t>(),
                            cand.data_ptr<scalar_t>(), sel.data_ptr<scalar_t>(),
                            out.data_ptr<scalar_t>());
    });
    return out;
  }

  static variable_list backward(torch::autograd::AutogradContext *ctx,
                                variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const Tensor &h = saved[0], &cand = saved[1], &sel = saved[2];
    // Grad mode is on in a backward only when it is recorded (create_graph):
    // then the reference's own graph gives a differentiable backward.
    // The saved tensors carry the forward's history, so the gradients of the
    // reference with respect to them are differentiable in the inputs.
    if (at::GradMode::is_enabled()) {
      Tensor out = pairMergeReference(h, cand, sel);
      return torch::autograd::grad({out}, {h, cand, sel}, {grads[0]},
                                   /*retain_graph=*/true,
                                   /*create_graph=*/true,
                                   /*allow_unused=*/true);
    }
    return pairMergeCpuBackward(h, cand, sel, grads[0],
                                ctx->needs_input_grad(2));
  }
};

} // namespace

std::vector<Tensor> pairMergeCpuBackward(const Tensor &h, const Tensor &cand,
                                         const Tensor &sel, const Tensor &dy,
                                         bool wantSel) {
  // Only sel's cotangent reads h and cand: without it they may be shape
  // witnesses (broadcast zeros) that must not be materialised.
  const Tensor hc = wantSel ? h.contiguous() : Tensor(),
               candc = wantSel ? cand.contiguous() : Tensor(),
               selc = sel.contiguous(), grad = dy.contiguous();
  const auto options = dy.options().memory_format(at::MemoryFormat::Contiguous);
  Tensor gradH = at::empty(h.sizes(), options),
         gradCand = at::empty(cand.sizes(), options),
         gradSel = wantSel ? at::empty_like(selc) : Tensor();
  const Rows s(h, cand);
  AT_DISPATCH_FLOATING_TYPES(h.scalar_type(), "pair_merge_cpu_grad", [&] {
    auto data = [](const Tensor &t) {
      return t.defined() ? t.data_ptr<scalar_t>() : nullptr;
    };
    backwardRows<scalar_t>(s, data(hc), data(candc), data(selc), data(grad),
                           data(gradH), data(gradCand), data(gradSel));
  });
  return {gradH, gradCand, gradSel};
}

bool pairMergeCpuTakes(const Tensor &h, const Tensor &cand, const Tensor &sel) {
  const auto type = h.scalar_type();
  if (!h.device().is_cpu() || !cand.device().is_cpu() ||
      !sel.device().is_cpu() || (type != at::kFloat && type != at::kDouble) ||
      cand.scalar_type() != type || sel.scalar_type() != type)
    return false;
  const int64_t rank = h.dim();
  if (rank < 2 || cand.dim() != rank || sel.dim() != rank - 1 ||
      cand.size(-1) != h.size(-1))
    return false;
  for (int64_t i = 0; i + 2 < rank; ++i)
    if (cand.size(i) != h.size(i) || sel.size(i) != h.size(i))
      return false;
  return true;
}

Tensor pairMergeCpu(const Tensor &h, const Tensor &cand, const Tensor &sel) {
  return PairMergeCpuFunction::apply(h, cand, sel);
}

} // namespace rvnn::runtime::ops
