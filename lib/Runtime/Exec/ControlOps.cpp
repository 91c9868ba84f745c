// Control ops: parameters and the loops that run a region (recurse with its
// halting policy, balanced_reduce).
#include "Handlers.h"

#include "rvnn/Runtime/Ops/Recursion.h"

namespace rvnn::runtime {
namespace {

using torch::Tensor;
using Recurse = exec::RecurseOp;

void paramGet(Executor &executor, const PlanOp &op, Frame &frame) {
  frame.setResult(
      op, 0, executor.parameter(stringAttr(op, exec::ParamGetOp::attr::name)));
}

/// A loop's body runs its gemms on the same parameters step after step: the
/// compiled backward's vjps defer those weight gradients to a collector
/// (GradCollector.h), bound to what the body reads from outside; the
/// reference path keeps ATen's own. A tensor used once needs no collector.
void collectLoopGrads(Executor &executor, const PlanOp &loop, Frame &frame) {
  if (executor.context().kernelMode == KernelMode::Generated &&
      torch::GradMode::is_enabled())
    collectCapturedGrads(loop, frame);
}

/// Marks the tensors a loop reads from outside as fixed while it runs
/// (Executor::pushLoopInvariants).
class LoopInvariantsScope {
public:
  LoopInvariantsScope(Executor &executor, const PlanOp &loop,
                      const Frame &frame)
      : executor(executor) {
    std::vector<Tensor> tensors;
    for (int64_t id : capturedValueIds(loop.regions.at(0)))
      if (const auto *tensor = std::get_if<Tensor>(&frame.get(loop, id)))
        tensors.push_back(*tensor);
    executor.pushLoopInvariants(tensors);
  }
  ~LoopInvariantsScope() { executor.popLoopInvariants(); }
  LoopInvariantsScope(const LoopInvariantsScope &) = delete;
  LoopInvariantsScope &operator=(const LoopInvariantsScope &) = delete;

private:
  Executor &executor;
};

/// Steps recurse runs at most, from its halting policy.
int64_t stepBound(Executor &executor, const PlanOp &op, const Frame &frame,
                  contract::HaltingPolicy policy) {
  if (policy == contract::HaltingPolicy::fixed &&
      !executor.context().training && hasAttr(op, Recurse::attr::eval_steps))
    return attrAs<int64_t>(op, Recurse::attr::eval_steps);
  OperandGroup maxSteps = operandGroup(op, Recurse::operand::max_steps);
  if (maxSteps.size)
    return frame.integer(op, maxSteps.begin);
  return attrAs<int64_t>(op, Recurse::attr::steps);
}

/// Compaction runs the body on the active rows only, which is sound when the
/// body reads every batch-major value, and the batch size, through the loop
/// state. A captured tensor whose dim 0 equals the batch size might be
/// batch-major, and a captured integer equal to it might be the batch size,
/// so either turns compaction off for this loop (freezing alone stays
/// exact).
bool canCompact(const PlanOp &op, const Frame &frame, int64_t batch) {
  for (int64_t id : capturedValueIds(op.regions.at(0))) {
    const RuntimeValue &value = frame.get(op, id);
    if (std::holds_alternative<int64_t>(value)) {
      if (std::get<int64_t>(value) == batch)
        return false;
      continue;
    }
    const Tensor &tensor = std::get<Tensor>(value);
    if (tensor.dim() > 0 && tensor.size(0) == batch)
      return false;
  }
  return true;
}

/// The per-sample loop state: the full batch, and the rows still running.
/// Without compaction every row stays active and halted rows are frozen.
struct HaltingState {
  std::vector<RuntimeValue> full; ///< every sample's state
  std::vector<RuntimeValue> rows; ///< the active rows' state
  Tensor active;                  ///< i64 sample index of each active row
  Tensor halted;                  ///< bool per active row

  /// Writes the active rows back into the full state.
  void writeBack() {
    for (size_t i = 0; i < full.size(); ++i)
      if (std::holds_alternative<Tensor>(full[i]))
        full[i] = std::get<Tensor>(full[i]).index_copy(
            0, active, std::get<Tensor>(rows[i]));
  }

  /// Drops the halted rows from the running set.
  void compact() {
    writeBack();
    Tensor keep = (~halted).nonzero().squeeze(1);
    active = active.index_select(0, keep);
    halted = halted.index_select(0, keep);
    for (RuntimeValue &value : rows)
      if (std::holds_alternative<Tensor>(value))
        value = std::get<Tensor>(value).index_select(0, keep);
  }
};

/// recurse: runs the body over the state tuple. With per_sample halting,
/// rows of halted samples are frozen; the host checks "all halted?" only every
/// haltSyncEvery steps (extra steps leave frozen rows unchanged) and, when
/// compactHalted is set, then also drops halted rows from the batch the body
/// runs on.
void recurse(Executor &executor, const PlanOp &op, Frame &frame) {
  ExecutionContext &ctx = executor.context();
  OperandGroup inits = operandGroup(op, Recurse::operand::inits);
  std::vector<RuntimeValue> state;
  for (size_t i = 0; i < inits.size; ++i)
    state.push_back(frame.get(op, op.operands[inits.begin + i]));
  contract::HaltingPolicy policy =
      enumAttr(op, Recurse::attr::halting, contract::parseHaltingPolicy);
  int64_t bound = stepBound(executor, op, frame, policy);
  collectLoopGrads(executor, op, frame);
  LoopInvariantsScope invariants(executor, op, frame);
  if (policy != contract::HaltingPolicy::per_sample &&
      checkpointsSegments(executor, op, state)) {
    state = runCheckpointedLoop(executor, op, frame, std::move(state), bound);
  } else if (policy != contract::HaltingPolicy::per_sample) {
    for (int64_t step = 0; step < bound; ++step) {
      std::vector<RuntimeValue> args{step};
      args.insert(args.end(), state.begin(), state.end());
      state = executor.runLoopBody(op.regions.at(0), frame, args);
    }
  } else if (!state.empty()) {
    Tensor first = std::get<Tensor>(state[0]);
    int64_t batch = first.size(0);
    // A structure trace records the body's rows, which must stay the
    // batch's.
    bool compact = ctx.compactHalted && !ctx.structureTrace &&
                   canCompact(op, frame, batch);
    HaltingState loop{
        state, state, torch::arange(batch, first.options().dtype(torch::kLong)),
        torch::zeros({batch}, first.options().dtype(torch::kBool))};
    for (int64_t step = 0; step < bound; ++step) {
      std::vector<RuntimeValue> args{step};
      args.insert(args.end(), loop.rows.begin(), loop.rows.end());
      std::vector<RuntimeValue> next =
          executor.runLoopBody(op.regions.at(0), frame, args);
      if (ctx.profile)
        ctx.profile->sampleSteps += loop.active.size(0);
      Tensor halt = std::get<Tensor>(next.back()).to(torch::kBool);
      next.pop_back();
      for (size_t i = 0; i < loop.rows.size(); ++i)
        loop.rows[i] =
            std::holds_alternative<Tensor>(next[i])
                ? ops::freezeHalted(loop.halted, std::get<Tensor>(next[i]),
                                    std::get<Tensor>(loop.rows[i]))
                : next[i];
      loop.halted = loop.halted | halt;
      if ((step + 1) % ctx.haltSyncEvery != 0)
        continue;
      if (loop.halted.all().item<bool>())
        break;
      if (compact && loop.halted.any().item<bool>())
        loop.compact();
    }
    loop.writeBack();
    state = loop.full;
  }
  for (size_t i = 0; i < state.size(); ++i)
    frame.setResult(op, i, state[i]);
}

void balancedReduce(Executor &executor, const PlanOp &op, Frame &frame) {
  collectLoopGrads(executor, op, frame);
  LoopInvariantsScope invariants(executor, op, frame);
  const PlanRegion &body = op.regions.at(0);
  auto reducer = [&](const Tensor &children, const Tensor &mask) {
    return std::get<Tensor>(
        executor.runLoopBody(body, frame, {children, mask}).at(0));
  };
  frame.setResult(op, 0,
                  ops::balancedReduce(
                      frame.tensor(op, 0), frame.tensor(op, 1),
                      attrAs<int64_t>(op, exec::BalancedReduceOp::attr::arity),
                      reducer));
}

} // namespace

void registerControlOps(OpRegistry &r) {
  r[exec::ParamGetOp::name] = paramGet;
  r[exec::RecurseOp::name] = recurse;
  r[exec::BalancedReduceOp::name] = balancedReduce;
}

} // namespace rvnn::runtime
