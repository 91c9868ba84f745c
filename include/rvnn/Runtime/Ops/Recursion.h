#ifndef RVNN_RUNTIME_OPS_RECURSION_H
#define RVNN_RUNTIME_OPS_RECURSION_H

#include <functional>
#include <optional>
#include <tuple>
#include <vector>

#include <torch/types.h>

/// Reference (ATen) implementations of the rvnn recursion ops
/// (RvnnRecursionOps.td) other than rvnn.recurse, whose interpreter belongs to
/// the executor; freezeHalted is its per-sample halting primitive.
namespace rvnn::runtime::ops {

/// The body of rvnn.balanced_reduce: children `[M, k, D]` and their mask
/// `[M, k]` → parents `[M, D]`.
using ChunkReducer = std::function<torch::Tensor(const torch::Tensor &children,
                                                 const torch::Tensor &mask)>;

/// rvnn.balanced_reduce: `h` `[N, S, D]`, `mask` `[N, S]` → `[N, D]`. While
/// S > 1: right-pad S to a multiple of `arity` (pad mask 0), reduce each chunk
/// of `arity` children with `reducer`, and keep each chunk's first-child mask.
/// `arity >= 2`. The reducer must give a chunk whose children after the first
/// are all padding its first child: where a batch has many such chunks they
/// pass their first child up and the reducer sees only the other chunks.
torch::Tensor balancedReduce(const torch::Tensor &h, const torch::Tensor &mask,
                             int64_t arity, const ChunkReducer &reducer);

/// rvnn.chunk: splits sequence dim `dim` of `x` `[N, ..., S, ...]` (mask
/// `[N, S]`). If S >= size + size/2, right-pads S to a multiple of `size`
/// (zeros, mask 0) and returns `[N·S1, ..., size, ...]` (chunk-major within a
/// sample) with mask `[N·S1, size]`; otherwise one chunk of length S (x and
/// mask unchanged). `size >= 2`.
std::tuple<torch::Tensor, torch::Tensor> chunk(const torch::Tensor &x,
                                               const torch::Tensor &mask,
                                               int64_t size, int64_t dim = 1);

/// chunk's backward: `grad` (of the chunks `[N·S1, ..., size, ...]`, or of
/// the chunk mask `[N·S1, size]` with `dim` 1) back to the layout of the
/// operand of sizes `sizes` (`[N, ..., S, ...]`): the chunk index leaves the
/// batch and the padding is cut off; a sequence kept whole passes as is.
torch::Tensor chunkBackward(const torch::Tensor &grad, torch::IntArrayRef sizes,
                            int64_t size, int64_t dim = 1);

/// rvnn.chunk_depth: how many rounds of chunk(size) reduce `length` items to
/// one (0 for length <= 1; 1 + chunkDepth(ceil(length / size)) when length
/// >= size + size/2; else 1). `size >= 2`.
int64_t chunkDepth(int64_t length, int64_t size);

/// rvnn.unchunk: `x` `[N·S1, ...]` with `ref` `[N, ...]` → the chunk index
/// inserted as dim `dim`, e.g. `[N·S1, B, D]` → `[N, B, S1, D]` for dim 2.
torch::Tensor unchunk(const torch::Tensor &x, const torch::Tensor &ref,
                      int64_t dim);

/// unchunk's backward: `grad` (of the result) back to `[N·S1, ...]`, the
/// layout of the operand of sizes `sizes`.
torch::Tensor unchunkBackward(const torch::Tensor &grad,
                              torch::IntArrayRef sizes, int64_t dim);

/// rvnn.pair_merge: `h` `[..., S, D]`, `cand` `[..., S-1 or 1, D]`, `sel`
/// `[..., S-1]` → `[..., S-1, D]` with `c = cumsum(sel)`, `left = 1-c`,
/// `right = c-sel`, `h'_j = sel_j·cand_j + left_j·h_j + right_j·h_{j+1}`.
torch::Tensor pairMerge(const torch::Tensor &h, const torch::Tensor &cand,
                        const torch::Tensor &sel);

/// pair_merge's cotangents of h, cand and (when `wantSel`) sel for the
/// result's cotangent `dy`, from the CPU kernel's backward without an
/// autograd graph; nullopt where that kernel does not take the operands.
std::optional<std::vector<torch::Tensor>>
pairMergeBackward(const torch::Tensor &h, const torch::Tensor &cand,
                  const torch::Tensor &sel, const torch::Tensor &dy,
                  bool wantSel);

/// pair_merge as ATen tensor operations (any device, differentiable to any
/// order): the oracle of the CPU and CUDA kernels pairMerge runs.
torch::Tensor pairMergeReference(const torch::Tensor &h,
                                 const torch::Tensor &cand,
                                 const torch::Tensor &sel);

/// rvnn.recurse's per_sample halting: rows (dim 0 = batch) of `oldState` where
/// `halted` `[N]` is true, rows of `newState` elsewhere.
torch::Tensor freezeHalted(const torch::Tensor &halted,
                           const torch::Tensor &newState,
                           const torch::Tensor &oldState);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_RECURSION_H
