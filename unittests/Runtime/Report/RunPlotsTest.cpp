#include "rvnn/Runtime/Report/RunPlots.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "../Train/TempDir.h"
#include "Occurrences.h"
#include "rvnn/Runtime/Report/SvgChart.h"

namespace rvnn::runtime::report {
namespace {

using train::testing::readBytes;
using train::testing::TempDir;

using testing::count;

nlohmann::json trainRecord(int step, double loss, double lr) {
  return {{"type", "train"}, {"step", step}, {"loss", loss}, {"lr", lr}};
}

nlohmann::json evalRecord(int step, double accuracy, double lr) {
  train::EvalResult result;
  result.correct = static_cast<int64_t>(accuracy * 10);
  result.total = 10;
  result.buckets = {{0, 10, result.correct, 10}, {10, 20, 0, 0}};
  return {
      {"type", "eval"}, {"step", step}, {"dev", result.toJson()}, {"lr", lr}};
}

std::vector<nlohmann::json> history() {
  return {trainRecord(10, 2.0, 1e-3), evalRecord(20, 0.3, 1e-3),
          trainRecord(20, 1.5, 1e-3), evalRecord(40, 0.2, 5e-4),
          trainRecord(30, 1.2, 5e-4), evalRecord(60, 0.4, 5e-4)};
}

TEST(RunPlots, CurvesShowLossAccuracyAndLrChanges) {
  const std::string svg = curvesSvg({{"run", history()}});
  EXPECT_NE(svg.find(">Training loss</text>"), std::string::npos);
  EXPECT_NE(svg.find(">Dev accuracy</text>"), std::string::npos);
  EXPECT_NE(svg.find(">training loss</text>"), std::string::npos);
  EXPECT_NE(svg.find(">dev accuracy</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 3u); // the evaluations
  // The one change, at the evaluation that made it, on both charts.
  EXPECT_EQ(count(svg, "class=\"marker\""), 2u);
  EXPECT_EQ(count(svg, ">lr 0.0005</text>"), 2u);
  EXPECT_EQ(count(svg, ">LR change</text>"), 2u);
}

TEST(RunPlots, SeveralRunsAreNamedByRun) {
  std::vector<nlohmann::json> other = history();
  other.push_back(trainRecord(80, 0.9, 5e-4));
  const std::string svg = curvesSvg({{"baseline", history()}, {"wide", other}});
  EXPECT_EQ(count(svg, ">baseline</text>"), 2u);
  EXPECT_EQ(count(svg, ">wide</text>"), 2u);
  EXPECT_EQ(count(svg, "<polyline"), 4u);
  EXPECT_EQ(svg.find(">training loss</text>"), std::string::npos);
  // Each run's LR changes in its own colour.
  EXPECT_EQ(count(svg, "class=\"marker\""), 4u);
  EXPECT_NE(svg.find("stroke=\"" + paletteColor(1) +
                     "\" stroke-width=\"1.2\" stroke-dasharray"),
            std::string::npos);
}

TEST(RunPlots, AccuracyLinesKeepBucketsWithExamples) {
  train::EvalResult result;
  result.total = 4;
  result.correct = 3;
  result.buckets = {{0, 10, 1, 2},
                    {10, 20, 0, 0},
                    {20, 21, 1, 1},
                    {21, train::BucketAccuracy::kUnbounded, 1, 1}};
  const AccuracyLine line = accuracyLine("test.tsv", result);
  ASSERT_EQ(line.buckets.size(), 3u);
  EXPECT_EQ(line.buckets[0].label, "0-9");
  EXPECT_EQ(line.buckets[0].accuracy, 0.5);
  EXPECT_EQ(line.buckets[1].label, "20");
  EXPECT_EQ(line.buckets[2].label, ">=21");
  // The same from the metrics file's JSON.
  const AccuracyLine fromJson = accuracyLine("test.tsv", result.toJson());
  ASSERT_EQ(fromJson.buckets.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(fromJson.buckets[i].label, line.buckets[i].label);
    EXPECT_EQ(fromJson.buckets[i].accuracy, line.buckets[i].accuracy);
  }
  // Without buckets, overall accuracy.
  result.buckets.clear();
  const AccuracyLine all = accuracyLine("dev", result);
  ASSERT_EQ(all.buckets.size(), 1u);
  EXPECT_EQ(all.buckets[0].label, "all");
  EXPECT_EQ(all.buckets[0].accuracy, 0.75);
}

TEST(RunPlots, AccuracyChartOrdersBucketsAlongX) {
  const std::string svg =
      accuracySvg({{"long.tsv", {{500, "500-599", 0.4}, {200, "200-299", 0.5}}},
                   {"dev", {{0, "0-99", 0.9}}}},
                  "length (tokens)");
  EXPECT_NE(svg.find(">Accuracy by length (tokens)</text>"), std::string::npos);
  const std::size_t first = svg.find(">0-99</text>");
  const std::size_t second = svg.find(">200-299</text>");
  const std::size_t third = svg.find(">500-599</text>");
  ASSERT_NE(third, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_EQ(count(svg, "<polyline"), 1u); // dev is a single point
  EXPECT_NE(svg.find(">long.tsv</text>"), std::string::npos);
}

TEST(RunPlots, TrainingPlotsAreWrittenBesideTheMetrics) {
  TempDir dir;
  writeTrainingPlots(dir.str(), history());
  const std::string curves = readBytes(dir / "curves.svg");
  const std::string accuracy = readBytes(dir / "accuracy.svg");
  EXPECT_NE(curves.find(">Training loss</text>"), std::string::npos);
  // The latest evaluation's dev buckets.
  EXPECT_NE(accuracy.find(">dev (step 60)</text>"), std::string::npos);
  EXPECT_NE(accuracy.find(">0-9</text>"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir / "curves.svg.tmp"));
  // Before any evaluation there is still a chart to look at.
  writeTrainingPlots(dir.str(), {trainRecord(10, 2.0, 1e-3)});
  EXPECT_NE(readBytes(dir / "accuracy.svg").find("no data yet"),
            std::string::npos);
}

} // namespace
} // namespace rvnn::runtime::report
