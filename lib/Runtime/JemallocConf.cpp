// jemalloc's configuration, read at its initialisation from this symbol
// (linked only into executables built with jemalloc, cmake/RvnnJemalloc.cmake).
//
// Never purge freed pages: a training step's tensors have the same sizes
// every step, so pages returned to the system are faulted back in the next
// step (measured: BBT-GRC batch 32 ran 15-25% slower with jemalloc's default
// 10 s decay, and no slower than glibc with it off). This is the policy
// keepFreedHostMemory() sets for glibc's heap.
extern "C" {
const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
}
