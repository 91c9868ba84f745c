#include "rvnn/Runtime/RunConfig.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace rvnn::runtime {
namespace {

// The length bucket edges, integers only: nlohmann's get<int64_t> converts a
// float such as 1e300 without a check, which is undefined behaviour.
std::vector<int64_t> readBucketEdges(const nlohmann::json &json) {
  if (!json.contains("bucket_edges"))
    return {};
  const nlohmann::json &field = json.at("bucket_edges");
  bool integers = field.is_array();
  for (const nlohmann::json &edge : field)
    integers = integers && edge.is_number_integer();
  if (!integers)
    throw std::invalid_argument(
        "field 'bucket_edges' must be an array of integers, got " +
        field.dump());
  return field.get<std::vector<int64_t>>();
}

} // namespace

RunConfig readRunConfig(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(path + ": cannot open the run configuration");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception &error) {
    // parse_error, or out_of_range for a number beyond double.
    throw std::runtime_error(path + ": invalid JSON: " + error.what());
  }
  RunConfig config;
  config.path = path;
  static const char *known[] = {
      "model",           "task",     "batch_size",     "bucket_edges",
      "hyperparameters", "training", "compact_halted", "recompute"};
  try {
    if (!json.is_object())
      throw std::invalid_argument("expected a JSON object");
    for (const auto &[key, value] : json.items())
      if (std::find(std::begin(known), std::end(known), key) == std::end(known))
        throw std::invalid_argument("unknown field '" + key + "'");
    config.task = parseTask(json.at("task").get<std::string>());
    if (json.contains("batch_size")) {
      const nlohmann::json &field = json.at("batch_size");
      if (!field.is_number_unsigned() || field.get<uint64_t>() < 1)
        throw std::invalid_argument(
            "field 'batch_size' must be an integer >= 1, got " + field.dump());
      if (field.get<uint64_t>() > kMaxBatchSize)
        throw std::invalid_argument(
            "field 'batch_size' is " + field.dump() + ", above " +
            std::to_string(kMaxBatchSize) +
            ", the limit for one batch (kMaxBatchSize)");
      config.batchSize = field.get<size_t>();
    }
    config.bucketEdges = readBucketEdges(json);
    config.hyperparameters =
        json.value("hyperparameters", nlohmann::json::object());
    config.training = json.value("training", nlohmann::json::object());
    config.compactHalted = json.value("compact_halted", false);
    if (json.contains("recompute")) {
      const nlohmann::json &field = json.at("recompute");
      std::optional<RecomputePolicy> policy =
          field.is_string() ? parseRecomputePolicy(field.get<std::string>())
                            : std::nullopt;
      if (!policy)
        throw std::invalid_argument(
            "field 'recompute' must be \"save\" or \"recompute\", got " +
            field.dump());
      config.recompute = *policy;
    }
    if (!config.training.is_object())
      throw std::invalid_argument("field 'training' must be an object");
  } catch (const nlohmann::json::exception &error) {
    throw std::runtime_error(path + ": " + error.what());
  } catch (const std::invalid_argument &error) {
    throw std::runtime_error(path + ": " + error.what());
  }
  return config;
}

void applyRunConfig(const RunConfig &config, RecomputePolicy recompute,
                    ExecutionContext &context) {
  context.compactHalted = config.compactHalted;
  context.recompute = recompute;
}

} // namespace rvnn::runtime
