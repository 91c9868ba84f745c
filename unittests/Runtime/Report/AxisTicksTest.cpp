#include "rvnn/Runtime/Report/AxisTicks.h"

#include <cmath>

#include <gtest/gtest.h>

namespace rvnn::runtime::report {
namespace {

std::vector<std::string> labels(const TickRange &range) {
  std::vector<std::string> out;
  for (const Tick &tick : range.ticks)
    out.push_back(tick.label);
  return out;
}

TEST(AxisTicks, LinearTicksAreRoundAndCoverTheData) {
  const TickRange steps = linearTicks(0, 600);
  EXPECT_EQ(steps.lo, 0);
  EXPECT_EQ(steps.hi, 600);
  EXPECT_EQ(labels(steps), (std::vector<std::string>{"0", "100", "200", "300",
                                                     "400", "500", "600"}));
  // k * 0.1 carries rounding noise that must not reach the labels.
  const TickRange accuracy = linearTicks(0.17, 0.62);
  EXPECT_NEAR(accuracy.lo, 0.1, 1e-12);
  EXPECT_NEAR(accuracy.hi, 0.7, 1e-12);
  EXPECT_EQ(labels(accuracy),
            (std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6",
                                      "0.7"}));
}

TEST(AxisTicks, EmptyOrInvalidRangesStillGetAnAxis) {
  const TickRange one = linearTicks(5, 5);
  EXPECT_LT(one.lo, 5);
  EXPECT_GT(one.hi, 5);
  EXPECT_GE(one.ticks.size(), 2u);
  const TickRange none = linearTicks(std::nan(""), 1);
  EXPECT_EQ(none.lo, 0);
  EXPECT_EQ(none.hi, 1);
}

TEST(AxisTicks, LogTicksDependOnTheDecadesSpanned) {
  // Within a decade: finer multiples, so there are several labels.
  EXPECT_EQ(labels(logTicks(1.8, 2.48)),
            (std::vector<std::string>{"1.5", "2", "2.5"}));
  EXPECT_EQ(labels(logTicks(0.3, 2.3)),
            (std::vector<std::string>{"0.3", "0.4", "0.5", "0.6", "0.7", "0.8",
                                      "0.9", "1", "1.5", "2", "2.5"}));
  // A few decades: 1-2-5.
  EXPECT_EQ(labels(logTicks(0.012, 2.3)),
            (std::vector<std::string>{"0.01", "0.02", "0.05", "0.1", "0.2",
                                      "0.5", "1", "2", "5"}));
  // Many: powers of ten.
  EXPECT_EQ(labels(logTicks(2e-5, 3)),
            (std::vector<std::string>{"1e-5", "0.0001", "0.001", "0.01", "0.1",
                                      "1", "10"}));
}

TEST(AxisTicks, FormatsCompactly) {
  EXPECT_EQ(formatTick(0), "0");
  EXPECT_EQ(formatTick(1500), "1500");
  EXPECT_EQ(formatTick(20000), "20k");
  EXPECT_EQ(formatTick(12500), "12500");
  EXPECT_EQ(formatTick(3e6), "3M");
  EXPECT_EQ(formatTick(0.0005), "0.0005");
  EXPECT_EQ(formatTick(5e-5), "5e-5");
  EXPECT_EQ(formatTick(0.1 + 0.2), "0.3");
}

} // namespace
} // namespace rvnn::runtime::report
