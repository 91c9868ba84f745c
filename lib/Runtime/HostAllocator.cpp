#include "rvnn/Runtime/HostAllocator.h"

#include <algorithm>
// Any C library header defines __GLIBC__ (through <features.h>).
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// jemalloc's control interface, when the executable links jemalloc
// (cmake/RvnnJemalloc.cmake); null otherwise.
extern "C" int mallctl(const char *name, void *oldp, size_t *oldlenp,
                       void *newp, size_t newlen) __attribute__((weak));

namespace rvnn::runtime {
namespace {

template <typename T> bool readMallctl(const char *name, T &value) {
  size_t size = sizeof(T);
  return mallctl(name, &value, &size, nullptr, 0) == 0;
}

/// The heap's live (allocated) and resident bytes, from statistics
/// refreshed now.
bool heapBytes(size_t &allocated, size_t &resident) {
  uint64_t epoch = 1;
  size_t size = sizeof(epoch);
  return mallctl("epoch", &epoch, &size, &epoch, sizeof(epoch)) == 0 &&
         readMallctl("stats.allocated", allocated) &&
         readMallctl("stats.resident", resident);
}

/// The most this thread has held at once since the last call.
bool takeThreadPeak(uint64_t &peak) {
  return readMallctl("thread.peak.read", peak) &&
         mallctl("thread.peak.reset", nullptr, nullptr, nullptr, 0) == 0;
}

/// MALLCTL_ARENAS_ALL: every arena.
constexpr const char *kPurgeAllArenas = "arena.4096.purge";

} // namespace

bool keepFreedHostMemory() {
#if defined(__GLIBC__)
  // The largest threshold glibc accepts on 64-bit hosts (32 MiB): blocks
  // below it come from the heap, whose freed memory is reused, not unmapped.
  constexpr int kMmapThreshold = 32 << 20;
  // Never trim the heap's top; grow it in 64 MiB steps.
  constexpr int kTrimThreshold = 1 << 30;
  constexpr int kTopPad = 64 << 20;
  return mallopt(M_MMAP_THRESHOLD, kMmapThreshold) == 1 &&
         mallopt(M_TRIM_THRESHOLD, kTrimThreshold) == 1 &&
         mallopt(M_TOP_PAD, kTopPad) == 1;
#else
  return false;
#endif
}

bool HostHeapTrimmer::afterStep() {
  uint64_t peak = 0;
  size_t allocated = 0, resident = 0;
  if (!mallctl || !takeThreadPeak(peak) || !heapBytes(allocated, resident))
    return false;
  // What stays live between steps plus the most the step added to it.
  stepPeakBytes_ = std::max<uint64_t>(stepPeakBytes_, allocated + peak);
  if (resident <= 2 * stepPeakBytes_ + kSlackBytes)
    return false;
  if (mallctl(kPurgeAllArenas, nullptr, nullptr, nullptr, 0) != 0)
    return false;
  ++purges_;
  return true;
}

} // namespace rvnn::runtime
