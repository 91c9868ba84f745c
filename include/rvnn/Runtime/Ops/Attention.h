#ifndef RVNN_RUNTIME_OPS_ATTENTION_H
#define RVNN_RUNTIME_OPS_ATTENTION_H

#include <optional>
#include <utility>
#include <vector>

#include <torch/types.h>

/// Reference (ATen) implementations of the rvnn soft-mask attention ops
/// (RvnnAttentionOps.td).
namespace rvnn::runtime::ops {

/// rvnn.geometric_attention (NDR): `q, k, v` `[N, H, S, Dh]`, `back, front`
/// `[N, H, S]`, `mask` `[N, S]`, `scale, bias` rank-0 → `[N, H, S, Dh]`.
/// `l_ij = q_i·k_j·scale + [j>i]·front_i + [j<i]·back_i + bias` with pad keys
/// and the diagonal at -inf; `A_ij = P_ij·Π_{k closer to i than j}(1-P_ik)`
/// (ties at equal distance go to the right key), computed in log space;
/// rows L1-normalised when `normalize`; output `A·v`. CPU float and double
/// operands run a fused kernel with its own backward; anything else runs
/// geometricAttentionReference.
torch::Tensor geometricAttention(const torch::Tensor &q, const torch::Tensor &k,
                                 const torch::Tensor &v,
                                 const torch::Tensor &back,
                                 const torch::Tensor &front,
                                 const torch::Tensor &mask,
                                 const torch::Tensor &scale,
                                 const torch::Tensor &bias, bool normalize);

/// The cotangents of geometricAttention's operands, in operand order (the
/// mask's undefined: it is data), for the result's cotangent `dOut`: the
/// fused kernel's backward after its forward, without an autograd graph;
/// nullopt where the fused kernel does not take the operands.
std::optional<std::vector<torch::Tensor>> geometricAttentionBackward(
    const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
    const torch::Tensor &back, const torch::Tensor &front,
    const torch::Tensor &mask, const torch::Tensor &scale,
    const torch::Tensor &bias, bool normalize, const torch::Tensor &dOut);

/// The same as ATen tensor operations (any device, differentiable by
/// autograd to any order): the oracle of the fused kernel.
torch::Tensor geometricAttentionReference(
    const torch::Tensor &q, const torch::Tensor &k, const torch::Tensor &v,
    const torch::Tensor &back, const torch::Tensor &front,
    const torch::Tensor &mask, const torch::Tensor &scale,
    const torch::Tensor &bias, bool normalize);

/// rvnn.masked_attention: softmax(q·kᵀ/sqrt(Dh)) with pad keys (and, when
/// `causal`, keys after the query) masked, times `v`; `[N, H, S, Dh]`.
torch::Tensor maskedAttention(const torch::Tensor &q, const torch::Tensor &k,
                              const torch::Tensor &v, const torch::Tensor &mask,
                              bool causal);

/// maskedAttention's cotangents of `q`, `k` and `v` for the result's
/// cotangent `dOut` (the mask is data).
std::vector<torch::Tensor>
maskedAttentionBackward(const torch::Tensor &q, const torch::Tensor &k,
                        const torch::Tensor &v, const torch::Tensor &mask,
                        bool causal, const torch::Tensor &dOut);

enum class Direction { Left, Right };

/// rvnn.neighbour_retrieve (CRvNN): `exist`, `mask` `[N, S]` → `[N, S, S]`.
/// For `Right`: `E_ij = e_j·M_j` for j > i else 0, `C = cumsum_j E`,
/// `R_ij = E_ij if C_ij <= 1 else max(0, 1 - C_{i,j-1})`, `R *= M_i`; `Left`
/// is the same on the flipped sequence.
torch::Tensor neighbourRetrieve(const torch::Tensor &exist,
                                const torch::Tensor &mask, Direction direction);

/// neighbour_retrieve as ATen tensor operations (any device, differentiable
/// to any order): the oracle of the CPU kernel neighbourRetrieve runs.
torch::Tensor neighbourRetrieveReference(const torch::Tensor &exist,
                                         const torch::Tensor &mask,
                                         Direction direction);

/// rvnn_exec.neighbour_band: for each row of neighbourRetrieve's matrix the
/// columns `[lo, hi)` (i64 `[N, S, 2]`) outside which it is zero and has no
/// derivative: for `Right`, `lo = i + 1` and `hi` one past the first `j`
/// whose `C_ij` (rounded as the kernel rounds it) exceeds 1, else `S`; `Left`
/// mirrored. A row with `mask_i = 0` keeps its band: its derivative by
/// `mask_i` is the unmasked row.
torch::Tensor neighbourBand(const torch::Tensor &exist,
                            const torch::Tensor &mask, Direction direction);

/// The cotangents of `exist` and, when `maskWanted` (undefined otherwise),
/// of `mask` for the result's cotangent `dy` from the CPU kernel's backward,
/// without an autograd graph; nullopt where the kernel does not take the
/// operands.
std::optional<std::pair<torch::Tensor, torch::Tensor>>
neighbourRetrieveBackward(const torch::Tensor &exist, const torch::Tensor &mask,
                          Direction direction, const torch::Tensor &dy,
                          bool maskWanted = false);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_ATTENTION_H
