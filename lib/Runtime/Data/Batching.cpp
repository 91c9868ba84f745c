#include "rvnn/Runtime/Data/Batching.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace rvnn::runtime::data {

std::vector<std::vector<std::size_t>>
lengthBucketedBatches(const std::vector<std::size_t> &lengths,
                      std::size_t batchSize, Rng &rng,
                      std::size_t chunkBatches) {
  if (batchSize == 0 || chunkBatches == 0)
    throw std::invalid_argument("batch size and chunk size must be positive");
  // No batch holds more than the data; also keeps `chunk` from overflowing.
  batchSize = std::min(batchSize, std::max<std::size_t>(lengths.size(), 1));
  std::vector<std::size_t> order(lengths.size());
  std::iota(order.begin(), order.end(), 0);
  rng.shuffle(order);

  std::vector<std::vector<std::size_t>> batches;
  const std::size_t chunk = batchSize * chunkBatches;
  for (std::size_t start = 0; start < order.size(); start += chunk) {
    const std::size_t end = std::min(start + chunk, order.size());
    // Stable, so equal lengths keep the shuffled order on every platform.
    std::stable_sort(
        order.begin() + start, order.begin() + end,
        [&](std::size_t a, std::size_t b) { return lengths[a] < lengths[b]; });
    for (std::size_t begin = start; begin < end; begin += batchSize) {
      const std::size_t stop = std::min(begin + batchSize, end);
      // Sorted, so the batch's last example is its longest.
      const std::size_t rows = stop - begin;
      const std::size_t longest = lengths[order[stop - 1]];
      if (longest > kMaxBatchTokens / rows)
        throw std::invalid_argument(
            "a batch of " + std::to_string(rows) + " examples up to " +
            std::to_string(longest) + " tokens long pads to more than " +
            std::to_string(kMaxBatchTokens) +
            " tokens, the limit for one batch (kMaxBatchTokens); lower "
            "batch_size");
      batches.emplace_back(order.begin() + begin, order.begin() + stop);
    }
  }
  rng.shuffle(batches);
  return batches;
}

} // namespace rvnn::runtime::data
