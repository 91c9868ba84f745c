// Library ops: matrix products in LibTorch's BLAS, lookups and the beam
// search's selections.
#include "Handlers.h"
#include "rvnn/Runtime/Ops/BandedProduct.h"
#include "rvnn/Runtime/Ops/Beam.h"
#include "rvnn/Runtime/Ops/FewRowProduct.h"
#include "rvnn/Runtime/Ops/JitProduct.h"
#include "rvnn/Runtime/Ops/NN.h"

namespace rvnn::runtime {
namespace {

using torch::Tensor;

/// lhs · op(rhs) + bias, op(rhs) = rhsᵀ with transposeRhs. A 2-D rhs (a
/// linear layer's weight when transposed) is multiplied by LIBXSMM's
/// generated kernels where the build has them, else with few rows by one
/// BLAS matrix-vector product a row, else by ops::linear, which keeps the
/// results bit-identical to the linear layer's reference. Inside a loop, a
/// weight the loop reads from outside is transposed once for the whole loop
/// (Executor::transposedInvariant). A batch of products of few rows each
/// also takes one matrix-vector product a row.
Tensor product(Executor &executor, const Tensor &lhs, const Tensor &rhs,
               const Tensor &bias, bool transposeRhs) {
  if (rhs.dim() == 3 && lhs.dim() == 3) {
    const Tensor matrices = transposeRhs ? rhs.transpose(1, 2) : rhs;
    if (Tensor few = ops::fewRowProduct(lhs, matrices, bias); few.defined())
      return few;
  }
  if (rhs.dim() == 2) {
    Tensor matrix = transposeRhs ? executor.transposedInvariant(rhs) : rhs;
    if (!matrix.defined())
      matrix = rhs.t();
    if (Tensor jit = ops::jitProduct(lhs, matrix, bias); jit.defined())
      return jit;
    if (Tensor few = ops::fewRowProduct(lhs, matrix, bias); few.defined())
      return few;
    if (transposeRhs)
      return ops::linear(lhs, rhs, bias);
  }
  Tensor result =
      torch::matmul(lhs, transposeRhs ? rhs.transpose(-2, -1) : rhs);
  return bias.defined() ? result + bias : result;
}

/// lhs · op(rhs) + bias + accumulator.
void gemm(Executor &executor, const PlanOp &op, Frame &frame) {
  using Gemm = exec::GemmOp;
  auto optional = [&](size_t group) {
    OperandGroup operands = operandGroup(op, group);
    return operands.size ? frame.tensor(op, operands.begin) : Tensor();
  };
  Tensor lhs = frame.tensor(op, 0);
  Tensor rhs = frame.tensor(op, 1);
  Tensor accumulator = optional(Gemm::operand::accumulator);
  Tensor band = optional(Gemm::operand::lhs_band);
  Tensor result;
  if (band.defined()) {
    // The verifier allows a band only without bias and transpose.
    result = ops::bandedProduct(lhs, band, rhs, accumulator);
  } else {
    // A unit attribute: present (as true) or absent.
    result = product(executor, lhs, rhs, optional(Gemm::operand::bias),
                     hasAttr(op, Gemm::attr::transpose_rhs));
    if (accumulator.defined())
      result = accumulator + result;
  }
  if (ExecutionProfile *profile = executor.context().profile)
    profile->gemmFlops +=
        2.0 * (band.defined() ? ops::bandedProductMultiplyAdds(lhs, band, rhs)
                              : static_cast<double>(result.numel()) *
                                    static_cast<double>(lhs.size(-1)));
  frame.setResult(op, 0, result);
}

void topk(Executor &executor, const PlanOp &op, Frame &frame) {
  using TopK = exec::TopKOp;
  auto [values, indices] = ops::topk(
      frame.tensor(op, 0), frame.tensor(op, 1),
      attrAs<int64_t>(op, TopK::attr::k), attrAs<bool>(op, TopK::attr::gumbel),
      executor.context().training, &executor.context().draws);
  frame.setResult(op, 0, values);
  frame.setResult(op, 1, indices);
}

void beamGather(Executor &, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0,
      ops::beamGather(frame.tensor(op, 0), frame.tensor(op, 1),
                      attrAs<int64_t>(op, exec::BeamGatherOp::attr::factor)));
}

void beamAlign(Executor &executor, const PlanOp &op, Frame &frame) {
  using BeamAlign = exec::BeamAlignOp;
  ops::AlignMode mode =
      enumAttr(op, BeamAlign::attr::mode, contract::parseAlignMode) ==
              contract::AlignMode::sample
          ? ops::AlignMode::Sample
          : ops::AlignMode::Uniform;
  frame.setResult(
      op, 0,
      ops::beamAlign(frame.tensor(op, 0), frame.tensor(op, 1),
                     attrAs<double>(op, BeamAlign::attr::temperature), mode,
                     &executor.context().draws));
}

} // namespace

void registerLibraryOps(OpRegistry &r) {
  r[exec::GemmOp::name] = gemm;
  r[exec::EmbeddingOp::name] = tensors<2>(ops::embedding);
  r[exec::TopKOp::name] = topk;
  r[exec::ArgMaxOp::name] = tensors<2>(ops::argmax);
  r[exec::BeamGatherOp::name] = beamGather;
  r[exec::BeamAlignOp::name] = beamAlign;
}

} // namespace rvnn::runtime
