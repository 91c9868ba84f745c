// Helpers shared by the op handlers (ControlOps.cpp .. KernelOps.cpp): reading
// attributes and operand groups of a plan op. Names and keywords come from the
// execution contract; see rvnn/Dialect/Exec/ExecContract.h.
#ifndef RVNN_LIB_RUNTIME_EXEC_HANDLERS_H
#define RVNN_LIB_RUNTIME_EXEC_HANDLERS_H

#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/Ops/Attention.h"
#include "rvnn/Runtime/Ops/NN.h"

#include <array>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace rvnn::runtime {

/// The contract's op records, e.g. exec::GemmOp::attr::transpose_rhs.
namespace exec = rvnn::contract::ops;

void registerControlOps(OpRegistry &registry);
void registerScalarOps(OpRegistry &registry);
void registerViewOps(OpRegistry &registry);
void registerLibraryOps(OpRegistry &registry);
void registerKernelOps(OpRegistry &registry);
void registerDispatchOps(OpRegistry &registry);
void registerCallOp(OpRegistry &registry);
void registerVjpOp(OpRegistry &registry);
/// Whether the vjp of `opName` has a graph-free rule; the others take ATen
/// autograd's rule (the profile counts those: autogradRuleVjps).
bool hasFastVjpRule(std::string_view opName);
void registerExposeStructureOp(OpRegistry &registry);

const nlohmann::json &attr(const PlanOp &op, std::string_view name);

template <typename T> T attrAs(const PlanOp &op, std::string_view name) {
  return attr(op, name).get<T>();
}

/// An array-of-integers attribute, as decoded when the plan was read.
const std::vector<int64_t> &intArrayAttr(const PlanOp &op,
                                         std::string_view name);

/// A string attribute, without a copy.
const std::string &stringAttr(const PlanOp &op, std::string_view name);

inline bool hasAttr(const PlanOp &op, std::string_view name) {
  return op.attrs.contains(name);
}

/// An enum attribute, parsed by the contract's parse function for its enum
/// (e.g. contract::parseElementwiseFn).
template <typename Parse>
auto enumAttr(const PlanOp &op, std::string_view name, Parse parse) {
  const std::string &keyword = stringAttr(op, name);
  auto value = parse(keyword);
  if (!value)
    throw PlanError(op.where() + ": unknown " + std::string(name) + " '" +
                    keyword + "'");
  return *value;
}

/// The operand positions [begin, begin + size) of one operand group of an op
/// with optional or variadic groups (its `operandSegmentSizes`).
struct OperandGroup {
  size_t begin = 0;
  size_t size = 0;
};
OperandGroup operandGroup(const PlanOp &op, size_t group);

/// Ids of the values a region (nested regions included) reads from outside
/// it, each once, in ascending order.
std::vector<int64_t> capturedValueIds(const PlanRegion &region);

/// Rebinds the tensors `loop`'s body reads from outside to views that collect
/// their gradients (GradCollector.h) when gradients are recorded, so that
/// the vjps of a step's slices of such a tensor add their windows into one
/// gradient of it instead of returning one of its size per step.
void collectCapturedGrads(const PlanOp &loop, Frame &frame);

/// Whether `op`, a recurse without per-sample halting, runs in checkpointed
/// segments: the recompute policy, generated kernels, gradients recorded,
/// and a state of tensors only.
bool checkpointsSegments(Executor &executor, const PlanOp &op,
                         const std::vector<RuntimeValue> &state);

/// Runs steps [0, steps) of `op`'s body from `state` in segments of
/// ceil(sqrt(steps)) steps, each one autograd node that keeps only the state
/// it started from and reruns its steps in backward (LoopCheckpoint.cpp).
std::vector<RuntimeValue> runCheckpointedLoop(Executor &executor,
                                              const PlanOp &op, Frame &frame,
                                              std::vector<RuntimeValue> state,
                                              int64_t steps);

struct GeneratedKernel;

/// The generated kernel a dispatch op runs: under KernelMode::Generated with
/// CPU inputs, checked against the kernel ABI (checkKernelOperands); null
/// when the dispatch runs its reference body instead. Throws PlanError when
/// the kernel library was not loaded.
const GeneratedKernel *
generatedKernelFor(Executor &executor, const PlanOp &dispatchOp,
                   const std::vector<torch::Tensor> &inputs);

/// The kernel ABI's requirement: every input of one float type (f32 or f64)
/// and of the results' shape, except row operands (1-D inputs as long as the
/// results' last dim when the results have two dims or more: a layer norm's
/// gamma and beta) and broadcast operands (the results' shape but 1 in dims
/// where the dispatch's body argument has a static 1: a gate's g).
void checkKernelOperands(const PlanOp &op,
                         const std::vector<torch::Tensor> &inputs);

/// The shape of a kernel's results: that of its inputs of highest rank,
/// broadcast (checkKernelOperands).
std::vector<int64_t>
kernelResultSizes(const std::vector<torch::Tensor> &inputs);

/// A generated kernel's compiler-derived backward (`<kernel>_grad`): the
/// gradient of every input from the inputs and one gradient per result
/// (undefined: zeros). It recomputes the forward from the inputs.
std::vector<torch::Tensor>
generatedKernelGrads(const GeneratedKernel &kernel,
                     const std::vector<torch::Tensor> &inputs,
                     const std::vector<torch::Tensor> &grads);

/// An rvnn_exec.slice with its offsets, sizes and strides resolved (one per
/// source dim) and its dropped dims sorted.
struct SliceSpec {
  std::vector<int64_t> offsets, sizes, strides, dropped;
};
SliceSpec sliceSpec(const PlanOp &sliceOp, const Frame &frame);
/// The strided view of `source` a slice takes, without its dropped dims if
/// `dropDims`. sliceSpec has checked the window lies inside the source.
torch::Tensor stridedSlice(const torch::Tensor &source, const SliceSpec &spec,
                           bool dropDims = false);
/// Adds a slice's cotangent `dy` into the window `spec` takes of `grad`,
/// with the unit dims the slice dropped put back.
void addIntoWindow(torch::Tensor &grad, const SliceSpec &spec,
                   torch::Tensor dy);

/// Whether nothing but the caller's `tensor` holds its elements: no other
/// reference to it, no view of its storage, no overlapping elements, no
/// autograd history. An op may then write its result into it (after
/// Frame::takeTensor at the operand's last read).
bool soleHolder(const torch::Tensor &tensor);

/// A neighbour_retrieve or neighbour_band op's direction attribute.
ops::Direction neighbourDirection(const PlanOp &op);
/// A pool op's kind attribute.
ops::PoolKind poolKind(const PlanOp &op);

/// Handlers of ops whose result is a function of their tensor operands only.
template <size_t Arity, typename Fn> OpHandler tensors(Fn fn) {
  return [fn](Executor &, const PlanOp &op, Frame &frame) {
    std::array<torch::Tensor, Arity> in;
    for (size_t i = 0; i < Arity; ++i)
      in[i] = frame.tensor(op, i);
    frame.setResult(op, 0, std::apply(fn, in));
  };
}

} // namespace rvnn::runtime

#endif // RVNN_LIB_RUNTIME_EXEC_HANDLERS_H
