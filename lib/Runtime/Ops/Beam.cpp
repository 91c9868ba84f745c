#include "rvnn/Runtime/Ops/Beam.h"

#include "rvnn/Runtime/Ops/NN.h"
#include "rvnn/Runtime/Ops/Random.h"

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rvnn::runtime::ops {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// beamGather's source rows when x is viewed as [N·B, rest]: sample n's
/// candidate k reads row n·B + idx[n, k] / factor. Whole rows move with one
/// copy each (index_select / index_add_), not element by element (gather).
torch::Tensor sourceRows(const torch::Tensor &idx, int64_t factor,
                         int64_t beams) {
  TORCH_CHECK(factor >= 1, "beam_gather: factor must be >= 1, got ", factor);
  if (idx.device().is_cpu() && idx.scalar_type() == torch::kLong) {
    // A few hundred indices at most: one loop, not five ATen calls.
    torch::Tensor in = idx.contiguous();
    torch::Tensor rows = at::empty({in.numel()}, in.options());
    const int64_t *parent = in.data_ptr<int64_t>();
    int64_t *row = rows.data_ptr<int64_t>();
    const int64_t k = in.size(1);
    for (int64_t n = 0; n < in.size(0); ++n)
      for (int64_t j = 0; j < k; ++j) {
        const int64_t candidate = parent[n * k + j];
        TORCH_CHECK(candidate >= 0 && candidate < beams * factor,
                    "beam_gather: idx[", n, ", ", j, "] = ", candidate,
                    " is outside [0, ", beams * factor, ")");
        row[n * k + j] = n * beams + candidate / factor;
      }
    return rows;
  }
  torch::Tensor parents = factor == 1 ? idx : idx.div(factor, "trunc");
  torch::Tensor firstRow =
      at::arange(idx.size(0), idx.options()).mul_(beams).unsqueeze(1);
  return (parents + firstRow).reshape(-1);
}

/// The elements per beam row of a [N, B, ...] tensor.
int64_t rowWidth(at::IntArrayRef sizes) {
  int64_t width = 1;
  for (size_t dim = 2; dim < sizes.size(); ++dim)
    width *= sizes[dim];
  return width;
}

/// Whether entry (a, i) ranks before (b, j) in a stable descending sort:
/// NaN above everything (as ATen sorts it), ties to the lower index.
template <typename T> bool ranksBefore(T a, int64_t i, T b, int64_t j) {
  const bool aNan = std::isnan(a), bNan = std::isnan(b);
  if (aNan || bNan)
    return aNan && (!bNan || i < j);
  return a > b || (a == b && i < j);
}

/// The first k indices of each row of `scores` (entries where `mask` is 0
/// count as -inf) in stable descending order: k sweeps per row, which for a
/// beam's small k costs less than sorting every row.
template <typename T>
void selectTopK(const T *scores, const T *mask, int64_t rows, int64_t length,
                int64_t k, int64_t *out) {
  at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
    std::vector<T> key(length);
    std::vector<char> taken(length);
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t j = 0; j < length; ++j) {
        key[j] =
            mask[r * length + j] == T(0) ? T(kNegInf) : scores[r * length + j];
        taken[j] = 0;
      }
      for (int64_t slot = 0; slot < k; ++slot) {
        int64_t best = -1;
        for (int64_t j = 0; j < length; ++j)
          if (!taken[j] &&
              (best < 0 || ranksBefore(key[j], j, key[best], best)))
            best = j;
        taken[best] = 1;
        out[r * k + slot] = best;
      }
    }
  });
}

/// The largest k a row of selection sweeps serves before sorting wins.
constexpr int64_t kMaxSweptK = 16;

/// topk's ranking: the selection sweeps on the CPU for small k, a stable
/// descending sort of the masked scores otherwise.
torch::Tensor rankTopK(const torch::Tensor &scores, const torch::Tensor &mask,
                       int64_t k) {
  const auto type = scores.scalar_type();
  if (!scores.device().is_cpu() || k > kMaxSweptK ||
      (type != at::kFloat && type != at::kDouble)) {
    auto masked = scores.masked_fill(mask == 0, kNegInf);
    return std::get<1>(
               masked.sort(/*stable=*/true, /*dim=*/-1, /*descending=*/true))
        .narrow(-1, 0, k);
  }
  const torch::Tensor s = scores.contiguous();
  const torch::Tensor m = mask.to(type).expand(s.sizes()).contiguous();
  const int64_t length = s.size(-1), rows = length ? s.numel() / length : 0;
  std::vector<int64_t> shape(s.sizes().begin(), s.sizes().end());
  shape.back() = k;
  torch::Tensor indices = at::empty(shape, s.options().dtype(at::kLong));
  AT_DISPATCH_FLOATING_TYPES(type, "topk_cpu", [&] {
    selectTopK<scalar_t>(s.data_ptr<scalar_t>(), m.data_ptr<scalar_t>(), rows,
                         length, k, indices.data_ptr<int64_t>());
  });
  return indices;
}

} // namespace

std::tuple<torch::Tensor, torch::Tensor>
topk(const torch::Tensor &x, const torch::Tensor &mask, int64_t k, bool gumbel,
     bool training, DrawStream *draws) {
  TORCH_CHECK(k >= 1 && k <= x.size(-1), "topk: k = ", k, " must be in [1, ",
              x.size(-1), "]");
  // Selection is discrete: scores carry no gradient, values gather from x.
  auto scores = x.detach();
  if (gumbel && training) {
    TORCH_CHECK(draws, "topk: Gumbel noise needs a draw stream");
    scores = scores + gumbelNoise(*draws, scores.sizes(), scores.options());
  }
  // The op contract: ties go to the lower index. Tensor::topk leaves the
  // order of equal keys unspecified (and equal keys are common: equal tokens
  // give equal pair scores), so rank as a stable descending sort does.
  auto indices = rankTopK(scores, mask, k);
  return {x.gather(-1, indices), indices};
}

torch::Tensor argmax(const torch::Tensor &x, const torch::Tensor &mask) {
  return x.detach()
      .masked_fill(mask == 0, kNegInf)
      .argmax(-1, /*keepdim=*/true);
}

torch::Tensor oneHot(const torch::Tensor &idx, const torch::Tensor &ref) {
  std::vector<int64_t> shape(idx.sizes().begin(), idx.sizes().end());
  shape.push_back(ref.size(-1));
  return at::zeros(shape, ref.options()).scatter_(-1, idx.unsqueeze(-1), 1);
}

torch::Tensor beamGather(const torch::Tensor &x, const torch::Tensor &idx,
                         int64_t factor) {
  TORCH_CHECK(idx.dim() == 2 && idx.size(0) == x.size(0),
              "beam_gather: idx must be [N, K] with N = x's dim 0");
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape[1] = idx.size(1);
  return x.reshape({x.size(0) * x.size(1), rowWidth(x.sizes())})
      .index_select(0, sourceRows(idx, factor, x.size(1)))
      .reshape(shape);
}

torch::Tensor beamGatherBackward(const torch::Tensor &dy,
                                 const torch::Tensor &idx, int64_t factor,
                                 at::IntArrayRef inputSizes) {
  const int64_t width = rowWidth(inputSizes);
  const int64_t sources = inputSizes[0] * inputSizes[1];
  const torch::Tensor rows = sourceRows(idx, factor, inputSizes[1]);
  const torch::Tensor dyRows = dy.reshape({dy.size(0) * dy.size(1), width});
  const bool floating =
      dy.scalar_type() == torch::kFloat || dy.scalar_type() == torch::kDouble;
  if (!dy.device().is_cpu() || !floating ||
      rows.scalar_type() != torch::kLong) {
    // The rows are added through a view: the result is no view, so that a
    // later add into a window of it may write into it (add_into_window).
    torch::Tensor grad = at::zeros(inputSizes, dy.options());
    grad.view({sources, width}).index_add_(0, rows, dyRows);
    return grad;
  }
  // Each source row written once, in index_add_'s order: the first row
  // gathered from it copied, later ones added, zeros where none was (a
  // beam step's cotangent is the size of its state: zeroing it all first
  // and adding went over it twice).
  torch::Tensor grad = at::empty(inputSizes, dy.options());
  const torch::Tensor in = dyRows.contiguous();
  const int64_t *source = rows.data_ptr<int64_t>();
  std::vector<bool> written(sources, false);
  AT_DISPATCH_FLOATING_TYPES(dy.scalar_type(), "beam_gather_backward", [&] {
    const scalar_t *from = in.data_ptr<scalar_t>();
    scalar_t *to = grad.data_ptr<scalar_t>();
    for (int64_t j = 0; j < rows.numel(); ++j) {
      scalar_t *row = to + source[j] * width;
      const scalar_t *add = from + j * width;
      if (!written[source[j]])
        std::copy_n(add, width, row);
      else
        for (int64_t w = 0; w < width; ++w)
          row[w] += add[w];
      written[source[j]] = true;
    }
    for (int64_t r = 0; r < sources; ++r)
      if (!written[r])
        std::fill_n(to + r * width, width, scalar_t(0));
  });
  return grad;
}

torch::Tensor beamExpand(const torch::Tensor &x, int64_t factor) {
  TORCH_CHECK(factor >= 1, "beam_expand: factor must be >= 1, got ", factor);
  std::vector<int64_t> repeated(x.sizes().begin(), x.sizes().end());
  repeated.insert(repeated.begin() + 2, factor);
  std::vector<int64_t> merged(x.sizes().begin(), x.sizes().end());
  merged[1] *= factor;
  return x.unsqueeze(2).expand(repeated).reshape(merged);
}

torch::Tensor beamAccumulate(const torch::Tensor &accu,
                             const torch::Tensor &probs,
                             const torch::Tensor &idx) {
  auto picked = probs.gather(2, idx);
  return (accu.unsqueeze(-1) + (picked + 1e-20).log()).flatten(1);
}

torch::Tensor beamAlign(const torch::Tensor &accu,
                        const torch::Tensor &beamMask, double temperature,
                        AlignMode mode, DrawStream *draws) {
  TORCH_CHECK(temperature > 0, "beam_align: temperature must be > 0, got ",
              temperature);
  const int64_t beams = accu.size(1);
  auto top = at::zeros({accu.size(0), 1}, accu.options().dtype(at::kLong));
  if (beams == 1)
    return top;
  TORCH_CHECK(draws, "beam_align: sampling needs a draw stream");
  // Uniform mode is the sample mode with equal scores, so both respect the
  // beam mask the same way.
  auto scores = mode == AlignMode::Sample ? accu.detach() / temperature
                                          : at::zeros_like(accu);
  auto logProbs = maskedSoftmax(scores, beamMask.detach(), -1).log();
  // Gumbel-max: argmax_b(log p_b + g_b) is a draw from p, one independent
  // noise row per draw (B-1 draws with replacement).
  const int64_t batch = accu.size(0);
  auto noise =
      gumbelNoise(*draws, {batch, beams - 1, beams}, logProbs.options());
  auto drawn = (logProbs.unsqueeze(1) + noise).argmax(-1);
  return at::cat({top, drawn}, 1);
}

namespace {

constexpr double kPadBeamLogit = -999999.0;

torch::Tensor marginalWeights(const torch::Tensor &accu,
                              const torch::Tensor &beamMask) {
  return at::softmax(beamMask * accu + (1 - beamMask) * kPadBeamLogit, 1);
}

} // namespace

torch::Tensor beamMarginalize(const torch::Tensor &roots,
                              const torch::Tensor &accu,
                              const torch::Tensor &beamMask) {
  return (marginalWeights(accu, beamMask).unsqueeze(-1) * roots).sum(1);
}

std::vector<torch::Tensor>
beamMarginalizeBackward(const torch::Tensor &roots, const torch::Tensor &accu,
                        const torch::Tensor &beamMask, const torch::Tensor &dy,
                        bool maskWanted) {
  const torch::Tensor weights = marginalWeights(accu, beamMask);
  // d w_b = <roots_b, dy>, then back through the softmax to its logits
  // mask·accu + (1 - mask)·pad.
  const torch::Tensor dWeights =
      at::matmul(roots, dy.unsqueeze(-1)).squeeze(-1);
  const torch::Tensor dLogits =
      at::_softmax_backward_data(dWeights, weights, 1, weights.scalar_type());
  return {weights.unsqueeze(-1) * dy.unsqueeze(1), dLogits * beamMask,
          maskWanted ? dLogits * (accu - kPadBeamLogit) : torch::Tensor()};
}

} // namespace rvnn::runtime::ops
