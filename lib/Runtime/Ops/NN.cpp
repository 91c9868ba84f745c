#include "rvnn/Runtime/Ops/NN.h"

#include "rvnn/Runtime/Ops/ConstantElements.h"
#include "rvnn/Runtime/Ops/Random.h"

#include <cmath>
#include <limits>
#include <vector>

#include <ATen/Dispatch.h>

#include <torch/autograd.h>

namespace rvnn::runtime::ops {

torch::Tensor linear(const torch::Tensor &x, const torch::Tensor &w,
                     const torch::Tensor &b) {
  return b.defined() ? at::linear(x, w, b) : at::linear(x, w);
}

torch::Tensor embedding(const torch::Tensor &table, const torch::Tensor &ids) {
  return at::embedding(table, ids);
}

torch::Tensor layerNorm(const torch::Tensor &x, const torch::Tensor &gamma,
                        const torch::Tensor &beta, double epsilon) {
  return at::layer_norm(x, {x.size(-1)}, gamma, beta, epsilon);
}

torch::Tensor dropoutMask(const torch::Tensor &x, double rate, bool rescale,
                          const std::vector<int64_t> &sharedDims, bool training,
                          DrawStream *draws) {
  TORCH_CHECK(rate >= 0 && rate < 1, "dropout: rate must be in [0, 1), got ",
              rate);
  // A broadcast of one element, not a tensor of ones: the mask is a
  // residual of the backward, and an evaluation-mode forward should not
  // keep a copy of x; products with it are their other operand.
  if (!training || rate == 0)
    return broadcastConstant(Constant::One, x, x.sizes());
  TORCH_CHECK(draws, "dropout: training needs a draw stream");
  std::vector<int64_t> maskShape(x.sizes().begin(), x.sizes().end());
  for (int64_t dim : sharedDims) {
    const int64_t rank = x.dim();
    TORCH_CHECK(dim >= -rank && dim < rank, "dropout: shared dim ", dim,
                " out of range for rank ", rank);
    maskShape[dim < 0 ? dim + rank : dim] = 1;
  }
  // Kept where u >= rate: probability 1 - rate.
  torch::Tensor keep =
      keepMask(*draws, maskShape, rate, rescale, x.scalar_type());
  return keep.to(x.device()).expand(x.sizes());
}

torch::Tensor dropout(const torch::Tensor &x, double rate, bool rescale,
                      const std::vector<int64_t> &sharedDims, bool training,
                      DrawStream *draws) {
  if (!training || rate == 0) {
    TORCH_CHECK(rate >= 0 && rate < 1, "dropout: rate must be in [0, 1), got ",
                rate);
    return x;
  }
  return x * dropoutMask(x, rate, rescale, sharedDims, training, draws);
}

torch::Tensor gelu(const torch::Tensor &x) { return at::gelu(x); }

torch::Tensor sigmoid(const torch::Tensor &x) { return at::sigmoid(x); }

torch::Tensor relu(const torch::Tensor &x) { return at::relu(x); }

torch::Tensor softmax(const torch::Tensor &x, int64_t dim) {
  return at::softmax(x, dim);
}

namespace {

torch::Tensor maskedSoftmaxFormula(const torch::Tensor &x,
                                   const torch::Tensor &mask, int64_t dim) {
  auto p = at::softmax(x, dim) * mask + 1e-20;
  return p / p.sum(dim, /*keepdim=*/true);
}

/// masked_softmax with maskedSoftmaxBackward as its backward: autograd
/// through the formula would give masked entries the rounding noise of
/// softmax's backward (in float32 enough to move BT-GRC's padding
/// gradients) instead of their O(1e-20) values.
struct MaskedSoftmaxFunction
    : public torch::autograd::Function<MaskedSoftmaxFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext *ctx,
                               const torch::Tensor &x,
                               const torch::Tensor &mask, int64_t dim) {
    ctx->save_for_backward({x, mask});
    ctx->saved_data["dim"] = dim;
    return maskedSoftmaxFormula(x, mask, dim);
  }

  static torch::autograd::variable_list
  backward(torch::autograd::AutogradContext *ctx,
           torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const int64_t dim = ctx->saved_data["dim"].toInt();
    // A recorded backward (create_graph) differentiates the formula itself.
    if (at::GradMode::is_enabled()) {
      torch::Tensor p = maskedSoftmaxFormula(saved[0], saved[1], dim);
      auto g = torch::autograd::grad({p}, {saved[0], saved[1]}, {grads[0]},
                                     /*retain_graph=*/true,
                                     /*create_graph=*/true,
                                     /*allow_unused=*/true);
      return {g[0], g[1], torch::Tensor()};
    }
    auto [dx, dmask] = maskedSoftmaxBackward(saved[0], saved[1], dim, grads[0]);
    return {dx, dmask, torch::Tensor()};
  }
};

} // namespace

torch::Tensor maskedSoftmax(const torch::Tensor &x, const torch::Tensor &mask,
                            int64_t dim) {
  return MaskedSoftmaxFunction::apply(x, mask, dim);
}

std::tuple<torch::Tensor, torch::Tensor>
maskedSoftmaxBackward(const torch::Tensor &x, const torch::Tensor &mask,
                      int64_t dim, const torch::Tensor &dy) {
  const torch::Tensor s = at::softmax(x, dim);
  const torch::Tensor ms = s * mask;
  const torch::Tensor u = ms + 1e-20;
  const torch::Tensor z = u.sum(dim, /*keepdim=*/true);
  const torch::Tensor p = u / z;
  const torch::Tensor du = (dy - (dy * p).sum(dim, /*keepdim=*/true)) / z;
  const torch::Tensor ds = du * mask;
  // Σ ds·s is O(1e-20), but summed as written it is a difference of O(1)
  // terms whose rounding noise becomes every masked entry's dx = -s·Σ ds·s
  // (in float32, enough to move BT-GRC's padding gradients). In closed form,
  // with A = Σ dy·mask·s, D = Σ dy, M = Σ mask·s and Z = M + n·1e-20:
  // Σ ds·s = (1e-20 / Z)·(n·A - D·M) / Z, with no cancellation of O(1) terms.
  const double n = static_cast<double>(x.size(dim));
  const torch::Tensor a = (dy * ms).sum(dim, /*keepdim=*/true);
  const torch::Tensor d = dy.sum(dim, /*keepdim=*/true);
  const torch::Tensor m = ms.sum(dim, /*keepdim=*/true);
  const torch::Tensor dsDotS = (1e-20 / z) * (n * a - d * m) / z;
  torch::Tensor dx = s * (ds - dsDotS);
  return {dx, (du * s).sum_to_size(mask.sizes())};
}

torch::Tensor crossEntropy(const torch::Tensor &logits,
                           const torch::Tensor &labels) {
  return at::cross_entropy_loss(logits, labels);
}

torch::Tensor broadcastLike(const torch::Tensor &x, const torch::Tensor &ref) {
  return x.expand(ref.sizes());
}

namespace {

/// Whether a max pool runs as one pass on the CPU: float or double `h`
/// `[N, S, D]` and a mask `[N, S]` there, autograd not recording `h`
/// (CRvNN pools a score per position every step: the ATen form is six
/// small ops forward and as many again in backward).
bool maxPoolLoopTakes(const torch::Tensor &h, const torch::Tensor &mask) {
  const auto type = h.scalar_type();
  return h.device().is_cpu() && mask.device().is_cpu() &&
         (type == at::kFloat || type == at::kDouble) && h.dim() == 3 &&
         mask.dim() == 2 && mask.size(0) == h.size(0) &&
         mask.size(1) == h.size(1) && h.size(1) > 0 &&
         mask.is_floating_point() &&
         !(torch::GradMode::is_enabled() && h.requires_grad());
}

/// ATen's masked max, `h.masked_fill(mask == 0, -inf).max(1)`, in one pass
/// over contiguous `h`: for each sample n and column d (entry n·D + d), the
/// position of the first largest value or of the first NaN, padding taking
/// part as -inf.
std::vector<int64_t> maxPoolPositions(const torch::Tensor &h,
                                      const torch::Tensor &real) {
  const int64_t n = h.size(0), s = h.size(1), d = h.size(2);
  const bool *isReal = real.data_ptr<bool>();
  std::vector<int64_t> positions(n * d, 0);
  AT_DISPATCH_FLOATING_TYPES(h.scalar_type(), "max_pool_positions", [&] {
    const scalar_t *values = h.data_ptr<scalar_t>();
    auto value = [&](int64_t i, int64_t j, int64_t c) {
      return isReal[i * s + j] ? values[(i * s + j) * d + c]
                               : -std::numeric_limits<scalar_t>::infinity();
    };
    for (int64_t i = 0; i < n; ++i) {
      int64_t *at = positions.data() + i * d;
      for (int64_t j = 1; j < s; ++j)
        for (int64_t c = 0; c < d; ++c) {
          const scalar_t v = value(i, j, c), best = value(i, at[c], c);
          if (v > best || (std::isnan(v) && !std::isnan(best)))
            at[c] = j;
        }
    }
  });
  return positions;
}

/// The max pool in one pass: each sample's largest real value per column,
/// -inf without one.
torch::Tensor maxPoolLoop(const torch::Tensor &h, const torch::Tensor &mask) {
  const torch::Tensor x = h.contiguous(), real = mask.ne(0).contiguous();
  const std::vector<int64_t> positions = maxPoolPositions(x, real);
  const int64_t s = x.size(1), d = x.size(2);
  const bool *isReal = real.data_ptr<bool>();
  torch::Tensor result = at::empty({x.size(0), d}, x.options());
  AT_DISPATCH_FLOATING_TYPES(x.scalar_type(), "max_pool", [&] {
    const scalar_t *values = x.data_ptr<scalar_t>();
    scalar_t *out = result.data_ptr<scalar_t>();
    for (int64_t k = 0; k < int64_t(positions.size()); ++k) {
      const int64_t row = k / d * s + positions[k];
      out[k] = isReal[row] ? values[row * d + k % d]
                           : -std::numeric_limits<scalar_t>::infinity();
    }
  });
  return result;
}

/// Its cotangent: dy where each maximum was, if that is a real position
/// (ATen's autograd, then the padding's cotangent zeroed); zeros elsewhere.
torch::Tensor maxPoolLoopBackward(const torch::Tensor &h,
                                  const torch::Tensor &mask,
                                  const torch::Tensor &dy) {
  const torch::Tensor x = h.contiguous(), g = dy.contiguous(),
                      real = mask.ne(0).contiguous();
  const std::vector<int64_t> positions = maxPoolPositions(x, real);
  const int64_t s = x.size(1), d = x.size(2);
  const bool *isReal = real.data_ptr<bool>();
  torch::Tensor grad = torch::zeros(x.sizes(), g.options());
  AT_DISPATCH_FLOATING_TYPES(g.scalar_type(), "max_pool_backward", [&] {
    const scalar_t *in = g.data_ptr<scalar_t>();
    scalar_t *out = grad.data_ptr<scalar_t>();
    for (int64_t k = 0; k < int64_t(positions.size()); ++k) {
      const int64_t row = k / d * s + positions[k];
      if (isReal[row])
        out[row * d + k % d] = in[k];
    }
  });
  return grad;
}

} // namespace

torch::Tensor pool(const torch::Tensor &h, const torch::Tensor &mask,
                   PoolKind kind) {
  if (kind == PoolKind::Max && maxPoolLoopTakes(h, mask))
    return maxPoolLoop(h, mask);
  const auto real = mask.unsqueeze(-1).to(h.scalar_type());
  switch (kind) {
  case PoolKind::First:
    return h.select(1, 0);
  case PoolKind::Last: {
    // Right padding: the last real token sits at (number of real tokens - 1).
    auto last = (mask.sum(1) - 1).clamp_min(0).to(at::kLong);
    auto index = last.view({-1, 1, 1}).expand({h.size(0), 1, h.size(2)});
    return h.gather(1, index).squeeze(1);
  }
  case PoolKind::Mean:
    return (h * real).sum(1) / real.sum(1).clamp_min(1);
  case PoolKind::Max:
    return std::get<0>(
        h.masked_fill(real == 0, -std::numeric_limits<double>::infinity())
            .max(1));
  }
  TORCH_CHECK(false, "pool: unknown kind");
}

torch::Tensor poolBackward(const torch::Tensor &h, const torch::Tensor &mask,
                           PoolKind kind, const torch::Tensor &dy) {
  if (kind == PoolKind::Max && maxPoolLoopTakes(h, mask) &&
      dy.device().is_cpu() && dy.scalar_type() == h.scalar_type() &&
      dy.sizes() == at::IntArrayRef({h.size(0), h.size(2)}))
    return maxPoolLoopBackward(h, mask, dy);
  const auto real = mask.unsqueeze(-1).to(h.scalar_type());
  torch::Tensor grad = torch::zeros(h.sizes(), dy.options());
  switch (kind) {
  case PoolKind::First:
    grad.select(1, 0).copy_(dy);
    return grad;
  case PoolKind::Last: {
    auto last = (mask.sum(1) - 1).clamp_min(0).to(at::kLong);
    auto index = last.view({-1, 1, 1}).expand({h.size(0), 1, h.size(2)});
    return grad.scatter_add_(1, index, dy.unsqueeze(1));
  }
  case PoolKind::Mean:
    return (dy / real.sum(1).clamp_min(1)).unsqueeze(1) * real;
  case PoolKind::Max: {
    auto positions = std::get<1>(
        h.masked_fill(real == 0, -std::numeric_limits<double>::infinity())
            .max(1));
    return grad.scatter_(1, positions.unsqueeze(1), dy.unsqueeze(1))
        .masked_fill_(real == 0, 0);
  }
  }
  TORCH_CHECK(false, "pool: unknown kind");
}

} // namespace rvnn::runtime::ops
