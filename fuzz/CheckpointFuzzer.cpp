// Fuzzes the checkpoint loader (Checkpoint.cpp, StateIO.cpp; LibTorch's zip
// and pickle readers underneath) through its three entry points: what
// `rvnn-run export` reads (readCheckpointParameters), what `eval
// --checkpoint` reads (loadParameters) and what `train --resume` reads
// (loadCheckpoint, with the optimiser state). Expected errors:
// std::runtime_error naming the file (every other error is wrapped in one).

#include "FuzzCommon.h"
#include "FuzzModel.h"
#include "rvnn/Runtime/Train/Checkpoint.h"

#include <stdexcept>

using namespace rvnn::runtime::train;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string path =
      rvnn::fuzz::writeScratch("checkpoint.pt", rvnn::fuzz::bytes(data, size));
  try {
    readCheckpointParameters(path, /*best=*/true);
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  try {
    rvnn::fuzz::TinyModel model;
    loadParameters(path, model, /*best=*/false);
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  try {
    rvnn::fuzz::TinyModel model;
    Optimiser optimiser(model.tensors(), OptimiserConfig{});
    TrainState state;
    state.seed = rvnn::fuzz::kSeedOfRun;
    loadCheckpoint(path, model, optimiser, state);
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  return 0;
}
