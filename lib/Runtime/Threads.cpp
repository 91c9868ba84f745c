#include "rvnn/Runtime/Threads.h"

#include <ATen/Parallel.h>

#include <dlfcn.h>

namespace rvnn::runtime {

bool setIntraOpThreads(int threads) {
  at::set_num_threads(threads);
  // OpenBLAS is reached through LibTorch's libblas.so.3, so its symbol is
  // looked up at run time rather than linked: another BLAS simply has none.
  using SetThreads = void (*)(int);
  auto setBlasThreads = reinterpret_cast<SetThreads>(
      dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (!setBlasThreads)
    return false;
  setBlasThreads(threads);
  return true;
}

int blasThreads() {
  using GetThreads = int (*)();
  auto getBlasThreads = reinterpret_cast<GetThreads>(
      dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return getBlasThreads ? getBlasThreads() : 0;
}

} // namespace rvnn::runtime
