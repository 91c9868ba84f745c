#include "EvalOptions.h"
#include "KernelsOption.h"
#include "OptionParser.h"
#include "Output.h"
#include "RecomputeOption.h"
#include "Subcommands.h"

#include <numeric>

#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Runtime/Device.h"
#include "rvnn/Runtime/RunConfig.h"
#include "rvnn/Runtime/Train/Checkpoint.h"

namespace rvnn::cli {

using namespace rvnn::runtime;

namespace {

nlohmann::json encode(const torch::Tensor &tensor) {
  torch::Tensor flat =
      tensor.detach().to(torch::kCPU, torch::kDouble).flatten();
  std::vector<double> values(flat.data_ptr<double>(),
                             flat.data_ptr<double>() + flat.numel());
  return {{"shape", tensor.sizes().vec()}, {"values", values}};
}

} // namespace

int runDumpGrads(const std::vector<std::string> &args) {
  std::string configPath, modelDir, dataFile, checkpoint, output = "-";
  std::string device = "cpu", kernels = "generated", recompute = "config";
  std::string options;
  std::uint64_t seed = 1, rows = 8;
  bool training = false;
  OptionParser parser(
      "rvnn-run dump-grads",
      "Writes a model's parameters, one batch (the first --rows examples of\n"
      "--data), its evaluation-mode loss, the loss gradient of every\n"
      "parameter and the seed of the pass's random draws as JSON, for\n"
      "checking against an independent implementation\n"
      "(bench/reference/check_equivalence.py).\n");
  parser.add("--config", "FILE", "run configuration (task)", configPath);
  parser.add("--model", "DIR", "compiled model", modelDir);
  parser.add("--data", "FILE", "data file", dataFile);
  parser.add("--rows", "N", "batch size", rows);
  parser.add("--seed", "N", "parameter initialisation seed", seed);
  parser.add("--checkpoint", "FILE",
             "take the parameters from a checkpoint's latest state instead",
             checkpoint);
  parser.add("--output", "FILE", "where to write; - is standard output",
             output);
  parser.add("--device", "NAME", "cpu, cuda or cuda:N", device);
  parser.addFlag("--training",
                 "the training-mode loss instead (dropout on, drawn from the "
                 "stream --seed seeds)",
                 training);
  addKernelsOption(parser, kernels);
  addRecomputeOption(parser, recompute);
  addEvalOptionsOption(parser, options);
  if (!parser.parse(args))
    return 0;
  for (const char *required : {"--config", "--model", "--data"})
    if (!parser.given(required))
      parser.fail(std::string("missing ") + required);
  const KernelMode kernelMode = kernelsOption(parser, kernels);

  RunConfig config = readRunConfig(configPath);
  Dataset data = readDataset(config.task, dataFile);
  std::vector<size_t> picked(std::min<size_t>(rows, data.labels.size()));
  std::iota(picked.begin(), picked.end(), 0);
  Batch batch = makeBatch(data, picked);

  CompiledModel model(modelDir, selectDevice(device), seed, kernelMode);
  applyRunConfig(config, recomputeOption(parser, recompute, config),
                 model.executionContext());
  model.setEvalOptions(evalOptions(parser, options));
  if (!checkpoint.empty())
    train::loadParameters(checkpoint, model, /*best=*/false);
  torch::Tensor loss = model.loss(batch, training);
  loss.backward();

  // The seed of the pass's draw stream (rvnn/Runtime/Ops/Random.h), so a
  // reference can redraw what the pass drew at evaluation (beam alignment).
  nlohmann::json dump = {{"loss", loss.item<double>()},
                         {"draw_seed", model.executionContext().draws.seed},
                         {"labels", encode(batch.labels)},
                         {"inputs", nlohmann::json::array()},
                         {"params", nlohmann::json::object()},
                         {"grads", nlohmann::json::object()}};
  for (const torch::Tensor &input : batch.inputs)
    dump["inputs"].push_back(encode(input));
  for (const auto &[name, param] : model.namedParameters()) {
    dump["params"][name] = encode(param);
    dump["grads"][name] = param.grad().defined()
                              ? encode(param.grad())
                              : encode(torch::zeros_like(param));
  }
  writeOutput(output, [&](std::ostream &out) { out << dump.dump() << "\n"; });
  return 0;
}

} // namespace rvnn::cli
