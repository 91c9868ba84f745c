// The CPU kernel of rvnn.pair_merge (the CUDA one is lib/Runtime/Cuda).
#ifndef RVNN_LIB_RUNTIME_OPS_PAIRMERGECPU_H
#define RVNN_LIB_RUNTIME_OPS_PAIRMERGECPU_H

#include <torch/types.h>

#include <vector>

namespace rvnn::runtime::ops {

/// Whether pairMergeCpu runs these operands: CPU, float or double, one
/// dtype, leading dims equal (no broadcasting but `cand`'s pair dim of 1).
bool pairMergeCpuTakes(const torch::Tensor &h, const torch::Tensor &cand,
                       const torch::Tensor &sel);

/// pair_merge as one pass over each row, with a backward of two passes
/// (through pairMergeReference when the backward itself is recorded).
torch::Tensor pairMergeCpu(const torch::Tensor &h, const torch::Tensor &cand,
                           const torch::Tensor &sel);

/// The cotangents of h, cand and sel (undefined unless `wantSel`) for the
/// result's cotangent `dy`: the backward's two passes, without a graph.
std::vector<torch::Tensor> pairMergeCpuBackward(const torch::Tensor &h,
                                                const torch::Tensor &cand,
                                                const torch::Tensor &sel,
                                                const torch::Tensor &dy,
                                                bool wantSel);

} // namespace rvnn::runtime::ops

#endif // RVNN_LIB_RUNTIME_OPS_PAIRMERGECPU_H
