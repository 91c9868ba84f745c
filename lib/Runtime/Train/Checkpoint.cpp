#include "rvnn/Runtime/Train/Checkpoint.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <mutex>
#include <stdexcept>

#include <ATen/Context.h>
#include <torch/serialize/archive.h>

#include "StateIO.h"
#include "rvnn/Runtime/Train/AtomicFile.h"

namespace rvnn::runtime::train {

namespace {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

constexpr const char *kFormat = "rvnn-training-checkpoint";
constexpr int64_t kVersion = 1;

using NamedParameters = std::vector<std::pair<std::string, torch::Tensor>>;

nlohmann::json describeParameters(const NamedParameters &params) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto &[name, param] : params)
    list.push_back({{"name", name},
                    {"shape", param.sizes().vec()},
                    {"dtype", c10::toString(param.scalar_type())}});
  return list;
}

/// Names the first difference between the saved parameter list and the
/// model's, so a wrong model or configuration is obvious from the message.
void checkParameters(const nlohmann::json &saved,
                     const NamedParameters &params) {
  const nlohmann::json current = describeParameters(params);
  for (size_t i = 0; i < std::max(saved.size(), current.size()); ++i) {
    if (i >= saved.size())
      throw std::runtime_error("the model has parameter '" +
                               current[i]["name"].get<std::string>() +
                               "', the checkpoint does not (it has " +
                               std::to_string(saved.size()) + " parameters)");
    const std::string name = saved[i].at("name").get<std::string>();
    if (i >= current.size())
      throw std::runtime_error("the checkpoint has parameter '" + name +
                               "', the model does not (it has " +
                               std::to_string(current.size()) + " parameters)");
    if (name != current[i]["name"])
      throw std::runtime_error("parameter #" + std::to_string(i) + " is '" +
                               name + "' in the checkpoint but '" +
                               current[i]["name"].get<std::string>() +
                               "' in the model");
    for (const char *field : {"shape", "dtype"})
      if (saved[i].at(field) != current[i][field])
        throw std::runtime_error("parameter '" + name + "' has " + field + " " +
                                 saved[i][field].dump() +
                                 " in the checkpoint but " +
                                 current[i][field].dump() + " in the model");
  }
}

void writeTensors(OutputArchive &archive, const std::string &key,
                  const std::vector<torch::Tensor> &tensors) {
  OutputArchive list(archive.compilation_unit());
  for (size_t i = 0; i < tensors.size(); ++i)
    list.write("p" + std::to_string(i), tensors[i].detach(),
               /*is_buffer=*/true);
  archive.write(key, list);
}

std::vector<torch::Tensor> readTensors(InputArchive &list,
                                       const std::string &key,
                                       const NamedParameters &params) {
  std::vector<torch::Tensor> tensors;
  for (size_t i = 0; i < params.size(); ++i)
    tensors.push_back(readStateLike(list, "p" + std::to_string(i),
                                    params[i].second,
                                    key + " '" + params[i].first + "'"));
  return tensors;
}

double readDouble(InputArchive &archive, const std::string &key,
                  const std::string &what) {
  c10::IValue value;
  if (!archive.try_read(key, value) || !value.isDouble())
    throw std::runtime_error(what + " is missing");
  return value.toDouble();
}

/// The generators whose state a checkpoint keeps: the model's, and the
/// default ones of CPU and of the model generator's device, which ops fall
/// back to when given no generator.
std::vector<std::pair<std::string, at::Generator>>
generators(TrainableModel &model) {
  at::Generator &own = model.generator();
  std::vector<std::pair<std::string, at::Generator>> list{
      {"model", own},
      {"default_cpu", at::globalContext().defaultGenerator(torch::kCPU)}};
  if (!own.device().is_cpu())
    list.emplace_back("default_device",
                      at::globalContext().defaultGenerator(own.device()));
  return list;
}

void save(const std::string &file, TrainableModel &model,
          const Optimiser &optimiser, const TrainState &state) {
  const NamedParameters params = model.namedParameters();
  OutputArchive archive;
  archive.write("format", c10::IValue(std::string(kFormat)));
  archive.write("version", c10::IValue(kVersion));
  const nlohmann::json meta = {{"seed", state.seed},
                               {"epoch", state.epoch},
                               {"batch_in_epoch", state.batchInEpoch},
                               {"step", state.step},
                               {"parameters", describeParameters(params)},
                               {"history", state.history}};
  archive.write("meta", c10::IValue(meta.dump()));

  std::vector<torch::Tensor> values;
  for (const auto &named : params)
    values.push_back(named.second);
  writeTensors(archive, "parameters", values);
  if (!state.bestParameters.empty())
    writeTensors(archive, "best_parameters", state.bestParameters);

  OutputArchive optimiserArchive(archive.compilation_unit());
  optimiser.save(optimiserArchive);
  archive.write("optimiser", optimiserArchive);

  OutputArchive plateau(archive.compilation_unit());
  plateau.write("best", c10::IValue(state.plateau.best));
  plateau.write("num_bad_epochs", c10::IValue(state.plateau.numBadEpochs));
  plateau.write("cooldown_counter", c10::IValue(state.plateau.cooldownCounter));
  archive.write("plateau", plateau);

  OutputArchive earlyStop(archive.compilation_unit());
  earlyStop.write("best", c10::IValue(state.earlyStop.best));
  earlyStop.write("bad_evals", c10::IValue(state.earlyStop.badEvals));
  earlyStop.write("best_step", c10::IValue(state.earlyStop.bestStep));
  earlyStop.write("best_epoch", c10::IValue(state.earlyStop.bestEpoch));
  archive.write("early_stop", earlyStop);

  OutputArchive rng(archive.compilation_unit());
  for (auto &[key, generator] : generators(model)) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    rng.write(key, generator.get_state(), /*is_buffer=*/true);
  }
  archive.write("rng", rng);

  AtomicFileWriter writer(file);
  // The archive's writer ends the zip file in its destructor, which calls
  // this function again; an exception leaving that destructor would
  // terminate the process (a full disk aborted training), so the first
  // write error is kept and rethrown once save_to has returned.
  std::exception_ptr writeError;
  archive.save_to([&](const void *data, size_t size) {
    if (!writeError) {
      try {
        writer.write(data, size);
      } catch (const std::exception &) {
        writeError = std::current_exception();
      }
    }
    return size;
  });
  if (writeError)
    std::rethrow_exception(writeError);
  writer.commit();
}

/// Opens a checkpoint and checks its format and version; returns its
/// metadata.
nlohmann::json openArchive(const std::string &file, InputArchive &archive) {
  if (!std::filesystem::exists(file))
    throw std::runtime_error("no such file");
  try {
    const std::string bytes = readFileBytes(file);
    checkPickleLengths(bytes);
    checkArchiveCode(bytes);
    archive.load_from(bytes.data(), bytes.size(), torch::Device(torch::kCPU));
  } catch (const c10::Error &error) {
    throw std::runtime_error(std::string("not a readable checkpoint (") +
                             error.what_without_backtrace() + ")");
  } catch (const std::runtime_error &) {
    throw; // checkPickleLengths, checkArchiveCode: already clear
  } catch (const std::exception &error) {
    // torch::jit::ErrorReport from the TorchScript importer.
    const std::string detail = error.what();
    throw std::runtime_error(
        "not a readable checkpoint (LibTorch cannot import its modules" +
        (detail.empty() ? std::string() : ": " + detail) + ")");
  }
  c10::IValue format;
  if (!archive.try_read("format", format) || !format.isString() ||
      format.toStringRef() != kFormat)
    throw std::runtime_error("not an rvnn training checkpoint");
  const int64_t version = readInt(archive, "version", "'version'");
  if (version != kVersion)
    throw std::runtime_error("checkpoint version " + std::to_string(version) +
                             ", this build reads version " +
                             std::to_string(kVersion));
  c10::IValue metaText;
  archive.read("meta", metaText);
  return nlohmann::json::parse(metaText.toStringRef());
}

/// openArchive, then checks the parameter list against `model`.
nlohmann::json open(const std::string &file, InputArchive &archive,
                    TrainableModel &model) {
  nlohmann::json meta = openArchive(file, archive);
  checkParameters(meta.at("parameters"), model.namedParameters());
  return meta;
}

/// The parameter list to read: the best one when `best` and there is one.
InputArchive parameterList(InputArchive &archive, bool best) {
  InputArchive list;
  if (!best || !archive.try_read("best_parameters", list))
    archive.read("parameters", list);
  return list;
}

void copyInto(const NamedParameters &params,
              const std::vector<torch::Tensor> &values) {
  torch::NoGradGuard noGrad;
  for (size_t i = 0; i < params.size(); ++i)
    params[i].second.copy_(values[i]);
}

void load(const std::string &file, TrainableModel &model, Optimiser &optimiser,
          TrainState &state) {
  InputArchive archive;
  const nlohmann::json meta = open(file, archive, model);
  const NamedParameters params = model.namedParameters();
  const auto seed = meta.at("seed").get<uint64_t>();
  if (seed != state.seed)
    throw std::runtime_error("seed is " + std::to_string(seed) +
                             " in the checkpoint but " +
                             std::to_string(state.seed) +
                             " in the configuration (the batch order "
                             "derives from it)");
  TrainState loaded;
  loaded.seed = seed;
  loaded.epoch = meta.at("epoch").get<int64_t>();
  loaded.batchInEpoch = meta.at("batch_in_epoch").get<int64_t>();
  loaded.step = meta.at("step").get<int64_t>();
  loaded.history = meta.at("history").get<std::vector<nlohmann::json>>();

  InputArchive list;
  archive.read("parameters", list);
  const std::vector<torch::Tensor> values =
      readTensors(list, "parameters", params);
  InputArchive bestList;
  if (archive.try_read("best_parameters", bestList))
    loaded.bestParameters = readTensors(bestList, "best_parameters", params);

  InputArchive plateau;
  archive.read("plateau", plateau);
  loaded.plateau.best = readDouble(plateau, "best", "plateau 'best'");
  loaded.plateau.numBadEpochs =
      readInt(plateau, "num_bad_epochs", "plateau 'num_bad_epochs'");
  loaded.plateau.cooldownCounter =
      readInt(plateau, "cooldown_counter", "plateau 'cooldown_counter'");

  InputArchive earlyStop;
  archive.read("early_stop", earlyStop);
  loaded.earlyStop.best = readDouble(earlyStop, "best", "early_stop 'best'");
  loaded.earlyStop.badEvals =
      readInt(earlyStop, "bad_evals", "early_stop 'bad_evals'");
  loaded.earlyStop.bestStep =
      readInt(earlyStop, "best_step", "early_stop 'best_step'");
  loaded.earlyStop.bestEpoch =
      readInt(earlyStop, "best_epoch", "early_stop 'best_epoch'");

  InputArchive rng;
  archive.read("rng", rng);
  auto gens = generators(model);
  std::vector<torch::Tensor> rngStates;
  for (const auto &entry : gens) {
    torch::Tensor saved;
    if (!rng.try_read(entry.first, saved, /*is_buffer=*/true))
      throw std::runtime_error("random generator state '" + entry.first +
                               "' is missing");
    rngStates.push_back(saved);
  }

  InputArchive optimiserArchive;
  archive.read("optimiser", optimiserArchive);
  optimiser.load(optimiserArchive);

  copyInto(params, values);
  for (size_t i = 0; i < gens.size(); ++i) {
    std::lock_guard<std::mutex> lock(gens[i].second.mutex());
    gens[i].second.set_state(rngStates[i]);
  }
  state = std::move(loaded);
}

} // namespace

void loadParameters(const std::string &file, TrainableModel &model, bool best) {
  try {
    InputArchive archive;
    open(file, archive, model);
    const NamedParameters params = model.namedParameters();
    InputArchive list = parameterList(archive, best);
    copyInto(params, readTensors(list, "parameters", params));
  } catch (const std::exception &error) {
    throw std::runtime_error("checkpoint " + file + ": " + error.what());
  }
}

NamedParameters readCheckpointParameters(const std::string &file, bool best) {
  try {
    InputArchive archive;
    const nlohmann::json listed = openArchive(file, archive).at("parameters");
    InputArchive list = parameterList(archive, best);
    NamedParameters params;
    for (size_t i = 0; i < listed.size(); ++i) {
      const std::string name = listed[i].at("name").get<std::string>();
      torch::Tensor value;
      if (!list.try_read("p" + std::to_string(i), value, /*is_buffer=*/true))
        throw std::runtime_error("parameter '" + name + "' is missing");
      params.emplace_back(name, value);
    }
    // The listing and the tensors must agree, as they do with a model.
    checkParameters(listed, params);
    return params;
  } catch (const std::exception &error) {
    throw std::runtime_error("checkpoint " + file + ": " + error.what());
  }
}

void saveCheckpoint(const std::string &file, TrainableModel &model,
                    const Optimiser &optimiser, const TrainState &state) {
  try {
    save(file, model, optimiser, state);
  } catch (const c10::Error &error) {
    throw std::runtime_error("cannot write checkpoint " + file + ": " +
                             error.what_without_backtrace());
  }
}

void loadCheckpoint(const std::string &file, TrainableModel &model,
                    Optimiser &optimiser, TrainState &state) {
  try {
    load(file, model, optimiser, state);
  } catch (const c10::Error &error) {
    throw std::runtime_error("checkpoint " + file + ": " +
                             error.what_without_backtrace());
  } catch (const std::exception &error) {
    throw std::runtime_error("checkpoint " + file + ": " + error.what());
  }
}

} // namespace rvnn::runtime::train
