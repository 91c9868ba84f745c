#include "EvalOptions.h"
#include "KernelsOption.h"
#include "OptionParser.h"
#include "Report.h"
#include "Subcommands.h"
#include "ThreadsOption.h"

#include <filesystem>
#include <iostream>

#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Runtime/Device.h"
#include "rvnn/Runtime/RunConfig.h"
#include "rvnn/Runtime/Train/Checkpoint.h"
#include "rvnn/Runtime/Train/WeightsFile.h"

namespace rvnn::cli {

using namespace rvnn::runtime;

int runEval(const std::vector<std::string> &args) {
  std::string configPath, modelDir, checkpoint, weights, dataFile;
  std::string device = "cpu", kernels = "generated", options;
  bool latest = false;
  unsigned threads = 0;
  OptionParser parser("rvnn-run eval",
                      "Scores a checkpoint (or a weights file) on a data "
                      "file and prints\naccuracy by length bucket.\n");
  parser.add("--config", "FILE", "run configuration (task, buckets)",
             configPath);
  parser.add("--model", "DIR", "compiled model", modelDir);
  parser.add("--checkpoint", "FILE", "checkpoint (best.pt or last.pt)",
             checkpoint);
  parser.add("--weights", "FILE",
             "weights file instead (rvnn-run export: torch or safetensors)",
             weights);
  parser.add("--data", "FILE", "data to score", dataFile);
  parser.add("--device", "NAME", "cpu, cuda or cuda:N", device);
  addKernelsOption(parser, kernels);
  addEvalOptionsOption(parser, options);
  addThreadsOption(parser, threads);
  parser.addFlag("--latest",
                 "use the checkpoint's latest parameters, not its best",
                 latest);
  if (!parser.parse(args))
    return 0;
  for (const char *required : {"--config", "--model", "--data"})
    if (!parser.given(required))
      parser.fail(std::string("missing ") + required);
  if (parser.given("--checkpoint") == parser.given("--weights"))
    parser.fail("give either --checkpoint or --weights");
  if (latest && !parser.given("--checkpoint"))
    parser.fail("--latest chooses among a checkpoint's parameters; a weights "
                "file has one set");
  const KernelMode kernelMode = kernelsOption(parser, kernels);

  RunConfig config = readRunConfig(configPath);
  const Dataset data = readDataset(config.task, dataFile);
  applyThreadsOption(threads);
  CompiledModel model(modelDir, selectDevice(device), /*seed=*/0, kernelMode);
  applyRunConfig(config, config.recompute, model.executionContext());
  model.setEvalOptions(evalOptions(parser, options));
  if (parser.given("--weights"))
    train::loadWeights(weights, model);
  else
    train::loadParameters(checkpoint, model, /*best=*/!latest);
  std::vector<Batch> batches = orderedBatches(data, config.batchSize);
  printAccuracyTable(std::cout,
                     {{std::filesystem::path(dataFile).filename().string(),
                       train::evaluate(model, batches, config.bucketEdges)}});
  return 0;
}

} // namespace rvnn::cli
