#include "rvnn/Runtime/Threads.h"

#include <ATen/Parallel.h>
#include <gtest/gtest.h>

#include <dlfcn.h>

namespace {

// Both pools follow the request; the BLAS one where it is OpenBLAS (the
// BLAS scripts/install-deps.sh installs for LibTorch).
TEST(Threads, SetsLibTorchAndOpenBlasPools) {
  const bool blasSet = rvnn::runtime::setIntraOpThreads(1);
  EXPECT_EQ(at::get_num_threads(), 1);
  using GetThreads = int (*)();
  auto getBlasThreads = reinterpret_cast<GetThreads>(
      dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  ASSERT_EQ(blasSet, getBlasThreads != nullptr);
  if (getBlasThreads) {
    EXPECT_EQ(getBlasThreads(), 1);
  }
}

} // namespace
