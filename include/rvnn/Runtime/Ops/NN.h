#ifndef RVNN_RUNTIME_OPS_NN_H
#define RVNN_RUNTIME_OPS_NN_H

#include <tuple>
#include <vector>

#include <torch/types.h>

#include "rvnn/Runtime/Ops/Random.h"

/// Reference (ATen) implementations of the rvnn NN ops (RvnnNNOps.td). Each
/// function implements the op's contract in docs/dialect-design.md; autograd
/// gives the backward. Masks are float (1 = real token, right padding).
namespace rvnn::runtime::ops {

/// rvnn.linear: `x·wᵀ + b`; `b` may be undefined (no bias).
torch::Tensor linear(const torch::Tensor &x, const torch::Tensor &w,
                     const torch::Tensor &b = {});

/// rvnn.embedding: rows of `table` `[V, D]` picked by i64 `ids` `[...]`.
torch::Tensor embedding(const torch::Tensor &table, const torch::Tensor &ids);

/// rvnn.layer_norm over the last dim.
torch::Tensor layerNorm(const torch::Tensor &x, const torch::Tensor &gamma,
                        const torch::Tensor &beta, double epsilon = 1e-5);

/// rvnn.dropout. Identity unless `training`; otherwise zeroes with
/// probability `rate` (0 <= rate < 1), one mask value shared along each dim in
/// `sharedDims` (negative dims count from the end), kept values scaled by
/// 1/(1-rate) when `rescale`. Draws from `draws` (needed in training), as
/// `x * dropoutMask(...)`.
torch::Tensor dropout(const torch::Tensor &x, double rate, bool rescale,
                      const std::vector<int64_t> &sharedDims, bool training,
                      DrawStream *draws = nullptr);

/// rvnn_exec.dropout_mask: the multiplier `m` (x's shape and type) with
/// `x * m == dropout(x)` for the same draws: 0 where dropped, 1/(1-rate) (or
/// 1 without `rescale`) where kept; ones, drawing nothing, at evaluation or
/// rate 0.
torch::Tensor dropoutMask(const torch::Tensor &x, double rate, bool rescale,
                          const std::vector<int64_t> &sharedDims, bool training,
                          DrawStream *draws = nullptr);

/// rvnn.gelu (exact erf form), rvnn.sigmoid, rvnn.relu.
torch::Tensor gelu(const torch::Tensor &x);
torch::Tensor sigmoid(const torch::Tensor &x);
torch::Tensor relu(const torch::Tensor &x);

/// rvnn.softmax along `dim`.
torch::Tensor softmax(const torch::Tensor &x, int64_t dim = -1);

/// rvnn.masked_softmax (BTC's form): `p = softmax(x)·mask + 1e-20`, then
/// `p / Σ p` along `dim`. `mask` broadcasts to `x`.
torch::Tensor maskedSoftmax(const torch::Tensor &x, const torch::Tensor &mask,
                            int64_t dim = -1);

/// The cotangents of maskedSoftmax's `x` and `mask` (summed to mask's shape)
/// for the result's cotangent `dy`, without an autograd graph. With
/// s = softmax(x), u = s·mask + 1e-20, Z = Σ u, p = u / Z:
/// du = (dy - Σ dy·p) / Z, dx = s·(du·mask - Σ du·mask·s), dmask = du·s,
/// with Σ du·mask·s (mathematically O(1e-20)) in a closed form free of
/// cancellation, so masked entries' dx keep their tiny true values in float32.
std::tuple<torch::Tensor, torch::Tensor>
maskedSoftmaxBackward(const torch::Tensor &x, const torch::Tensor &mask,
                      int64_t dim, const torch::Tensor &dy);

/// rvnn.cross_entropy: mean cross-entropy of `logits` `[N, C]` against i64
/// `labels` `[N]`; a rank-0 tensor.
torch::Tensor crossEntropy(const torch::Tensor &logits,
                           const torch::Tensor &labels);

/// rvnn.broadcast_like: NumPy broadcast of `x` (aligned from the right) to
/// `ref`'s shape, keeping `x`'s element type.
torch::Tensor broadcastLike(const torch::Tensor &x, const torch::Tensor &ref);

enum class PoolKind { First, Last, Mean, Max };

/// rvnn.pool: `h` `[N, S, D]`, `mask` `[N, S]` → `[N, D]`. Every sample is
/// expected to hold at least one real token; without one, `last` gives
/// position 0, `mean` a zero vector and `max` -inf.
torch::Tensor pool(const torch::Tensor &h, const torch::Tensor &mask,
                   PoolKind kind);

/// The cotangent of pool's `h` given its result's `dy`: ATen autograd's
/// through pool, op for op. `h` is read only for its shape except by `max`,
/// which finds its positions again. (The mask is data: `first`, `last` and
/// `max` give it no gradient; `mean` does, and that is left to autograd.)
torch::Tensor poolBackward(const torch::Tensor &h, const torch::Tensor &mask,
                           PoolKind kind, const torch::Tensor &dy);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_NN_H
