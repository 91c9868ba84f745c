#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Dialect/Exec/ExecContract.h"

#include <cmath>
#include <optional>
#include <set>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/nn/functional/loss.h>

namespace rvnn::runtime {

torch::Tensor initialiseParameter(const ParamSpec &spec,
                                  torch::Generator &generator) {
  using Init = contract::InitKind;
  std::optional<Init> init = contract::parseInitKind(spec.init);
  if (!init)
    throw PlanError("parameter '" + spec.name + "': unknown initialiser '" +
                    spec.init + "'");
  auto options = torch::dtype(scalarType(spec.type.dtype));
  const std::vector<int64_t> &shape = spec.type.shape;
  torch::Tensor tensor = torch::empty(shape, options);
  switch (*init) {
  case Init::zeros:
    return tensor.zero_();
  case Init::ones:
    return tensor.fill_(1.0);
  case Init::constant:
    return tensor.fill_(spec.scale);
  case Init::normal:
    return tensor.normal_(0.0, spec.scale, generator);
  case Init::uniform:
    return tensor.uniform_(-spec.scale, spec.scale, generator);
  case Init::xavier_uniform:
    break;
  }
  if (shape.size() < 2)
    throw PlanError("parameter '" + spec.name +
                    "': xavier_uniform needs rank >= 2");
  int64_t receptive = 1;
  for (size_t d = 2; d < shape.size(); ++d)
    receptive *= shape[d];
  double fanIn = static_cast<double>(shape[1] * receptive);
  double fanOut = static_cast<double>(shape[0] * receptive);
  double bound = spec.scale * std::sqrt(6.0 / (fanIn + fanOut));
  return tensor.uniform_(-bound, bound, generator);
}

CompiledModel::CompiledModel(const std::string &directory, torch::Device device,
                             uint64_t seed, KernelMode kernels)
    : compiled(loadPlan(directory, kernels == KernelMode::Generated)) {
  context.device = device;
  context.haltSyncEvery = device.is_cuda() ? kCudaHaltSyncEvery : 1;
  context.kernelMode = kernels;
  context.generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  // Initialised on the CPU in plan order so a seed gives the same weights on
  // every device.
  for (const ParamSpec &spec : compiled.params) {
    torch::Tensor value = initialiseParameter(spec, context.generator)
                              .to(device)
                              .set_requires_grad(true);
    paramIndex[spec.name] = params.size();
    params.emplace_back(spec.name, value);
  }
  compiled.function("forward");
  executor = std::make_unique<Executor>(
      compiled, [this](const std::string &name) { return parameter(name); },
      context);
}

namespace {

/// The names of the eval_option ops in `region`, nested regions included.
void collectEvalOptions(const PlanRegion &region,
                        std::set<std::string> &names) {
  for (const PlanOp &op : region.body) {
    if (op.name == contract::ops::EvalOptionOp::name)
      names.insert(
          op.attrs.at(std::string(contract::ops::EvalOptionOp::attr::name))
              .get<std::string>());
    for (const PlanRegion &nested : op.regions)
      collectEvalOptions(nested, names);
  }
}

} // namespace

void CompiledModel::setEvalOptions(std::map<std::string, int64_t> options) {
  std::set<std::string> known;
  for (const auto &[name, function] : compiled.functions)
    collectEvalOptions(function.body, known);
  for (const auto &[name, value] : options) {
    if (known.count(name))
      continue;
    std::string readable;
    for (const std::string &option : known)
      readable += (readable.empty() ? "" : ", ") + option;
    throw PlanError(
        "the model has no evaluation option '" + name + "' (" +
        (known.empty() ? std::string("it has none") : "it has: " + readable) +
        ")");
  }
  context.evalOptions = std::move(options);
}

torch::Tensor CompiledModel::parameter(const std::string &name) const {
  auto it = paramIndex.find(name);
  if (it == paramIndex.end())
    throw PlanError("the plan reads parameter '@" + name +
                    "' that it does not declare");
  return params[it->second].second;
}

std::vector<RuntimeValue> CompiledModel::forward(const Batch &batch,
                                                 bool training) {
  context.training = training;
  // One seed per forward pass: the drawing ops then depend only on it and on
  // their offset in the pass, which is what recomputation replays.
  context.draws = ops::drawStreamFrom(context.generator);
  std::vector<RuntimeValue> args;
  for (const torch::Tensor &input : batch.inputs)
    args.emplace_back(input.to(context.device));
  std::vector<RuntimeValue> results = executor->call("forward", args);
  if (results.empty() || results.size() > 2)
    throw PlanError("@forward must return logits and optionally an "
                    "auxiliary loss");
  return results;
}

torch::Tensor CompiledModel::loss(const Batch &batch, bool training) {
  std::vector<RuntimeValue> results = forward(batch, training);
  torch::Tensor loss = torch::nn::functional::cross_entropy(
      std::get<torch::Tensor>(results[0]), batch.labels.to(context.device));
  if (results.size() == 2)
    loss = loss + std::get<torch::Tensor>(results[1]);
  return loss;
}

torch::Tensor CompiledModel::logits(const Batch &batch) {
  torch::NoGradGuard noGrad;
  return std::get<torch::Tensor>(forward(batch, false)[0]);
}

} // namespace rvnn::runtime
