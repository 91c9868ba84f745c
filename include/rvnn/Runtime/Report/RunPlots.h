#ifndef RVNN_RUNTIME_REPORT_RUNPLOTS_H
#define RVNN_RUNTIME_REPORT_RUNPLOTS_H

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rvnn/Runtime/Train/Evaluate.h"

namespace rvnn::runtime::report {

/// A training run's metrics.jsonl records, named for the legend.
struct RunMetrics {
  std::string name;
  std::vector<nlohmann::json> records;
};

/// curves.svg: training loss (log scale) and dev accuracy against step, one
/// line per run, with a dashed line where a run's learning rate changed.
std::string curvesSvg(const std::vector<RunMetrics> &runs);

/// One split's accuracy per bucket: length in tokens, or a logic pair's
/// operator count.
struct AccuracyLine {
  struct Bucket {
    int64_t min;       ///< orders the buckets along the axis
    std::string label; ///< "100-199", "7", ">=1000", or "all"
    double accuracy;
  };
  std::string name;
  std::vector<Bucket> buckets;
};

/// The line of an evaluation: its non-empty buckets, or overall accuracy as
/// the one bucket "all" when it has no buckets.
AccuracyLine accuracyLine(const std::string &name,
                          const train::EvalResult &result);
/// The same from an evaluation's JSON (EvalResult::toJson, as "dev" in
/// metrics.jsonl).
AccuracyLine accuracyLine(const std::string &name,
                          const nlohmann::json &result);

/// accuracy.svg: accuracy per bucket, one line per split, over the buckets
/// that any split has examples in; `xTitle` names what the buckets count.
std::string accuracySvg(const std::vector<AccuracyLine> &lines,
                        const std::string &xTitle);

/// Writes `dir`/curves.svg from `history` and `dir`/accuracy.svg from its
/// last evaluation (dev by length), each atomically, so that a stopped run
/// keeps its latest complete plots. The trainer calls it after every
/// evaluation and at the end.
void writeTrainingPlots(const std::string &dir,
                        const std::vector<nlohmann::json> &history);

/// Replaces `dir`/accuracy.svg (atomically), e.g. with the test files'
/// accuracy once training is over.
void writeAccuracyPlot(const std::string &dir,
                       const std::vector<AccuracyLine> &lines,
                       const std::string &xTitle);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_RUNPLOTS_H
