// rvnn_exec.call: a call of a function that rvnn-exec-differentiate
// differentiated. Without gradient recording, or under --kernels reference
// (ATen autograd through the callee: the oracle), it runs the callee. With
// it, it runs the compiler-derived `forward` (the callee's results, then
// residuals) and records ONE autograd node for the whole call, whose backward
// runs the compiler-derived `backward` (residuals, then one cotangent per
// result) and returns the cotangents of the operands listed in
// `grad_inputs`. Under
// RecomputePolicy::Recompute the node keeps the operands and the draw offset
// instead of the residuals, and reruns `forward` in backward.
#include "Handlers.h"

#include "GradCollector.h"

#include <algorithm>
#include <optional>

#include <torch/autograd.h>

namespace rvnn::runtime {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using Call = exec::CallOp;

/// What one recorded call's backward step needs besides its saved tensors.
/// It lives in the autograd node (a capsule in saved_data) and so never holds
/// a tensor: an output of the node held here would keep the node alive
/// through its own grad_fn. Tensors go through save_for_backward, which
/// breaks that cycle and frees them after backward.
struct RecordedCall : torch::CustomClassHolder {
  /// The executor outlives the graphs its forward passes record (the model
  /// owns it; a training step's graph dies with the step).
  Executor *executor = nullptr;
  const PlanOp *op = nullptr;
  RecomputePolicy policy = RecomputePolicy::Save;
  bool training = false;
  /// The draw stream when the call started: a rerun of `forward` from here
  /// draws what the first run drew.
  ops::DrawStream drawsAtStart;
  /// The kept values (residuals, or the operands under Recompute), in order:
  /// an integer, or nullopt for the next tensor of save_for_backward.
  std::vector<std::optional<int64_t>> keptSlots;
  /// For each tensor among the grad_inputs operands (the node's inputs, in
  /// order), its position in grad_inputs.
  std::vector<size_t> tensorGradInputs;
};

const std::string &functionName(const PlanOp &op, std::string_view attrName) {
  return stringAttr(op, attrName);
}

void keep(AutogradContext *ctx, RecordedCall &call,
          const std::vector<RuntimeValue> &values) {
  variable_list tensors;
  for (const RuntimeValue &value : values) {
    if (const auto *tensor = std::get_if<Tensor>(&value)) {
      tensors.push_back(*tensor);
      call.keptSlots.emplace_back();
    } else {
      call.keptSlots.emplace_back(std::get<int64_t>(value));
    }
  }
  ctx->save_for_backward(std::move(tensors));
}

std::vector<RuntimeValue> kept(AutogradContext *ctx, const RecordedCall &call) {
  variable_list tensors = ctx->get_saved_variables();
  std::vector<RuntimeValue> values;
  size_t nextTensor = 0;
  for (const std::optional<int64_t> &slot : call.keptSlots) {
    if (slot)
      values.emplace_back(*slot);
    else
      values.emplace_back(tensors.at(nextTensor++));
  }
  return values;
}

/// Runs `forward` and checks it returns the call's results first.
std::vector<RuntimeValue>
runForward(const RecordedCall &call,
           const std::vector<RuntimeValue> &operands) {
  const PlanOp &op = *call.op;
  std::vector<RuntimeValue> outputs =
      call.executor->call(functionName(op, Call::attr::forward), operands);
  if (outputs.size() < op.results.size())
    throw PlanError(op.where() + ": @" + functionName(op, Call::attr::forward) +
                    " returns " + std::to_string(outputs.size()) +
                    " values, fewer than the call's " +
                    std::to_string(op.results.size()) + " results");
  return outputs;
}

/// Runs the backward step with the execution settings of the forward pass
/// that recorded it (training flag, draws), restoring the current ones after.
class ReplayScope {
public:
  explicit ReplayScope(const RecordedCall &call)
      : ctx(call.executor->context()), draws(ctx.draws),
        training(ctx.training) {
    ctx.draws = call.drawsAtStart;
    ctx.training = call.training;
  }
  ~ReplayScope() {
    ctx.draws = draws;
    ctx.training = training;
  }
  ReplayScope(const ReplayScope &) = delete;
  ReplayScope &operator=(const ReplayScope &) = delete;

private:
  ExecutionContext &ctx;
  ops::DrawStream draws;
  bool training;
};

/// The call as an autograd function of the tensors among its grad_inputs
/// operands. `operands` are all the call's operands; `results` receives the
/// call's integer results (tensor results are the function's outputs).
struct CallFunction : torch::autograd::Function<CallFunction> {
  static variable_list forward(AutogradContext *ctx,
                               const c10::intrusive_ptr<RecordedCall> &call,
                               const std::vector<RuntimeValue> *operands,
                               std::vector<RuntimeValue> *results,
                               at::TensorList /*gradInputs*/) {
    torch::NoGradGuard noGrad;
    const PlanOp &op = *call->op;
    std::vector<RuntimeValue> outputs = runForward(*call, *operands);
    const size_t numResults = op.results.size();
    if (call->policy == RecomputePolicy::Save)
      keep(ctx, *call,
           std::vector<RuntimeValue>(outputs.begin() + numResults,
                                     outputs.end()));
    else
      keep(ctx, *call, *operands);

    variable_list tensorResults, integerResults;
    for (size_t i = 0; i < numResults; ++i) {
      if (!std::holds_alternative<Tensor>(outputs[i])) {
        (*results)[i] = outputs[i];
        continue;
      }
      Tensor result = distinctOutput(std::get<Tensor>(outputs[i]), *operands,
                                     tensorResults);
      if (!result.is_floating_point())
        integerResults.push_back(result);
      tensorResults.push_back(result);
    }
    ctx->mark_non_differentiable(integerResults);
    ctx->saved_data["call"] = c10::IValue::make_capsule(call);
    return tensorResults;
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    auto call = c10::static_intrusive_pointer_cast<RecordedCall>(
        ctx->saved_data["call"].toCapsule());
    const PlanOp &op = *call->op;
    try {
      return gradInputGrads(*call, runBackward(ctx, *call, grads));
    } catch (const PlanError &error) {
      throw PlanError(op.where() + ": in the backward step: " + error.what());
    }
  }

private:
  /// Autograd attaches this node's history to each output tensor, so an
  /// output must be a tensor of its own: not an operand (the caller's
  /// tensor would change) nor an earlier output.
  static Tensor distinctOutput(const Tensor &result,
                               const std::vector<RuntimeValue> &operands,
                               const variable_list &earlier) {
    auto same = [&](const Tensor &other) { return other.is_same(result); };
    bool isOperand = std::any_of(
        operands.begin(), operands.end(), [&](const RuntimeValue &value) {
          const auto *tensor = std::get_if<Tensor>(&value);
          return tensor && same(*tensor);
        });
    if (isOperand || std::any_of(earlier.begin(), earlier.end(), same))
      return result.clone();
    return result;
  }

  static std::vector<RuntimeValue> runBackward(AutogradContext *ctx,
                                               const RecordedCall &call,
                                               const variable_list &grads) {
    torch::NoGradGuard noGrad;
    ReplayScope replay(call);
    const PlanOp &op = *call.op;
    std::vector<RuntimeValue> args = kept(ctx, call);
    if (call.policy == RecomputePolicy::Recompute) {
      std::vector<RuntimeValue> outputs = runForward(call, args);
      args.assign(outputs.begin() + op.results.size(), outputs.end());
    }
    // One cotangent per result, tensor results in the order of the node's
    // outputs (autograd turned undefined gradients into zeros of the output);
    // integer scalars have none but keep their slot.
    size_t nextGrad = 0;
    for (const ValueType &type : op.resultTypes)
      if (type.tensor)
        args.emplace_back(grads.at(nextGrad++));
      else
        args.emplace_back(int64_t{0});
    return call.executor->call(functionName(op, Call::attr::backward), args);
  }

  /// The gradients of the node's inputs (the tensors among grad_inputs),
  /// after slots for the forward's non-tensor arguments.
  static variable_list gradInputGrads(const RecordedCall &call,
                                      const std::vector<RuntimeValue> &grads) {
    const PlanOp &op = *call.op;
    size_t expected = intArrayAttr(op, Call::attr::grad_inputs).size();
    if (grads.size() != expected)
      throw PlanError("@" + functionName(op, Call::attr::backward) +
                      " returns " + std::to_string(grads.size()) +
                      " values for " + std::to_string(expected) +
                      " grad_inputs");
    variable_list result{Tensor(), Tensor(), Tensor()};
    for (size_t position : call.tensorGradInputs) {
      const auto *grad = std::get_if<Tensor>(&grads[position]);
      if (!grad)
        throw PlanError("@" + functionName(op, Call::attr::backward) +
                        " returns an integer for tensor grad_inputs entry " +
                        std::to_string(position));
      // A deferred gradient reaches the operand through its collector.
      result.push_back(isDeferredZero(*grad) ? Tensor() : *grad);
    }
    return result;
  }
};

/// Whether this call's gradient is recorded: grad mode is on and a tensor
/// among its grad_inputs operands requires grad.
bool recordsGradient(const std::vector<Tensor> &gradInputs) {
  return torch::GradMode::is_enabled() &&
         std::any_of(gradInputs.begin(), gradInputs.end(),
                     [](const Tensor &t) { return t.requires_grad(); });
}

void call(Executor &executor, const PlanOp &op, Frame &frame) {
  std::vector<RuntimeValue> operands;
  for (int64_t id : op.operands)
    operands.push_back(frame.get(op, id));
  std::vector<Tensor> gradInputs;
  std::vector<size_t> tensorGradInputs;
  const std::vector<int64_t> &indices =
      intArrayAttr(op, Call::attr::grad_inputs);
  for (size_t position = 0; position < indices.size(); ++position) {
    int64_t index = indices[position];
    if (index < 0 || index >= static_cast<int64_t>(operands.size()))
      throw PlanError(op.where() + ": grad_inputs entry " +
                      std::to_string(index) + " is not an operand index");
    if (const auto *tensor = std::get_if<Tensor>(&operands[index])) {
      gradInputs.push_back(*tensor);
      tensorGradInputs.push_back(position);
    }
  }

  std::vector<RuntimeValue> results;
  // --kernels reference: the callee's ops record their own autograd nodes,
  // the oracle the compiler-derived backward is tested against.
  if (!recordsGradient(gradInputs) ||
      executor.context().kernelMode == KernelMode::Reference) {
    results = executor.call(functionName(op, Call::attr::callee), operands);
  } else {
    ExecutionContext &ctx = executor.context();
    auto recorded = c10::make_intrusive<RecordedCall>();
    recorded->executor = &executor;
    recorded->op = &op;
    recorded->policy = ctx.recompute;
    recorded->training = ctx.training;
    recorded->drawsAtStart = ctx.draws;
    recorded->tensorGradInputs = std::move(tensorGradInputs);
    // Integer results land here; tensor results stay placeholders (undefined
    // tensors) and come back as the node's outputs.
    results.resize(op.results.size());
    variable_list tensorResults = CallFunction::apply(
        recorded, &operands, &results, at::TensorList(gradInputs));
    size_t nextTensor = 0;
    for (RuntimeValue &result : results)
      if (std::holds_alternative<Tensor>(result))
        result = tensorResults.at(nextTensor++);
  }
  if (results.size() != op.results.size())
    throw PlanError(op.where() + ": @" + functionName(op, Call::attr::callee) +
                    " returns " + std::to_string(results.size()) +
                    " values for " + std::to_string(op.results.size()) +
                    " results");
  for (size_t i = 0; i < results.size(); ++i)
    frame.setResult(op, i, std::move(results[i]));
}

} // namespace

void registerCallOp(OpRegistry &registry) { registry[Call::name] = call; }

} // namespace rvnn::runtime
