#include "rvnn/Runtime/Ops/NN.h"

#include "rvnn/Runtime/Ops/Random.h"

#include <limits>

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
  // A broadcast scalar, not a tensor of ones: the mask is a residual of the
  // backward, and an evaluation-mode forward should not keep a copy of x.
  if (!training || rate == 0)
    return at::ones({}, x.options()).expand(x.sizes());
  TORCH_CHECK(draws, "dropout: training needs a draw stream");
  std::vector<int64_t> maskShape(x.sizes().begin(), x.sizes().end());
  for (int64_t dim : sharedDims) {
    const int64_t rank = x.dim();
    TORCH_CHECK(dim >= -rank && dim < rank, "dropout: shared dim ", dim,
                " out of range for rank ", rank);
    maskShape[dim < 0 ? dim + rank : dim] = 1;
  }
  // Kept where u >= rate: probability 1 - rate.
  torch::Tensor keep = uniforms(*draws, maskShape).ge(rate).to(x.options());
  if (rescale)
    keep.div_(1 - rate);
  return keep.expand(x.sizes());
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

torch::Tensor maskedSoftmax(const torch::Tensor &x, const torch::Tensor &mask,
                            int64_t dim) {
  auto p = at::softmax(x, dim) * mask + 1e-20;
  return p / p.sum(dim, /*keepdim=*/true);
}

std::tuple<torch::Tensor, torch::Tensor>
maskedSoftmaxBackward(const torch::Tensor &x, const torch::Tensor &mask,
                      int64_t dim, const torch::Tensor &dy) {
  const torch::Tensor s = at::softmax(x, dim);
  const torch::Tensor u = s * mask + 1e-20;
  const torch::Tensor z = u.sum(dim, /*keepdim=*/true);
  const torch::Tensor p = u / z;
  const torch::Tensor du = (dy - (dy * p).sum(dim, /*keepdim=*/true)) / z;
  const torch::Tensor ds = du * mask;
  torch::Tensor dx = s * (ds - (ds * s).sum(dim, /*keepdim=*/true));
  return {dx, (du * s).sum_to_size(mask.sizes())};
}

torch::Tensor crossEntropy(const torch::Tensor &logits,
                           const torch::Tensor &labels) {
  return at::cross_entropy_loss(logits, labels);
}

torch::Tensor broadcastLike(const torch::Tensor &x, const torch::Tensor &ref) {
  return x.expand(ref.sizes());
}

torch::Tensor pool(const torch::Tensor &h, const torch::Tensor &mask,
                   PoolKind kind) {
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

} // namespace rvnn::runtime::ops
