// Run configurations (models/*.json): the recompute policy field.
#include "rvnn/Runtime/RunConfig.h"

#include <filesystem>
#include <fstream>
#include <utility>

#include <gtest/gtest.h>

using namespace rvnn::runtime;

namespace {

std::string writeConfig(const std::string &name, const std::string &text) {
  std::filesystem::path path =
      std::filesystem::path(testing::TempDir()) / ("rvnn-config-" + name);
  std::ofstream(path) << text;
  return path.string();
}

std::string configError(const std::string &path) {
  try {
    readRunConfig(path);
  } catch (const std::runtime_error &error) {
    return error.what();
  }
  return "(read)";
}

} // namespace

TEST(RunConfig, RecomputeDefaultsToSave) {
  RunConfig config =
      readRunConfig(writeConfig("default.json", R"({"task": "listops"})"));
  EXPECT_EQ(config.recompute, RecomputePolicy::Save);
}

TEST(RunConfig, RecomputeNamesThePolicy) {
  EXPECT_EQ(readRunConfig(writeConfig("recompute.json",
                                      R"({"task": "listops",
                                          "recompute": "recompute"})"))
                .recompute,
            RecomputePolicy::Recompute);
  EXPECT_EQ(readRunConfig(writeConfig("save.json", R"({"task": "listops",
                                                      "recompute": "save"})"))
                .recompute,
            RecomputePolicy::Save);
}

// Every command applies the configuration's execution settings through
// applyRunConfig (bench ignored compact_halted before it).
TEST(RunConfig, AppliesItsExecutionSettings) {
  RunConfig config = readRunConfig(
      writeConfig("compact.json", R"({"task": "listops", "compact_halted": true,
                          "recompute": "recompute"})"));
  ExecutionContext context;
  applyRunConfig(config, config.recompute, context);
  EXPECT_TRUE(context.compactHalted);
  EXPECT_EQ(context.recompute, RecomputePolicy::Recompute);
  // A command-line override of the policy wins.
  applyRunConfig(config, RecomputePolicy::Save, context);
  EXPECT_EQ(context.recompute, RecomputePolicy::Save);
  applyRunConfig(
      readRunConfig(writeConfig("plain.json", R"({"task": "listops"})")),
      RecomputePolicy::Save, context);
  EXPECT_FALSE(context.compactHalted);
}

TEST(RunConfig, OtherRecomputeValuesNameTheFieldAndFile) {
  std::string path = writeConfig("bad-recompute.json",
                                 R"({"task": "listops", "recompute": "some"})");
  EXPECT_EQ(configError(path),
            path + ": field 'recompute' must be \"save\" or \"recompute\", "
                   "got \"some\"");
  std::string number = writeConfig("number-recompute.json",
                                   R"({"task": "listops", "recompute": 1})");
  EXPECT_EQ(configError(number),
            number + ": field 'recompute' must be \"save\" or \"recompute\", "
                     "got 1");
}

TEST(RunConfig, ShippedModelsSaveResiduals) {
  static const char *const models[] = {"bbt_grc",
                                       "bbt_grc_logic",
                                       "bt_grc",
                                       "bt_grc_onesoft",
                                       "crvnn",
                                       "ebt_grc",
                                       "ndr",
                                       "rir_ebt_grc",
                                       "rir_grc",
                                       "on_lstm",
                                       "fasttrees",
                                       "faster_fasttrees",
                                       "conv_fasttrees",
                                       "self_iru",
                                       "self_iru_linear",
                                       "transformer",
                                       "universal_transformer",
                                       "fasttrees_transformer",
                                       "transformer_listops",
                                       "universal_transformer_listops",
                                       "fasttrees_transformer_listops",
                                       "rir_crvnn",
                                       "bkt_grc",
                                       "rir_grc_s4d",
                                       "rir_ebt_grc_s4d",
                                       "rir_ebt_grc_logic"};
  for (const char *model : models)
    EXPECT_EQ(readRunConfig(std::string(RVNN_SOURCE_DIR) + "/models/" + model +
                            ".json")
                  .recompute,
              RecomputePolicy::Save)
        << model;
}

// The ListOps versions of the ON-LSTM family and of Self-IRU: ListOps
// configurations that save residuals, like every shipped model.
TEST(RunConfig, ListOpsVersionsOfLogicModels) {
  for (const char *model :
       {"on_lstm_listops", "fasttrees_listops", "faster_fasttrees_listops",
        "conv_fasttrees_listops", "self_iru_listops"}) {
    RunConfig config = readRunConfig(std::string(RVNN_SOURCE_DIR) + "/models/" +
                                     model + ".json");
    EXPECT_EQ(config.task, Task::ListOps) << model;
    EXPECT_EQ(config.recompute, RecomputePolicy::Save) << model;
  }
}

// Ordered Memory, for ListOps and for logical inference: configurations of
// their tasks that save residuals.
TEST(RunConfig, OrderedMemoryConfigs) {
  const std::pair<const char *, Task> models[] = {
      {"ordered_memory", Task::ListOps}, {"ordered_memory_logic", Task::Logic}};
  for (const auto &[model, task] : models) {
    RunConfig config = readRunConfig(std::string(RVNN_SOURCE_DIR) + "/models/" +
                                     model + ".json");
    EXPECT_EQ(config.task, task) << model;
    EXPECT_EQ(config.recompute, RecomputePolicy::Save) << model;
    EXPECT_EQ(config.batchSize, 128u) << model;
  }
}
