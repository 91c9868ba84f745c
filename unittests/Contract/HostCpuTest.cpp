// Which kernel CPU levels this machine runs (rvnn/Dialect/Exec/HostCpu.h), as
// the compiler picks its default level and the runtime checks a library's.

#include "rvnn/Dialect/Exec/HostCpu.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace contract = rvnn::contract;

namespace {

TEST(HostCpu, KnowsTheLevelsOldestFirst) {
  EXPECT_EQ(contract::kKernelCpuLevels.front(), "x86-64");
  EXPECT_EQ(contract::kKernelCpuLevels.back(), "x86-64-v4");
  EXPECT_FALSE(contract::hostRunsCpuLevel("x86-64-v9"));
  EXPECT_FALSE(contract::hostRunsCpuLevel("znver4"));
  EXPECT_FALSE(contract::hostRunsCpuLevel(""));
}

#if defined(__x86_64__)
// Every level up to the newest this machine runs is run, none after it: the
// levels are supersets of each other.
TEST(HostCpu, RunsEveryLevelUpToItsNewest) {
  const std::string_view newest = contract::hostCpuLevel();
  const auto &levels = contract::kKernelCpuLevels;
  const auto at = std::find(levels.begin(), levels.end(), newest);
  ASSERT_NE(at, levels.end()) << "no level for this x86-64 machine";
  for (auto level = levels.begin(); level != levels.end(); ++level)
    EXPECT_EQ(contract::hostRunsCpuLevel(*level), level <= at) << *level;
}
#endif

} // namespace
