#ifndef RVNN_RUNTIME_OPS_FEWROWPRODUCT_H
#define RVNN_RUNTIME_OPS_FEWROWPRODUCT_H

#include <torch/types.h>

namespace rvnn::runtime::ops {

/// Most rows of `x` that fewRowProduct takes. One matrix-vector product a row
/// beats one matrix product up to about 10 rows on the CPU we measure (one
/// thread, `[m, 512] x [512, 512]`: 64 against 11 us at m = 1, 112 against
/// 72 us at 7, 113 against 131 us at 13): OpenBLAS 0.3.21 packs the whole
/// matrix on every sgemm call, gemv reads it as it is (bench/README.md,
/// session 15).
constexpr int64_t kMaxFewRows = 8;

/// The RecordFunction name of a fewRowProduct call; its inputs are the rows
/// `[m, K]` and `b` (batched: `x` and `b` as given).
inline constexpr char kFewRowProductEvent[] = "rvnn::few_row_product";

/// `x · b (+ bias)` for `x` `[..., K]` with at most kMaxFewRows rows and `b`
/// `[K, N]`, or batched, `x` `[B, M, K]` with M <= kMaxFewRows and `b`
/// `[B, K, N]` (EBT-GRC's selection of one pair per beam, M = 1: ATen's bmm
/// makes a full matrix product call per batch entry); any row or column
/// stride of each matrix (a linear layer's `wᵀ` is a view), `bias` `[N]` or
/// undefined: one BLAS matrix-vector product (sgemv/dgemv of the BLAS
/// LibTorch loaded) per row. Returns an undefined tensor when the product is
/// not of that kind: more rows, not float or double on the CPU, autograd
/// recording, or no BLAS gemv loaded in the process (a LibTorch with its
/// BLAS linked in privately); the caller then takes ATen's path. Calls are
/// visible to ATen's RecordFunction observers (the profiler, the GEMM replay
/// of `rvnn-run bench`) under kFewRowProductEvent.
torch::Tensor fewRowProduct(const torch::Tensor &x, const torch::Tensor &b,
                            const torch::Tensor &bias = {});

/// Whether the process has the BLAS gemv that fewRowProduct calls (float).
bool fewRowProductsAvailable();

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_FEWROWPRODUCT_H
