// rvnn_exec.vjp: the cotangents of a primal op's operands, for the backward
// functions rvnn-exec-differentiate writes. The body applies one primal op to
// block arguments (or several slices of one of them, whose cotangents go to
// their windows of one cotangent of it); a fast rule keyed by that op's name
// applies its derivative directly (a dispatch's generated `_grad` kernel,
// ATen's backward functions), and any other op is differentiated by ATen
// autograd through its reference handler. vjp results carry no gradient
// themselves (no second order). Where the derivative reads an operand only for
// its shape, the compiler passes zeros broadcast to that shape (one element,
// zero strides): every rule must give the same cotangents for it, read its
// sizes only and never write into it.
#include "Handlers.h"

#include "GradCollector.h"
#include "rvnn/Runtime/Ops/Attention.h"
#include "rvnn/Runtime/Ops/BandedProduct.h"
#include "rvnn/Runtime/Ops/Beam.h"
#include "rvnn/Runtime/Ops/FewRowProduct.h"
#include "rvnn/Runtime/Ops/Gating.h"
#include "rvnn/Runtime/Ops/JitProduct.h"
#include "rvnn/Runtime/Ops/NN.h"
#include "rvnn/Runtime/Ops/Recursion.h"
#include "rvnn/Runtime/Ops/Scan.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include <torch/autograd.h>

namespace rvnn::runtime {
namespace {

using torch::Tensor;
using Vjp = exec::VjpOp;

/// A fast rule: the cotangent of each operand of the primal op `op` (its
/// operands are bound in `frame`) given the cotangents of its results;
/// undefined where `wanted` is false. nullopt when the rule does not cover
/// this instance of the op (the autograd rule then runs).
using FastRule = std::function<std::optional<std::vector<Tensor>>(
    Executor &executor, const PlanOp &op, const Frame &frame,
    const std::vector<Tensor> &cotangents, const std::vector<bool> &wanted)>;

std::optional<std::vector<Tensor>>
dispatchRule(Executor &executor, const PlanOp &op, const Frame &frame,
             const std::vector<Tensor> &cotangents, const std::vector<bool> &) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < op.operands.size(); ++i)
    inputs.push_back(frame.tensor(op, i));
  const GeneratedKernel *kernel = generatedKernelFor(executor, op, inputs);
  if (!kernel)
    return std::nullopt;
  return generatedKernelGrads(*kernel, inputs, cotangents);
}

/// The batched rhs cotangent lhsᵀ·dy (dyᵀ·lhs for a transposed rhs). With
/// one lhs row (EBT-GRC's selection of a pair, M = 1) the product has a
/// contraction of length 1: a broadcast multiply, where the BLAS would pack
/// both operands for every batch entry.
Tensor batchedOuterGrad(const Tensor &lhs, const Tensor &dy, bool transposed) {
  if (lhs.size(-2) == 1)
    return transposed ? dy.transpose(-2, -1) * lhs : lhs.transpose(-2, -1) * dy;
  return transposed ? at::matmul(dy.transpose(-2, -1), lhs)
                    : at::matmul(lhs.transpose(-2, -1), dy);
}

/// lhs's cotangent dy·op(rhs)ᵀ, given that transpose. With one output
/// column (a scorer's last layer, N = 1) the contraction has length 1: a
/// broadcast multiply instead of a BLAS call that packs both operands; a
/// matrix rhs, or a batch of few rows, as the forward's product
/// (LibraryOps.cpp) multiplies.
Tensor lhsGrad(const Tensor &dy, const Tensor &rhsTransposed) {
  if (dy.size(-1) == 1)
    return dy * rhsTransposed;
  if (rhsTransposed.dim() == 2)
    if (Tensor jit = ops::jitProduct(dy, rhsTransposed); jit.defined())
      return jit;
  if (Tensor few = ops::fewRowProduct(dy, rhsTransposed); few.defined())
    return few;
  return dy.dim() == 2 && rhsTransposed.dim() == 2
             ? dy.mm(rhsTransposed)
             : at::matmul(dy, rhsTransposed);
}

/// `tensor` summed to `sizes` (the adjoint of broadcasting), without an ATen
/// call where it has them already: a loop step's vjps are many small calls.
Tensor sumTo(const Tensor &tensor, at::IntArrayRef sizes) {
  return tensor.sizes() == sizes ? tensor : tensor.sum_to_size(sizes);
}

/// `tensor` as [rows, last dim].
Tensor asRows(const Tensor &tensor) {
  return tensor.dim() == 2 ? tensor : tensor.reshape({-1, tensor.size(-1)});
}

/// The cotangents of lhs and rhs in `grads` (where wanted) for y = lhs ·
/// op(rhs), op(rhs) = rhsᵀ when `transposed`. Returns dy's rows when the
/// rhs's (a weight's) cotangent was deferred to its collector.
Tensor productGrads(const Tensor &lhs, const Tensor &rhs, const Tensor &dy,
                    bool transposed, const std::vector<bool> &wanted,
                    std::vector<Tensor> &grads) {
  using Gemm = exec::GemmOp;
  const bool vectorRhs = rhs.dim() == 1;
  if (wanted[Gemm::operand::lhs])
    grads[Gemm::operand::lhs] =
        sumTo(vectorRhs ? dy.unsqueeze(-1) * rhs
                        : lhsGrad(dy, transposed ? rhs : rhs.transpose(-2, -1)),
              lhs.sizes());
  if (!wanted[Gemm::operand::rhs])
    return Tensor();
  if (vectorRhs) {
    grads[Gemm::operand::rhs] = asRows(lhs).t().mv(dy.reshape({-1}));
  } else if (rhs.dim() == 2) {
    // Every leading dim of lhs is a row of one [rows, K] · [K, N] product.
    Tensor lhsRows = asRows(lhs);
    Tensor dyRows = asRows(dy);
    Tensor deferred = deferWeightGrad(rhs, lhsRows, dyRows, transposed);
    grads[Gemm::operand::rhs] = deferred.defined() ? deferred
                                : transposed
                                    ? transposedProduct(dyRows, lhsRows)
                                    : transposedProduct(lhsRows, dyRows);
    return deferred.defined() ? dyRows : Tensor();
  } else {
    grads[Gemm::operand::rhs] =
        sumTo(batchedOuterGrad(lhs, dy, transposed), rhs.sizes());
  }
  return Tensor();
}

/// y = lhs · op(rhs) + bias + accumulator, op(rhs) = rhsᵀ with transpose_rhs.
/// Covers a 2-D rhs under any lhs of rank >= 2 (the linear layer), batched
/// 3-D products (on a band of lhs's columns, if the gemm has one) and a
/// vector rhs (a scorer's weights, y = lhs·rhs).
std::optional<std::vector<Tensor>>
gemmRule(Executor &, const PlanOp &op, const Frame &frame,
         const std::vector<Tensor> &cotangents,
         const std::vector<bool> &wanted) {
  using Gemm = exec::GemmOp;
  const Tensor lhs = frame.tensor(op, Gemm::operand::lhs);
  const Tensor rhs = frame.tensor(op, Gemm::operand::rhs);
  const bool vectorRhs = rhs.dim() == 1 && lhs.dim() >= 2;
  const bool matrixRhs = rhs.dim() == 2 && lhs.dim() >= 2;
  const bool batched = rhs.dim() == 3 && lhs.dim() == 3;
  if (!vectorRhs && !matrixRhs && !batched)
    return std::nullopt;
  const Tensor &dy = cotangents.at(0);
  std::vector<Tensor> grads(op.operands.size());
  OperandGroup band = operandGroup(op, Gemm::operand::lhs_band);
  Tensor deferredDyRows;
  if (band.size)
    std::tie(grads[Gemm::operand::lhs], grads[Gemm::operand::rhs]) =
        ops::bandedProductBackward(lhs, frame.tensor(op, band.begin), rhs, dy,
                                   wanted[Gemm::operand::lhs],
                                   wanted[Gemm::operand::rhs]);
  else
    deferredDyRows = productGrads(
        lhs, rhs, dy, hasAttr(op, Gemm::attr::transpose_rhs), wanted, grads);
  // Bias and accumulator are added (broadcast): their cotangent is dy summed
  // back to their shape; a bias's waits in its collector with the rows the
  // weight's collector holds.
  for (size_t group : {Gemm::operand::bias, Gemm::operand::accumulator}) {
    OperandGroup operands = operandGroup(op, group);
    if (!operands.size || !wanted[operands.begin])
      continue;
    const Tensor target = frame.tensor(op, operands.begin);
    Tensor deferred = group == Gemm::operand::bias && deferredDyRows.defined()
                          ? deferBiasGrad(target, deferredDyRows)
                          : Tensor();
    grads[operands.begin] =
        deferred.defined() ? deferred : sumTo(dy, target.sizes());
  }
  return grads;
}

/// Rules of one-operand ops: the cotangent of the operand from the operand
/// and the result's cotangent.
template <typename Derivative> FastRule unaryRule(Derivative derivative) {
  return [derivative](
             Executor &, const PlanOp &op, const Frame &frame,
             const std::vector<Tensor> &cotangents,
             const std::vector<bool> &) -> std::optional<std::vector<Tensor>> {
    return std::vector<Tensor>{
        derivative(frame.tensor(op, 0), cotangents.at(0))};
  };
}

/// ops::gelu is the exact (erf) form: approximate "none".
Tensor geluGrad(const Tensor &x, const Tensor &dy) {
  return at::gelu_backward(dy, x, "none");
}

Tensor sigmoidGrad(const Tensor &x, const Tensor &dy) {
  return at::sigmoid_backward(dy, at::sigmoid(x));
}

/// relu(x) <= 0 exactly where x <= 0, so thresholding x is thresholding the
/// result (what ATen's relu backward does).
Tensor reluGrad(const Tensor &x, const Tensor &dy) {
  return at::threshold_backward(dy, x, 0);
}

/// maximum / minimum pass the cotangent to the operand that won, half of it
/// to each on a tie (ATen's derivatives.yaml), summed back over broadcast
/// dims; other elementwise ops outside a dispatch take the autograd rule.
std::optional<std::vector<Tensor>>
elementwiseRule(Executor &, const PlanOp &op, const Frame &frame,
                const std::vector<Tensor> &cotangents,
                const std::vector<bool> &wanted) {
  using Fn = contract::ElementwiseFn;
  const Fn fn =
      enumAttr(op, exec::ElementwiseOp::attr::fn, contract::parseElementwiseFn);
  if (fn != Fn::max && fn != Fn::min)
    return std::nullopt;
  const Tensor a = frame.tensor(op, 0);
  const Tensor b = frame.tensor(op, 1);
  const Tensor &dy = cotangents.at(0);
  const Tensor shared = at::where(a == b, dy / 2, dy);
  // For max, a loses where a < b; for min, where a > b.
  const Tensor aLoses = fn == Fn::max ? a < b : a > b;
  const Tensor bLoses = fn == Fn::max ? a > b : a < b;
  std::vector<Tensor> grads(2);
  if (wanted[0])
    grads[0] = shared.masked_fill(aLoses, 0).sum_to_size(a.sizes());
  if (wanted[1])
    grads[1] = shared.masked_fill(bLoses, 0).sum_to_size(b.sizes());
  return grads;
}

/// pool's cotangent by ops::poolBackward; a mean's mask cotangent takes the
/// autograd rule.
std::optional<std::vector<Tensor>>
poolRule(Executor &, const PlanOp &op, const Frame &frame,
         const std::vector<Tensor> &cotangents,
         const std::vector<bool> &wanted) {
  using Pool = exec::PoolOp;
  const ops::PoolKind kind = poolKind(op);
  if (kind == ops::PoolKind::Mean && wanted[Pool::operand::mask])
    return std::nullopt;
  std::vector<Tensor> grads(op.operands.size());
  grads[Pool::operand::h] = ops::poolBackward(
      frame.tensor(op, Pool::operand::h), frame.tensor(op, Pool::operand::mask),
      kind, cotangents.at(0));
  return grads;
}

/// soft_depth_mix s = σ(α⊙deep + (1-α)⊙shallow): with ds = dy⊙s⊙(1-s)
/// (ATen's sigmoid backward), deep's cotangent is α⊙ds, shallow's (1-α)⊙ds
/// and α's (deep - shallow)⊙ds summed back to α's shape.
std::optional<std::vector<Tensor>>
softDepthMixRule(Executor &, const PlanOp &op, const Frame &frame,
                 const std::vector<Tensor> &cotangents,
                 const std::vector<bool> &wanted) {
  using SoftDepthMix = exec::SoftDepthMixOp;
  const Tensor alpha = frame.tensor(op, SoftDepthMix::operand::alpha);
  const Tensor deep = frame.tensor(op, SoftDepthMix::operand::deep);
  const Tensor shallow = frame.tensor(op, SoftDepthMix::operand::shallow);
  const Tensor ds = at::sigmoid_backward(
      cotangents.at(0), ops::softDepthMix(alpha, deep, shallow));
  std::vector<Tensor> grads(op.operands.size());
  if (wanted[SoftDepthMix::operand::alpha])
    grads[SoftDepthMix::operand::alpha] =
        ((deep - shallow) * ds).sum_to_size(alpha.sizes());
  if (wanted[SoftDepthMix::operand::deep])
    grads[SoftDepthMix::operand::deep] = ds * alpha;
  if (wanted[SoftDepthMix::operand::shallow])
    grads[SoftDepthMix::operand::shallow] = ds * (1 - alpha);
  return grads;
}

/// ops::layerNorm is at::layer_norm over the last dim; its backward needs the
/// statistics of the forward, recomputed here.
std::optional<std::vector<Tensor>>
layerNormRule(Executor &, const PlanOp &op, const Frame &frame,
              const std::vector<Tensor> &cotangents,
              const std::vector<bool> &wanted) {
  using LayerNorm = exec::LayerNormOp;
  const Tensor x = frame.tensor(op, LayerNorm::operand::input);
  const Tensor gamma = frame.tensor(op, LayerNorm::operand::gamma);
  const Tensor beta = frame.tensor(op, LayerNorm::operand::beta);
  const double epsilon = attrAs<double>(op, LayerNorm::attr::epsilon);
  const std::vector<int64_t> normalized{x.size(-1)};
  auto [y, mean, rstd] =
      at::native_layer_norm(x, normalized, gamma, beta, epsilon);
  auto [dx, dgamma, dbeta] = at::native_layer_norm_backward(
      cotangents.at(0), x, normalized, mean, rstd, gamma, beta,
      {wanted[LayerNorm::operand::input], wanted[LayerNorm::operand::gamma],
       wanted[LayerNorm::operand::beta]});
  std::vector<Tensor> grads(op.operands.size());
  grads[LayerNorm::operand::input] = dx;
  grads[LayerNorm::operand::gamma] = dgamma;
  grads[LayerNorm::operand::beta] = dbeta;
  return grads;
}

/// A tensor of `source`'s shape with `dy` in the window `spec` takes and
/// zeros elsewhere. With unit strides it is written once: the window copied
/// and only the margins around it zeroed (a recursion step's slices leave
/// out a row or two of their source: zeroing all of it and adding the
/// window went over it three times).
Tensor zerosAroundWindow(const Tensor &source, const SliceSpec &spec,
                         Tensor dy) {
  auto unit = [](int64_t stride) { return stride == 1; };
  if (!std::all_of(spec.strides.begin(), spec.strides.end(), unit)) {
    Tensor grad = at::zeros_like(source, at::MemoryFormat::Contiguous);
    addIntoWindow(grad, spec, dy);
    return grad;
  }
  Tensor grad = at::empty(source.sizes(), source.options());
  for (int64_t dim : spec.dropped)
    dy = dy.unsqueeze(dim);
  stridedSlice(grad, spec).copy_(dy);
  // An element lies outside the window iff one of its indices does.
  for (int64_t d = 0; d < grad.dim(); ++d) {
    const int64_t end = spec.offsets[d] + spec.sizes[d];
    if (spec.offsets[d] > 0)
      grad.narrow(d, 0, spec.offsets[d]).zero_();
    if (end < grad.size(d))
      grad.narrow(d, end, grad.size(d) - end).zero_();
  }
  return grad;
}

/// When two or more `windows` tile `source` along one dim (each spans the
/// source in every other dim, unit strides, and together they cover that dim
/// once, in any order): their cotangents concatenated, written once, instead of
/// zeros around the first window and adds of the others (a GRC cell's four
/// gates where the rows are dynamic, so the compiler cannot fold the slices
/// into a concat). Otherwise nullopt.
std::optional<Tensor> concatOfTiling(const Tensor &source,
                                     const std::vector<SliceSpec> &windows,
                                     const std::vector<Tensor> &dys) {
  std::optional<int64_t> along;
  for (const SliceSpec &window : windows)
    for (int64_t d = 0; d < source.dim(); ++d) {
      if (window.strides[d] != 1)
        return std::nullopt;
      const bool spans =
          window.offsets[d] == 0 && window.sizes[d] == source.size(d);
      if (spans)
        continue;
      if (along && *along != d)
        return std::nullopt;
      along = d;
    }
  if (!along || windows.size() < 2)
    return std::nullopt; // one window: zerosAroundWindow writes it once too
  std::vector<size_t> order(windows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return windows[a].offsets[*along] < windows[b].offsets[*along];
  });
  std::vector<Tensor> parts;
  int64_t covered = 0;
  for (size_t i : order) {
    if (windows[i].offsets[*along] != covered)
      return std::nullopt;
    covered += windows[i].sizes[*along];
    Tensor dy = dys.at(i);
    for (int64_t dim : windows[i].dropped)
      dy = dy.unsqueeze(dim);
    parts.push_back(dy);
  }
  if (covered != source.size(*along))
    return std::nullopt;
  return at::cat(parts, *along);
}

/// The cotangent of the source of slices from their windows' cotangents
/// `dys`: added into the gradient the source's collector keeps
/// (windowGrad), leaving a deferred zero, or else into a zero tensor of
/// the source's shape.
Tensor windowsGrad(const Tensor &source, const std::vector<SliceSpec> &windows,
                   const std::vector<Tensor> &dys) {
  if (WindowGrad collected = windowGrad(source); collected.sum.defined()) {
    for (size_t i = 0; i < windows.size(); ++i)
      addIntoWindow(collected.sum, windows[i], dys.at(i));
    return collected.zero;
  }
  if (windows.empty())
    return at::zeros_like(source, at::MemoryFormat::Contiguous);
  if (std::optional<Tensor> tiled = concatOfTiling(source, windows, dys))
    return *tiled;
  Tensor grad = zerosAroundWindow(source, windows.front(), dys.at(0));
  for (size_t i = 1; i < windows.size(); ++i)
    addIntoWindow(grad, windows[i], dys.at(i));
  return grad;
}

/// The slice's cotangent lands in its window of the source's cotangent; the
/// offsets and sizes (index operands) get none.
std::optional<std::vector<Tensor>>
sliceRule(Executor &, const PlanOp &op, const Frame &frame,
          const std::vector<Tensor> &cotangents, const std::vector<bool> &) {
  using Slice = exec::SliceOp;
  std::vector<Tensor> grads(op.operands.size());
  grads[Slice::operand::source] =
      windowsGrad(frame.tensor(op, Slice::operand::source),
                  {sliceSpec(op, frame)}, {cotangents.at(0)});
  return grads;
}

/// chunk and unchunk move elements: their cotangents move back (the
/// padding chunk added gets none; unchunk's `ref` is read for its size).
std::optional<std::vector<Tensor>>
chunkRule(Executor &, const PlanOp &op, const Frame &frame,
          const std::vector<Tensor> &cotangents,
          const std::vector<bool> &wanted) {
  using Chunk = exec::ChunkOp;
  const int64_t size = attrAs<int64_t>(op, Chunk::attr::size);
  std::vector<Tensor> grads(op.operands.size());
  if (wanted[Chunk::operand::x])
    grads[Chunk::operand::x] = ops::chunkBackward(
        cotangents.at(0), frame.tensor(op, Chunk::operand::x).sizes(), size,
        attrAs<int64_t>(op, Chunk::attr::dim));
  if (wanted[Chunk::operand::mask])
    grads[Chunk::operand::mask] = ops::chunkBackward(
        cotangents.at(1), frame.tensor(op, Chunk::operand::mask).sizes(), size);
  return grads;
}

std::optional<std::vector<Tensor>>
unchunkRule(Executor &, const PlanOp &op, const Frame &frame,
            const std::vector<Tensor> &cotangents, const std::vector<bool> &) {
  using Unchunk = exec::UnchunkOp;
  std::vector<Tensor> grads(op.operands.size());
  grads[Unchunk::operand::x] = ops::unchunkBackward(
      cotangents.at(0), frame.tensor(op, Unchunk::operand::x).sizes(),
      attrAs<int64_t>(op, Unchunk::attr::dim));
  return grads;
}

/// beam_gather's cotangent is scattered back to the rows it gathered (its
/// input is read only for its shape: rvnn-exec-differentiate passes zeros
/// broadcast to it); no gradient for the indices.
std::optional<std::vector<Tensor>>
beamGatherRule(Executor &, const PlanOp &op, const Frame &frame,
               const std::vector<Tensor> &cotangents,
               const std::vector<bool> &) {
  using BeamGather = exec::BeamGatherOp;
  std::vector<Tensor> grads(op.operands.size());
  grads[BeamGather::operand::input] = ops::beamGatherBackward(
      cotangents.at(0), frame.tensor(op, BeamGather::operand::indices),
      attrAs<int64_t>(op, BeamGather::attr::factor),
      frame.tensor(op, BeamGather::operand::input).sizes());
  return grads;
}

/// beam_expand repeats each beam `factor` times: the cotangent sums the
/// repeats.
std::optional<std::vector<Tensor>>
beamExpandRule(Executor &, const PlanOp &op, const Frame &frame,
               const std::vector<Tensor> &cotangents,
               const std::vector<bool> &) {
  using BeamExpand = exec::BeamExpandOp;
  const Tensor input = frame.tensor(op, BeamExpand::operand::input);
  std::vector<int64_t> repeated(input.sizes().begin(), input.sizes().end());
  repeated.insert(repeated.begin() + 2,
                  attrAs<int64_t>(op, BeamExpand::attr::factor));
  std::vector<Tensor> grads(op.operands.size());
  grads[BeamExpand::operand::input] = cotangents.at(0).reshape(repeated).sum(2);
  return grads;
}

/// beam_accumulate's children scores accu_b + log(p[pick] + 1e-20): the
/// parent's cotangent sums its children's, p's is scattered to the picks.
std::optional<std::vector<Tensor>>
beamAccumulateRule(Executor &, const PlanOp &op, const Frame &frame,
                   const std::vector<Tensor> &cotangents,
                   const std::vector<bool> &wanted) {
  using BeamAccumulate = exec::BeamAccumulateOp;
  const Tensor probs = frame.tensor(op, BeamAccumulate::operand::probs);
  const Tensor idx = frame.tensor(op, BeamAccumulate::operand::indices);
  const Tensor dy = cotangents.at(0).reshape(idx.sizes());
  std::vector<Tensor> grads(op.operands.size());
  if (wanted[BeamAccumulate::operand::accu])
    grads[BeamAccumulate::operand::accu] = dy.sum(-1);
  if (wanted[BeamAccumulate::operand::probs])
    grads[BeamAccumulate::operand::probs] = at::zeros_like(probs).scatter_add_(
        2, idx, dy / (probs.gather(2, idx) + 1e-20));
  return grads;
}

/// mode_select passes the cotangent to the operand the mode selected (the
/// backward runs in the mode of its forward); the other one's is zero.
std::optional<std::vector<Tensor>>
modeSelectRule(Executor &executor, const PlanOp &op, const Frame &,
               const std::vector<Tensor> &cotangents,
               const std::vector<bool> &wanted) {
  using ModeSelect = exec::ModeSelectOp;
  const size_t selected = executor.context().training
                              ? ModeSelect::operand::training
                              : ModeSelect::operand::evaluation;
  std::vector<Tensor> grads(op.operands.size());
  if (wanted[selected])
    grads[selected] = cotangents.at(0);
  return grads;
}

/// masked_softmax's backward from its inputs (ops::maskedSoftmaxBackward).
std::optional<std::vector<Tensor>>
maskedSoftmaxRule(Executor &, const PlanOp &op, const Frame &frame,
                  const std::vector<Tensor> &cotangents,
                  const std::vector<bool> &wanted) {
  using MaskedSoftmax = exec::MaskedSoftmaxOp;
  auto [dx, dmask] = ops::maskedSoftmaxBackward(
      frame.tensor(op, MaskedSoftmax::operand::input),
      frame.tensor(op, MaskedSoftmax::operand::mask),
      attrAs<int64_t>(op, MaskedSoftmax::attr::dim), cotangents.at(0));
  std::vector<Tensor> grads(op.operands.size());
  grads[MaskedSoftmax::operand::input] = dx;
  if (wanted[MaskedSoftmax::operand::mask])
    grads[MaskedSoftmax::operand::mask] = dmask;
  return grads;
}

/// neighbour_retrieve's kernel backward (the mask's cotangent too where it
/// is wanted: RIR-CRvNN's chunk masks).
std::optional<std::vector<Tensor>>
neighbourRetrieveRule(Executor &, const PlanOp &op, const Frame &frame,
                      const std::vector<Tensor> &cotangents,
                      const std::vector<bool> &wanted) {
  using NeighbourRetrieve = exec::NeighbourRetrieveOp;
  auto operandGrads = ops::neighbourRetrieveBackward(
      frame.tensor(op, NeighbourRetrieve::operand::exist),
      frame.tensor(op, NeighbourRetrieve::operand::mask),
      neighbourDirection(op), cotangents.at(0),
      wanted[NeighbourRetrieve::operand::mask]);
  if (!operandGrads)
    return std::nullopt;
  std::vector<Tensor> grads(op.operands.size());
  grads[NeighbourRetrieve::operand::exist] = operandGrads->first;
  grads[NeighbourRetrieve::operand::mask] = operandGrads->second;
  return grads;
}

/// pair_merge's kernel backward: no recomputed forward, and no cotangent of
/// sel unless it is wanted (EBT-GRC's sel is a one-hot of chosen pairs).
std::optional<std::vector<Tensor>>
pairMergeRule(Executor &, const PlanOp &op, const Frame &frame,
              const std::vector<Tensor> &cotangents,
              const std::vector<bool> &wanted) {
  using PairMerge = exec::PairMergeOp;
  return ops::pairMergeBackward(frame.tensor(op, PairMerge::operand::h),
                                frame.tensor(op, PairMerge::operand::cand),
                                frame.tensor(op, PairMerge::operand::sel),
                                cotangents.at(0),
                                wanted[PairMerge::operand::sel]);
}

/// diagonal_scan's explicit backward, the reverse scan (ops/DiagonalScan.cpp);
/// mask, being data, has no rule.
std::optional<std::vector<Tensor>>
diagonalScanRule(Executor &, const PlanOp &op, const Frame &frame,
                 const std::vector<Tensor> &cotangents,
                 const std::vector<bool> &wanted) {
  using DiagonalScan = exec::DiagonalScanOp;
  if (wanted[DiagonalScan::operand::mask])
    return std::nullopt;
  auto scanGrads = ops::diagonalScanBackward(
      frame.tensor(op, DiagonalScan::operand::u),
      frame.tensor(op, DiagonalScan::operand::a_re),
      frame.tensor(op, DiagonalScan::operand::a_im),
      frame.tensor(op, DiagonalScan::operand::b_re),
      frame.tensor(op, DiagonalScan::operand::b_im),
      frame.tensor(op, DiagonalScan::operand::c_re),
      frame.tensor(op, DiagonalScan::operand::c_im),
      frame.tensor(op, DiagonalScan::operand::mask),
      attrAs<bool>(op, DiagonalScan::attr::reverse), cotangents.at(0));
  if (!scanGrads)
    return std::nullopt;
  std::vector<Tensor> grads(op.operands.size());
  for (size_t i = 0; i < scanGrads->size(); ++i)
    if (wanted[i])
      grads[i] = (*scanGrads)[i];
  return grads;
}

/// embedding's table cotangent: the rows' cotangents summed into the rows
/// they were read from (the table is read for its row count only).
std::optional<std::vector<Tensor>>
embeddingRule(Executor &, const PlanOp &op, const Frame &frame,
              const std::vector<Tensor> &cotangents,
              const std::vector<bool> &) {
  using Embedding = exec::EmbeddingOp;
  std::vector<Tensor> grads(op.operands.size());
  grads[Embedding::operand::table] = at::embedding_dense_backward(
      cotangents.at(0), frame.tensor(op, Embedding::operand::ids),
      frame.tensor(op, Embedding::operand::table).size(0),
      /*padding_idx=*/-1, /*scale_grad_by_freq=*/false);
  return grads;
}

/// beam_marginalize's backward through its softmax over the beams.
std::optional<std::vector<Tensor>>
beamMarginalizeRule(Executor &, const PlanOp &op, const Frame &frame,
                    const std::vector<Tensor> &cotangents,
                    const std::vector<bool> &wanted) {
  using BeamMarginalize = exec::BeamMarginalizeOp;
  return ops::beamMarginalizeBackward(
      frame.tensor(op, BeamMarginalize::operand::roots),
      frame.tensor(op, BeamMarginalize::operand::accu),
      frame.tensor(op, BeamMarginalize::operand::beam_mask), cotangents.at(0),
      wanted[BeamMarginalize::operand::beam_mask]);
}

/// geometric_attention's fused kernel backward (after its forward, as the
/// autograd rule would run it, but with no graph); mask, being data, has no
/// rule.
std::optional<std::vector<Tensor>>
geometricAttentionRule(Executor &, const PlanOp &op, const Frame &frame,
                       const std::vector<Tensor> &cotangents,
                       const std::vector<bool> &wanted) {
  using GeometricAttention = exec::GeometricAttentionOp;
  if (wanted[GeometricAttention::operand::mask])
    return std::nullopt;
  auto tensor = [&](size_t operand) { return frame.tensor(op, operand); };
  return ops::geometricAttentionBackward(
      tensor(GeometricAttention::operand::q),
      tensor(GeometricAttention::operand::k),
      tensor(GeometricAttention::operand::v),
      tensor(GeometricAttention::operand::back),
      tensor(GeometricAttention::operand::front),
      tensor(GeometricAttention::operand::mask),
      tensor(GeometricAttention::operand::scale),
      tensor(GeometricAttention::operand::bias),
      attrAs<bool>(op, GeometricAttention::attr::normalize), cotangents.at(0));
}

/// masked_attention's backward (the weights recomputed); mask, being data,
/// has no rule.
std::optional<std::vector<Tensor>>
maskedAttentionRule(Executor &, const PlanOp &op, const Frame &frame,
                    const std::vector<Tensor> &cotangents,
                    const std::vector<bool> &wanted) {
  using MaskedAttention = exec::MaskedAttentionOp;
  if (wanted[MaskedAttention::operand::mask])
    return std::nullopt;
  std::vector<Tensor> grads = ops::maskedAttentionBackward(
      frame.tensor(op, MaskedAttention::operand::q),
      frame.tensor(op, MaskedAttention::operand::k),
      frame.tensor(op, MaskedAttention::operand::v),
      frame.tensor(op, MaskedAttention::operand::mask),
      attrAs<bool>(op, MaskedAttention::attr::causal), cotangents.at(0));
  grads.resize(op.operands.size());
  return grads;
}

/// softmax's backward, ATen's kernel on the recomputed output (Ordered
/// Memory's attention over its slots).
std::optional<std::vector<Tensor>>
softmaxRule(Executor &, const PlanOp &op, const Frame &frame,
            const std::vector<Tensor> &cotangents, const std::vector<bool> &) {
  using Softmax = exec::SoftmaxOp;
  const Tensor &x = frame.tensor(op, Softmax::operand::input);
  const int64_t dim = attrAs<int64_t>(op, Softmax::attr::dim);
  Tensor y = ops::softmax(x, dim);
  return std::vector<Tensor>{at::_softmax_backward_data(
      cotangents.at(0).contiguous(), y, dim < 0 ? dim + x.dim() : dim,
      x.scalar_type())};
}

/// cumax's backward: the reverse cumulative sum, then the softmax's.
std::optional<std::vector<Tensor>>
cumaxRule(Executor &, const PlanOp &op, const Frame &frame,
          const std::vector<Tensor> &cotangents, const std::vector<bool> &) {
  using Cumax = exec::CumaxOp;
  return std::vector<Tensor>{ops::cumaxBackward(
      frame.tensor(op, Cumax::operand::x),
      attrAs<int64_t>(op, Cumax::attr::dim), cotangents.at(0))};
}

const std::map<std::string_view, FastRule> &fastRules() {
  static const std::map<std::string_view, FastRule> rules = {
      {exec::DispatchOp::name, dispatchRule},
      {exec::GemmOp::name, gemmRule},
      {exec::ElementwiseOp::name, elementwiseRule},
      {exec::PoolOp::name, poolRule},
      {exec::SoftDepthMixOp::name, softDepthMixRule},
      {exec::GeluOp::name, unaryRule(geluGrad)},
      {exec::SigmoidOp::name, unaryRule(sigmoidGrad)},
      {exec::ReluOp::name, unaryRule(reluGrad)},
      {exec::LayerNormOp::name, layerNormRule},
      {exec::SliceOp::name, sliceRule},
      {exec::BeamGatherOp::name, beamGatherRule},
      {exec::BeamExpandOp::name, beamExpandRule},
      {exec::PairMergeOp::name, pairMergeRule},
      {exec::BeamAccumulateOp::name, beamAccumulateRule},
      {exec::ModeSelectOp::name, modeSelectRule},
      {exec::MaskedSoftmaxOp::name, maskedSoftmaxRule},
      {exec::NeighbourRetrieveOp::name, neighbourRetrieveRule},
      {exec::DiagonalScanOp::name, diagonalScanRule},
      {exec::EmbeddingOp::name, embeddingRule},
      {exec::BeamMarginalizeOp::name, beamMarginalizeRule},
      {exec::GeometricAttentionOp::name, geometricAttentionRule},
      {exec::MaskedAttentionOp::name, maskedAttentionRule},
      {exec::CumaxOp::name, cumaxRule},
      {exec::SoftmaxOp::name, softmaxRule},
      {exec::ChunkOp::name, chunkRule},
      {exec::UnchunkOp::name, unchunkRule},
  };
  return rules;
}

/// The vjp's operands and the primals it wants cotangents of.
struct VjpInputs {
  std::vector<RuntimeValue> primals;
  std::vector<Tensor> cotangents;
  /// The op's decoded grad_inputs (PlanOp::intArrays), not a copy.
  at::IntArrayRef gradInputs;
};

VjpInputs vjpInputs(const PlanOp &op, const Frame &frame) {
  VjpInputs in;
  OperandGroup primals = operandGroup(op, Vjp::operand::primals);
  for (size_t i = 0; i < primals.size; ++i)
    in.primals.push_back(frame.get(op, op.operands[primals.begin + i]));
  OperandGroup cotangents = operandGroup(op, Vjp::operand::cotangents);
  for (size_t i = 0; i < cotangents.size; ++i)
    in.cotangents.push_back(frame.tensor(op, cotangents.begin + i));
  in.gradInputs = intArrayAttr(op, Vjp::attr::grad_inputs);
  if (in.gradInputs.size() != op.results.size())
    throw PlanError(op.where() + ": has " + std::to_string(op.results.size()) +
                    " results for " + std::to_string(in.gradInputs.size()) +
                    " grad_inputs");
  for (int64_t index : in.gradInputs)
    if (index < 0 || index >= static_cast<int64_t>(in.primals.size()) ||
        !std::holds_alternative<Tensor>(in.primals[index]))
      throw PlanError(op.where() + ": grad_inputs entry " +
                      std::to_string(index) + " is not a tensor primal");
  return in;
}

/// The block argument `id` is, or nullopt.
std::optional<size_t> argumentIndex(const PlanRegion &body, int64_t id) {
  auto arg = std::find(body.args.begin(), body.args.end(), id);
  if (arg == body.args.end())
    return std::nullopt;
  return static_cast<size_t>(arg - body.args.begin());
}

/// A body of several slices of one block argument, yielded in order: each
/// cotangent is added into its window of the source's cotangent
/// (windowsGrad; the index operands get none). Nullopt for any other body.
std::optional<std::vector<Tensor>>
slicesGrads(Frame &frame, const PlanRegion &body, const VjpInputs &in) {
  const std::vector<PlanOp> &ops = body.body;
  if (ops.size() < 3 || ops.back().operands.size() != ops.size() - 1)
    return std::nullopt;
  std::optional<size_t> source;
  for (size_t i = 0; i + 1 < ops.size(); ++i) {
    const PlanOp &slice = ops[i];
    if (slice.name != exec::SliceOp::name ||
        ops.back().operands[i] != slice.results.at(0))
      return std::nullopt;
    std::optional<size_t> arg =
        argumentIndex(body, slice.operands.at(exec::SliceOp::operand::source));
    if (!arg || (source && *source != *arg))
      return std::nullopt;
    source = arg;
  }
  for (size_t i = 0; i < body.args.size(); ++i)
    frame.bind(body.args[i], in.primals.at(i));
  torch::NoGradGuard noGrad;
  std::vector<SliceSpec> windows;
  for (size_t i = 0; i + 1 < ops.size(); ++i)
    windows.push_back(sliceSpec(ops[i], frame));
  Tensor grad = windowsGrad(std::get<Tensor>(in.primals.at(*source)), windows,
                            in.cotangents);
  std::vector<Tensor> grads;
  for (int64_t index : in.gradInputs)
    grads.push_back(static_cast<size_t>(index) == *source ? grad : Tensor());
  return grads;
}

/// The fast rule's cotangents of the primals at grad_inputs, or nullopt when
/// no rule covers the body: it must be one op with a rule, on block
/// arguments, whose results the body yields in order, or slices of one block
/// argument (slicesGrads).
std::optional<std::vector<Tensor>> fastGrads(Executor &executor,
                                             const PlanOp &op, Frame &frame,
                                             const VjpInputs &in) {
  const PlanRegion &body = op.regions.at(0);
  if (body.body.size() > 2)
    return slicesGrads(frame, body, in);
  if (body.body.size() != 2)
    return std::nullopt;
  const PlanOp &primalOp = body.body[0];
  auto rule = fastRules().find(primalOp.name);
  if (rule == fastRules().end() || body.body[1].operands != primalOp.results)
    return std::nullopt;
  // Which primal (block argument) each operand of the primal op is.
  std::vector<size_t> primalOf;
  for (int64_t id : primalOp.operands) {
    std::optional<size_t> arg = argumentIndex(body, id);
    if (!arg)
      return std::nullopt;
    primalOf.push_back(*arg);
  }
  for (size_t i = 0; i < body.args.size(); ++i)
    frame.bind(body.args[i], in.primals.at(i));
  std::vector<bool> wanted(primalOf.size());
  for (size_t j = 0; j < primalOf.size(); ++j)
    wanted[j] = std::count(in.gradInputs.begin(), in.gradInputs.end(),
                           static_cast<int64_t>(primalOf[j])) > 0;

  torch::NoGradGuard noGrad;
  std::optional<std::vector<Tensor>> operandGrads =
      rule->second(executor, primalOp, frame, in.cotangents, wanted);
  if (!operandGrads)
    return std::nullopt;
  // A primal used as several operands gets the sum of their cotangents.
  std::vector<Tensor> grads;
  for (int64_t index : in.gradInputs) {
    Tensor sum;
    for (size_t j = 0; j < primalOf.size(); ++j) {
      const Tensor &grad = operandGrads->at(j);
      if (primalOf[j] == static_cast<size_t>(index) && grad.defined())
        sum = sum.defined() ? sum + grad : grad;
    }
    grads.push_back(sum);
  }
  return grads;
}

/// The default rule: ATen autograd through the body's reference handlers,
/// local to this op (detached primals, no graph kept).
std::vector<Tensor> autogradGrads(Executor &executor, const PlanOp &op,
                                  Frame &frame, const VjpInputs &in) {
  std::vector<RuntimeValue> args = in.primals;
  for (RuntimeValue &arg : args)
    if (auto *tensor = std::get_if<Tensor>(&arg))
      if (tensor->is_floating_point())
        *tensor = tensor->detach().requires_grad_(true);
  torch::AutoGradMode enableGrad(true);
  std::vector<RuntimeValue> outputs =
      executor.runRegion(op.regions.at(0), frame, args);
  if (outputs.size() != in.cotangents.size())
    throw PlanError(op.where() + ": the body yields " +
                    std::to_string(outputs.size()) + " values for " +
                    std::to_string(in.cotangents.size()) + " cotangents");
  torch::autograd::variable_list differentiable, cotangents, inputs;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const auto *output = std::get_if<Tensor>(&outputs[i]);
    if (output && output->requires_grad()) {
      differentiable.push_back(*output);
      cotangents.push_back(in.cotangents[i]);
    }
  }
  // Integer primals are not tracked and keep an undefined (zero) cotangent.
  std::vector<size_t> tracked;
  for (size_t i = 0; i < in.gradInputs.size(); ++i) {
    const Tensor &input = std::get<Tensor>(args[in.gradInputs[i]]);
    if (input.requires_grad()) {
      inputs.push_back(input);
      tracked.push_back(i);
    }
  }
  std::vector<Tensor> grads(in.gradInputs.size());
  if (differentiable.empty() || inputs.empty())
    return grads;
  torch::autograd::variable_list trackedGrads = torch::autograd::grad(
      differentiable, inputs, cotangents, /*retain_graph=*/false,
      /*create_graph=*/false, /*allow_unused=*/true);
  for (size_t k = 0; k < tracked.size(); ++k)
    grads[tracked[k]] = trackedGrads[k];
  return grads;
}

void vjp(Executor &executor, const PlanOp &op, Frame &frame) {
  VjpInputs in = vjpInputs(op, frame);
  std::optional<std::vector<Tensor>> grads = fastGrads(executor, op, frame, in);
  if (!grads) {
    grads = autogradGrads(executor, op, frame, in);
    if (ExecutionProfile *profile = executor.context().profile)
      ++profile->autogradRuleVjps;
  }
  for (size_t i = 0; i < grads->size(); ++i) {
    const Tensor &grad = grads->at(i);
    // Unused or integer primals have no cotangent: zeros.
    frame.setResult(op, i,
                    grad.defined() ? grad
                                   : at::zeros_like(std::get<Tensor>(
                                         in.primals[in.gradInputs[i]])));
  }
}

} // namespace

void registerVjpOp(OpRegistry &registry) { registry[Vjp::name] = vjp; }

bool hasFastVjpRule(std::string_view opName) {
  return fastRules().count(opName) > 0;
}

} // namespace rvnn::runtime
