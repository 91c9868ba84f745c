#include "rvnn/Runtime/Report/RunPlots.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>

#include "rvnn/Runtime/Report/AxisTicks.h"
#include "rvnn/Runtime/Report/SvgChart.h"
#include "rvnn/Runtime/Train/AtomicFile.h"

namespace rvnn::runtime::report {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string bucketLabel(int64_t min, std::optional<int64_t> max) {
  if (!max)
    return ">=" + std::to_string(min);
  if (*max - min == 1)
    return std::to_string(min);
  return std::to_string(min) + "-" + std::to_string(*max - 1);
}

LineChart stepChart(std::string title, std::string yTitle) {
  LineChart chart;
  chart.title = std::move(title);
  chart.x.title = "step";
  chart.x.min = 0;
  chart.y.title = std::move(yTitle);
  chart.markerLegend = "LR change";
  return chart;
}

std::string inDir(const std::string &dir, const char *name) {
  return (std::filesystem::path(dir) / name).string();
}

} // namespace

std::string curvesSvg(const std::vector<RunMetrics> &runs) {
  LineChart loss = stepChart("Training loss", "loss (log scale)");
  loss.y.log = true;
  LineChart accuracy = stepChart("Dev accuracy", "accuracy");
  accuracy.y.min = 0;
  accuracy.y.max = 1;
  // One run names its lines by what they show; several, by run.
  const bool single = runs.size() == 1;
  double lastStep = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const std::string color = paletteColor(i);
    Series losses{single ? "training loss" : runs[i].name, {}, color, false};
    Series devs{single ? "dev accuracy" : runs[i].name, {}, color, true};
    std::optional<double> lr;
    for (const nlohmann::json &record : runs[i].records) {
      const std::string type = record.value("type", "");
      if (type != "train" && type != "eval")
        continue;
      const double step = record["step"].get<double>();
      lastStep = std::max(lastStep, step);
      if (type == "train") {
        losses.points.push_back({step, record["loss"].get<double>()});
      } else {
        const nlohmann::json &value = record["dev"]["accuracy"];
        devs.points.push_back(
            {step, value.is_number() ? value.get<double>() : kNaN});
      }
      if (!record.contains("lr"))
        continue;
      const double now = record["lr"].get<double>();
      if (lr && now != *lr)
        for (LineChart *chart : {&loss, &accuracy})
          chart->markers.push_back(
              {step, "lr " + formatTick(now), single ? "" : color});
      lr = now;
    }
    loss.series.push_back(std::move(losses));
    accuracy.series.push_back(std::move(devs));
  }
  // The same step range on both, so the charts line up.
  if (lastStep > 0)
    loss.x.max = accuracy.x.max = lastStep;
  return renderSvg({loss, accuracy});
}

AccuracyLine accuracyLine(const std::string &name,
                          const train::EvalResult &result) {
  AccuracyLine line{name, {}};
  for (const train::BucketAccuracy &bucket : result.buckets)
    if (bucket.total > 0)
      line.buckets.push_back(
          {bucket.minLength,
           bucketLabel(bucket.minLength,
                       bucket.maxLength == train::BucketAccuracy::kUnbounded
                           ? std::nullopt
                           : std::optional<int64_t>(bucket.maxLength)),
           bucket.accuracy()});
  if (result.buckets.empty() && result.total > 0)
    line.buckets.push_back({0, "all", result.accuracy()});
  return line;
}

AccuracyLine accuracyLine(const std::string &name,
                          const nlohmann::json &result) {
  AccuracyLine line{name, {}};
  const nlohmann::json buckets =
      result.value("buckets", nlohmann::json::array());
  for (const nlohmann::json &bucket : buckets) {
    if (bucket.value("n", 0) <= 0 || !bucket["accuracy"].is_number())
      continue;
    const nlohmann::json &max = bucket["max"];
    line.buckets.push_back(
        {bucket["min"].get<int64_t>(),
         bucketLabel(bucket["min"].get<int64_t>(),
                     max.is_number() ? std::optional(max.get<int64_t>())
                                     : std::nullopt),
         bucket["accuracy"].get<double>()});
  }
  if (buckets.empty() && result.value("n", 0) > 0 &&
      result["accuracy"].is_number())
    line.buckets.push_back({0, "all", result["accuracy"].get<double>()});
  return line;
}

std::string accuracySvg(const std::vector<AccuracyLine> &lines,
                        const std::string &xTitle) {
  // Positions along x: every bucket some line has, in order.
  std::map<std::pair<int64_t, std::string>, std::size_t> position;
  for (const AccuracyLine &line : lines)
    for (const AccuracyLine::Bucket &bucket : line.buckets)
      position.emplace(std::pair(bucket.min, bucket.label), 0);
  LineChart chart;
  chart.title = "Accuracy by " + xTitle;
  chart.x.title = xTitle;
  for (auto &[key, index] : position) {
    index = chart.x.categories.size();
    chart.x.categories.push_back(key.second);
  }
  chart.y.title = "accuracy";
  chart.y.min = 0;
  chart.y.max = 1;
  for (const AccuracyLine &line : lines) {
    Series series{line.name, {}, "", true};
    for (const AccuracyLine::Bucket &bucket : line.buckets)
      series.points.push_back(
          {static_cast<double>(position.at({bucket.min, bucket.label})),
           bucket.accuracy});
    chart.series.push_back(std::move(series));
  }
  return renderSvg({chart});
}

void writeTrainingPlots(const std::string &dir,
                        const std::vector<nlohmann::json> &history) {
  train::writeFileAtomically(inDir(dir, "curves.svg"),
                             curvesSvg({{"", history}}));
  std::vector<AccuracyLine> lines;
  for (auto record = history.rbegin(); record != history.rend(); ++record)
    if (record->value("type", "") == "eval") {
      lines.push_back(accuracyLine(
          "dev (step " + std::to_string((*record)["step"].get<int64_t>()) + ")",
          (*record)["dev"]));
      break;
    }
  writeAccuracyPlot(dir, lines, "length (tokens)");
}

void writeAccuracyPlot(const std::string &dir,
                       const std::vector<AccuracyLine> &lines,
                       const std::string &xTitle) {
  train::writeFileAtomically(inDir(dir, "accuracy.svg"),
                             accuracySvg(lines, xTitle));
}

} // namespace rvnn::runtime::report
