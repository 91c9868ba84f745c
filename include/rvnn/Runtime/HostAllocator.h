#ifndef RVNN_RUNTIME_HOSTALLOCATOR_H
#define RVNN_RUNTIME_HOSTALLOCATOR_H

#include <cstdint>

namespace rvnn::runtime {

/// Makes the C heap keep and reuse the memory of freed tensors instead of
/// returning it to the system. LibTorch's CPU allocator is plain malloc:
/// with glibc's defaults every tensor above 128 KiB is a fresh mmap, so each
/// training step page-faults its activations, gradients and optimiser
/// temporaries in again (measured: 45% of a BBT-GRC step at batch 1). Call
/// once at startup, before any tensor exists. Returns false where the C
/// library has no such controls (non-glibc); nothing changes then.
/// rvnn-run links jemalloc where it is installed (cmake/RvnnJemalloc.cmake):
/// its malloc then serves the tensors, with the same policy set at its
/// initialisation (lib/Runtime/JemallocConf.cpp), and these glibc settings
/// only govern the allocations glibc still makes itself.
bool keepFreedHostMemory();

/// Bounds what keeping freed memory costs. jemalloc, never purging (the
/// policy above), also never coalesces its freed extents, and a workload
/// whose tensor sizes change from step to step (per-sample halting,
/// length-bucketed batches) then maps new memory while fragments of the old
/// stay resident: CRvNN's resident memory grew by 5 MiB per training step
/// without bound. Call afterStep() between training steps: when the heap's
/// resident memory exceeds twice the most a step has held at once (what is
/// live between steps plus the thread's peak growth in the step, jemalloc's
/// thread.peak) plus kSlackBytes, it purges the freed pages, which
/// coalesces them; the next step faults its pages in again once. Without
/// jemalloc (the C library's malloc, sanitizer builds) it does nothing.
class HostHeapTrimmer {
public:
  /// Resident memory allowed beyond twice the step peak.
  static constexpr uint64_t kSlackBytes = uint64_t(64) << 20;

  /// Returns whether it purged.
  bool afterStep();
  /// Purges so far.
  int64_t purges() const { return purges_; }

private:
  uint64_t stepPeakBytes_ = 0;
  int64_t purges_ = 0;
};

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_HOSTALLOCATOR_H
