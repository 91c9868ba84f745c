// Hand-written rvnn_exec plans for the executor tests: JSON builders for
// types, values and ops, and a compiled-model directory holding a plan.
#ifndef RVNN_UNITTESTS_RUNTIME_EXEC_PLANJSON_H
#define RVNN_UNITTESTS_RUNTIME_EXEC_PLANJSON_H

#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/Plan.h"

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace rvnn::runtime::planjson {

using nlohmann::json;

/// A JSON array built element by element. Lists are passed as this, never as
/// `json`: `json{v}` with one json element `v` is `[v]` with GCC but a copy of
/// `v` with clang (CWG 2137), so a one-element list would silently differ.
using JsonList = std::vector<json>;

inline std::string str(std::string_view text) { return std::string(text); }

inline json type(const std::string &dtype, std::vector<int64_t> shape,
                 bool tensor = true) {
  return {{"dtype", dtype}, {"shape", shape}, {"tensor", tensor}};
}

inline json value(int64_t id, json valueType) {
  return {{"id", id}, {"type", std::move(valueType)}};
}

inline json op(std::string_view opName, std::vector<int64_t> operands,
               JsonList results, json attrs = json::object(),
               JsonList regions = {}, std::string_view loc = "test.mlir:1:1") {
  return {{"op", str(opName)}, {"operands", operands}, {"results", results},
          {"attrs", attrs},    {"regions", regions},   {"loc", str(loc)}};
}

inline json returnOp(std::vector<int64_t> operands) {
  return op(contract::ops::ReturnOp::name, std::move(operands), {});
}

inline json yieldOp(std::vector<int64_t> operands) {
  return op(contract::ops::YieldOp::name, std::move(operands), {});
}

/// One plan function: `args` are values, `resultTypes` types.
inline json function(const std::string &name, JsonList args, JsonList body,
                     JsonList resultTypes = {}) {
  return {{"name", name},
          {"args", std::move(args)},
          {"body", std::move(body)},
          {"result_types", std::move(resultTypes)}};
}

/// plan.json text holding `functions`.
inline std::string planText(JsonList functions) {
  json plan = {{"format", str(contract::kPlanFormat)},
               {"version", contract::kFormatVersion},
               {"params", json::array()},
               {"functions", std::move(functions)}};
  return plan.dump();
}

/// Writes `files` (path, role, contents) into a fresh directory `name` with a
/// manifest listing each with its role and SHA-256; returns the directory.
inline std::string
writeModel(const std::string &name,
           const std::vector<std::array<std::string, 3>> &files) {
  std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) /
      ("rvnn-exec-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  json listed = json::array();
  for (const auto &[path, role, contents] : files) {
    std::ofstream(dir / path) << contents;
    listed.push_back(
        {{"path", path}, {"role", role}, {"sha256", sha256Hex(contents)}});
  }
  json manifest = {{"format", str(contract::kModelFormat)},
                   {"version", contract::kFormatVersion},
                   {"compiler", "hand-written"},
                   {"files", listed}};
  std::ofstream(dir / "manifest.json") << manifest.dump();
  return dir.string();
}

/// Writes and loads a compiled model holding `functions`.
inline Plan planWith(JsonList functions, const std::string &name) {
  return loadPlan(writeModel(
      name, {{"plan.json", "plan", planText(std::move(functions))}}));
}

/// Runs one op `opName` on `operands` (value ids 0..n-1) through its
/// handler and returns its single result.
inline RuntimeValue runSingleOp(Executor &executor, std::string_view opName,
                                std::vector<RuntimeValue> operands,
                                ValueType resultType,
                                json attrs = json::object()) {
  PlanOp op;
  op.name = str(opName);
  op.loc = "test.mlir:1:1";
  for (size_t i = 0; i < operands.size(); ++i)
    op.operands.push_back(static_cast<int64_t>(i));
  op.results = {static_cast<int64_t>(operands.size())};
  op.resultTypes = {std::move(resultType)};
  op.setAttrs(std::move(attrs));
  Frame frame(static_cast<int64_t>(operands.size()) + 1);
  for (size_t i = 0; i < operands.size(); ++i)
    frame.bind(static_cast<int64_t>(i), operands[i]);
  execOpHandlers().at(opName)(executor, op, frame);
  return frame.get(op, op.results[0]);
}

} // namespace rvnn::runtime::planjson

#endif // RVNN_UNITTESTS_RUNTIME_EXEC_PLANJSON_H
