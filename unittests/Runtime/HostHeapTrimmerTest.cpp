// HostHeapTrimmer in a binary linked with jemalloc and rvnn-run's heap
// configuration (never purge), as rvnn-run is.
#include "rvnn/Runtime/HostAllocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

extern "C" int mallctl(const char *name, void *oldp, size_t *oldlenp,
                       void *newp, size_t newlen) __attribute__((weak));

namespace {

using rvnn::runtime::HostHeapTrimmer;

constexpr size_t kMiB = size_t(1) << 20;

size_t residentBytes() {
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  mallctl("epoch", &epoch, &size, &epoch, sizeof(epoch));
  size_t resident = 0;
  size = sizeof(resident);
  mallctl("stats.resident", &resident, &size, nullptr, 0);
  return resident;
}

/// Starts from a heap without freed pages and a fresh thread peak.
size_t purgedResidentBytes() {
  mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
  mallctl("thread.peak.reset", nullptr, nullptr, nullptr, 0);
  return residentBytes();
}

/// One "training step" that holds `bytes` at its peak, touched.
void step(size_t bytes) {
  void *block = std::malloc(bytes);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, bytes);
  std::free(block);
}

TEST(HostHeapTrimmer, KeepsTheMemoryOfStepsOfOneSize) {
  if (!mallctl)
    GTEST_SKIP() << "not linked with jemalloc";
  purgedResidentBytes();
  HostHeapTrimmer trimmer;
  for (int k = 0; k < 50; ++k) {
    step(32 * kMiB);
    EXPECT_FALSE(trimmer.afterStep()) << "step " << k;
  }
  EXPECT_EQ(trimmer.purges(), 0);
}

TEST(HostHeapTrimmer, PurgesWhenStepsOfGrowingSizesFragmentTheHeap) {
  if (!mallctl)
    GTEST_SKIP() << "not linked with jemalloc";
  // Freed extents are never purged, so never coalesced: a step larger than
  // every freed one maps new memory while the old stays resident.
  const size_t baseline = purgedResidentBytes();
  HostHeapTrimmer trimmer;
  size_t before = 0;
  int purgedAt = -1;
  for (int k = 1; k <= 40 && purgedAt < 0; ++k) {
    step(k * 2 * kMiB + kMiB / 2);
    before = residentBytes();
    if (trimmer.afterStep())
      purgedAt = k;
  }
  ASSERT_GT(purgedAt, 0) << "resident " << before / kMiB << " MiB, no purge";
  EXPECT_GT(before - baseline, HostHeapTrimmer::kSlackBytes);
  // Signed: the purge may also return pages resident at the baseline.
  EXPECT_LT(static_cast<int64_t>(residentBytes() - baseline),
            static_cast<int64_t>(before - baseline) / 2);
  EXPECT_EQ(trimmer.purges(), 1);
}

} // namespace
