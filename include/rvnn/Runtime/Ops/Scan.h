#ifndef RVNN_RUNTIME_OPS_SCAN_H
#define RVNN_RUNTIME_OPS_SCAN_H

#include <array>
#include <optional>

#include <torch/types.h>

/// Implementations of rvnn.diagonal_scan (RvnnAttentionOps.td): a diagonal
/// complex linear recurrence over a masked sequence (S4D's scan).
namespace rvnn::runtime::ops {

/// rvnn.diagonal_scan: `u` `[N, S, D]`; `aRe, aIm, bRe, bIm, cRe, cIm`
/// `[D, P]`; `mask` `[N, S]` (0 or 1) → `[N, S, D]`. Per sample and channel,
/// `x_t = a ⊙ x_{t-1} + b·u_t` (complex, `x_{-1} = 0`) and
/// `y_t = Re(Σ_p c_p·x_{t,p})`; a step with `mask_t = 0` keeps the state and
/// outputs 0. `reverse` scans from the last step to the first. CPU float and
/// double operands run a kernel whose backward is the explicit reverse scan
/// (diagonalScanBackward); anything else runs diagonalScanReference.
torch::Tensor diagonalScan(const torch::Tensor &u, const torch::Tensor &aRe,
                           const torch::Tensor &aIm, const torch::Tensor &bRe,
                           const torch::Tensor &bIm, const torch::Tensor &cRe,
                           const torch::Tensor &cIm, const torch::Tensor &mask,
                           bool reverse);

/// diagonal_scan as a loop of ATen tensor operations over the steps (any
/// device, differentiable by autograd, mask included): the kernel's oracle.
torch::Tensor
diagonalScanReference(const torch::Tensor &u, const torch::Tensor &aRe,
                      const torch::Tensor &aIm, const torch::Tensor &bRe,
                      const torch::Tensor &bIm, const torch::Tensor &cRe,
                      const torch::Tensor &cIm, const torch::Tensor &mask,
                      bool reverse);

/// The cotangents of `u, aRe, aIm, bRe, bIm, cRe, cIm` (in that order) for
/// the result's cotangent `dy`, by the reverse scan and without an autograd
/// graph; `mask` is data and gets none. nullopt where the CPU kernel does
/// not take the operands.
std::optional<std::array<torch::Tensor, 7>>
diagonalScanBackward(const torch::Tensor &u, const torch::Tensor &aRe,
                     const torch::Tensor &aIm, const torch::Tensor &bRe,
                     const torch::Tensor &bIm, const torch::Tensor &cRe,
                     const torch::Tensor &cIm, const torch::Tensor &mask,
                     bool reverse, const torch::Tensor &dy);

} // namespace rvnn::runtime::ops

#endif // RVNN_RUNTIME_OPS_SCAN_H
