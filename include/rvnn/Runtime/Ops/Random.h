#ifndef RVNN_RUNTIME_OPS_RANDOM_H
#define RVNN_RUNTIME_OPS_RANDOM_H

#include <cstdint>

#include <torch/types.h>

/// Counter-based random draws for the ops that draw (dropout, dropout_mask,
/// top-k's Gumbel noise, beam_align's sampling). Every draw is a pure
/// function of a (seed, offset) pair, so rerunning part of a forward pass from
/// a remembered offset (the recompute policy) draws exactly what it drew the
/// first time, on any device.
namespace rvnn::runtime::ops {

/// Where the next draw starts. `seed` is the Philox key; `offset` counts the
/// 32-bit words drawn so far in this stream, in multiples of 4.
struct DrawStream {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

/// A stream at offset 0 whose seed is one 64-bit draw from `generator` (a CPU
/// generator; undefined: the default CPU generator). Called once per
/// top-level forward pass, so a seeded run stays reproducible and a
/// checkpoint of the generator resumes it exactly.
DrawStream drawStreamFrom(torch::Generator &generator);

/// Uniforms in the open interval (0, 1), shaped `shape`, float32 on the CPU;
/// advances `stream.offset` by the words used, rounded up to a multiple of 4.
///
/// The mapping, which a GPU kernel must reproduce: with n = numel(shape) and
/// `philox(key, counter)` the Philox4x32-10 block function (ATen's
/// at::philox_engine), element i (row-major) takes word i % 4 of
///   philox(key = {lo32(seed), hi32(seed)},
///          counter = {lo32(i / 4), hi32(i / 4), lo32(offset), hi32(offset)})
/// — i.e. at::philox_engine(seed, /*subsequence=*/offset, /*offset=*/0)
/// called n times — and becomes u = ((word >> 9) + 0.5) * 2^-23, exact in
/// float32 and never 0 or 1.
torch::Tensor uniforms(DrawStream &stream, at::IntArrayRef shape);

/// The kept-element multiplier of dropout at `rate` in one pass over the
/// draws: 1/(1-rate) (1 without `rescale`) where uniforms(stream, shape) is
/// at least `rate`, else 0; `dtype` f32 or f64, on the CPU. Equal, element
/// for element, to uniforms(stream, shape).ge(rate).to(dtype) divided by
/// 1 - rate, and advances the stream as uniforms() does.
torch::Tensor keepMask(DrawStream &stream, at::IntArrayRef shape, double rate,
                       bool rescale, at::ScalarType dtype);

/// Gumbel(0, 1) noise -log(-log(u)) with u = uniforms(stream, shape),
/// computed in `options`' dtype and placed on its device.
torch::Tensor gumbelNoise(DrawStream &stream, at::IntArrayRef shape,
                          const torch::TensorOptions &options);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_RANDOM_H
