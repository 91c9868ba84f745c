#ifndef RVNN_RUNTIME_TRAIN_CHECKPOINT_H
#define RVNN_RUNTIME_TRAIN_CHECKPOINT_H

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rvnn/Runtime/Model.h"
#include "rvnn/Runtime/Train/EarlyStopping.h"
#include "rvnn/Runtime/Train/Optimiser.h"
#include "rvnn/Runtime/Train/ReduceLROnPlateau.h"

namespace rvnn::runtime::train {

/// Everything of a training run besides the model and the optimiser that a
/// checkpoint restores.
struct TrainState {
  /// The run's seed; a checkpoint only resumes a run with the same one,
  /// since the batch order derives from it.
  uint64_t seed = 0;
  int64_t epoch = 0;        ///< current epoch (0-based)
  int64_t batchInEpoch = 0; ///< batches of `epoch` already trained on
  int64_t step = 0;         ///< optimiser steps so far
  ReduceLROnPlateau::State plateau{};
  EarlyStopping::State earlyStop{};
  /// Parameter values at the best evaluation (empty before the first).
  std::vector<torch::Tensor> bestParameters;
  /// Metric records so far (what the metrics file holds).
  std::vector<nlohmann::json> history;
};

/// Writes a checkpoint atomically (AtomicFileWriter): the model's named
/// parameters, the optimiser state, `state`, and the random generators'
/// states (the model's, and the default generators of CPU and of the model
/// generator's device).
void saveCheckpoint(const std::string &file, TrainableModel &model,
                    const Optimiser &optimiser, const TrainState &state);

/// Restores what saveCheckpoint wrote into `model`, `optimiser` and `state`.
/// Throws std::runtime_error naming `file` and what does not match: missing,
/// unreadable or not a checkpoint, parameter names, shapes or dtypes,
/// optimiser, seed. The model's parameters and generators change only after
/// everything has been read and checked.
void loadCheckpoint(const std::string &file, TrainableModel &model,
                    Optimiser &optimiser, TrainState &state);

/// Copies a checkpoint's parameters into `model` for evaluation: the best
/// parameters when `best` and the checkpoint has them, else the latest. Throws
/// std::runtime_error naming `file` and what does not match.
void loadParameters(const std::string &file, TrainableModel &model, bool best);

/// A checkpoint's parameters under the model's names, in the model's order,
/// chosen as loadParameters does. Needs no model: the checkpoint lists every
/// parameter's name, shape and dtype. Throws std::runtime_error naming
/// `file` and what is wrong with it.
std::vector<std::pair<std::string, torch::Tensor>>
readCheckpointParameters(const std::string &file, bool best);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_CHECKPOINT_H
