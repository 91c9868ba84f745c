#include "rvnn/Runtime/HostAllocator.h"

// Any C library header defines __GLIBC__ (through <features.h>).
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rvnn::runtime {

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

} // namespace rvnn::runtime
