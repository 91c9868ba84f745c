#ifndef RVNN_RUNTIME_THREADS_H
#define RVNN_RUNTIME_THREADS_H

namespace rvnn::runtime {

/// Runs each operation on `threads` threads: LibTorch's intra-op pool and,
/// where LibTorch's BLAS is OpenBLAS, OpenBLAS's own pool, which
/// at::set_num_threads leaves alone (left at its default, it spins in
/// sched_yield beside a one-thread run; bench/README.md, session 6).
/// Returns whether the BLAS pool was found and set too.
bool setIntraOpThreads(int threads);

/// The threads OpenBLAS's pool runs a product on; 0 where LibTorch's BLAS is
/// not OpenBLAS. Without --threads it is OpenBLAS's default (every core),
/// whatever LibTorch's own count says.
int blasThreads();

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_THREADS_H
