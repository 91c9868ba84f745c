#include "rvnn/Runtime/Report/OperatorCount.h"

#include <gtest/gtest.h>

#include "rvnn/Runtime/Data/LogicVocab.h"

namespace rvnn::runtime::report {
namespace {

TEST(OperatorCount, CountsTheLargerFormulasOperators) {
  namespace logic = data::logic;
  Dataset data{Task::Logic, {}, {}, {}, {}};
  auto add = [&](const char *left, const char *right) {
    data.first.push_back(logic::tokenize(left));
    data.second.push_back(logic::tokenize(right));
    data.labels.push_back(0);
    data.lengths.push_back(0);
  };
  add("( a ( and ( not b ) ) )", "c");
  add("d", "( ( not a ) ( or ( b ( and c ) ) ) )");
  add("e", "f");
  EXPECT_EQ(operatorCounts(data), (std::vector<int64_t>{2, 3, 0}));
}

} // namespace
} // namespace rvnn::runtime::report
