#ifndef RVNN_RUNTIME_HOSTALLOCATOR_H
#define RVNN_RUNTIME_HOSTALLOCATOR_H

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

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_HOSTALLOCATOR_H
