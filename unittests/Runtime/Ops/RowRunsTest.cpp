#include "rvnn/Runtime/Ops/RowRuns.h"

#include "GradCheck.h"

#include <gtest/gtest.h>

namespace ops = rvnn::runtime::ops;
using rvnn::runtime::ops::testing::uniformDoubles;

// The runs of a selection of rows, and copies by them between a tensor and
// the compacted selection, against index_select and index_copy_.
TEST(RowRuns, CopyLikeIndexSelectAndIndexCopy) {
  auto rows = torch::tensor({0, 1, 2, 5, 7, 8}, torch::kLong);
  const std::vector<ops::RowRun> runs = ops::rowRuns(rows);
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[1].first, 5);
  EXPECT_EQ(runs[1].position, 3);
  EXPECT_EQ(runs[2].count, 2);
  auto full = uniformDoubles({9, 3, 2}, -1, 1, 31);
  // Adjacent rows (one copy a run) and a strided view (one copy a row).
  for (const torch::Tensor &source : {full, full.select(1, 1)}) {
    ASSERT_TRUE(ops::rowRunsTake({&source}));
    const torch::Tensor compact = ops::rowRunsGather(source, runs);
    EXPECT_TRUE(at::equal(compact, source.index_select(0, rows)));
    torch::Tensor target = torch::full_like(source, 4.0);
    torch::Tensor expected = target.clone().index_copy_(0, rows, compact);
    ops::rowRunsScatter(compact, target, runs);
    EXPECT_TRUE(at::equal(target, expected));
    ops::rowRunsScatter(torch::Tensor(), target, runs);
    EXPECT_TRUE(at::equal(target, expected.index_fill_(0, rows, 0.0)));
  }
  // Rows that are not contiguous in memory are left to ATen.
  auto transposed = full.transpose(1, 2);
  EXPECT_FALSE(ops::rowRunsTake({&transposed}));
  EXPECT_FALSE(ops::rowRunsTake({&full, &transposed}));
  EXPECT_THROW(ops::rowRunsGather(transposed, runs), c10::Error);
  EXPECT_THROW(ops::rowRunsScatter(full, transposed, runs), c10::Error);
  EXPECT_THROW(ops::rowRuns(rows.to(torch::kInt)), c10::Error);
}
