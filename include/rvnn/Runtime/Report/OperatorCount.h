#ifndef RVNN_RUNTIME_REPORT_OPERATORCOUNT_H
#define RVNN_RUNTIME_REPORT_OPERATORCOUNT_H

#include <cstdint>
#include <string>
#include <vector>

#include "rvnn/Runtime/Model.h"
#include "rvnn/Runtime/Report/RunPlots.h"
#include "rvnn/Runtime/TaskData.h"

namespace rvnn::runtime::report {

/// Each logic pair's operator count: the and / or / not tokens of its larger
/// formula, the measure the logical-inference test sets are split by.
std::vector<int64_t> operatorCounts(const Dataset &data);

/// `model`'s accuracy on a logic dataset per operator count, one bucket per
/// count, as a line of accuracy.svg.
AccuracyLine accuracyByOperatorCount(TrainableModel &model,
                                     const std::string &name,
                                     const Dataset &data, size_t batchSize);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_OPERATORCOUNT_H
