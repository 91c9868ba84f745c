#include "rvnn/Runtime/Report/MetricsReader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace rvnn::runtime::report {

namespace {

/// Why `record` cannot be plotted, or empty.
std::string problem(const nlohmann::json &record) {
  if (!record.is_object())
    return "not a JSON object";
  const auto type = record.find("type");
  if (type == record.end() || !type->is_string())
    return "the record has no \"type\" string";
  if (*type != "train" && *type != "eval")
    return {};
  const std::string kind = type->get<std::string>();
  if (!record.contains("step") || !record["step"].is_number())
    return "a " + kind + " record needs a number \"step\"";
  if (record.contains("lr") && !record["lr"].is_number())
    return "\"lr\" is not a number";
  if (kind == "train") {
    if (!record.contains("loss") || !record["loss"].is_number())
      return "a train record needs a number \"loss\"";
    return {};
  }
  const auto dev = record.find("dev");
  if (dev == record.end() || !dev->is_object() || !dev->contains("accuracy") ||
      !((*dev)["accuracy"].is_number() || (*dev)["accuracy"].is_null()))
    return "an eval record needs \"dev\": {\"accuracy\": number or null}";
  return {};
}

} // namespace

std::vector<nlohmann::json> readMetrics(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  std::vector<nlohmann::json> records;
  bool plottable = false;
  int lineNumber = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNumber;
    const std::string where = path + ":" + std::to_string(lineNumber) + ": ";
    nlohmann::json record =
        nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (record.is_discarded())
      throw std::runtime_error(where + "not valid JSON");
    if (const std::string why = problem(record); !why.empty())
      throw std::runtime_error(where + why);
    plottable =
        plottable || record["type"] == "train" || record["type"] == "eval";
    records.push_back(std::move(record));
  }
  if (in.bad())
    throw std::runtime_error(path + ": read failed: " + std::strerror(errno));
  if (!plottable)
    throw std::runtime_error(path +
                             ": no training or evaluation records to plot");
  return records;
}

} // namespace rvnn::runtime::report
