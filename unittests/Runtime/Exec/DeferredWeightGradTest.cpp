// Deferred weight gradients (lib/Runtime/Exec/DeferredWeightGrad.h), with a
// stand-in for a compiled call: an autograd function y = x·W whose backward
// defers W's gradient the way the gemm vjp does.
#include "DeferredWeightGrad.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace rvnn::runtime;
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

namespace {

struct StepFunction : torch::autograd::Function<StepFunction> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, const Tensor &w,
                        bool transposed) {
    ctx->save_for_backward({x, w});
    ctx->saved_data["transposed"] = transposed;
    return transposed ? x.mm(w.t()) : x.mm(w);
  }
  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &w = saved[1], &dy = grads[0];
    const bool transposed = ctx->saved_data["transposed"].toBool();
    Tensor dx = transposed ? dy.mm(w) : dy.mm(w.t());
    Tensor dw = deferWeightGrad(w, x, dy, transposed);
    if (!dw.defined())
      dw = transposed ? dy.t().mm(x) : x.t().mm(dy);
    return {dx, isDeferredZero(dw) ? Tensor() : dw, Tensor()};
  }
};

/// Σ_t sum(step_t(x_t, W')·c_t) for `steps` steps of `rows` rows each, plus
/// a direct use of W' that autograd differentiates itself: the gradient of W.
Tensor gradientOfWeight(bool collect, int steps, int64_t rows, bool transposed,
                        int64_t width = 8) {
  torch::manual_seed(5);
  Tensor w = torch::randn({width, width}, torch::kDouble).requires_grad_();
  Tensor used = collect ? collectWeightGrad(w) : w;
  Tensor loss = used.sum() * 0.5;
  for (int t = 0; t < steps; ++t) {
    Tensor x = torch::randn({rows, width}, torch::kDouble);
    Tensor c = torch::randn({rows, width}, torch::kDouble);
    loss = loss + (StepFunction::apply(x, used, transposed) * c).sum();
  }
  loss.backward();
  return w.grad();
}

} // namespace

TEST(DeferredWeightGrad, CollectedGradientEqualsPerStepGradients) {
  for (bool transposed : {false, true}) {
    Tensor expected = gradientOfWeight(false, 5, 3, transposed);
    Tensor collected = gradientOfWeight(true, 5, 3, transposed);
    EXPECT_TRUE(torch::allclose(collected, expected, 1e-12, 1e-12))
        << "transposed " << transposed;
  }
}

// 16 MiB of waiting rows (2100 steps of one 512-wide float64 row and its
// cotangent) are multiplied out early; the sum is the same.
TEST(DeferredWeightGrad, WaitingRowsAreMultipliedOutInChunks) {
  Tensor expected = gradientOfWeight(false, 2100, 1, false, 512);
  Tensor collected = gradientOfWeight(true, 2100, 1, false, 512);
  EXPECT_TRUE(torch::allclose(collected, expected, 1e-10, 1e-10));
}

// Rows as large as the product are not deferred; the sum is the same.
TEST(DeferredWeightGrad, ManyRowsAreNotDeferred) {
  Tensor expected = gradientOfWeight(false, 3, 64, false);
  Tensor collected = gradientOfWeight(true, 3, 64, false);
  EXPECT_TRUE(torch::allclose(collected, expected, 1e-12, 1e-12));
  Tensor w = collectWeightGrad(torch::randn({8, 8}).requires_grad_());
  torch::NoGradGuard noGrad;
  EXPECT_FALSE(
      deferWeightGrad(w, torch::randn({4, 8}), torch::randn({4, 8}), false)
          .defined());
  EXPECT_TRUE(isDeferredZero(
      deferWeightGrad(w, torch::randn({3, 8}), torch::randn({3, 8}), false)));
}

TEST(DeferredWeightGrad, NothingIsDeferredWithoutACollectorOrWhenRecorded) {
  Tensor w = torch::randn({8, 8}).requires_grad_();
  Tensor x = torch::randn({2, 8}), dy = torch::randn({2, 8});
  EXPECT_FALSE(deferWeightGrad(w, x, dy, false).defined());
  {
    torch::NoGradGuard noGrad;
    EXPECT_TRUE(collectWeightGrad(w).is_same(w));
  }
  Tensor collected = collectWeightGrad(w);
  EXPECT_FALSE(collected.is_same(w));
  // A recorded backward (create_graph) needs a differentiable gradient.
  EXPECT_FALSE(deferWeightGrad(collected, x, dy, false).defined());
  torch::NoGradGuard noGrad;
  Tensor deferred = deferWeightGrad(collected, x, dy, false);
  EXPECT_TRUE(isDeferredZero(deferred));
  EXPECT_EQ(deferred.sizes(), w.sizes());
  EXPECT_TRUE(torch::equal(deferred, torch::zeros({8, 8})));
  EXPECT_FALSE(isDeferredZero(torch::zeros({8, 8})));
}
