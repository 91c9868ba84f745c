#ifndef RVNN_RUNTIME_PROFILE_H
#define RVNN_RUNTIME_PROFILE_H

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "rvnn/Dialect/Exec/ExecContract.h"

namespace rvnn::runtime {

/// What the forward passes run with a profile attached executed
/// (`rvnn-run bench --profile`): op counts by contract kind, the recursion
/// steps and the dispatches (kernel and library calls) inside them, the GEMM
/// work, and where the time went per op name. An rvnn_exec.call counts as a
/// control op and the ops of the function it runs (the callee, or the
/// compiler-derived forward when gradients are recorded) count as ops of
/// their own, inside the recursion step that made the call.
struct ExecutionProfile {
  struct OpTime {
    int64_t calls = 0;
    double seconds = 0;
  };

  /// Ops run, indexed by contract::OpKind.
  std::array<int64_t, 5> opsByKind{};
  /// Runs of recurse / balanced_reduce bodies (recursion steps), and the
  /// kernel and library calls made inside them.
  int64_t loopSteps = 0;
  int64_t loopDispatches = 0;
  /// Samples the per_sample halting loops ran their body on, summed over
  /// steps: what freezing halted samples costs and compaction saves.
  int64_t sampleSteps = 0;
  /// 2·M·N·K summed over the forward's GEMMs.
  double gemmFlops = 0;
  /// Time per op name; control ops are not timed (they contain others).
  std::map<std::string, OpTime> byOp;
  /// Runs of each plan function (the entry point, and what rvnn_exec.call
  /// ran: callee, forward or backward function).
  std::map<std::string, int64_t> functionRuns;
  /// rvnn_exec.vjp ops that no fast rule covered, so ATen autograd
  /// differentiated the primal op (VjpOp.cpp): zero on the generated path of
  /// every model today.
  int64_t autogradRuleVjps = 0;

  int64_t ops(contract::OpKind kind) const {
    return opsByKind[static_cast<size_t>(kind)];
  }
  /// Kernel calls + library calls: what a GPU would launch.
  int64_t dispatches() const {
    return ops(contract::OpKind::Kernel) + ops(contract::OpKind::Library);
  }
};

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_PROFILE_H
