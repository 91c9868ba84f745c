#ifndef RVNN_RUNTIME_OPS_JITPRODUCT_H
#define RVNN_RUNTIME_OPS_JITPRODUCT_H

#include <torch/types.h>

#include <string>

namespace rvnn::runtime::ops {

/// Most rows of a product LIBXSMM's AVX2 kernels take (by a row-major
/// matrix, one thread, Zen 3): against OpenBLAS 0.3.21's sgemm 1.8x as fast
/// at 9 rows and 1.6x at 15, as fast at 16, 7-20% slower from 32 rows on
/// (`[M, 512]·[512, 512]`); against one gemv a row 1.3-2.1x at 2-8 rows,
/// as fast at one (bench/README.md, session 42).
constexpr int64_t kMaxRowsOfAvx2JitProducts = 15;

/// Largest K or N of batched products `[M, K]·[K, N]` LIBXSMM's AVX2
/// kernels take (one thread, Zen 3): 1.3-1.6x as fast as OpenBLAS's sgemm
/// with K or N = 32 (NDR's per-head `[103, 32]·[32, 103]` and
/// `[103, 103]·[103, 32]`, up to 1000 for the other dims), as fast to 1.5x
/// at 64 depending on the rest, slower with only M narrow or none
/// (bench/README.md, session 42).
constexpr int64_t kMaxNarrowDimOfAvx2BatchedProducts = 32;

/// The RecordFunction name of a jitProduct call; its inputs are the rows
/// `[m, K]` and `b`.
inline constexpr char kJitProductEvent[] = "rvnn::jit_product";

/// `x · b (+ bias)` for float `x` `[..., K]` on the CPU (a 2-D `x` may be
/// column-major too: a collector's `dyᵀ` is a view), `b` `[K, N]` with a
/// row or column stride of 1 (a linear layer's `wᵀ` is a view), `bias` `[N]`
/// or undefined, by a kernel LIBXSMM generates for the shape and the CPU
/// (`LIBXSMM_TARGET` can name others). LIBXSMM multiplies without packing
/// the operands, which suits the models' products: with AVX-512 kernels a
/// few to a few thousand rows by a weight of at most a few thousand
/// columns; with AVX2 ones only 2 to kMaxRowsOfAvx2JitProducts rows by a
/// row-major `b` (on larger products they are slower than the BLAS).
/// Returns an undefined tensor when the product is not of that kind
/// (another dtype or device, autograd recording, a stride the kernels
/// cannot take, no kernel for the shape, outside the AVX2 kernels'
/// products), when LIBXSMM's kernels would be neither AVX-512 nor AVX2 or
/// rvnn was built without LIBXSMM; the caller then takes another path.
/// Calls are visible to ATen's RecordFunction observers (the profiler, the
/// GEMM replay of `rvnn-run bench`) under kJitProductEvent.
torch::Tensor jitProduct(const torch::Tensor &x, const torch::Tensor &b,
                         const torch::Tensor &bias = {});

/// The RecordFunction name of a jitBatchedProduct call; its inputs are `x`
/// and `y`.
inline constexpr char kJitBatchedProductEvent[] = "rvnn::jit_batched_product";

/// `x · y` for float batches of matrices on the CPU, by jitProduct's
/// kernels, one matrix after another: `x` `[B..., M, K]` contiguous or the
/// transposed view of a contiguous `[B..., K, M]`, `y` `[B..., K, N]` with
/// the same batch sizes (a `y` that is not contiguous is copied first).
/// Suits attention's per-head products, `[S, 32] · [32, S]` and the like,
/// which the BLAS multiplies at a fraction of the kernels' rate; with AVX2
/// kernels only those with K or N at most kMaxNarrowDimOfAvx2BatchedProducts.
/// Undefined where jitProduct's would be, and for broadcast batches or
/// other strides.
torch::Tensor jitBatchedProduct(const torch::Tensor &x, const torch::Tensor &y);

/// `matrix`ᵀ as a contiguous tensor: for a contiguous float CPU matrix by
/// LIBXSMM's blocked transposition (ATen's strided copy of a [512, 512]
/// weight took about twice as long), else by ATen.
torch::Tensor transposedCopy(const torch::Tensor &matrix);

/// The instruction set of jitProduct's kernels ("skx", "cpx": AVX-512;
/// "hsw": AVX2); empty when it multiplies nothing (no LIBXSMM in the build,
/// or a CPU or LIBXSMM_TARGET without AVX2).
std::string jitProductKernels();

/// Whether jitProduct's and jitBatchedProduct's kernels take every shape
/// (AVX-512 kernels), not only the narrow ones where AVX2 kernels beat the
/// BLAS.
bool jitProductsTakeEveryShape();

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_JITPRODUCT_H
