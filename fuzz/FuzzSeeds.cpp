// rvnn-fuzz-seeds DIR: writes the checkpoint and weights seeds of the fuzz
// corpus (DIR/checkpoint/, DIR/weights/) with the runtime's own writers,
// from the model the targets load them into (FuzzModel.h).

#include "FuzzModel.h"
#include "rvnn/Runtime/Train/Checkpoint.h"
#include "rvnn/Runtime/Train/WeightsFile.h"

#include <filesystem>
#include <iostream>

using namespace rvnn::runtime::train;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: rvnn-fuzz-seeds CORPUS-DIR\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir / "checkpoint");
  std::filesystem::create_directories(dir / "weights");

  rvnn::fuzz::TinyModel model;
  Optimiser optimiser(model.tensors(), OptimiserConfig{});
  TrainState state;
  state.seed = rvnn::fuzz::kSeedOfRun;
  // A checkpoint before any step: no optimiser moments, no best parameters.
  saveCheckpoint((dir / "checkpoint" / "step0.pt").string(), model, optimiser,
                 state);
  // One optimiser step later, with an evaluation behind it.
  optimiser.zeroGrad();
  torch::Tensor loss;
  for (const torch::Tensor &param : model.tensors())
    loss = loss.defined() ? loss + param.pow(2).sum() : param.pow(2).sum();
  loss.backward();
  optimiser.step();
  state.step = 1;
  state.batchInEpoch = 1;
  state.earlyStop.best = 0.5;
  state.earlyStop.bestStep = 1;
  for (const torch::Tensor &param : model.tensors())
    state.bestParameters.push_back(param.detach().clone());
  state.history.push_back({{"kind", "train"}, {"step", 1}, {"loss", 0.7}});
  saveCheckpoint((dir / "checkpoint" / "step1.pt").string(), model, optimiser,
                 state);

  const NamedTensors tensors = model.namedParameters();
  saveWeights((dir / "weights" / "tiny.pt").string(), tensors,
              WeightsFormat::Torch);
  saveWeights((dir / "weights" / "tiny.safetensors").string(), tensors,
              WeightsFormat::Safetensors);
  std::cout << "wrote checkpoint and weights seeds to " << dir.string() << "\n";
  return 0;
}
