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
  const bool openBlas =
      dlsym(RTLD_DEFAULT, "openblas_get_num_threads") != nullptr;
  ASSERT_EQ(blasSet, openBlas);
  EXPECT_EQ(rvnn::runtime::blasThreads(), openBlas ? 1 : 0);
}

} // namespace
