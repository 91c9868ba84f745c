#include "StepProfile.h"

#include "GemmReplay.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <unordered_set>
#include <vector>

#include <torch/csrc/autograd/function.h>
#include <torch/torch.h>

namespace rvnn::cli {

using runtime::ExecutionProfile;
namespace contract = rvnn::contract;

namespace {

/// Nodes of the graph that backward() from `loss` runs, leaves' gradient
/// accumulators excluded.
int64_t countBackwardNodes(const torch::Tensor &loss) {
  std::vector<torch::autograd::Node *> stack;
  std::unordered_set<torch::autograd::Node *> seen;
  if (loss.grad_fn())
    stack.push_back(loss.grad_fn().get());
  int64_t nodes = 0;
  while (!stack.empty()) {
    torch::autograd::Node *node = stack.back();
    stack.pop_back();
    if (!seen.insert(node).second)
      continue;
    if (node->name() != "torch::autograd::AccumulateGrad")
      ++nodes;
    for (const torch::autograd::Edge &edge : node->next_edges())
      if (edge.function)
        stack.push_back(edge.function.get());
  }
  return nodes;
}

nlohmann::json timeByOp(const ExecutionProfile &profile) {
  nlohmann::json byOp = nlohmann::json::object();
  for (const auto &[name, time] : profile.byOp)
    byOp[name] = {{"calls", time.calls}, {"ms", time.seconds * 1e3}};
  return byOp;
}

/// GFLOP/s of `multiplyAdds` in `ms` (two FLOPs each).
double gflopRate(double multiplyAdds, double ms) {
  return ms > 0 ? 2 * multiplyAdds / ms * 1e-6 : 0;
}

/// Per kind of BLAS call: its operands, calls, and time and rate (GFLOP/s)
/// in the recorded step and replayed.
nlohmann::json gemmShapesJson(const std::vector<GemmShape> &shapes) {
  nlohmann::json list = nlohmann::json::array();
  for (const GemmShape &shape : shapes)
    list.push_back(
        {{"function", shape.function},
         {"sizes", shape.sizes},
         {"strides", shape.strides},
         {"calls", shape.calls},
         {"step_ms", shape.stepMs},
         {"gflop_per_s", gflopRate(shape.multiplyAdds, shape.stepMs)},
         {"replay_ms", shape.replayMs},
         {"replay_gflop_per_s",
          gflopRate(shape.multiplyAdds, shape.replayMs)}});
  return list;
}

/// " gemm 1.49 ms (17) ..." for the `most` ops that took the most time.
void printTimeByOp(std::ostream &os, const ExecutionProfile &profile,
                   size_t most) {
  std::vector<std::pair<std::string, ExecutionProfile::OpTime>> ops(
      profile.byOp.begin(), profile.byOp.end());
  std::sort(ops.begin(), ops.end(), [](const auto &a, const auto &b) {
    return a.second.seconds > b.second.seconds;
  });
  for (size_t i = 0; i < ops.size() && i < most; ++i)
    os << " " << ops[i].first.substr(ops[i].first.find('.') + 1) << " "
       << std::setprecision(2) << ops[i].second.seconds * 1e3 << " ms ("
       << ops[i].second.calls << ")";
  os << "\n";
}

double perStep(int64_t count, int64_t steps) {
  return steps ? static_cast<double>(count) / static_cast<double>(steps) : 0;
}

/// Attaches `profile` to the model's executor for one scope.
class ProfileScope {
public:
  ProfileScope(runtime::ExecutionContext &context,
               runtime::ExecutionProfile *profile)
      : context(context) {
    context.profile = profile;
  }
  ~ProfileScope() { context.profile = nullptr; }
  ProfileScope(const ProfileScope &) = delete;
  ProfileScope &operator=(const ProfileScope &) = delete;

private:
  runtime::ExecutionContext &context;
};

} // namespace

StepProfile profileStep(runtime::CompiledModel &model,
                        const runtime::Batch &batch, bool training) {
  StepProfile result;
  runtime::ExecutionContext &context = model.executionContext();
  // The BLAS calls are recorded in a step of their own: the recorder's
  // observer boxes the inputs of every ATen op, which would slow the ops the
  // profiled step times (and its first op pays the observer's set-up).
  std::vector<GemmCall> gemms;
  {
    // The compiled backward functions and ATen's CPU backward run on this
    // thread (LibTorch runs CPU backward on the caller's), so one recorder
    // sees every BLAS call of the step.
    GemmRecorder recorder;
    model.loss(batch, training).backward();
    gemms = std::move(recorder.calls);
  }
  torch::Tensor loss;
  {
    ProfileScope scope(context, &result.forward);
    loss = model.loss(batch, training);
  }
  result.backwardNodes = countBackwardNodes(loss);
  {
    ProfileScope scope(context, &result.backward);
    const auto start = std::chrono::steady_clock::now();
    loss.backward();
    result.backwardMs = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();
  }
  result.gemmCalls = static_cast<int64_t>(gemms.size());
  for (const GemmCall &call : gemms)
    result.gemmStepMs += call.stepMs;
  result.gemmReplayMs = replayGemmsMs(gemms);
  result.gemmShapes = gemmShapes(gemms);
  return result;
}

double measureSgemmRate() {
  const int64_t n = 512;
  torch::Tensor a = torch::randn({n, n}), b = torch::randn({n, n});
  torch::Tensor c = torch::mm(a, b); // warm up the BLAS
  int64_t calls = 0;
  const auto start = std::chrono::steady_clock::now();
  double seconds = 0;
  while (seconds < 0.3) {
    c = torch::mm(a, b);
    ++calls;
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
  }
  return 2.0 * static_cast<double>(n * n * n) * static_cast<double>(calls) /
         seconds;
}

double gemmFloorMs(const StepProfile &profile, double sgemmRate) {
  return sgemmRate > 0 ? 3.0 * profile.forward.gemmFlops / sgemmRate * 1e3 : 0;
}

nlohmann::json toJson(const StepProfile &profile) {
  const ExecutionProfile &f = profile.forward;
  nlohmann::json ops = nlohmann::json::object();
  for (contract::OpKind kind :
       {contract::OpKind::Control, contract::OpKind::Scalar,
        contract::OpKind::View, contract::OpKind::Library,
        contract::OpKind::Kernel})
    ops[std::string(contract::keyword(kind))] = f.ops(kind);
  return {
      {"forward_ops", ops},
      {"forward_dispatches", f.dispatches()},
      {"recursion_steps", f.loopSteps},
      {"halting_sample_steps", f.sampleSteps},
      {"forward_dispatches_in_recursion", f.loopDispatches},
      {"forward_dispatches_per_step", perStep(f.loopDispatches, f.loopSteps)},
      {"backward_nodes", profile.backwardNodes},
      {"backward_nodes_per_step", perStep(profile.backwardNodes, f.loopSteps)},
      {"forward_gemm_flops", f.gemmFlops},
      {"forward_time_by_op", timeByOp(f)},
      {"backward_ms", profile.backwardMs},
      {"gemm_calls", profile.gemmCalls},
      {"gemm_replay_ms", profile.gemmReplayMs},
      {"gemm_step_ms", profile.gemmStepMs},
      {"gemm_shapes", gemmShapesJson(profile.gemmShapes)},
      {"backward_dispatches", profile.backward.dispatches()},
      {"backward_autograd_rule_vjps", profile.backward.autogradRuleVjps},
      {"backward_time_by_op", timeByOp(profile.backward)}};
}

void printProfile(std::ostream &os, const StepProfile &profile) {
  const ExecutionProfile &f = profile.forward;
  os << "  forward: " << f.dispatches() << " dispatches ("
     << f.ops(contract::OpKind::Kernel) << " kernel, "
     << f.ops(contract::OpKind::Library) << " library), " << f.loopSteps
     << " recursion steps";
  if (f.sampleSteps)
    os << " (per-sample halting: bodies ran on " << f.sampleSteps
       << " sample-steps)";
  os << ", " << std::setprecision(1) << perStep(f.loopDispatches, f.loopSteps)
     << " dispatches per step; backward: " << profile.backwardNodes
     << " autograd nodes (" << perStep(profile.backwardNodes, f.loopSteps)
     << " per recursion step)\n";
  os << "  forward time by op:";
  printTimeByOp(os, f, 6);
  os << "  backward " << std::setprecision(3) << profile.backwardMs << " ms, "
     << profile.backward.dispatches() << " dispatches, "
     << profile.backward.autogradRuleVjps
     << " vjps by the autograd rule; time by op:";
  printTimeByOp(os, profile.backward, 6);
}

} // namespace rvnn::cli
