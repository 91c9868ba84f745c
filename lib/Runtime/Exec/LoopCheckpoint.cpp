// Segment checkpointing of recursion loops under the recompute policy: the
// steps of a loop without per-sample halting run in segments of ceil(sqrt(n))
// steps, each recorded as one autograd node that keeps only the state it
// started from (and the values its body reads from outside); its backward
// reruns the segment's steps with gradients recorded, from the same random
// draws, and backpropagates through them. Memory then grows with sqrt(n)
// states instead of n.
#include "Handlers.h"

#include "GradCollector.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include <torch/autograd.h>

namespace rvnn::runtime {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// What a segment's backward needs besides its saved tensors (kept out of
/// the node's tensors so that no output keeps the node alive; see
/// CallOp.cpp's RecordedCall).
struct RecordedSegment : torch::CustomClassHolder {
  Executor *executor = nullptr;
  const PlanOp *op = nullptr;
  int64_t firstStep = 0;
  int64_t steps = 0;
  int64_t frameSize = 0;
  bool training = false;
  ops::DrawStream drawsAtStart;
  /// Ids of the values the body reads from outside the loop, with their
  /// integer values (nullopt: the next tensor among the saved ones).
  std::vector<int64_t> capturedIds;
  std::vector<std::optional<int64_t>> capturedIntegers;
  size_t stateSize = 0;
};

std::vector<RuntimeValue> runSteps(Executor &executor, const PlanOp &op,
                                   Frame &frame,
                                   std::vector<RuntimeValue> state,
                                   int64_t firstStep, int64_t steps) {
  for (int64_t step = firstStep; step < firstStep + steps; ++step) {
    std::vector<RuntimeValue> args{step};
    args.insert(args.end(), state.begin(), state.end());
    state = executor.runLoopBody(op.regions.at(0), frame, args);
  }
  return state;
}

/// One segment as an autograd function of its starting state and the
/// tensors it captures (parameters included).
struct SegmentFunction : torch::autograd::Function<SegmentFunction> {
  static variable_list forward(AutogradContext *ctx,
                               const c10::intrusive_ptr<RecordedSegment> &seg,
                               const Frame *frame, at::TensorList stateList,
                               at::TensorList capturedList) {
    torch::NoGradGuard noGrad;
    variable_list state = stateList.vec(), captured = capturedList.vec();
    std::vector<RuntimeValue> values(state.begin(), state.end());
    Frame &outer = const_cast<Frame &>(*frame);
    values = runSteps(*seg->executor, *seg->op, outer, std::move(values),
                      seg->firstStep, seg->steps);
    variable_list saved = state;
    saved.insert(saved.end(), captured.begin(), captured.end());
    ctx->save_for_backward(saved);
    ctx->saved_data["segment"] = c10::IValue::make_capsule(seg);

    variable_list outputs, integers;
    for (RuntimeValue &value : values) {
      Tensor tensor = std::get<Tensor>(value);
      // An output must be a tensor of its own (autograd attaches history).
      bool aliased =
          std::any_of(saved.begin(), saved.end(),
                      [&](const Tensor &t) { return t.is_same(tensor); }) ||
          std::any_of(outputs.begin(), outputs.end(),
                      [&](const Tensor &t) { return t.is_same(tensor); });
      if (aliased)
        tensor = tensor.clone();
      if (!tensor.is_floating_point())
        integers.push_back(tensor);
      outputs.push_back(tensor);
    }
    ctx->mark_non_differentiable(integers);
    return outputs;
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    auto seg = c10::static_intrusive_pointer_cast<RecordedSegment>(
        ctx->saved_data["segment"].toCapsule());
    Executor &executor = *seg->executor;
    ExecutionContext &exec = executor.context();
    variable_list saved = ctx->get_saved_variables();

    // What the rerun starts from: leaves for the state and for captured
    // tensors, except captured tensors that collect their gradient (the
    // loop's, collectLoopGrads): the rerun's vjps hand those collectors
    // their rows and windows directly, so that no segment returns a
    // gradient of a whole hoisted tensor or weight of its own.
    variable_list rerunInputs;
    for (size_t i = 0; i < saved.size(); ++i) {
      const Tensor &tensor = saved[i];
      if (i >= seg->stateSize && collectsGrad(tensor))
        rerunInputs.push_back(tensor);
      else
        rerunInputs.push_back(tensor.is_floating_point()
                                  ? tensor.detach().requires_grad_(true)
                                  : tensor.detach());
    }
    Frame replay(seg->frameSize);
    size_t nextTensor = seg->stateSize;
    for (size_t i = 0; i < seg->capturedIds.size(); ++i) {
      const std::optional<int64_t> &integer = seg->capturedIntegers[i];
      replay.bind(seg->capturedIds[i],
                  integer ? RuntimeValue(*integer)
                          : RuntimeValue(rerunInputs.at(nextTensor++)));
    }

    // Rerun with the forward's draws and mode; the steps' calls keep their
    // residuals, which live only until this segment's backward ends.
    ops::DrawStream draws = exec.draws;
    bool training = exec.training;
    RecomputePolicy policy = exec.recompute;
    exec.draws = seg->drawsAtStart;
    exec.training = seg->training;
    exec.recompute = RecomputePolicy::Save;
    std::vector<RuntimeValue> state(rerunInputs.begin(),
                                    rerunInputs.begin() + seg->stateSize);
    std::vector<RuntimeValue> outputs;
    {
      torch::AutoGradMode enable(true);
      collectCapturedGrads(*seg->op, replay);
      outputs = runSteps(executor, *seg->op, replay, std::move(state),
                         seg->firstStep, seg->steps);
    }
    exec.draws = draws;
    exec.training = training;
    exec.recompute = policy;

    variable_list roots, rootGrads, inputs;
    for (size_t i = 0; i < outputs.size(); ++i) {
      const Tensor &out = std::get<Tensor>(outputs[i]);
      if (out.requires_grad() && grads[i].defined()) {
        roots.push_back(out);
        rootGrads.push_back(grads[i]);
      }
    }
    for (const Tensor &input : rerunInputs)
      if (input.requires_grad())
        inputs.push_back(input);
    variable_list inputGrads =
        roots.empty() ? variable_list(inputs.size())
                      : torch::autograd::grad(roots, inputs, rootGrads,
                                              /*retain_graph=*/false,
                                              /*create_graph=*/false,
                                              /*allow_unused=*/true);
    // The segment's weight rows, multiplied out now, hold no memory while
    // the earlier segments rerun.
    for (const Tensor &input : rerunInputs)
      multiplyOutCollected(input);
    // The node's inputs: the capsule, the frame, then state and captured.
    variable_list result{Tensor(), Tensor()};
    size_t next = 0;
    for (const Tensor &input : rerunInputs)
      result.push_back(input.requires_grad() ? inputGrads.at(next++)
                                             : Tensor());
    return result;
  }
};

} // namespace

/// Ids of the values a region reads from outside it.
std::vector<int64_t> capturedValueIds(const PlanRegion &region) {
  std::set<int64_t> defined;
  std::set<int64_t> captured;
  std::function<void(const PlanRegion &)> walk = [&](const PlanRegion &r) {
    defined.insert(r.args.begin(), r.args.end());
    for (const PlanOp &inner : r.body) {
      for (int64_t id : inner.operands)
        if (!defined.count(id))
          captured.insert(id);
      for (const PlanRegion &nested : inner.regions)
        walk(nested);
      defined.insert(inner.results.begin(), inner.results.end());
    }
  };
  walk(region);
  return {captured.begin(), captured.end()};
}

void collectCapturedGrads(const PlanOp &loop, Frame &frame) {
  for (int64_t id : capturedValueIds(loop.regions.at(0)))
    if (const auto *tensor = std::get_if<Tensor>(&frame.get(loop, id)))
      frame.bind(id, collectGrad(Tensor(*tensor)));
}

bool checkpointsSegments(Executor &executor, const PlanOp &op,
                         const std::vector<RuntimeValue> &state) {
  const ExecutionContext &ctx = executor.context();
  return ctx.recompute == RecomputePolicy::Recompute &&
         ctx.kernelMode == KernelMode::Generated &&
         torch::GradMode::is_enabled() && !state.empty() &&
         std::all_of(state.begin(), state.end(),
                     [](const RuntimeValue &v) {
                       return std::holds_alternative<Tensor>(v);
                     }) &&
         !op.regions.empty();
}

std::vector<RuntimeValue> runCheckpointedLoop(Executor &executor,
                                              const PlanOp &op, Frame &frame,
                                              std::vector<RuntimeValue> state,
                                              int64_t steps) {
  const int64_t segment = std::max<int64_t>(
      1,
      static_cast<int64_t>(std::ceil(std::sqrt(static_cast<double>(steps)))));
  std::vector<int64_t> captured = capturedValueIds(op.regions.at(0));
  ExecutionContext &ctx = executor.context();
  for (int64_t first = 0; first < steps; first += segment) {
    auto seg = c10::make_intrusive<RecordedSegment>();
    seg->executor = &executor;
    seg->op = &op;
    seg->firstStep = first;
    seg->steps = std::min(segment, steps - first);
    seg->frameSize = frame.size();
    seg->training = ctx.training;
    seg->drawsAtStart = ctx.draws;
    seg->capturedIds = captured;
    seg->stateSize = state.size();
    variable_list capturedTensors;
    for (int64_t id : captured) {
      const RuntimeValue &value = frame.get(op, id);
      if (const auto *tensor = std::get_if<Tensor>(&value)) {
        seg->capturedIntegers.emplace_back();
        capturedTensors.push_back(*tensor);
      } else {
        seg->capturedIntegers.emplace_back(std::get<int64_t>(value));
      }
    }
    variable_list stateTensors;
    for (const RuntimeValue &value : state)
      stateTensors.push_back(std::get<Tensor>(value));
    // TensorLists: autograd tracks only Tensor and TensorList arguments.
    variable_list outputs = SegmentFunction::apply(
        seg, static_cast<const Frame *>(&frame), at::TensorList(stateTensors),
        at::TensorList(capturedTensors));
    state.assign(outputs.begin(), outputs.end());
  }
  return state;
}

} // namespace rvnn::runtime
