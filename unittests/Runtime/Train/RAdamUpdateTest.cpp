#include "rvnn/Runtime/Train/RAdamUpdate.h"

#include <gtest/gtest.h>

using namespace rvnn::runtime::train;

namespace {

struct Moments {
  torch::Tensor param, avg, avgSq;
};

Moments start(torch::ScalarType dtype, int64_t n) {
  torch::manual_seed(7);
  return {torch::randn({n}, dtype), torch::zeros({n}, dtype),
          torch::zeros({n}, dtype)};
}

/// Runs `steps` updates (the first five unrectified) with fresh random
/// gradients through `update` and returns the state.
template <typename Update>
Moments run(Moments m, torch::ScalarType dtype, int steps, Update update) {
  torch::manual_seed(11);
  for (int t = 1; t <= steps; ++t) {
    torch::Tensor grad = torch::randn(m.param.sizes(), dtype);
    update(m.param, grad, m.avg, m.avgSq,
           RAdamStepScalars::at(t, 1e-2, 0.9, 0.999, 1e-8, 1e-2));
  }
  return m;
}

void expectSameState(const Moments &fused, const Moments &aten, double rtol) {
  EXPECT_TRUE(torch::allclose(fused.param, aten.param, rtol, rtol));
  EXPECT_TRUE(torch::allclose(fused.avg, aten.avg, rtol, rtol));
  EXPECT_TRUE(torch::allclose(fused.avgSq, aten.avgSq, rtol, rtol));
}

} // namespace

// Eight steps cover both branches (rectification starts at step 6); weight
// decay is on. The one-pass loop and ATen's ten passes round differently
// (scalar division vs reciprocal multiplication), hence the tolerances.
TEST(RAdamUpdate, OnePassMatchesAtenInFloatAndDouble) {
  for (auto [dtype, rtol] :
       {std::pair{torch::kFloat, 1e-5}, std::pair{torch::kDouble, 1e-12}}) {
    Moments fused = run(start(dtype, 1000), dtype, 8, radamUpdate);
    Moments aten = run(start(dtype, 1000), dtype, 8, radamUpdateAten);
    expectSameState(fused, aten, rtol);
    EXPECT_FALSE(torch::equal(fused.param, start(dtype, 1000).param));
  }
}

// A strided parameter (a column of a matrix) takes the ATen form.
TEST(RAdamUpdate, NonContiguousParameterFallsBackToAten) {
  torch::manual_seed(3);
  torch::Tensor matrix = torch::randn({8, 2});
  Moments strided{matrix.select(1, 0), torch::zeros({8}), torch::zeros({8})};
  Moments dense{matrix.select(1, 0).clone(), torch::zeros({8}),
                torch::zeros({8})};
  strided = run(strided, torch::kFloat, 6, radamUpdate);
  dense = run(dense, torch::kFloat, 6, radamUpdateAten);
  expectSameState(strided, dense, 0);
  EXPECT_TRUE(torch::equal(matrix.select(1, 0), strided.param));
}

// Clipping's scale applied as the update reads the gradient gives the update
// of gradients scaled in place first, bit for bit, in both forms.
TEST(RAdamUpdate, GradScaleIsTheInPlaceScaling) {
  for (auto dtype : {torch::kFloat, torch::kDouble})
    for (auto update : {radamUpdate, radamUpdateAten}) {
      Moments applied = start(dtype, 1000), prescaled = start(dtype, 1000);
      torch::manual_seed(13);
      for (int t = 1; t <= 7; ++t) {
        torch::Tensor grad = torch::randn({1000}, dtype);
        RAdamStepScalars scalars =
            RAdamStepScalars::at(t, 1e-2, 0.9, 0.999, 1e-8, 1e-2);
        update(prescaled.param, grad.mul(0.37), prescaled.avg, prescaled.avgSq,
               scalars);
        scalars.gradScale = 0.37;
        update(applied.param, grad, applied.avg, applied.avgSq, scalars);
      }
      expectSameState(applied, prescaled, 0);
      EXPECT_TRUE(torch::equal(applied.param, prescaled.param));
    }
}
