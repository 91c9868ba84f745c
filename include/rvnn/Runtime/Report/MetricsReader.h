#ifndef RVNN_RUNTIME_REPORT_METRICSREADER_H
#define RVNN_RUNTIME_REPORT_METRICSREADER_H

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rvnn::runtime::report {

/// Reads a metrics.jsonl file for plotting. Each line must be a JSON object
/// with a "type"; "train" and "eval" records must carry the numbers the
/// plots use (step and loss; step and dev accuracy, which may be null; lr
/// when present); records of other types are kept unchecked. Throws
/// std::runtime_error "<path>:<line>: ..." for a bad line, and "<path>: ..."
/// for a file that cannot be read or holds neither kind of record.
std::vector<nlohmann::json> readMetrics(const std::string &path);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_METRICSREADER_H
