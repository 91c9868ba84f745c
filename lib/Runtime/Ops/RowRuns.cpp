#include "rvnn/Runtime/Ops/RowRuns.h"

#include <c10/util/Exception.h>

#include <cstring>

namespace rvnn::runtime::ops {
namespace {

/// The bytes of one row of `t` (its dims after the first).
int64_t rowBytes(const torch::Tensor &t) {
  int64_t elements = 1;
  for (int64_t d = 1; d < t.dim(); ++d)
    elements *= t.size(d);
  return elements * static_cast<int64_t>(t.element_size());
}

bool rowsContiguous(const torch::Tensor &t) {
  if (t.dim() < 1)
    return false;
  int64_t expected = 1;
  for (int64_t d = t.dim() - 1; d >= 1; --d) {
    if (t.size(d) != 1 && t.stride(d) != expected)
      return false;
    expected *= t.size(d);
  }
  return true;
}

/// Copies the runs' rows from `from` to `to` (`gather`: full to compact;
/// else compact to full), or zeros them in `to` when `from` is undefined.
/// One memcpy a run where both sides' rows are adjacent, else one a row.
void copyRuns(const torch::Tensor &from, const torch::Tensor &to,
              const std::vector<RowRun> &runs, bool gather) {
  const int64_t bytes = rowBytes(to);
  const int64_t elementSize = static_cast<int64_t>(to.element_size());
  const int64_t toStride = to.stride(0) * elementSize;
  const int64_t fromStride = from.defined() ? from.stride(0) * elementSize : 0;
  const bool runsAreBlocks =
      toStride == bytes && (!from.defined() || fromStride == bytes);
  auto *toData = static_cast<char *>(to.data_ptr());
  const auto *fromData =
      from.defined() ? static_cast<const char *>(from.data_ptr()) : nullptr;
  for (const RowRun &run : runs) {
    const int64_t toRow = gather ? run.position : run.first;
    const int64_t fromRow = gather ? run.first : run.position;
    const int64_t rows = runsAreBlocks ? 1 : run.count;
    const int64_t length = runsAreBlocks ? run.count * bytes : bytes;
    for (int64_t i = 0; i < rows; ++i) {
      char *out = toData + (toRow + i) * toStride;
      if (fromData)
        std::memcpy(out, fromData + (fromRow + i) * fromStride, length);
      else
        std::memset(out, 0, length);
    }
  }
}

} // namespace

std::vector<RowRun> rowRuns(const torch::Tensor &rows) {
  TORCH_CHECK(rows.dim() == 1 && rows.device().is_cpu() &&
                  rows.scalar_type() == torch::kLong,
              "rowRuns: expects a 1-D CPU int64 tensor");
  const torch::Tensor dense = rows.contiguous();
  const int64_t *row = dense.data_ptr<int64_t>();
  std::vector<RowRun> runs;
  for (int64_t i = 0; i < dense.numel(); ++i) {
    if (!runs.empty() && runs.back().first + runs.back().count == row[i])
      ++runs.back().count;
    else
      runs.push_back({row[i], i, 1});
  }
  return runs;
}

bool rowRunsTake(std::initializer_list<const torch::Tensor *> tensors) {
  const torch::Tensor &any = **tensors.begin();
  for (const torch::Tensor *t : tensors)
    if (!t->device().is_cpu() || t->scalar_type() != any.scalar_type() ||
        t->sizes().slice(1) != any.sizes().slice(1) || !rowsContiguous(*t))
      return false;
  return true;
}

torch::Tensor rowRunsGather(const torch::Tensor &full,
                            const std::vector<RowRun> &runs) {
  int64_t rows = 0;
  for (const RowRun &run : runs)
    rows += run.count;
  TORCH_CHECK(rowRunsTake({&full}),
              "rowRunsGather: rows must be contiguous CPU memory");
  std::vector<int64_t> sizes = full.sizes().vec();
  sizes[0] = rows;
  torch::Tensor compact = at::empty(sizes, full.options());
  copyRuns(full, compact, runs, /*gather=*/true);
  return compact;
}

void rowRunsScatter(const torch::Tensor &compact, torch::Tensor &full,
                    const std::vector<RowRun> &runs) {
  TORCH_CHECK(compact.defined() ? rowRunsTake({&full, &compact})
                                : rowRunsTake({&full}),
              "rowRunsScatter: rows must be contiguous CPU memory of one "
              "dtype and row shape");
  copyRuns(compact, full, runs, /*gather=*/false);
}

} // namespace rvnn::runtime::ops
