// Fuzzes the compiled-model loader: manifest.json, plan.json and the kernel
// library metadata (loadPlan, docs/compiled-model-format.md), without
// loading the kernel library: fuzz input is never dlopen'ed.
//
// Input: the files of a compiled-model directory joined by kFileSeparator
// lines, in the order manifest.json, plan.json, kernels.so,
// kernels.sm_80.ptx, kernels.sm_80.cubin (missing ones are not written).
// So that mutations reach the plan reader, the target first rewrites the
// `sha256` of every manifest entry that names one of these files to the
// file's real digest (when the manifest is JSON with a "files" array); an
// input starting with "#raw\n" is loaded as written, digests included.
// Expected errors: PlanError (std::runtime_error).

#include "FuzzCommon.h"
#include "rvnn/Runtime/Plan.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace {

constexpr std::array<const char *, 5> kFiles = {
    "manifest.json", "plan.json", "kernels.so", "kernels.sm_80.ptx",
    "kernels.sm_80.cubin"};

std::string fixDigests(std::string_view manifest,
                       const std::map<std::string, std::string> &files) {
  nlohmann::json json =
      nlohmann::json::parse(manifest, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || !json.contains("files") || !json["files"].is_array())
    return std::string(manifest);
  for (nlohmann::json &entry : json["files"]) {
    if (!entry.is_object() || !entry.contains("path") ||
        !entry["path"].is_string())
      continue;
    auto file = files.find(entry["path"].get<std::string>());
    if (file != files.end())
      entry["sha256"] = rvnn::runtime::sha256Hex(file->second);
  }
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view input = rvnn::fuzz::bytes(data, size);
  const bool raw = input.substr(0, 5) == "#raw\n";
  if (raw)
    input.remove_prefix(5);
  const std::string dir = rvnn::fuzz::scratchDir() + "/model";
  std::filesystem::create_directories(dir);
  for (const char *name : kFiles)
    std::remove((dir + "/" + name).c_str());

  std::vector<std::string_view> parts = rvnn::fuzz::splitFiles(input);
  std::map<std::string, std::string> files;
  for (size_t i = 1; i < parts.size() && i < kFiles.size(); ++i)
    files[kFiles[i]] = std::string(parts[i]);
  files[kFiles[0]] = raw ? std::string(parts[0]) : fixDigests(parts[0], files);
  for (const auto &[name, content] : files)
    rvnn::fuzz::writeScratch("model/" + name, content);

  try {
    rvnn::runtime::loadPlan(dir, /*loadKernels=*/false);
  } catch (const std::runtime_error &error) {
    rvnn::fuzz::expected(error);
  }
  return 0;
}
