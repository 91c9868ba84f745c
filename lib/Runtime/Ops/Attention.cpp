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

/// sqrt(Dh), which the scores are divided by.
double scoreDivisor(const torch::Tensor &q) {
  return std::sqrt(static_cast<double>(q.size(-1)));
}

/// masked_attention's weights softmax(q·kᵀ/sqrt(Dh)) over the keys allowed.
torch::Tensor attentionWeights(const torch::Tensor &q, const torch::Tensor &k,
                               const torch::Tensor &mask, bool causal) {
  auto scores = at::matmul(q, k.transpose(-1, -2)) / scoreDivisor(q);
  auto blocked = padKeys(mask);
  if (causal) {
    auto [i, j] = positions(q.size(2), q.device());
    blocked = blocked | (j > i);
  }
  return at::softmax(scores.masked_fill(blocked, kNegInf), -1);
}

} // namespace

torch::Tensor maskedAttention(const torch::Tensor &q, const torch::Tensor &k,
                              const torch::Tensor &v, const torch::Tensor &mask,
                              bool causal) {
  return at::matmul(attentionWeights(q, k, mask, causal), v);
}

std::vector<torch::Tensor>
maskedAttentionBackward(const torch::Tensor &q, const torch::Tensor &k,
                        const torch::Tensor &v, const torch::Tensor &mask,
                        bool causal, const torch::Tensor &dOut) {
  const torch::Tensor weights = attentionWeights(q, k, mask, causal);
  const torch::Tensor dScores =
      at::_softmax_backward_data(at::matmul(dOut, v.transpose(-1, -2)), weights,
                                 -1, weights.scalar_type()) /
      scoreDivisor(q);
  return {at::matmul(dScores, k), at::matmul(dScores.transpose(-1, -2), q),
          at::matmul(weights.transpose(-1, -2), dOut)};
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

torch::Tensor neighbourBand(const torch::Tensor &exist,
                            const torch::Tensor &mask, Direction direction) {
  if (neighbourRetrieveCpuTakes(exist, mask))
    return neighbourBandCpu(exist, mask, direction == Direction::Right);
  // The right band on the flipped sequence, mirrored: row i of the left band
  // is [S - hi, S - lo) of row S - 1 - i there.
  const bool right = direction == Direction::Right;
  const torch::Tensor e = right ? exist : exist.flip({1});
  const torch::Tensor m = right ? mask : mask.flip({1});
  const int64_t length = e.size(1);
  auto [i, j] = positions(length, e.device());
  auto exceeds =
      ((e * m).unsqueeze(1) * (j > i).to(e.scalar_type())).cumsum(-1) > 1;
  auto hi =
      at::where(exceeds.any(-1), exceeds.to(at::kLong).argmax(-1) + 1, length);
  auto lo = (i.squeeze(1) + 1).expand_as(hi);
  if (right)
    return at::stack({lo, hi}, -1);
  return at::stack({length - hi.flip({1}), length - lo.flip({1})}, -1);
}

std::optional<std::pair<torch::Tensor, torch::Tensor>>
neighbourRetrieveBackward(const torch::Tensor &exist, const torch::Tensor &mask,
                          Direction direction, const torch::Tensor &dy,
                          bool maskWanted) {
  if (!neighbourRetrieveCpuTakes(exist, mask) ||
      dy.scalar_type() != exist.scalar_type())
    return std::nullopt;
  if (direction == Direction::Right)
    return rightNeighboursCpuBackward(exist, mask, dy, maskWanted);
  auto [gradExist, gradMask] = rightNeighboursCpuBackward(
      exist.flip({1}), mask.flip({1}), dy.flip({1, 2}), maskWanted);
  return std::pair{gradExist.flip({1}),
                   maskWanted ? gradMask.flip({1}) : gradMask};
}

} // namespace rvnn::runtime::ops
