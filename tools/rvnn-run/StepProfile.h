#ifndef RVNN_TOOLS_RVNN_RUN_STEPPROFILE_H
#define RVNN_TOOLS_RVNN_RUN_STEPPROFILE_H

#include <cstdint>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "GemmReplay.h"
#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Runtime/Profile.h"

namespace rvnn::cli {

/// One profiled training step of `rvnn-run bench --profile`: what the
/// forward executed, the autograd nodes its backward ran (each one ATen
/// kernel or more, or a compiled backward function), what those compiled
/// backward functions executed, and the BLAS calls of forward and backward
/// replayed by themselves (GemmReplay.h).
struct StepProfile {
  runtime::ExecutionProfile forward;
  int64_t backwardNodes = 0;
  double backwardMs = 0;
  runtime::ExecutionProfile backward;
  int64_t gemmCalls = 0;
  double gemmReplayMs = 0;
  /// The same calls' time in the step itself (their operands as the step
  /// left them in the caches, which the replay's warm buffers are not).
  double gemmStepMs = 0;
  /// The calls by kind, the most time first.
  std::vector<GemmShape> gemmShapes;
};

/// Runs forward + backward on `batch` twice: once recording its BLAS calls
/// (GemmReplay.h), once with a profile attached and no recorder (gradients
/// are left accumulated: call before zeroing them, or on a scratch model).
StepProfile profileStep(runtime::CompiledModel &model,
                        const runtime::Batch &batch, bool training);

/// The single-precision GEMM rate of this machine with the current thread
/// setting, in FLOP/s (LibTorch's BLAS, 512³ products).
double measureSgemmRate();

/// The training step's GEMM time at `sgemmRate`: forward products plus the
/// backward's two per forward product.
double gemmFloorMs(const StepProfile &profile, double sgemmRate);

nlohmann::json toJson(const StepProfile &profile);

/// A few lines: dispatches per recursion step forward and backward, and the
/// ops that took the most forward and backward time.
void printProfile(std::ostream &os, const StepProfile &profile);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_STEPPROFILE_H
