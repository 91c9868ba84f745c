#ifndef RVNN_RUNTIME_DATA_BATCHING_H
#define RVNN_RUNTIME_DATA_BATCHING_H

#include "rvnn/Runtime/Data/Rng.h"

#include <cstddef>
#include <vector>

namespace rvnn::runtime::data {

/// Padded tokens in one batch (examples x its longest example) at most: 16
/// times LRA ListOps' 128 x 2000, far below a batch whose inputs alone take
/// gigabytes (docs/user-guide.md, "Limits").
constexpr std::size_t kMaxBatchTokens = std::size_t{1} << 22;

/// One epoch of batches (example indices), bucketed by length the way the
/// reference trainers do it: shuffle all examples, sort each chunk of
/// chunkBatches x batchSize examples by length (stable), cut the chunk into
/// batches, then shuffle the batch order. Similar lengths share a batch, so
/// little padding, while every epoch still sees a new order. Each index
/// appears exactly once; at most one batch (the tail) is short. Throws
/// std::invalid_argument naming kMaxBatchTokens when a batch would pad to
/// more tokens.
std::vector<std::vector<std::size_t>>
lengthBucketedBatches(const std::vector<std::size_t> &lengths,
                      std::size_t batchSize, Rng &rng,
                      std::size_t chunkBatches = 5);

} // namespace rvnn::runtime::data

#endif // RVNN_RUNTIME_DATA_BATCHING_H
