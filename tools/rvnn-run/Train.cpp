#include "EvalOptions.h"
#include "KernelsOption.h"
#include "OptionParser.h"
#include "RecomputeOption.h"
#include "Report.h"
#include "Subcommands.h"
#include "ThreadsOption.h"

#include <filesystem>
#include <iostream>

#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Runtime/Device.h"
#include "rvnn/Runtime/Report/OperatorCount.h"
#include "rvnn/Runtime/Report/RunPlots.h"
#include "rvnn/Runtime/RunConfig.h"
#include "rvnn/Runtime/Train/AtomicFile.h"
#include "rvnn/Runtime/Train/Trainer.h"
#include "rvnn/Runtime/Train/WeightsFile.h"

namespace rvnn::cli {

using namespace rvnn::runtime;

int runTrain(const std::vector<std::string> &args) {
  std::string configPath, modelDir, trainFile, devFile, testFiles, outDir;
  std::string initFile, evalOptionText;
  std::string device = "cpu", kernels = "generated", recompute = "config";
  std::uint64_t seed = 1, maxSteps = 0, epochs = 0;
  bool resume = false, overwrite = false;
  unsigned threads = 0;
  OptionParser parser(
      "rvnn-run train",
      "Trains a compiled model on a task's data with the training settings\n"
      "of its run configuration (models/<name>.json), writing checkpoints\n"
      "(last.pt, best.pt), metrics.jsonl, results.json and plots\n"
      "(curves.svg, accuracy.svg) into --out, then prints accuracy by length\n"
      "bucket for dev and every test file.\n");
  parser.add("--config", "FILE", "run configuration (models/<name>.json)",
             configPath);
  parser.add("--model", "DIR", "compiled model (rvnn-run compile)", modelDir);
  parser.add("--train", "FILE", "training data", trainFile);
  parser.add("--dev", "FILE", "dev data (early stopping, LR schedule)",
             devFile);
  parser.add("--test", "FILES", "comma-separated test files", testFiles);
  parser.add("--out", "DIR", "run directory", outDir);
  parser.add("--device", "NAME", "cpu, cuda or cuda:N", device);
  addKernelsOption(parser, kernels);
  addRecomputeOption(parser, recompute);
  addEvalOptionsOption(parser, evalOptionText);
  parser.add("--seed", "N", "initialisation, dropout and batch order", seed);
  addThreadsOption(parser, threads);
  parser.add("--max-steps", "N", "stop after N optimiser steps (0: config)",
             maxSteps);
  parser.add("--epochs", "N", "epochs at most (0: config)", epochs);
  parser.add("--init", "FILE",
             "start from a weights file's parameters (rvnn-run export:\n"
             "torch or safetensors) instead of the seeded initialisation",
             initFile);
  parser.addFlag("--resume", "continue from --out/last.pt", resume);
  parser.addFlag("--overwrite", "replace existing checkpoints in --out",
                 overwrite);
  if (!parser.parse(args))
    return 0;
  for (const char *required : {"--config", "--model", "--train", "--out"})
    if (!parser.given(required))
      parser.fail(std::string("missing ") + required);
  if (resume && parser.given("--init"))
    parser.fail("--init and --resume exclude each other (a resumed run "
                "continues from last.pt's parameters)");
  const KernelMode kernelMode = kernelsOption(parser, kernels);

  RunConfig config = readRunConfig(configPath);
  nlohmann::json training = config.training;
  training["checkpoint_dir"] = outDir;
  training["seed"] = seed;
  training["resume"] = resume;
  training["overwrite"] = overwrite;
  training["bucket_edges"] = config.bucketEdges;
  if (maxSteps)
    training["max_steps"] = maxSteps;
  if (epochs)
    training["epochs"] = epochs;
  train::TrainerConfig trainerConfig = train::TrainerConfig::fromJson(training);

  applyThreadsOption(threads);
  CompiledModel model(modelDir, selectDevice(device), seed, kernelMode);
  applyRunConfig(config, recomputeOption(parser, recompute, config),
                 model.executionContext());
  model.setEvalOptions(evalOptions(parser, evalOptionText));
  if (!initFile.empty())
    train::loadWeights(initFile, model);
  Dataset trainData = readDataset(config.task, trainFile);
  std::vector<Batch> dev;
  if (!devFile.empty())
    dev = orderedBatches(readDataset(config.task, devFile), config.batchSize);
  // Read now, so that a bad or empty test file stops the run before training.
  std::vector<std::pair<std::string, Dataset>> tests;
  for (const std::string &file : splitCommaList(testFiles))
    tests.emplace_back(std::filesystem::path(file).filename().string(),
                       readDataset(config.task, file));

  train::Trainer trainer(trainerConfig);
  train::FitResult fit = trainer.fit(
      model,
      [&](int epoch) {
        return bucketedBatches(trainData, config.batchSize,
                               seed * 1000003u + static_cast<uint64_t>(epoch));
      },
      dev);

  std::vector<NamedResult> rows;
  if (!dev.empty())
    rows.push_back({"dev", train::evaluate(model, dev, config.bucketEdges)});
  for (const auto &[name, data] : tests)
    rows.push_back(
        {name, train::evaluate(model, orderedBatches(data, config.batchSize),
                               config.bucketEdges)});
  std::cout << "trained " << fit.steps << " steps, " << fit.epochs
            << " epochs (stopped: " << fit.stopReason << ")\n";
  printAccuracyTable(std::cout, rows);

  nlohmann::json results = {{"steps", fit.steps},
                            {"epochs", fit.epochs},
                            {"stop_reason", fit.stopReason},
                            {"splits", nlohmann::json::object()}};
  for (const NamedResult &entry : rows)
    results["splits"][entry.split] = entry.result.toJson();
  // Atomic like the checkpoints, so a kill here leaves no torn file; a
  // resumed run writes it again.
  train::writeFileAtomically(outDir + "/results.json", results.dump(2) + "\n");

  // accuracy.svg again, now with the test files: by length, or for logic by
  // operator count, the measure its test sets are split by.
  std::vector<report::AccuracyLine> lines;
  if (config.task == Task::Logic) {
    if (!devFile.empty())
      lines.push_back(report::accuracyByOperatorCount(
          model, "dev", readDataset(config.task, devFile), config.batchSize));
    for (const auto &[name, data] : tests)
      lines.push_back(
          report::accuracyByOperatorCount(model, name, data, config.batchSize));
  } else {
    for (const NamedResult &entry : rows)
      lines.push_back(report::accuracyLine(entry.split, entry.result));
  }
  report::writeAccuracyPlot(outDir, lines,
                            config.task == Task::Logic ? "operator count"
                                                       : "length (tokens)");
  return 0;
}

} // namespace rvnn::cli
