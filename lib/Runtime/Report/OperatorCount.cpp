#include "rvnn/Runtime/Report/OperatorCount.h"

#include <algorithm>
#include <numeric>

#include "rvnn/Runtime/Data/LogicVocab.h"
#include "rvnn/Runtime/Train/Evaluate.h"

namespace rvnn::runtime::report {

namespace {
int64_t countOperators(const std::vector<data::TokenId> &formula) {
  return std::count_if(formula.begin(), formula.end(), [](data::TokenId id) {
    return id == data::logic::kAnd || id == data::logic::kOr ||
           id == data::logic::kNot;
  });
}
} // namespace

std::vector<int64_t> operatorCounts(const Dataset &data) {
  std::vector<int64_t> counts;
  for (std::size_t i = 0; i < data.first.size(); ++i)
    counts.push_back(
        std::max(countOperators(data.first[i]),
                 i < data.second.size() ? countOperators(data.second[i]) : 0));
  return counts;
}

AccuracyLine accuracyByOperatorCount(TrainableModel &model,
                                     const std::string &name,
                                     const Dataset &data, size_t batchSize) {
  // evaluate() buckets by Batch::lengths, so counts stand in for lengths.
  Dataset counted = data;
  counted.lengths = operatorCounts(data);
  const int64_t most =
      counted.lengths.empty()
          ? 0
          : *std::max_element(counted.lengths.begin(), counted.lengths.end());
  // Edges 1..most+1: buckets [0,1), [1,2), ..., one per count.
  std::vector<int64_t> edges(static_cast<std::size_t>(most + 1));
  std::iota(edges.begin(), edges.end(), int64_t{1});
  return accuracyLine(
      name, train::evaluate(model, orderedBatches(counted, batchSize), edges));
}

} // namespace rvnn::runtime::report
