// Kernel ops: elementwise functions, comparisons and the rvnn kernels
// (normalisation, attention, gating, chunking, beams), each with its ATen
// reference in lib/Runtime/Ops.
#include "Handlers.h"
#include "rvnn/Runtime/Ops/Attention.h"
#include "rvnn/Runtime/Ops/Beam.h"
#include "rvnn/Runtime/Ops/ConstantElements.h"
#include "rvnn/Runtime/Ops/Gating.h"
#include "rvnn/Runtime/Ops/NN.h"
#include "rvnn/Runtime/Ops/Recursion.h"
#include "rvnn/Runtime/Ops/Scan.h"

namespace rvnn::runtime {
namespace {

using torch::Tensor;

/// a·b; the other operand itself when one is a broadcast of ones (an
/// evaluation-mode dropout mask) of the other's shape and type.
Tensor productWithOnes(const Tensor &a, const Tensor &b) {
  auto isOnesLike = [](const Tensor &ones, const Tensor &other) {
    return ones.sizes() == other.sizes() &&
           ones.scalar_type() == other.scalar_type() &&
           ops::isBroadcastConstant(ones, ops::Constant::One);
  };
  if (isOnesLike(b, a))
    return a;
  if (isOnesLike(a, b))
    return b;
  return a * b;
}

/// a + b written into the buffer of a or b where nothing else holds it
/// (after Frame::takeTensor at its last read: the derived backward's sums of
/// two cotangents, one of which dies there) and it has the sum's shape and
/// type; undefined otherwise.
Tensor sumInPlace(Tensor &a, Tensor &b) {
  const std::vector<int64_t> sizes = at::infer_size(a.sizes(), b.sizes());
  const at::ScalarType type = at::result_type(a, b);
  for (auto [into, other] : {std::pair{&a, &b}, std::pair{&b, &a}})
    if (!other->requires_grad() && into->sizes() == sizes &&
        into->scalar_type() == type && soleHolder(*into))
      return into->add_(*other);
  return Tensor();
}

void elementwise(Executor &, const PlanOp &op, Frame &frame) {
  using Fn = contract::ElementwiseFn;
  Fn fn =
      enumAttr(op, exec::ElementwiseOp::attr::fn, contract::parseElementwiseFn);
  size_t arity = fn == Fn::neg || fn == Fn::exp || fn == Fn::log ||
                         fn == Fn::tanh || fn == Fn::sqrt || fn == Fn::abs ||
                         fn == Fn::erf
                     ? 1
                     : 2;
  if (op.operands.size() != arity)
    throw PlanError(op.where() + ": " + std::string(contract::keyword(fn)) +
                    " takes " + std::to_string(arity) + " operands");
  Tensor a = frame.takeTensor(op, 0);
  Tensor b = arity == 2 ? frame.takeTensor(op, 1) : Tensor();
  if (Tensor sum = fn == Fn::add ? sumInPlace(a, b) : Tensor(); sum.defined()) {
    frame.setResult(op, 0, sum);
    return;
  }
  Tensor result;
  switch (fn) {
  case Fn::neg:
    result = -a;
    break;
  case Fn::exp:
    result = torch::exp(a);
    break;
  case Fn::log:
    result = torch::log(a);
    break;
  case Fn::tanh:
    result = torch::tanh(a);
    break;
  case Fn::sqrt:
    result = torch::sqrt(a);
    break;
  case Fn::abs:
    result = torch::abs(a);
    break;
  case Fn::erf:
    result = torch::erf(a);
    break;
  case Fn::add:
    result = a + b;
    break;
  case Fn::sub:
    result = a - b;
    break;
  case Fn::mul:
    result = productWithOnes(a, b);
    break;
  case Fn::div:
    result = a / b;
    break;
  case Fn::max:
    result = torch::maximum(a, b);
    break;
  case Fn::min:
    result = torch::minimum(a, b);
    break;
  case Fn::logical_or:
    result = torch::logical_or(a, b);
    break;
  }
  frame.setResult(op, 0, result);
}

/// IEEE comparisons: ordered predicates are false and unordered ones true
/// when either side is NaN (arith.cmpf's semantics).
void compare(Executor &, const PlanOp &op, Frame &frame) {
  using Predicate = contract::ComparePredicate;
  Tensor a = frame.tensor(op, 0);
  Tensor b = frame.tensor(op, 1);
  auto unordered = [&] { return torch::isnan(a) | torch::isnan(b); };
  Tensor result;
  switch (enumAttr(op, exec::CompareOp::attr::predicate,
                   contract::parseComparePredicate)) {
  case Predicate::always_false:
    result = torch::zeros_like(a, torch::kBool);
    break;
  case Predicate::oeq:
    result = a == b;
    break;
  case Predicate::ogt:
    result = a > b;
    break;
  case Predicate::oge:
    result = a >= b;
    break;
  case Predicate::olt:
    result = a < b;
    break;
  case Predicate::ole:
    result = a <= b;
    break;
  case Predicate::one:
    result = (a != b) & ~unordered();
    break;
  case Predicate::ord:
    result = ~unordered();
    break;
  case Predicate::ueq:
    result = (a == b) | unordered();
    break;
  case Predicate::ugt:
    result = ~(a <= b);
    break;
  case Predicate::uge:
    result = ~(a < b);
    break;
  case Predicate::ult:
    result = ~(a >= b);
    break;
  case Predicate::ule:
    result = ~(a > b);
    break;
  case Predicate::une:
    result = a != b;
    break;
  case Predicate::uno:
    result = unordered();
    break;
  case Predicate::always_true:
    result = torch::ones_like(a, torch::kBool);
    break;
  }
  frame.setResult(op, 0, result);
}

/// i1 to the result's dtype, true is 1.
void convert(Executor &, const PlanOp &op, Frame &frame) {
  Tensor input = frame.tensor(op, 0);
  if (input.scalar_type() != torch::kBool)
    throw PlanError(op.where() + ": converts i1 tensors only");
  frame.setResult(op, 0, input.to(scalarType(op.resultTypes.at(0).dtype)));
}

void layerNorm(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::layerNorm(frame.tensor(op, 0), frame.tensor(op, 1),
                     frame.tensor(op, 2),
                     attrAs<double>(op, exec::LayerNormOp::attr::epsilon)));
}

/// `apply` (ops::dropout or ops::dropoutMask) of the op's input with its
/// dropout attributes, drawing from `draws`: dropout, dropout_mask and
/// redraw_dropout_mask share input and attributes (the ODS of rvnn.dropout)
/// and draw identically (dropout is `x * dropout_mask(x)`).
template <typename Apply>
Tensor applyDropout(Apply apply, const PlanOp &op, const Frame &frame,
                    bool training, ops::DrawStream *draws) {
  using Dropout = exec::DropoutOp;
  return apply(frame.tensor(op, Dropout::operand::input),
               attrAs<double>(op, Dropout::attr::rate),
               attrAs<bool>(op, Dropout::attr::rescale),
               intArrayAttr(op, Dropout::attr::shared_dims), training, draws);
}

template <typename Apply> OpHandler dropoutLike(Apply apply) {
  return [apply](Executor &executor, const PlanOp &op, Frame &frame) {
    ExecutionContext &ctx = executor.context();
    frame.setResult(op, 0,
                    applyDropout(apply, op, frame, ctx.training, &ctx.draws));
  };
}

/// dropout_mask's draws made again from the stream position its
/// draw_position read: a copy of the stream there, so the stream itself
/// does not move.
void redrawDropoutMask(Executor &executor, const PlanOp &op, Frame &frame) {
  ExecutionContext &ctx = executor.context();
  const int64_t position =
      frame.integer(op, exec::RedrawDropoutMaskOp::operand::position);
  if (position < 0)
    throw PlanError(op.where() + ": draw position " + std::to_string(position) +
                    " is negative");
  ops::DrawStream stream{ctx.draws.seed, static_cast<uint64_t>(position)};
  frame.setResult(
      op, 0, applyDropout(ops::dropoutMask, op, frame, ctx.training, &stream));
}

/// The adjoint of broadcasting: sum_to_size also sums the leading dims
/// `input` has beyond `like`.
torch::Tensor sumToLike(const Tensor &input, const Tensor &like) {
  return input.sum_to_size(like.sizes());
}

void modeSelect(Executor &executor, const PlanOp &op, Frame &frame) {
  using ModeSelect = exec::ModeSelectOp;
  frame.setResult(op, 0,
                  frame.tensor(op, executor.context().training
                                       ? ModeSelect::operand::training
                                       : ModeSelect::operand::evaluation));
}

void softmax(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::softmax(frame.tensor(op, 0),
                   attrAs<int64_t>(op, exec::SoftmaxOp::attr::dim)));
}

void maskedSoftmax(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  ops::maskedSoftmax(
                      frame.tensor(op, 0), frame.tensor(op, 1),
                      attrAs<int64_t>(op, exec::MaskedSoftmaxOp::attr::dim)));
}

void pool(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0, ops::pool(frame.tensor(op, 0), frame.tensor(op, 1), poolKind(op)));
}

void chunk(Executor &, const PlanOp &op, Frame &frame) {
  auto [chunks, mask] =
      ops::chunk(frame.tensor(op, 0), frame.tensor(op, 1),
                 attrAs<int64_t>(op, exec::ChunkOp::attr::size),
                 attrAs<int64_t>(op, exec::ChunkOp::attr::dim));
  frame.setResult(op, 0, chunks);
  frame.setResult(op, 1, mask);
}

void unchunk(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::unchunk(frame.tensor(op, 0), frame.tensor(op, 1),
                   attrAs<int64_t>(op, exec::UnchunkOp::attr::dim)));
}

void geometricAttention(Executor &, const PlanOp &op, Frame &frame) {
  std::array<Tensor, 8> in;
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = frame.tensor(op, i);
  frame.setResult(
      op, 0,
      ops::geometricAttention(
          in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7],
          attrAs<bool>(op, exec::GeometricAttentionOp::attr::normalize)));
}

void maskedAttention(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  ops::maskedAttention(
                      frame.tensor(op, 0), frame.tensor(op, 1),
                      frame.tensor(op, 2), frame.tensor(op, 3),
                      attrAs<bool>(op, exec::MaskedAttentionOp::attr::causal)));
}

void neighbourRetrieve(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  ops::neighbourRetrieve(frame.tensor(op, 0),
                                         frame.tensor(op, 1),
                                         neighbourDirection(op)));
}

void neighbourBand(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  ops::neighbourBand(frame.tensor(op, 0), frame.tensor(op, 1),
                                     neighbourDirection(op)));
}

void diagonalScan(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::diagonalScan(frame.tensor(op, 0), frame.tensor(op, 1),
                        frame.tensor(op, 2), frame.tensor(op, 3),
                        frame.tensor(op, 4), frame.tensor(op, 5),
                        frame.tensor(op, 6), frame.tensor(op, 7),
                        attrAs<bool>(op, exec::DiagonalScanOp::attr::reverse)));
}

void cumax(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(op, 0,
                  ops::cumax(frame.tensor(op, 0),
                             attrAs<int64_t>(op, exec::CumaxOp::attr::dim)));
}

void beamExpand(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::beamExpand(frame.tensor(op, 0),
                      attrAs<int64_t>(op, exec::BeamExpandOp::attr::factor)));
}

} // namespace

ops::Direction neighbourDirection(const PlanOp &op) {
  static_assert(exec::NeighbourRetrieveOp::attr::direction ==
                exec::NeighbourBandOp::attr::direction);
  return enumAttr(op, exec::NeighbourRetrieveOp::attr::direction,
                  contract::parseDirection) == contract::Direction::left
             ? ops::Direction::Left
             : ops::Direction::Right;
}

ops::PoolKind poolKind(const PlanOp &op) {
  switch (enumAttr(op, exec::PoolOp::attr::kind, contract::parsePoolKind)) {
  case contract::PoolKind::first:
    return ops::PoolKind::First;
  case contract::PoolKind::last:
    return ops::PoolKind::Last;
  case contract::PoolKind::mean:
    return ops::PoolKind::Mean;
  case contract::PoolKind::max:
    return ops::PoolKind::Max;
  }
  throw PlanError(op.where() + ": unknown pool kind");
}

void registerKernelOps(OpRegistry &r) {
  r[exec::ElementwiseOp::name] = elementwise;
  r[exec::CompareOp::name] = compare;
  r[exec::ConvertOp::name] = convert;

  r[exec::LayerNormOp::name] = layerNorm;
  r[exec::DropoutOp::name] = dropoutLike(ops::dropout);
  r[exec::DropoutMaskOp::name] = dropoutLike(ops::dropoutMask);
  r[exec::RedrawDropoutMaskOp::name] = redrawDropoutMask;
  r[exec::SumToLikeOp::name] = tensors<2>(sumToLike);
  r[exec::GeluOp::name] = tensors<1>(ops::gelu);
  r[exec::SigmoidOp::name] = tensors<1>(ops::sigmoid);
  r[exec::ReluOp::name] = tensors<1>(ops::relu);
  r[exec::ModeSelectOp::name] = modeSelect;
  r[exec::SoftmaxOp::name] = softmax;
  r[exec::MaskedSoftmaxOp::name] = maskedSoftmax;
  r[exec::CrossEntropyOp::name] = tensors<2>(ops::crossEntropy);
  r[exec::BroadcastLikeOp::name] = tensors<2>(ops::broadcastLike);
  r[exec::PoolOp::name] = pool;

  r[exec::ChunkOp::name] = chunk;
  r[exec::UnchunkOp::name] = unchunk;
  r[exec::PairMergeOp::name] = tensors<3>(ops::pairMerge);

  r[exec::GeometricAttentionOp::name] = geometricAttention;
  r[exec::MaskedAttentionOp::name] = maskedAttention;
  r[exec::NeighbourRetrieveOp::name] = neighbourRetrieve;
  r[exec::NeighbourBandOp::name] = neighbourBand;
  r[exec::DiagonalScanOp::name] = diagonalScan;

  r[exec::GateOp::name] = tensors<3>(ops::gate);
  r[exec::CumaxOp::name] = cumax;
  r[exec::SoftDepthMixOp::name] = tensors<3>(ops::softDepthMix);

  r[exec::OneHotOp::name] = tensors<2>(ops::oneHot);
  r[exec::BeamExpandOp::name] = beamExpand;
  r[exec::BeamAccumulateOp::name] = tensors<3>(ops::beamAccumulate);
  r[exec::BeamMarginalizeOp::name] = tensors<3>(ops::beamMarginalize);
}

} // namespace rvnn::runtime
