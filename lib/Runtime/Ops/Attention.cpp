#include "rvnn/Runtime/Ops/Attention.h"

#include "NeighbourRetrieveCpu.h"

#include <cmath>
#include <limits>
#include <utility>

namespace rvnn::runtime::ops {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

/// Query and key positions of an S×S score matrix, as i64 `[S, 1]`, `[1, S]`.
std::pair<torch::Tensor, torch::Tensor> positions(int64_t length,
                                                  const at::Device &device) {
  auto pos = at::arange(length, at::TensorOptions(device).dtype(at::kLong));
  return {pos.unsqueeze(1), pos.unsqueeze(0)};
}

/// True where a key must not be attended: padding (mask `[N, S]` broadcast to
/// `[N, 1, 1, S]`).
torch::Tensor padKeys(const torch::Tensor &mask) {
  return (mask == 0).view({mask.size(0), 1, 1, mask.size(1)});
}

} // namespace

torch::Tensor maskedAttention(const torch::Tensor &q, const torch::Tensor &k,
                              const torch::Tensor &v, const torch::Tensor &mask,
                              bool causal) {
  auto scores = at::matmul(q, k.transpose(-1, -2)) /
                std::sqrt(static_cast<double>(q.size(-1)));
  auto blocked = padKeys(mask);
  if (causal) {
    auto [i, j] = positions(q.size(2), q.device());
    blocked = blocked | (j > i);
  }
  return at::matmul(at::softmax(scores.masked_fill(blocked, kNegInf), -1), v);
}

namespace {

/// neighbour_retrieve towards the right: row i spreads one unit of weight over
/// the existing keys after i, nearest first.
torch::Tensor rightNeighbours(const torch::Tensor &exist,
                              const torch::Tensor &mask) {
  const int64_t length = exist.size(1);
  auto [i, j] = positions(length, exist.device());
  auto weights = (exist * mask).unsqueeze(1) * (j > i).to(exist.scalar_type());
  auto total = weights.cumsum(-1);
  // C_{i,j-1} read off the cumulative sum itself: C - E would add rounding
  // error right where the two branches meet.
  auto before = at::constant_pad_nd(total.narrow(-1, 0, length - 1), {1, 0}, 0);
  auto retrieved = at::where(total <= 1, weights, (1 - before).clamp_min(0));
  return retrieved * mask.unsqueeze(-1);
}

} // namespace

torch::Tensor neighbourRetrieve(const torch::Tensor &exist,
                                const torch::Tensor &mask,
                                Direction direction) {
  // The CPU kernel (NeighbourRetrieveCpu.cpp) where it takes the operands;
  // the ATen composition is its oracle and serves everything else. Left is
  // right on the flipped sequence.
  if (!neighbourRetrieveCpuTakes(exist, mask))
    return neighbourRetrieveReference(exist, mask, direction);
  if (direction == Direction::Right)
    return rightNeighboursCpu(exist, mask);
  return rightNeighboursCpu(exist.flip({1}), mask.flip({1})).flip({1, 2});
}

torch::Tensor neighbourRetrieveReference(const torch::Tensor &exist,
                                         const torch::Tensor &mask,
                                         Direction direction) {
  if (direction == Direction::Right)
    return rightNeighbours(exist, mask);
  return rightNeighbours(exist.flip({1}), mask.flip({1})).flip({1, 2});
}

std::optional<torch::Tensor>
neighbourRetrieveBackward(const torch::Tensor &exist, const torch::Tensor &mask,
                          Direction direction, const torch::Tensor &dy) {
  if (!neighbourRetrieveCpuTakes(exist, mask) ||
      dy.scalar_type() != exist.scalar_type())
    return std::nullopt;
  if (direction == Direction::Right)
    return rightNeighboursCpuBackward(exist, mask, dy);
  return rightNeighboursCpuBackward(exist.flip({1}), mask.flip({1}),
                                    dy.flip({1, 2}))
      .flip({1});
}

} // namespace rvnn::runtime::ops
