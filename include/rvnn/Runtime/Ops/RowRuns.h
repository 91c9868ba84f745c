// Copies of whole rows between a tensor and its compacted selection, by
// runs of consecutive rows: rvnn.balanced_reduce's split of a level's
// groups into paired and unpaired ones (Recursion.cpp). A batch's unpaired
// groups are each sample's last ones, so the selections are a few long runs,
// copied by memcpy where ATen's index_select and index_copy_ take a row (or
// an element) at a time.
#ifndef RVNN_RUNTIME_OPS_ROWRUNS_H
#define RVNN_RUNTIME_OPS_ROWRUNS_H

#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace rvnn::runtime::ops {

/// `count` consecutive rows from `first` in the full tensor, at `position`
/// in the compacted one.
struct RowRun {
  int64_t first, position, count;
};

/// The runs of the ascending row indices `rows` (a 1-D CPU int64 tensor).
std::vector<RowRun> rowRuns(const torch::Tensor &rows);

/// Whether rowRunsGather and rowRunsScatter copy between these tensors:
/// all on the CPU, of one dtype and one row shape (every dim after the
/// first), each row contiguous in memory.
bool rowRunsTake(std::initializer_list<const torch::Tensor *> tensors);

/// The rows of `full` that `runs` select, compacted: [Σ count, ...]. Throws
/// c10::Error unless rowRunsTake({&full}).
torch::Tensor rowRunsGather(const torch::Tensor &full,
                            const std::vector<RowRun> &runs);

/// Writes the rows of `compact` into `full` where `runs` put them; with an
/// undefined `compact`, zeros. Throws c10::Error unless rowRunsTake takes
/// both.
void rowRunsScatter(const torch::Tensor &compact, torch::Tensor &full,
                    const std::vector<RowRun> &runs);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_ROWRUNS_H
