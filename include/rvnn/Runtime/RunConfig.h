#ifndef RVNN_RUNTIME_RUNCONFIG_H
#define RVNN_RUNTIME_RUNCONFIG_H

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/TaskData.h"

namespace rvnn::runtime {

/// Examples per batch at most (docs/user-guide.md, "Limits"): thousands of
/// times the papers' batch sizes, so a stray digit fails when the
/// configuration is read rather than as an allocation in the first step.
constexpr size_t kMaxBatchSize = 65536;

/// A model's run configuration, models/<name>.json (docs/user-guide.md):
///   "task": "listops" | "logic", "batch_size", "bucket_edges",
///   "hyperparameters" (the model-specs §8 values the .mlir encodes, for the
///   record), "training" (TrainerConfig keys).
struct RunConfig {
  std::string path;
  Task task = Task::ListOps;
  size_t batchSize = 128;
  std::vector<int64_t> bucketEdges;
  nlohmann::json hyperparameters;
  nlohmann::json training;
  /// Drop halted samples from per_sample loops (ExecutionContext).
  bool compactHalted = false;
  /// What differentiated calls keep for backward ("recompute": "save" or
  /// "recompute"; ExecutionContext::recompute).
  RecomputePolicy recompute = RecomputePolicy::Save;
};

/// Reads and checks a run configuration; errors name the file and the field.
RunConfig readRunConfig(const std::string &path);

/// Sets the execution settings a run configuration holds on `context`:
/// compact_halted, and `recompute` (the configuration's unless a command
/// line overrides it). Every rvnn-run command that executes a model calls
/// it, so none runs it other than as configured.
void applyRunConfig(const RunConfig &config, RecomputePolicy recompute,
                    ExecutionContext &context);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_RUNCONFIG_H
