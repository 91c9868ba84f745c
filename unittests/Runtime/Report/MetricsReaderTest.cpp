#include "rvnn/Runtime/Report/MetricsReader.h"

#include <fstream>
#include <stdexcept>

#include <gtest/gtest.h>

#include "../Train/TempDir.h"

namespace rvnn::runtime::report {
namespace {

using train::testing::TempDir;

std::string write(const TempDir &dir, const std::string &text) {
  const std::string path = dir / "metrics.jsonl";
  std::ofstream(path) << text;
  return path;
}

/// The message readMetrics throws, or "" when it reads the file.
std::string error(const std::string &path) {
  try {
    readMetrics(path);
  } catch (const std::runtime_error &failure) {
    return failure.what();
  }
  return "";
}

TEST(MetricsReader, ReadsEveryRecord) {
  TempDir dir;
  const std::string path =
      write(dir, "{\"type\":\"train\",\"step\":5,\"loss\":2.5,\"lr\":0.001}\n"
                 "{\"type\":\"eval\",\"step\":5,\"dev\":{\"accuracy\":null}}\n"
                 "{\"type\":\"note\",\"anything\":[1]}\n");
  const std::vector<nlohmann::json> records = readMetrics(path);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0]["loss"], 2.5);
  EXPECT_EQ(records[2]["type"], "note");
}

TEST(MetricsReader, BadLinesNameTheFileAndLine) {
  TempDir dir;
  const std::string good =
      "{\"type\":\"train\",\"step\":5,\"loss\":2.5,\"lr\":0.001}\n";
  std::string path = write(dir, good + "{\"type\":\"train\",\"ste");
  EXPECT_EQ(error(path), path + ":2: not valid JSON");
  path = write(dir, good + "[1, 2]\n");
  EXPECT_EQ(error(path), path + ":2: not a JSON object");
  path = write(dir, "{\"step\":1}\n");
  EXPECT_EQ(error(path), path + ":1: the record has no \"type\" string");
  path = write(dir, good + good + "{\"type\":\"train\",\"step\":1}\n");
  EXPECT_EQ(error(path), path + ":3: a train record needs a number \"loss\"");
  path = write(dir, "{\"type\":\"eval\",\"step\":1,\"dev\":{}}\n");
  EXPECT_EQ(error(path),
            path + ":1: an eval record needs \"dev\": {\"accuracy\": number "
                   "or null}");
  path = write(dir, "{\"type\":\"train\",\"step\":1,\"loss\":1,\"lr\":\"x\"}");
  EXPECT_EQ(error(path), path + ":1: \"lr\" is not a number");
}

TEST(MetricsReader, MissingOrEmptyFilesAreErrors) {
  TempDir dir;
  EXPECT_EQ(error(dir / "none.jsonl"),
            (dir / "none.jsonl") + ": cannot open: No such file or directory");
  const std::string path = write(dir, "");
  EXPECT_EQ(error(path), path + ": no training or evaluation records to plot");
}

} // namespace
} // namespace rvnn::runtime::report
