// Gradient collectors (lib/Runtime/Exec/GradCollector.h), with stand-ins for
// compiled calls: an autograd function y = x·W whose backward defers W's
// gradient the way the gemm vjp does, and one that takes a column of a
// tensor and hands its cotangent to the tensor's collector the way the slice
// vjp does.
#include "GradCollector.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace rvnn::runtime;
using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

namespace {

struct StepFunction : torch::autograd::Function<StepFunction> {
  static Tensor forward(AutogradContext *ctx, const Tensor &x, const Tensor &w,
                        const Tensor &b, bool transposed) {
    ctx->save_for_backward({x, w, b});
    ctx->saved_data["transposed"] = transposed;
    return (transposed ? x.mm(w.t()) : x.mm(w)) + b;
  }
  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    auto saved = ctx->get_saved_variables();
    const Tensor &x = saved[0], &w = saved[1], &b = saved[2], &dy = grads[0];
    const bool transposed = ctx->saved_data["transposed"].toBool();
    Tensor dx = transposed ? dy.mm(w) : dy.mm(w.t());
    Tensor dw = deferWeightGrad(w, x, dy, transposed);
    Tensor db = dw.defined() ? deferBiasGrad(b, dy) : Tensor();
    if (!dw.defined())
      dw = transposed ? dy.t().mm(x) : x.t().mm(dy);
    if (!db.defined())
      db = dy.sum(0);
    auto returned = [](const Tensor &g) {
      return isDeferredZero(g) ? Tensor() : g;
    };
    return {dx, returned(dw), returned(db), Tensor()};
  }
};

/// Σ_t sum(step_t(x_t, W', b')·c_t) for `steps` steps of `rows` rows each,
/// plus (with `directUse`) uses of W' and b' that autograd differentiates
/// itself: the gradients of W and b.
std::vector<Tensor> gradients(bool collect, int steps, int64_t rows,
                              bool transposed, int64_t width = 8,
                              bool directUse = true) {
  torch::manual_seed(5);
  Tensor w = torch::randn({width, width}, torch::kDouble).requires_grad_();
  Tensor b = torch::randn({width}, torch::kDouble).requires_grad_();
  Tensor usedW = collect ? collectGrad(w) : w;
  Tensor usedB = collect ? collectGrad(b) : b;
  Tensor loss = torch::zeros({}, torch::kDouble);
  if (directUse)
    loss = usedW.sum() * 0.5 + usedB.square().sum();
  for (int t = 0; t < steps; ++t) {
    Tensor x = torch::randn({rows, width}, torch::kDouble);
    Tensor c = torch::randn({rows, width}, torch::kDouble);
    loss = loss + (StepFunction::apply(x, usedW, usedB, transposed) * c).sum();
  }
  loss.backward();
  return {w.grad(), b.grad()};
}

void expectGradientsClose(const std::vector<Tensor> &actual,
                          const std::vector<Tensor> &expected, double tol,
                          const std::string &what) {
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(torch::allclose(actual[i], expected[i], tol, tol))
        << what << ", gradient #" << i;
}

/// y = 3·source[:, column]; the backward reads the source only for its
/// shape, through a witness saved in forward (as a compiled call does).
struct ColumnFunction : torch::autograd::Function<ColumnFunction> {
  static Tensor forward(AutogradContext *ctx, const Tensor &source,
                        int64_t column) {
    ctx->save_for_backward({shapeWitness(source)});
    ctx->saved_data["column"] = column;
    return source.select(1, column) * 3;
  }
  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    const Tensor witness = ctx->get_saved_variables()[0];
    const int64_t column = ctx->saved_data["column"].toInt();
    WindowGrad window = windowGrad(witness);
    Tensor grad =
        window.sum.defined() ? window.sum : torch::zeros_like(witness);
    grad.select(1, column).add_(grads[0] * 3);
    return {window.sum.defined() ? window.zero : grad, Tensor()};
  }
};

/// The gradient of Σ_t sum(3·x[:, t]·c_t) + sum(x²)/2 over every column of
/// x, with x's windows collected or returned as x-sized gradients.
Tensor gradientOfColumns(bool collect) {
  torch::manual_seed(7);
  Tensor x = torch::randn({3, 5}, torch::kDouble).requires_grad_();
  Tensor used = collect ? collectGrad(x) : x;
  Tensor loss = used.square().sum() * 0.5;
  for (int64_t t = 0; t < x.size(1); ++t)
    loss = loss +
           (ColumnFunction::apply(used, t) * torch::randn({3}, torch::kDouble))
               .sum();
  loss.backward();
  return x.grad();
}

} // namespace

TEST(GradCollector, CollectedWindowsEqualPerStepGradients) {
  Tensor expected = gradientOfColumns(false);
  Tensor collected = gradientOfColumns(true);
  EXPECT_TRUE(torch::allclose(collected, expected, 1e-12, 1e-12));
}

TEST(GradCollector, OnlyWitnessesOfCollectingTensorsAreTied) {
  Tensor x = torch::randn({2, 3}).requires_grad_();
  Tensor collected = collectGrad(x);
  torch::NoGradGuard noGrad;
  Tensor plain = shapeWitness(x), tied = shapeWitness(collected);
  for (const Tensor &witness : {plain, tied}) {
    EXPECT_EQ(witness.sizes(), x.sizes());
    EXPECT_TRUE(torch::equal(witness, torch::zeros({2, 3})));
  }
  EXPECT_FALSE(windowGrad(plain).sum.defined());
  EXPECT_FALSE(windowGrad(torch::zeros({2, 3})).sum.defined());
  WindowGrad window = windowGrad(tied);
  ASSERT_TRUE(window.sum.defined());
  EXPECT_EQ(window.sum.sizes(), x.sizes());
  EXPECT_TRUE(torch::equal(window.sum, torch::zeros({2, 3})));
  EXPECT_TRUE(isDeferredZero(window.zero));
  EXPECT_EQ(window.zero.sizes(), x.sizes());
  // The collector's running sum and deferred zero are one tensor each,
  // whichever witness asks, and the collecting tensor itself (a parameter
  // passed by value) too.
  for (const Tensor &source : {shapeWitness(collected), collected}) {
    WindowGrad again = windowGrad(source);
    EXPECT_TRUE(again.sum.is_same(window.sum));
    EXPECT_TRUE(again.zero.is_same(window.zero));
  }
  EXPECT_FALSE(windowGrad(x).sum.defined());
}

TEST(GradCollector, ARecordedBackwardGetsNoWindowSum) {
  Tensor collected = collectGrad(torch::randn({2, 3}).requires_grad_());
  Tensor tied;
  {
    torch::NoGradGuard noGrad;
    tied = shapeWitness(collected);
  }
  // A recorded backward (create_graph) needs a differentiable gradient.
  EXPECT_FALSE(windowGrad(tied).sum.defined());
}

// The witness keeps its collector (and the element it broadcasts) alive
// after the forward pass that made it is gone.
TEST(GradCollector, AWitnessOutlivesItsForwardPass) {
  Tensor tied;
  {
    Tensor collected = collectGrad(torch::randn({2, 3}).requires_grad_());
    torch::NoGradGuard noGrad;
    tied = shapeWitness(collected);
  }
  torch::NoGradGuard noGrad;
  EXPECT_TRUE(torch::equal(tied, torch::zeros({2, 3})));
  EXPECT_TRUE(windowGrad(tied).sum.defined());
}

// Weight and bias gradients, with and without direct uses of the
// parameters (without, nothing reaches the collector's node but what it
// collected).
TEST(GradCollector, CollectedGradientEqualsPerStepGradients) {
  for (bool transposed : {false, true})
    for (bool directUse : {false, true}) {
      const std::string what = "transposed " + std::to_string(transposed) +
                               ", direct use " + std::to_string(directUse);
      expectGradientsClose(gradients(true, 5, 3, transposed, 8, directUse),
                           gradients(false, 5, 3, transposed, 8, directUse),
                           1e-12, what);
    }
}

// 16 MiB of waiting rows (2100 steps of one 512-wide float64 row and its
// cotangent) are multiplied out early; the sums are the same.
TEST(GradCollector, WaitingRowsAreMultipliedOutInChunks) {
  expectGradientsClose(gradients(true, 2100, 1, false, 512),
                       gradients(false, 2100, 1, false, 512), 1e-10, "chunks");
}

// Rows as large as the product are not deferred; the sums are the same.
TEST(GradCollector, ManyRowsAreNotDeferred) {
  expectGradientsClose(gradients(true, 3, 64, false),
                       gradients(false, 3, 64, false), 1e-12, "many rows");
  Tensor w = collectGrad(torch::randn({8, 8}).requires_grad_());
  torch::NoGradGuard noGrad;
  EXPECT_FALSE(
      deferWeightGrad(w, torch::randn({4, 8}), torch::randn({4, 8}), false)
          .defined());
  EXPECT_TRUE(isDeferredZero(
      deferWeightGrad(w, torch::randn({3, 8}), torch::randn({3, 8}), false)));
}

// A bias is deferred only as a vector as wide as the rows, from a collector.
TEST(GradCollector, BiasesDeferOnlyAsCollectedVectors) {
  Tensor b = torch::randn({8}).requires_grad_();
  Tensor rows = torch::randn({3, 8});
  Tensor collected = collectGrad(b);
  Tensor matrix = collectGrad(torch::randn({1, 8}).requires_grad_());
  EXPECT_FALSE(deferBiasGrad(collected, rows).defined()); // recorded
  torch::NoGradGuard noGrad;
  EXPECT_FALSE(deferBiasGrad(b, rows).defined());
  EXPECT_FALSE(deferBiasGrad(collected, torch::randn({3, 4})).defined());
  EXPECT_FALSE(deferBiasGrad(matrix, rows).defined());
  EXPECT_TRUE(isDeferredZero(deferBiasGrad(collected, rows)));
}

TEST(GradCollector, NothingIsDeferredWithoutACollectorOrWhenRecorded) {
  Tensor w = torch::randn({8, 8}).requires_grad_();
  Tensor x = torch::randn({2, 8}), dy = torch::randn({2, 8});
  EXPECT_FALSE(deferWeightGrad(w, x, dy, false).defined());
  {
    torch::NoGradGuard noGrad;
    EXPECT_TRUE(collectGrad(w).is_same(w));
  }
  Tensor collected = collectGrad(w);
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
