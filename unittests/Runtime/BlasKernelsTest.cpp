#include "rvnn/Runtime/BlasKernels.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include <dlfcn.h>

namespace {

using rvnn::runtime::BlasKernels;

/// Sets or unsets OPENBLAS_CORETYPE for one test, restoring it afterwards.
class CoreTypeVariable {
public:
  explicit CoreTypeVariable(const char *value) {
    if (const char *old = std::getenv(kName))
      saved = old;
    if (value)
      setenv(kName, value, 1);
    else
      unsetenv(kName);
  }
  ~CoreTypeVariable() {
    if (saved)
      setenv(kName, saved->c_str(), 1);
    else
      unsetenv(kName);
  }

private:
  static constexpr const char *kName = "OPENBLAS_CORETYPE";
  std::optional<std::string> saved;
};

bool linksOpenBlas() {
  return dlsym(RTLD_DEFAULT, "openblas_get_corename") != nullptr;
}

// LibTorch's BLAS here is OpenBLAS (scripts/install-deps.sh); another BLAS
// reports none.
TEST(BlasKernels, NamesOpenBlasAndTheKernelsItRuns) {
  const BlasKernels blas = rvnn::runtime::blasKernels();
  ASSERT_EQ(!blas.library.empty(), linksOpenBlas());
  if (blas.library.empty()) {
    EXPECT_EQ(rvnn::runtime::describe(blas), "not OpenBLAS");
    return;
  }
  EXPECT_EQ(blas.library.rfind("OpenBLAS", 0), 0u) << blas.library;
  EXPECT_FALSE(blas.kernels.empty());
  const nlohmann::json json = rvnn::runtime::toJson(blas);
  EXPECT_EQ(json.at("library"), blas.library);
  EXPECT_EQ(json.at("kernels"), blas.kernels);
}

TEST(BlasKernels, SaysWhetherTheEnvironmentNamedThem) {
  if (!linksOpenBlas())
    GTEST_SKIP() << "LibTorch's BLAS is not OpenBLAS";
  {
    CoreTypeVariable named("Haswell");
    const BlasKernels blas = rvnn::runtime::blasKernels();
    EXPECT_TRUE(blas.namedByEnvironment);
    EXPECT_EQ(rvnn::runtime::describe(blas),
              "OpenBLAS " + blas.kernels + " kernels (OPENBLAS_CORETYPE)");
    EXPECT_EQ(rvnn::runtime::toJson(blas).at("named_by_environment"), true);
  }
  CoreTypeVariable detected(nullptr);
  const BlasKernels blas = rvnn::runtime::blasKernels();
  EXPECT_FALSE(blas.namedByEnvironment);
  EXPECT_EQ(rvnn::runtime::describe(blas),
            "OpenBLAS " + blas.kernels + " kernels (detected)");
}

} // namespace
