#ifndef RVNN_RUNTIME_OPS_BEAM_H
#define RVNN_RUNTIME_OPS_BEAM_H

#include <tuple>

#include <vector>

#include <torch/types.h>

#include "rvnn/Runtime/Ops/Random.h"

/// Reference (ATen) implementations of the rvnn beam ops (RvnnBeamOps.td).
/// Random draws come from a counter-based DrawStream
/// (rvnn/Runtime/Ops/Random.h), needed only by the calls that draw.
namespace rvnn::runtime::ops {

/// rvnn.topk over the last dim: masked entries rank below every real one (they
/// fill the tail only when fewer than k entries are real); with `gumbel` and
/// `training`, Gumbel(0, 1) noise perturbs the selection only. Returns
/// (noise-free values `[..., k]`, i64 indices `[..., k]`), best first.
std::tuple<torch::Tensor, torch::Tensor>
topk(const torch::Tensor &x, const torch::Tensor &mask, int64_t k, bool gumbel,
     bool training, DrawStream *draws = nullptr);

/// rvnn.argmax over the last dim, masked entries excluded → i64 `[..., 1]`.
torch::Tensor argmax(const torch::Tensor &x, const torch::Tensor &mask);

/// rvnn.one_hot: i64 `idx` `[..., K]`, `ref` `[..., S]` → `[..., K, S]` in
/// `ref`'s element type.
torch::Tensor oneHot(const torch::Tensor &idx, const torch::Tensor &ref);

/// rvnn.beam_gather: `x` `[N, B, ...]`, i64 `idx` `[N, K]` (each in
/// `[0, B·factor)`) → `[N, K, ...]`, row k = x's beam `idx[n, k] / factor`.
torch::Tensor beamGather(const torch::Tensor &x, const torch::Tensor &idx,
                         int64_t factor = 1);

/// The cotangent of beamGather for an input of `inputSizes`: `dy`'s rows
/// summed into the beams they were gathered from.
torch::Tensor beamGatherBackward(const torch::Tensor &dy,
                                 const torch::Tensor &idx, int64_t factor,
                                 at::IntArrayRef inputSizes);

/// rvnn.beam_expand: `[N, B, ...]` → `[N, B·factor, ...]`, each beam repeated
/// `factor` times consecutively.
torch::Tensor beamExpand(const torch::Tensor &x, int64_t factor);

/// rvnn.beam_accumulate: `accu` `[N, B]`, `probs` `[N, B, S]`, i64 `idx`
/// `[N, B, K]` → `[N, B·K]` = `accu_b + log(probs[b, idx_bk] + 1e-20)`.
torch::Tensor beamAccumulate(const torch::Tensor &accu,
                             const torch::Tensor &probs,
                             const torch::Tensor &idx);

enum class AlignMode { Sample, Uniform };

/// rvnn.beam_align: `accu`, `beamMask` `[N, B]` → i64 `[N, B]`. Index 0 is
/// beam 0 (the top beam); the other B-1 are drawn with replacement from
/// masked_softmax(accu / temperature, beamMask) (`Sample`) or uniformly over
/// the real beams (`Uniform`), by Gumbel-max. Not differentiable.
torch::Tensor beamAlign(const torch::Tensor &accu,
                        const torch::Tensor &beamMask, double temperature,
                        AlignMode mode, DrawStream *draws = nullptr);

/// rvnn.beam_marginalize: `roots` `[N, B, D]`, `accu`, `beamMask` `[N, B]` →
/// `[N, D]` = Σ_b w_b·roots_b with
/// `w = softmax_b(beamMask·accu + (1-beamMask)·(-999999))`.
torch::Tensor beamMarginalize(const torch::Tensor &roots,
                              const torch::Tensor &accu,
                              const torch::Tensor &beamMask);

/// beamMarginalize's cotangents of `roots`, `accu` and `beamMask` (the
/// mask's only when `maskWanted`) for the result's cotangent `dy`.
std::vector<torch::Tensor>
beamMarginalizeBackward(const torch::Tensor &roots, const torch::Tensor &accu,
                        const torch::Tensor &beamMask, const torch::Tensor &dy,
                        bool maskWanted);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_BEAM_H
