// The CPU kernel of rvnn.neighbour_retrieve (CRvNN's neighbour weights).
#ifndef RVNN_LIB_RUNTIME_OPS_NEIGHBOURRETRIEVECPU_H
#define RVNN_LIB_RUNTIME_OPS_NEIGHBOURRETRIEVECPU_H

#include <utility>

#include <torch/types.h>

namespace rvnn::runtime::ops {

/// Whether the kernel runs these operands: CPU, float or double, `exist`
/// and `mask` of one dtype and one shape `[N, S]`.
bool neighbourRetrieveCpuTakes(const torch::Tensor &exist,
                               const torch::Tensor &mask);

/// The right-neighbour weights `[N, S, S]` (ops::neighbourRetrieve's
/// definition) in one pass per row, with a backward of one pass per row
/// (through the ATen composition when the backward itself is recorded).
torch::Tensor rightNeighboursCpu(const torch::Tensor &exist,
                                 const torch::Tensor &mask);

/// ops::neighbourBand of operands the kernel takes, one sweep per row that
/// stops where the row's weight is spent.
torch::Tensor neighbourBandCpu(const torch::Tensor &exist,
                               const torch::Tensor &mask, bool rightwards);

/// The cotangents of `exist` and, when `maskWanted` (undefined otherwise),
/// of `mask` for the result's cotangent `dy`, without an autograd graph.
std::pair<torch::Tensor, torch::Tensor>
rightNeighboursCpuBackward(const torch::Tensor &exist,
                           const torch::Tensor &mask, const torch::Tensor &dy,
                           bool maskWanted);

} // namespace rvnn::runtime::ops

#endif // RVNN_LIB_RUNTIME_OPS_NEIGHBOURRETRIEVECPU_H
