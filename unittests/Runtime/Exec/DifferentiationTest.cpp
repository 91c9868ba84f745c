// The ops of compiler-differentiated programs on hand-written plans:
// rvnn_exec.call (one autograd node per call; save and recompute policies),
// rvnn_exec.vjp (each fast rule against the autograd rule), sum_to_like and
// dropout_mask.
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/Ops/NN.h"

#include "GradCheck.h"
#include "Handlers.h"
#include "PlanJson.h"

#include <limits>

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace rvnn::runtime;
using namespace rvnn::runtime::planjson;
using rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences;
using rvnn::runtime::ops::testing::uniformDoubles;
using torch::Tensor;
namespace exec = rvnn::contract::ops;

namespace {

constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();
constexpr const char *kCallLoc = "model.mlir:7:3";

json f64(std::vector<int64_t> shape) { return type("f64", std::move(shape)); }

json gemmOp(std::vector<int64_t> operands, json result,
            std::vector<int64_t> segments = {1, 1, 0, 0},
            bool transposed = true) {
  json attrs = {{"operandSegmentSizes", segments}};
  if (transposed)
    attrs["transpose_rhs"] = true;
  return op(exec::GemmOp::name, std::move(operands), {std::move(result)},
            attrs);
}

json elementwise(const char *fn, std::vector<int64_t> operands, json result) {
  return op(exec::ElementwiseOp::name, std::move(operands), {std::move(result)},
            {{"fn", fn}});
}

json callOp(const std::string &callee, std::vector<int64_t> operands,
            JsonList results) {
  return op(exec::CallOp::name, std::move(operands), std::move(results),
            {{"callee", callee},
             {"forward", callee + "_fwd"},
             {"backward", callee + "_bwd"},
             {"grad_inputs", {0, 1}}},
            {}, kCallLoc);
}

json dropoutAttrs(double rate, std::vector<int64_t> sharedDims = {}) {
  return {{"rate", rate}, {"rescale", true}, {"shared_dims", sharedDims}};
}

/// `%dys = vjp (primals) cotangents (cotangents) grad_inputs [...]` whose
/// body applies `primalOp` (built from the body's argument ids and result
/// id) to block arguments `first`, `first + 1`, ...
json vjpOp(std::vector<int64_t> primals, std::vector<int64_t> cotangents,
           std::vector<int64_t> gradInputs, JsonList blockArgs, json primalOp,
           std::vector<int64_t> yielded, JsonList results) {
  std::vector<int64_t> operands = primals;
  operands.insert(operands.end(), cotangents.begin(), cotangents.end());
  return op(exec::VjpOp::name, operands, std::move(results),
            {{"operandSegmentSizes",
              {static_cast<int64_t>(primals.size()),
               static_cast<int64_t>(cotangents.size())}},
             {"grad_inputs", gradInputs}},
            {{{"args", std::move(blockArgs)},
              {"body", {std::move(primalOp), yieldOp(yielded)}}}});
}

/// @f(x, w) = gelu(h) + h with h = x·wᵀ; @f_fwd returns (y, x, w, h);
/// @f_bwd(x, w, h, dy) applies the vjps of gelu and gemm, adding dy to the
/// gelu branch's cotangent where h is used twice. `dropGrad` makes @f_bwd
/// return dx only (a wrong arity). @forward calls @f.
Plan densePlan(const std::string &name, bool dropGrad = false) {
  json x = f64({-1, 3}), w = f64({4, 3}), h = f64({-1, 4});
  json f = function("f", {value(0, x), value(1, w)},
                    {gemmOp({0, 1}, value(2, h)),
                     op(exec::GeluOp::name, {2}, {value(3, h)}),
                     elementwise("add", {3, 2}, value(4, h)), returnOp({4})},
                    {h});
  json fwd = function(
      "f_fwd", {value(0, x), value(1, w)},
      {gemmOp({0, 1}, value(2, h)), op(exec::GeluOp::name, {2}, {value(3, h)}),
       elementwise("add", {3, 2}, value(4, h)), returnOp({4, 0, 1, 2})},
      {h, x, w, h});
  std::vector<int64_t> grads =
      dropGrad ? std::vector<int64_t>{11} : std::vector<int64_t>{11, 12};
  json bwd = function(
      "f_bwd", {value(0, x), value(1, w), value(2, h), value(3, h)},
      {vjpOp({2}, {3}, {0}, {value(4, h)},
             op(exec::GeluOp::name, {4}, {value(5, h)}), {5}, {value(6, h)}),
       elementwise("add", {6, 3}, value(7, h)),
       vjpOp({0, 1}, {7}, {0, 1}, {value(8, x), value(9, w)},
             gemmOp({8, 9}, value(10, h)), {10}, {value(11, x), value(12, w)}),
       returnOp(grads)},
      dropGrad ? JsonList{x} : JsonList{x, w});
  json forward =
      function("forward", {value(0, x), value(1, w)},
               {callOp("f", {0, 1}, {value(2, h)}), returnOp({2})}, {h});
  return planWith({forward, f, fwd, bwd}, name);
}

Tensor denseReference(const Tensor &x, const Tensor &w) {
  Tensor h = torch::matmul(x, w.t());
  return torch::gelu(h) + h;
}

/// @g(x, w) = dropout(gelu(x·wᵀ), 0.5); @g_fwd splits the dropout into a
/// dropout_mask and a product and returns (y, x, w, h, the mask's draw
/// position, a witness of its shape); @g_bwd draws the mask again from that
/// position, as rvnn-exec-differentiate emits it. @forward drops its input
/// before the call and the call's result after it, so the call's draws
/// start and end inside the pass.
Plan dropoutPlan(const std::string &name) {
  json x = f64({-1, 4}), w = f64({4, 4});
  const json index = type("index", {}, false);
  json g = function(
      "g", {value(0, x), value(1, w)},
      {gemmOp({0, 1}, value(2, x)), op(exec::GeluOp::name, {2}, {value(3, x)}),
       op(exec::DropoutOp::name, {3}, {value(4, x)}, dropoutAttrs(0.5)),
       returnOp({4})},
      {x});
  json fwd = function(
      "g_fwd", {value(0, x), value(1, w)},
      {gemmOp({0, 1}, value(2, x)), op(exec::GeluOp::name, {2}, {value(3, x)}),
       op(exec::DrawPositionOp::name, {}, {value(4, index)}),
       op(exec::ShapeWitnessOp::name, {3}, {value(5, x)}),
       op(exec::DropoutMaskOp::name, {3}, {value(6, x)}, dropoutAttrs(0.5)),
       elementwise("mul", {3, 6}, value(7, x)), returnOp({7, 0, 1, 2, 4, 5})},
      {x, x, w, x, index, x});
  json bwd = function(
      "g_bwd",
      {value(0, x), value(1, w), value(2, x), value(3, index), value(4, x),
       value(5, x)},
      {op(exec::RedrawDropoutMaskOp::name, {4, 3}, {value(6, x)},
          dropoutAttrs(0.5)),
       elementwise("mul", {5, 6}, value(7, x)),
       vjpOp({2}, {7}, {0}, {value(8, x)},
             op(exec::GeluOp::name, {8}, {value(9, x)}), {9}, {value(10, x)}),
       vjpOp({0, 1}, {10}, {0, 1}, {value(11, x), value(12, w)},
             gemmOp({11, 12}, value(13, x)), {13},
             {value(14, x), value(15, w)}),
       returnOp({14, 15})},
      {x, w});
  json forward = function(
      "forward", {value(0, x), value(1, w)},
      {op(exec::DropoutOp::name, {0}, {value(2, x)}, dropoutAttrs(0.3)),
       callOp("g", {2, 1}, {value(3, x)}),
       op(exec::DropoutOp::name, {3}, {value(4, x)}, dropoutAttrs(0.3)),
       returnOp({4})},
      {x});
  return planWith({forward, g, fwd, bwd}, name);
}

Executor executorFor(const Plan &plan, ExecutionContext &context) {
  return Executor(
      plan, [](const std::string &) { return Tensor(); }, context);
}

Tensor callForward(Executor &executor, const Tensor &x, const Tensor &w) {
  return std::get<Tensor>(executor.call("forward", {x, w}).at(0));
}

/// Fixed weights so every output element takes part in the loss.
Tensor weightsLike(const Tensor &t) {
  return torch::arange(1, t.numel() + 1, t.options()).sin().view(t.sizes());
}

struct Grads {
  Tensor x, w;
};

Grads lossGrads(Executor &executor, const Tensor &x, const Tensor &w) {
  Tensor xl = x.clone().requires_grad_(true);
  Tensor wl = w.clone().requires_grad_(true);
  Tensor y = callForward(executor, xl, wl);
  (y * weightsLike(y)).sum().backward();
  return {xl.grad(), wl.grad()};
}

} // namespace

TEST(Call, GradientsMatchATenAndFiniteDifferences) {
  Plan plan = densePlan("call-dense");
  ExecutionContext context;
  Executor executor = executorFor(plan, context);
  Tensor x = uniformDoubles({5, 3}, -2, 2, 1);
  Tensor w = uniformDoubles({4, 3}, -1, 1, 2);

  {
    Tensor y = callForward(executor, x, w.clone().requires_grad_(true));
    ASSERT_NE(y.grad_fn(), nullptr);
    EXPECT_NE(y.grad_fn()->name().find("CallFunction"), std::string::npos)
        << "one node for the whole call: " << y.grad_fn()->name();
  }
  Grads got = lossGrads(executor, x, w);
  Tensor xr = x.clone().requires_grad_(true);
  Tensor wr = w.clone().requires_grad_(true);
  Tensor yr = denseReference(xr, wr);
  (yr * weightsLike(yr)).sum().backward();
  EXPECT_TRUE(torch::allclose(got.x, xr.grad(), 1e-10, 1e-12))
      << got.x - xr.grad();
  EXPECT_TRUE(torch::allclose(got.w, wr.grad(), 1e-10, 1e-12))
      << got.w - wr.grad();

  expectGradientsMatchFiniteDifferences(
      [&](const std::vector<Tensor> &in) {
        return callForward(executor, in[0], in[1]);
      },
      {x, w});
}

TEST(Call, ForwardResultEqualsTheCallee) {
  Plan plan = densePlan("call-result");
  ExecutionContext context;
  Executor executor = executorFor(plan, context);
  Tensor x = uniformDoubles({5, 3}, -2, 2, 3);
  Tensor w = uniformDoubles({4, 3}, -1, 1, 4);
  Tensor recorded = callForward(executor, x, w.requires_grad_(true));
  Tensor plain;
  {
    torch::NoGradGuard noGrad;
    plain = callForward(executor, x, w);
  }
  EXPECT_TRUE(recorded.requires_grad());
  EXPECT_FALSE(plain.requires_grad());
  EXPECT_TRUE(torch::equal(recorded, plain));
  EXPECT_TRUE(torch::allclose(plain, denseReference(x, w.detach())));
}

TEST(Call, WithoutGradientsRunsTheCalleeOnly) {
  Plan plan = densePlan("call-eval");
  Tensor x = uniformDoubles({2, 3}, -1, 1, 5);
  Tensor w = uniformDoubles({4, 3}, -1, 1, 6);
  auto runs = [&](bool requiresGrad, bool gradMode) {
    ExecutionProfile profile;
    ExecutionContext context;
    context.profile = &profile;
    Executor executor = executorFor(plan, context);
    torch::AutoGradMode mode(gradMode);
    Tensor y = callForward(executor, x.clone().requires_grad_(requiresGrad),
                           w.clone().requires_grad_(requiresGrad));
    if (y.requires_grad())
      y.sum().backward();
    return profile.functionRuns;
  };
  using Runs = std::map<std::string, int64_t>;
  EXPECT_EQ(runs(false, true), (Runs{{"forward", 1}, {"f", 1}}));
  EXPECT_EQ(runs(true, false), (Runs{{"forward", 1}, {"f", 1}}));
  EXPECT_EQ(runs(true, true),
            (Runs{{"forward", 1}, {"f_fwd", 1}, {"f_bwd", 1}}));
}

TEST(Call, BackwardWithTheWrongArityNamesTheCall) {
  Plan plan = densePlan("call-arity", /*dropGrad=*/true);
  ExecutionContext context;
  Executor executor = executorFor(plan, context);
  try {
    lossGrads(executor, uniformDoubles({2, 3}, -1, 1, 7),
              uniformDoubles({4, 3}, -1, 1, 8));
    FAIL() << "a backward returning 1 value for 2 grad_inputs must fail";
  } catch (const std::exception &error) {
    EXPECT_NE(std::string(error.what())
                  .find("model.mlir:7:3: rvnn_exec.call: in the backward "
                        "step: @f_bwd returns 1 values for 2 grad_inputs"),
              std::string::npos)
        << error.what();
  }
}

TEST(Call, RecomputeGivesTheGradientsOfSaveWithDropout) {
  Plan plan = dropoutPlan("call-recompute");
  Tensor x = uniformDoubles({6, 4}, -2, 2, 9);
  Tensor w = uniformDoubles({4, 4}, -1, 1, 10);
  struct Run {
    Grads grads;
    Tensor output;
    std::map<std::string, int64_t> functionRuns;
    ops::DrawStream drawsAfter;
  };
  auto run = [&](RecomputePolicy policy, uint64_t seed) {
    ExecutionProfile profile;
    ExecutionContext context;
    context.training = true;
    context.recompute = policy;
    context.draws = {seed, 0};
    context.profile = &profile;
    Executor executor = executorFor(plan, context);
    Tensor xl = x.clone().requires_grad_(true);
    Tensor wl = w.clone().requires_grad_(true);
    Tensor y = callForward(executor, xl, wl);
    ops::DrawStream afterForward = context.draws;
    (y * weightsLike(y)).sum().backward();
    EXPECT_EQ(context.draws.offset, afterForward.offset)
        << "backward must leave the forward's draw stream as it was";
    return Run{{xl.grad(), wl.grad()},
               y.detach(),
               profile.functionRuns,
               context.draws};
  };
  Run save = run(RecomputePolicy::Save, 42);
  Run recompute = run(RecomputePolicy::Recompute, 42);
  EXPECT_TRUE(torch::equal(save.output, recompute.output));
  EXPECT_TRUE(torch::equal(save.grads.x, recompute.grads.x));
  EXPECT_TRUE(torch::equal(save.grads.w, recompute.grads.w));
  EXPECT_EQ(save.functionRuns["g_fwd"], 1);
  EXPECT_EQ(recompute.functionRuns["g_fwd"], 2);
  EXPECT_EQ(save.functionRuns.count("g"), 0u);

  // The gradients are those of the same computation with the masks drawn
  // in order from the same stream: the call's mask is the dropout's.
  ops::DrawStream draws{42, 0};
  Tensor xr = x.clone().requires_grad_(true);
  Tensor wr = w.clone().requires_grad_(true);
  Tensor m1 = ops::dropoutMask(x, 0.3, true, {}, true, &draws);
  Tensor h = ops::linear(xr * m1, wr);
  Tensor m2 = ops::dropoutMask(h, 0.5, true, {}, true, &draws);
  Tensor yr = torch::gelu(h) * m2;
  Tensor m3 = ops::dropoutMask(yr, 0.3, true, {}, true, &draws);
  yr = yr * m3;
  (yr * weightsLike(yr)).sum().backward();
  EXPECT_EQ(save.drawsAfter.offset, draws.offset);
  EXPECT_TRUE(torch::allclose(save.output, yr.detach(), 1e-12, 1e-12));
  EXPECT_TRUE(torch::allclose(save.grads.x, xr.grad(), 1e-12, 1e-12));
  EXPECT_TRUE(torch::allclose(save.grads.w, wr.grad(), 1e-12, 1e-12));
  EXPECT_TRUE((m2 == 0).any().item<bool>()) << "the call's dropout drops";

  // Another seed draws other masks.
  Run other = run(RecomputePolicy::Recompute, 43);
  EXPECT_FALSE(torch::equal(other.grads.w, save.grads.w));
}

namespace {

/// One primal op's vjp as @forward(primals..., cotangent): its body applies
/// `opName` to the block arguments listed in `uses`. With `throughAutograd`
/// the body passes the result through a cast (an identity), which no fast
/// rule covers, so the autograd rule runs on the same op.
struct VjpCase {
  std::string opName;
  std::vector<json> primalTypes;
  std::vector<int64_t> uses;
  json attrs;
  json resultType;
  std::vector<int64_t> gradInputs;
};

Plan vjpPlan(const VjpCase &c, bool throughAutograd, const std::string &name) {
  const int64_t numPrimals = static_cast<int64_t>(c.primalTypes.size());
  JsonList args, blockArgs;
  std::vector<int64_t> primals;
  for (int64_t i = 0; i < numPrimals; ++i) {
    args.push_back(value(i, c.primalTypes[i]));
    primals.push_back(i);
    blockArgs.push_back(value(numPrimals + 1 + i, c.primalTypes[i]));
  }
  const int64_t cotangent = numPrimals;
  args.push_back(value(cotangent, c.resultType));
  std::vector<int64_t> operands;
  for (int64_t use : c.uses)
    operands.push_back(numPrimals + 1 + use);
  const int64_t result = 2 * numPrimals + 1;
  JsonList body = {
      op(c.opName, operands, {value(result, c.resultType)}, c.attrs)};
  int64_t yielded = result;
  if (throughAutograd) {
    body.push_back(
        op(exec::CastOp::name, {result}, {value(result + 1, c.resultType)}));
    yielded = result + 1;
  }
  body.push_back(yieldOp({yielded}));
  JsonList grads;
  std::vector<int64_t> gradIds;
  for (size_t k = 0; k < c.gradInputs.size(); ++k) {
    gradIds.push_back(yielded + 1 + static_cast<int64_t>(k));
    grads.push_back(value(gradIds.back(), c.primalTypes[c.gradInputs[k]]));
  }
  json vjp = op(
      exec::VjpOp::name, {}, grads,
      {{"operandSegmentSizes", {numPrimals, 1}}, {"grad_inputs", c.gradInputs}},
      {{{"args", blockArgs}, {"body", body}}});
  primals.push_back(cotangent);
  vjp["operands"] = primals;
  return planWith({function("forward", args, {vjp, returnOp(gradIds)})}, name);
}

/// The cotangents of `c`'s grad_inputs, by the fast rule or (with
/// `throughAutograd`) the autograd rule, in evaluation or (with `training`)
/// training mode; checks that the fast rule did not run the primal op while
/// the autograd rule did.
std::vector<RuntimeValue> vjpGrads(const VjpCase &c, bool throughAutograd,
                                   std::vector<RuntimeValue> primals,
                                   const Tensor &cotangent,
                                   bool training = false) {
  primals.push_back(cotangent);
  Plan plan = vjpPlan(c, throughAutograd,
                      "vjp-" + c.opName.substr(c.opName.find('.') + 1));
  ExecutionProfile profile;
  ExecutionContext context;
  context.kernelMode = KernelMode::Reference;
  context.training = training;
  context.profile = &profile;
  Executor executor = executorFor(plan, context);
  std::vector<RuntimeValue> results = executor.call("forward", primals);
  EXPECT_EQ(profile.byOp.count(c.opName), throughAutograd ? 1u : 0u)
      << c.opName << (throughAutograd ? ": autograd rule" : ": fast rule");
  return results;
}

void expectSameGrads(const VjpCase &c, const std::vector<RuntimeValue> &got,
                     const std::vector<RuntimeValue> &expected,
                     const std::string &what) {
  ASSERT_EQ(got.size(), c.gradInputs.size());
  ASSERT_EQ(expected.size(), c.gradInputs.size());
  for (size_t k = 0; k < got.size(); ++k) {
    const Tensor &a = std::get<Tensor>(got[k]);
    const Tensor &b = std::get<Tensor>(expected[k]);
    EXPECT_FALSE(a.requires_grad());
    EXPECT_TRUE(torch::allclose(a, b, 1e-9, 1e-12))
        << c.opName << " (" << what << ") grad_inputs #" << k
        << ": max difference " << (a - b).abs().max().item<double>();
  }
}

/// Runs both rules on the same inputs and checks they agree.
void expectFastRuleMatchesAutograd(const VjpCase &c,
                                   const std::vector<RuntimeValue> &primals,
                                   const Tensor &cotangent) {
  expectSameGrads(c, vjpGrads(c, false, primals, cotangent),
                  vjpGrads(c, true, primals, cotangent), "fast rule");
}

} // namespace

TEST(Vjp, ElementwiseRulesMatchAutograd) {
  Tensor x = uniformDoubles({4, 5}, -3, 3, 11);
  // Keep relu's inputs off its kink.
  x = torch::where(x.abs() < 0.1, x + 0.5, x);
  Tensor dy = uniformDoubles({4, 5}, -1, 1, 12);
  for (std::string_view name :
       {exec::GeluOp::name, exec::SigmoidOp::name, exec::ReluOp::name})
    expectFastRuleMatchesAutograd(
        {str(name), {f64({4, 5})}, {0}, json::object(), f64({4, 5}), {0}}, {x},
        dy);
}

TEST(Vjp, LayerNormRuleMatchesAutograd) {
  VjpCase c{str(exec::LayerNormOp::name),
            {f64({3, 6}), f64({6}), f64({6})},
            {0, 1, 2},
            {{"epsilon", 1e-5}},
            f64({3, 6}),
            {0, 1, 2}};
  expectFastRuleMatchesAutograd(c,
                                {uniformDoubles({3, 6}, -2, 2, 13),
                                 uniformDoubles({6}, 0.5, 1.5, 14),
                                 uniformDoubles({6}, -1, 1, 15)},
                                uniformDoubles({3, 6}, -1, 1, 16));
  c.gradInputs = {1};
  expectFastRuleMatchesAutograd(c,
                                {uniformDoubles({3, 6}, -2, 2, 13),
                                 uniformDoubles({6}, 0.5, 1.5, 14),
                                 uniformDoubles({6}, -1, 1, 15)},
                                uniformDoubles({3, 6}, -1, 1, 16));
}

TEST(Vjp, SliceRuleMatchesAutograd) {
  // x[1, off::2] for two columns, dropping the row dim.
  VjpCase c{str(exec::SliceOp::name),
            {f64({3, 5}), type("index", {}, false)},
            {0, 1},
            {{"static_offsets", {1, kDynamic}},
             {"static_sizes", {1, 2}},
             {"static_strides", {1, 2}},
             {"dropped_dims", {0}},
             {"operandSegmentSizes", {1, 1, 0, 0}}},
            f64({2}),
            {0}};
  expectFastRuleMatchesAutograd(c,
                                {uniformDoubles({3, 5}, -1, 1, 17), int64_t{1}},
                                uniformDoubles({2}, -1, 1, 18));
  // Unit-stride windows that leave one dim partial (only the rest of that
  // dim is zeroed): columns off..off+1, and row 1 with its dim dropped.
  c.attrs["static_offsets"] = {0, kDynamic};
  c.attrs["static_sizes"] = {3, 2};
  c.attrs["static_strides"] = {1, 1};
  c.attrs["dropped_dims"] = std::vector<int64_t>{};
  c.resultType = f64({3, 2});
  expectFastRuleMatchesAutograd(c,
                                {uniformDoubles({3, 5}, -1, 1, 19), int64_t{2}},
                                uniformDoubles({3, 2}, -1, 1, 20));
  c.attrs["static_offsets"] = {kDynamic, 0};
  c.attrs["static_sizes"] = {1, 5};
  c.attrs["dropped_dims"] = {0};
  c.resultType = f64({5});
  expectFastRuleMatchesAutograd(c,
                                {uniformDoubles({3, 5}, -1, 1, 21), int64_t{1}},
                                uniformDoubles({5}, -1, 1, 22));
}

// Slice cotangents are added into their windows row by row where the
// window is small and its rows contiguous, by ATen otherwise: both give
// ATen's sums, in every layout, and nothing outside the window changes.
TEST(AddIntoWindow, EqualsAtenAddOnEveryLayout) {
  auto expectAdds = [](const Tensor &grad, const SliceSpec &spec,
                       const Tensor &dy) {
    Tensor expected = grad.clone();
    Tensor update = dy;
    for (int64_t dim : spec.dropped)
      update = update.unsqueeze(dim);
    stridedSlice(expected, spec).add_(update);
    Tensor sum = grad.clone();
    addIntoWindow(sum, spec, dy);
    EXPECT_TRUE(torch::equal(sum, expected))
        << "grad " << grad.sizes() << " dy " << dy.sizes();
  };
  for (auto dtype : {torch::kFloat, torch::kDouble, torch::kInt}) {
    const auto options = torch::TensorOptions().dtype(dtype);
    const Tensor grad = torch::randint(-9, 9, {4, 3, 10}, options);
    // Rows of a 3-D window (offsets in every dim), its update contiguous or
    // a transposed view (rows not contiguous: ATen's add).
    const SliceSpec rows{{1, 1, 2}, {2, 2, 7}, {1, 1, 1}, {}};
    expectAdds(grad, rows, torch::randint(-9, 9, {2, 2, 7}, options));
    expectAdds(grad, rows,
               torch::randint(-9, 9, {7, 2, 2}, options).permute({2, 1, 0}));
    // A dropped unit dim, and columns taken with a stride.
    expectAdds(grad, {{2, 0, 0}, {1, 3, 10}, {1, 1, 1}, {0}},
               torch::randint(-9, 9, {3, 10}, options));
    expectAdds(grad, {{0, 0, 1}, {4, 3, 4}, {1, 1, 2}, {}},
               torch::randint(-9, 9, {4, 3, 4}, options));
  }
  // Empty windows (a recursion's last step may slice none of a row).
  const Tensor small = torch::randn({3, 4});
  expectAdds(small, {{0, 0}, {3, 0}, {1, 1}, {}}, torch::randn({3, 0}));
  expectAdds(small, {{0, 0}, {0, 4}, {1, 1}, {}}, torch::randn({0, 4}));
  // A window past the row-by-row size (ATen's add).
  const Tensor wide = torch::randn({3, 200, 100});
  expectAdds(wide, {{0, 0, 0}, {3, 200, 50}, {1, 1, 1}, {}},
             torch::randn({3, 200, 50}));
  // A gradient that starts inside its storage (a view of a larger buffer):
  // its window, not the buffer's, gets the update.
  const Tensor buffer = torch::randn({5, 3, 10});
  const Tensor before = buffer.clone();
  Tensor inner = buffer.narrow(0, 1, 4);
  const SliceSpec window{{1, 0, 2}, {1, 3, 7}, {1, 1, 1}, {0}};
  const Tensor dy = torch::randn({3, 7});
  Tensor expected = inner.clone();
  stridedSlice(expected, window).add_(dy.unsqueeze(0));
  addIntoWindow(inner, window, dy);
  EXPECT_TRUE(torch::equal(inner, expected));
  EXPECT_TRUE(torch::equal(buffer[0], before[0]));
  EXPECT_TRUE(torch::equal(buffer.narrow(0, 3, 2), before.narrow(0, 3, 2)));
}

namespace {

/// One slice of a vjp body: its attributes, its operands (0: the source, 1:
/// the index) and its result type.
struct Window {
  json attrs;
  std::vector<int64_t> operands;
  json type;
};

/// A static window of a rank-2 source, no dims dropped unless `dropped`.
Window staticWindow(std::vector<int64_t> offsets, std::vector<int64_t> sizes,
                    std::vector<int64_t> dropped = {}) {
  std::vector<int64_t> resultShape;
  for (size_t d = 0; d < sizes.size(); ++d)
    if (std::find(dropped.begin(), dropped.end(), d) == dropped.end())
      resultShape.push_back(sizes[d]);
  return {{{"static_offsets", offsets},
           {"static_sizes", sizes},
           {"static_strides", {1, 1}},
           {"dropped_dims", dropped},
           {"operandSegmentSizes", {1, 0, 0, 0}}},
          {0},
          f64(resultShape)};
}

/// A vjp of slices of one source, yielded in order, as rvnn-exec-differentiate
/// writes for slices that do not tile it. With `throughAutograd` each slice
/// passes through a cast, so the autograd rule runs instead of the slices
/// rule. @forward(x, k, d0, d1, ...) -> dx (k: the index operand 6).
Plan slicesVjpPlan(const std::vector<Window> &windows,
                   std::vector<int64_t> sourceShape, bool throughAutograd) {
  // Ids in definition order: x, k, the cotangents, the body's source and
  // index, the slices, the casts, dx.
  const int64_t n = static_cast<int64_t>(windows.size());
  const int64_t bodyArgs = 2 + n, slices = bodyArgs + 2;
  const json index = type("index", {}, false);
  JsonList body;
  std::vector<int64_t> yielded;
  for (int64_t i = 0; i < n; ++i) {
    const Window &w = windows[i];
    std::vector<int64_t> operands;
    for (int64_t operand : w.operands)
      operands.push_back(bodyArgs + operand);
    body.push_back(op(exec::SliceOp::name, operands,
                      {value(slices + i, w.type)}, w.attrs));
    yielded.push_back(slices + i);
  }
  if (throughAutograd)
    for (int64_t i = 0; i < n; ++i) {
      body.push_back(op(exec::CastOp::name, {slices + i},
                        {value(slices + n + i, windows[i].type)}));
      yielded[i] = slices + n + i;
    }
  body.push_back(yieldOp(yielded));
  std::vector<int64_t> operands = {0, 1};
  JsonList args = {value(0, f64(sourceShape)), value(1, index)};
  for (int64_t i = 0; i < n; ++i) {
    operands.push_back(2 + i);
    args.push_back(value(2 + i, windows[i].type));
  }
  const int64_t grad = yielded.back() + 1;
  json vjp =
      op(exec::VjpOp::name, operands, {value(grad, f64(sourceShape))},
         {{"operandSegmentSizes", {2, n}}, {"grad_inputs", {0}}},
         {{{"args",
            {value(bodyArgs, f64(sourceShape)), value(bodyArgs + 1, index)}},
           {"body", body}}});
  return planWith({function("forward", args, {vjp, returnOp({grad})})},
                  throughAutograd ? "vjp-slices-autograd" : "vjp-slices");
}

/// dx of slicesVjpPlan on both rules (the slices rule first), checking which
/// ran.
std::vector<Tensor> slicesVjpGrads(const std::vector<Window> &windows,
                                   std::vector<int64_t> sourceShape,
                                   const std::vector<RuntimeValue> &inputs) {
  std::vector<Tensor> grads;
  for (bool throughAutograd : {false, true}) {
    Plan plan = slicesVjpPlan(windows, sourceShape, throughAutograd);
    ExecutionProfile profile;
    ExecutionContext context;
    context.kernelMode = KernelMode::Reference;
    context.profile = &profile;
    Executor executor = executorFor(plan, context);
    grads.push_back(std::get<Tensor>(executor.call("forward", inputs).at(0)));
    EXPECT_EQ(profile.byOp.count(str(exec::SliceOp::name)),
              throughAutograd ? 1u : 0u);
  }
  return grads;
}

} // namespace

// Overlapping slices of one value share a vjp: their cotangents are added
// into their windows of one zero tensor. Here the windows vary in two dims
// (x[:, 0:4], x[:, k:k+4] with k an index primal, x[2, 1:3] with the row dim
// dropped): zeros, then adds.
TEST(Vjp, SlicesOfOneValueMatchAutograd) {
  Window shifted = staticWindow({0, 0}, {4, 4});
  shifted.attrs["static_offsets"] = {0, kDynamic};
  shifted.attrs["operandSegmentSizes"] = {1, 1, 0, 0};
  shifted.operands = {0, 1};
  std::vector<Window> windows = {staticWindow({0, 0}, {4, 4}), shifted,
                                 staticWindow({2, 1}, {1, 2}, {0})};
  std::vector<RuntimeValue> inputs = {
      uniformDoubles({4, 5}, -1, 1, 31), int64_t{1},
      uniformDoubles({4, 4}, -1, 1, 32), uniformDoubles({4, 4}, -1, 1, 33),
      uniformDoubles({2}, -1, 1, 34)};
  std::vector<Tensor> grads = slicesVjpGrads(windows, {4, 5}, inputs);
  Tensor expected = torch::zeros({4, 5}, torch::kFloat64);
  expected.slice(1, 0, 4) += std::get<Tensor>(inputs[2]);
  expected.slice(1, 1, 5) += std::get<Tensor>(inputs[3]);
  expected[2].slice(0, 1, 3) += std::get<Tensor>(inputs[4]);
  EXPECT_TRUE(torch::allclose(grads[0], expected, 1e-12, 1e-12));
  EXPECT_TRUE(torch::allclose(grads[1], expected, 1e-12, 1e-12));
}

// The slices rule on windows along one dim: tilings in and out of order,
// overlaps in either order, uncovered ends, a gap, an empty window and
// dropped dims (rows that tile, and rows that do not), against explicit sums
// and autograd.
TEST(Vjp, RangeWindowsMatchAutograd) {
  using Ranges = std::vector<std::pair<int64_t, int64_t>>;
  const std::vector<Ranges> cases = {
      {{0, 4}, {4, 7}, {7, 10}}, // a tiling: one concatenation
      {{7, 10}, {0, 4}, {4, 7}}, // a tiling out of order
      {{0, 4}, {3, 7}, {7, 10}}, // not one: an overlap
      {{0, 9}, {1, 10}},         // EBT-GRC's left and right children
      {{2, 6}, {1, 5}, {5, 8}},  // growing left then right, ends uncovered
      {{0, 3}, {5, 8}},          // a gap: zeros, then adds
      {{3, 3}, {3, 6}}};         // an empty window first
  uint64_t seed = 40;
  for (const Ranges &ranges : cases) {
    std::vector<Window> windows;
    std::vector<RuntimeValue> inputs = {uniformDoubles({3, 10}, -1, 1, seed++),
                                        int64_t{0}};
    Tensor expected = torch::zeros({3, 10}, torch::kFloat64);
    for (auto [begin, end] : ranges) {
      windows.push_back(staticWindow({0, begin}, {3, end - begin}));
      Tensor dy = uniformDoubles({3, end - begin}, -1, 1, seed++);
      inputs.push_back(dy);
      expected.slice(1, begin, end) += dy;
    }
    std::vector<Tensor> grads = slicesVjpGrads(windows, {3, 10}, inputs);
    EXPECT_TRUE(torch::allclose(grads[0], expected, 1e-12, 1e-12))
        << "windows starting at " << ranges[0].first;
    EXPECT_TRUE(torch::allclose(grads[1], expected, 1e-12, 1e-12));
  }
  // Rows tiling x: x[2], x[0] (row dim dropped) and x[1:2].
  {
    std::vector<RuntimeValue> inputs = {
        uniformDoubles({3, 4}, -1, 1, 63), int64_t{0},
        uniformDoubles({4}, -1, 1, 64), uniformDoubles({4}, -1, 1, 65),
        uniformDoubles({1, 4}, -1, 1, 66)};
    std::vector<Tensor> grads = slicesVjpGrads(
        {staticWindow({2, 0}, {1, 4}, {0}), staticWindow({0, 0}, {1, 4}, {0}),
         staticWindow({1, 0}, {1, 4})},
        {3, 4}, inputs);
    Tensor expected = torch::stack({std::get<Tensor>(inputs[3]),
                                    std::get<Tensor>(inputs[4])[0],
                                    std::get<Tensor>(inputs[2])});
    EXPECT_TRUE(torch::allclose(grads[0], expected, 1e-12, 1e-12));
    EXPECT_TRUE(torch::allclose(grads[1], expected, 1e-12, 1e-12));
  }
  // Rows: x[1] (row dim dropped) and x[0:2]; row 2 is zero.
  std::vector<RuntimeValue> inputs = {
      uniformDoubles({3, 4}, -1, 1, 60), int64_t{0},
      uniformDoubles({4}, -1, 1, 61), uniformDoubles({2, 4}, -1, 1, 62)};
  std::vector<Tensor> grads = slicesVjpGrads(
      {staticWindow({1, 0}, {1, 4}, {0}), staticWindow({0, 0}, {2, 4})}, {3, 4},
      inputs);
  Tensor expected = torch::zeros({3, 4}, torch::kFloat64);
  expected[1] += std::get<Tensor>(inputs[2]);
  expected.slice(0, 0, 2) += std::get<Tensor>(inputs[3]);
  EXPECT_TRUE(torch::allclose(grads[0], expected, 1e-12, 1e-12));
  EXPECT_TRUE(torch::allclose(grads[1], expected, 1e-12, 1e-12));
}

TEST(Vjp, GemmRulesMatchAutograd) {
  // A linear layer on a 3-D lhs with bias and accumulator.
  expectFastRuleMatchesAutograd(
      {str(exec::GemmOp::name),
       {f64({2, 3, 4}), f64({5, 4}), f64({5}), f64({2, 3, 5})},
       {0, 1, 2, 3},
       {{"transpose_rhs", true}, {"operandSegmentSizes", {1, 1, 1, 1}}},
       f64({2, 3, 5}),
       {0, 1, 2, 3}},
      {uniformDoubles({2, 3, 4}, -1, 1, 19), uniformDoubles({5, 4}, -1, 1, 20),
       uniformDoubles({5}, -1, 1, 21), uniformDoubles({2, 3, 5}, -1, 1, 22)},
      uniformDoubles({2, 3, 5}, -1, 1, 23));
  // A plain matrix product, one gradient wanted.
  expectFastRuleMatchesAutograd(
      {str(exec::GemmOp::name),
       {f64({6, 4}), f64({4, 5})},
       {0, 1},
       {{"operandSegmentSizes", {1, 1, 0, 0}}},
       f64({6, 5}),
       {1}},
      {uniformDoubles({6, 4}, -1, 1, 24), uniformDoubles({4, 5}, -1, 1, 25)},
      uniformDoubles({6, 5}, -1, 1, 26));
  // Batched, with a broadcast rhs batch.
  expectFastRuleMatchesAutograd({str(exec::GemmOp::name),
                                 {f64({2, 3, 4}), f64({1, 4, 5})},
                                 {0, 1},
                                 {{"operandSegmentSizes", {1, 1, 0, 0}}},
                                 f64({2, 3, 5}),
                                 {0, 1}},
                                {uniformDoubles({2, 3, 4}, -1, 1, 27),
                                 uniformDoubles({1, 4, 5}, -1, 1, 28)},
                                uniformDoubles({2, 3, 5}, -1, 1, 29));
  // A vector rhs (RIR-EBT-GRC's scorer) with a scalar bias and an
  // accumulator, on 2-D and 3-D lhs.
  expectFastRuleMatchesAutograd(
      {str(exec::GemmOp::name),
       {f64({6, 3}), f64({3}), f64({}), f64({6})},
       {0, 1, 2, 3},
       {{"operandSegmentSizes", {1, 1, 1, 1}}},
       f64({6}),
       {0, 1, 2, 3}},
      {uniformDoubles({6, 3}, -1, 1, 32), uniformDoubles({3}, -1, 1, 33),
       uniformDoubles({}, -1, 1, 34), uniformDoubles({6}, -1, 1, 35)},
      uniformDoubles({6}, -1, 1, 36));
  expectFastRuleMatchesAutograd(
      {str(exec::GemmOp::name),
       {f64({2, 5, 3}), f64({3})},
       {0, 1},
       {{"operandSegmentSizes", {1, 1, 0, 0}}},
       f64({2, 5}),
       {0, 1}},
      {uniformDoubles({2, 5, 3}, -1, 1, 37), uniformDoubles({3}, -1, 1, 38)},
      uniformDoubles({2, 5}, -1, 1, 39));
  // One primal as both operands (a·aᵀ): the cotangents add up.
  expectFastRuleMatchesAutograd(
      {str(exec::GemmOp::name),
       {f64({3, 4})},
       {0, 0},
       {{"transpose_rhs", true}, {"operandSegmentSizes", {1, 1, 0, 0}}},
       f64({3, 3}),
       {0}},
      {uniformDoubles({3, 4}, -1, 1, 30)}, uniformDoubles({3, 3}, -1, 1, 31));
}

TEST(Vjp, GemmCotangentsWithContractionOfOneMatchAutograd) {
  // EBT-GRC's selection of a pair, [B, 1, K]·[B, K, N]: rhs's cotangent is
  // an outer product per batch entry; also with a transposed rhs.
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "transpose_rhs" : "rhs");
    json attrs = {{"operandSegmentSizes", {1, 1, 0, 0}}};
    if (transposed)
      attrs["transpose_rhs"] = true;
    std::vector<int64_t> rhsShape = transposed ? std::vector<int64_t>{4, 5, 6}
                                               : std::vector<int64_t>{4, 6, 5};
    expectFastRuleMatchesAutograd({str(exec::GemmOp::name),
                                   {f64({4, 1, 6}), f64(rhsShape)},
                                   {0, 1},
                                   attrs,
                                   f64({4, 1, 5}),
                                   {0, 1}},
                                  {uniformDoubles({4, 1, 6}, -1, 1, 32),
                                   uniformDoubles(rhsShape, -1, 1, 33)},
                                  uniformDoubles({4, 1, 5}, -1, 1, 34));
  }
  // A linear layer of one output (EBT-GRC's scorer, N = 1): lhs's cotangent
  // is an outer product; also with a plain [K, 1] rhs.
  for (bool transposed : {false, true}) {
    SCOPED_TRACE(transposed ? "linear, transpose_rhs" : "linear, rhs");
    json attrs = {{"operandSegmentSizes", {1, 1, 0, 0}}};
    if (transposed)
      attrs["transpose_rhs"] = true;
    std::vector<int64_t> rhsShape =
        transposed ? std::vector<int64_t>{1, 4} : std::vector<int64_t>{4, 1};
    expectFastRuleMatchesAutograd({str(exec::GemmOp::name),
                                   {f64({2, 3, 4}), f64(rhsShape)},
                                   {0, 1},
                                   attrs,
                                   f64({2, 3, 1}),
                                   {0, 1}},
                                  {uniformDoubles({2, 3, 4}, -1, 1, 44),
                                   uniformDoubles(rhsShape, -1, 1, 45)},
                                  uniformDoubles({2, 3, 1}, -1, 1, 46));
  }
}

TEST(Vjp, BeamAndSelectionRulesMatchAutograd) {
  Tensor h = uniformDoubles({2, 3, 5, 4}, -1, 1, 35);
  Tensor cand = uniformDoubles({2, 3, 1, 4}, -1, 1, 36);
  Tensor sel = at::softmax(uniformDoubles({2, 3, 4}, -2, 2, 37), -1);
  Tensor dMerged = uniformDoubles({2, 3, 4, 4}, -1, 1, 38);
  for (std::vector<int64_t> gradInputs :
       {std::vector<int64_t>{0, 1, 2}, std::vector<int64_t>{0, 1}})
    expectFastRuleMatchesAutograd(
        {str(exec::PairMergeOp::name),
         {f64({2, 3, 5, 4}), f64({2, 3, 1, 4}), f64({2, 3, 4})},
         {0, 1, 2},
         json::object(),
         f64({2, 3, 4, 4}),
         gradInputs},
        {h, cand, sel}, dMerged);

  expectFastRuleMatchesAutograd(
      {str(exec::BeamAccumulateOp::name),
       {f64({2, 2}), f64({2, 2, 4}), type("i64", {2, 2, 3})},
       {0, 1, 2},
       json::object(),
       f64({2, 6}),
       {0, 1}},
      {uniformDoubles({2, 2}, -1, 1, 39), uniformDoubles({2, 2, 4}, 0.1, 1, 40),
       torch::tensor({{{0, 2, 3}, {1, 0, 2}}, {{2, 1, 0}, {3, 0, 1}}},
                     torch::kLong)},
      uniformDoubles({2, 6}, -1, 1, 41));

  for (std::string direction : {"left", "right"})
    for (std::vector<int64_t> gradInputs :
         {std::vector<int64_t>{0}, std::vector<int64_t>{0, 1}})
      expectFastRuleMatchesAutograd(
          {str(exec::NeighbourRetrieveOp::name),
           {f64({2, 5}), f64({2, 5})},
           {0, 1},
           {{"direction", direction}},
           f64({2, 5, 5}),
           gradInputs},
          {uniformDoubles({2, 5}, 0.1, 0.9, 47),
           torch::tensor({{1.0, 1.0, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 1.0, 1.0}},
                         torch::kDouble)},
          uniformDoubles({2, 5, 5}, -1, 1, 48));

  Tensor mask = torch::tensor({{1.0, 1.0, 1.0, 0.0}, {1.0, 0.0, 1.0, 1.0}},
                              torch::kDouble);
  for (std::vector<int64_t> gradInputs :
       {std::vector<int64_t>{0}, std::vector<int64_t>{0, 1}})
    expectFastRuleMatchesAutograd({str(exec::MaskedSoftmaxOp::name),
                                   {f64({2, 4}), f64({2, 4})},
                                   {0, 1},
                                   {{"dim", 1}},
                                   f64({2, 4}),
                                   gradInputs},
                                  {uniformDoubles({2, 4}, -2, 2, 42), mask},
                                  uniformDoubles({2, 4}, -1, 1, 43));
}

namespace {

/// `primals` with the operands at `shapeOnly` replaced by what
/// rvnn-exec-differentiate passes where a derivative reads only an
/// operand's shape: zeros broadcast to it (one element, zero strides).
std::vector<RuntimeValue> withShapeWitnesses(std::vector<RuntimeValue> primals,
                                             std::vector<size_t> shapeOnly) {
  for (size_t index : shapeOnly) {
    const Tensor &operand = std::get<Tensor>(primals.at(index));
    primals[index] =
        torch::zeros({}, operand.options()).expand(operand.sizes());
  }
  return primals;
}

/// Both rules on `primals` with shape witnesses at `shapeOnly` give the
/// cotangents of ATen autograd on the operands themselves.
void expectShapeWitnessesSuffice(const VjpCase &c,
                                 const std::vector<RuntimeValue> &primals,
                                 std::vector<size_t> shapeOnly,
                                 const Tensor &cotangent) {
  std::vector<RuntimeValue> witnessed =
      withShapeWitnesses(primals, std::move(shapeOnly));
  std::vector<RuntimeValue> expected = vjpGrads(c, true, primals, cotangent);
  expectSameGrads(c, vjpGrads(c, true, witnessed, cotangent), expected,
                  "autograd rule on shape witnesses");
  if (hasFastVjpRule(c.opName))
    expectSameGrads(c, vjpGrads(c, false, witnessed, cotangent), expected,
                    "fast rule on shape witnesses");
}

} // namespace

// The operands that rvnn-exec-differentiate passes as shape witnesses (its
// table of what each derivative reads, AdjointRules.cpp): every rule gives
// the cotangents of the operands themselves.
TEST(Vjp, PoolMaximumAndDepthMixRulesMatchAutograd) {
  // Sample 0 has a padded position holding its largest values, sample 1 a
  // tie between two real positions in feature 0, sample 2 no real token.
  Tensor h = uniformDoubles({3, 4, 3}, -1, 1, 71);
  h.index_put_({0, 3}, 5.0);
  h.index_put_({1, 0, 0}, 2.0);
  h.index_put_({1, 2, 0}, 2.0);
  Tensor mask = torch::tensor(
      {{1.0, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 1.0}, {0.0, 0.0, 0.0, 0.0}},
      torch::kDouble);
  Tensor dPooled = uniformDoubles({3, 3}, -1, 1, 72);
  for (std::string kind : {"first", "last", "mean", "max"})
    for (std::vector<int64_t> gradInputs :
         {std::vector<int64_t>{0}, std::vector<int64_t>{0, 1}}) {
      if (kind == "mean" && gradInputs.size() == 2)
        continue; // the mask's cotangent of a mean takes the autograd rule
      expectFastRuleMatchesAutograd({str(exec::PoolOp::name),
                                     {f64({3, 4, 3}), f64({3, 4})},
                                     {0, 1},
                                     {{"kind", kind}},
                                     f64({3, 3}),
                                     gradInputs},
                                    {h, mask}, dPooled);
    }

  // Self-IRU's depth gate: alpha [3, 1] broadcast over [3, 4].
  for (std::vector<int64_t> gradInputs :
       {std::vector<int64_t>{0, 1, 2}, std::vector<int64_t>{1}})
    expectFastRuleMatchesAutograd({str(exec::SoftDepthMixOp::name),
                                   {f64({3, 1}), f64({3, 4}), f64({3, 4})},
                                   {0, 1, 2},
                                   json::object(),
                                   f64({3, 4}),
                                   gradInputs},
                                  {uniformDoubles({3, 1}, 0, 1, 76),
                                   uniformDoubles({3, 4}, -2, 2, 77),
                                   uniformDoubles({3, 4}, -2, 2, 78)},
                                  uniformDoubles({3, 4}, -1, 1, 79));

  // Broadcast operands with ties: [3, 4] against [3, 1].
  Tensor a = uniformDoubles({3, 4}, -1, 1, 73);
  Tensor b = uniformDoubles({3, 1}, -1, 1, 74);
  a.index_put_({0, 1}, b.index({0, 0}));
  a.index_put_({2, 3}, b.index({2, 0}));
  for (std::string fn : {"max", "min"})
    for (std::vector<int64_t> gradInputs :
         {std::vector<int64_t>{0, 1}, std::vector<int64_t>{1}})
      expectFastRuleMatchesAutograd({str(exec::ElementwiseOp::name),
                                     {f64({3, 4}), f64({3, 1})},
                                     {0, 1},
                                     {{"fn", fn}},
                                     f64({3, 4}),
                                     gradInputs},
                                    {a, b}, uniformDoubles({3, 4}, -1, 1, 75));
}

// The rules of the ops that last took the autograd rule in the models'
// plans: the embedding (a repeated id sums its rows' cotangents), EBT-GRC's
// beam marginal (a padded beam), NDR's geometric attention (a pad key, with
// and without row normalisation), the Transformers' masked attention (a pad
// key, causal or not) and the ON-LSTM family's cumax.
TEST(Vjp, EmbeddingBeamAndAttentionRulesMatchAutograd) {
  expectFastRuleMatchesAutograd(
      {str(exec::EmbeddingOp::name),
       {f64({5, 3}), type("i64", {2, 3})},
       {0, 1},
       json::object(),
       f64({2, 3, 3}),
       {0}},
      {uniformDoubles({5, 3}, -1, 1, 81),
       torch::tensor({{4, 0, 4}, {1, 4, 2}}, torch::kLong)},
      uniformDoubles({2, 3, 3}, -1, 1, 82));

  Tensor beamMask =
      torch::tensor({{1.0, 1.0, 0.0}, {1.0, 1.0, 1.0}}, torch::kDouble);
  for (std::vector<int64_t> gradInputs :
       {std::vector<int64_t>{0, 1}, std::vector<int64_t>{0, 1, 2}})
    expectFastRuleMatchesAutograd({str(exec::BeamMarginalizeOp::name),
                                   {f64({2, 3, 4}), f64({2, 3}), f64({2, 3})},
                                   {0, 1, 2},
                                   json::object(),
                                   f64({2, 4}),
                                   gradInputs},
                                  {uniformDoubles({2, 3, 4}, -1, 1, 83),
                                   uniformDoubles({2, 3}, -2, 2, 84), beamMask},
                                  uniformDoubles({2, 4}, -1, 1, 85));

  Tensor keyMask = torch::tensor({{1.0, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 1.0}},
                                 torch::kDouble);
  for (bool normalize : {false, true})
    expectFastRuleMatchesAutograd(
        {str(exec::GeometricAttentionOp::name),
         {f64({2, 2, 4, 3}), f64({2, 2, 4, 3}), f64({2, 2, 4, 3}),
          f64({2, 2, 4}), f64({2, 2, 4}), f64({2, 4}), f64({}), f64({})},
         {0, 1, 2, 3, 4, 5, 6, 7},
         {{"normalize", normalize}},
         f64({2, 2, 4, 3}),
         {0, 1, 2, 3, 4, 6, 7}},
        {uniformDoubles({2, 2, 4, 3}, -1, 1, 86),
         uniformDoubles({2, 2, 4, 3}, -1, 1, 87),
         uniformDoubles({2, 2, 4, 3}, -1, 1, 88),
         uniformDoubles({2, 2, 4}, -1, 1, 89),
         uniformDoubles({2, 2, 4}, -1, 1, 90), keyMask,
         torch::tensor(0.7, torch::kDouble),
         torch::tensor(-0.3, torch::kDouble)},
        uniformDoubles({2, 2, 4, 3}, -1, 1, 91));

  for (bool causal : {false, true})
    expectFastRuleMatchesAutograd(
        {str(exec::MaskedAttentionOp::name),
         {f64({2, 2, 4, 3}), f64({2, 2, 4, 3}), f64({2, 2, 4, 3}), f64({2, 4})},
         {0, 1, 2, 3},
         {{"causal", causal}},
         f64({2, 2, 4, 3}),
         {0, 1, 2}},
        {uniformDoubles({2, 2, 4, 3}, -1, 1, 92),
         uniformDoubles({2, 2, 4, 3}, -1, 1, 93),
         uniformDoubles({2, 2, 4, 3}, -1, 1, 94), keyMask},
        uniformDoubles({2, 2, 4, 3}, -1, 1, 95));

  for (int64_t dim : {1, -1})
    expectFastRuleMatchesAutograd({str(exec::CumaxOp::name),
                                   {f64({3, 5})},
                                   {0},
                                   {{"dim", dim}},
                                   f64({3, 5}),
                                   {0}},
                                  {uniformDoubles({3, 5}, -2, 2, 96)},
                                  uniformDoubles({3, 5}, -1, 1, 97));
}

TEST(Vjp, ShapeWitnessesGiveTheCotangentsOfTheOperands) {
  json i64Index = type("i64", {2, 2});
  json sliceAttrs = {{"static_offsets", {1, kDynamic}},
                     {"static_sizes", {1, 2}},
                     {"static_strides", {1, 2}},
                     {"dropped_dims", {0}},
                     {"operandSegmentSizes", {1, 1, 0, 0}}};
  expectShapeWitnessesSuffice({str(exec::SliceOp::name),
                               {f64({3, 5}), type("index", {}, false)},
                               {0, 1},
                               sliceAttrs,
                               f64({2}),
                               {0}},
                              {uniformDoubles({3, 5}, -1, 1, 40), int64_t{1}},
                              {0}, uniformDoubles({2}, -1, 1, 41));

  // A linear layer: bias and accumulator always by shape; lhs when only
  // its own cotangent is wanted, rhs likewise.
  VjpCase gemm{str(exec::GemmOp::name),
               {f64({2, 3, 4}), f64({5, 4}), f64({5}), f64({2, 3, 5})},
               {0, 1, 2, 3},
               {{"transpose_rhs", true}, {"operandSegmentSizes", {1, 1, 1, 1}}},
               f64({2, 3, 5}),
               {0, 1, 2, 3}};
  std::vector<RuntimeValue> gemmPrimals{
      uniformDoubles({2, 3, 4}, -1, 1, 42), uniformDoubles({5, 4}, -1, 1, 43),
      uniformDoubles({5}, -1, 1, 44), uniformDoubles({2, 3, 5}, -1, 1, 45)};
  Tensor dGemm = uniformDoubles({2, 3, 5}, -1, 1, 46);
  expectShapeWitnessesSuffice(gemm, gemmPrimals, {2, 3}, dGemm);
  gemm.gradInputs = {1};
  expectShapeWitnessesSuffice(gemm, gemmPrimals, {1, 2, 3}, dGemm);
  gemm.gradInputs = {0};
  expectShapeWitnessesSuffice(gemm, gemmPrimals, {0, 2, 3}, dGemm);

  expectShapeWitnessesSuffice({str(exec::LayerNormOp::name),
                               {f64({3, 6}), f64({6}), f64({6})},
                               {0, 1, 2},
                               {{"epsilon", 1e-5}},
                               f64({3, 6}),
                               {0, 1, 2}},
                              {uniformDoubles({3, 6}, -2, 2, 47),
                               uniformDoubles({6}, 0.5, 1.5, 48),
                               uniformDoubles({6}, -1, 1, 49)},
                              {2}, uniformDoubles({3, 6}, -1, 1, 50));

  // With factor 2, candidate c of 3 beams x 2 descends from beam c / 2.
  for (auto [factor, indices] :
       {std::pair{1, torch::tensor({{2, 0}, {1, 1}}, torch::kLong)},
        std::pair{2, torch::tensor({{5, 0}, {2, 3}}, torch::kLong)}})
    expectShapeWitnessesSuffice({str(exec::BeamGatherOp::name),
                                 {f64({2, 3, 4}), i64Index},
                                 {0, 1},
                                 {{"factor", factor}},
                                 f64({2, 2, 4}),
                                 {0}},
                                {uniformDoubles({2, 3, 4}, -1, 1, 51), indices},
                                {0}, uniformDoubles({2, 2, 4}, -1, 1, 52));
  expectShapeWitnessesSuffice({str(exec::BeamExpandOp::name),
                               {f64({2, 2, 3})},
                               {0},
                               {{"factor", 2}},
                               f64({2, 4, 3}),
                               {0}},
                              {uniformDoubles({2, 2, 3}, -1, 1, 53)}, {0},
                              uniformDoubles({2, 4, 3}, -1, 1, 54));

  // With the selection inactive, pair_merge is linear in h and cand.
  expectShapeWitnessesSuffice(
      {str(exec::PairMergeOp::name),
       {f64({2, 3, 4}), f64({2, 1, 4}), f64({2, 2})},
       {0, 1, 2},
       json::object(),
       f64({2, 2, 4}),
       {0, 1}},
      {uniformDoubles({2, 3, 4}, -1, 1, 55),
       uniformDoubles({2, 1, 4}, -1, 1, 56),
       torch::tensor({{0.25, 0.75}, {1.0, 0.0}}, torch::kDouble)},
      {0, 1}, uniformDoubles({2, 2, 4}, -1, 1, 57));

  expectShapeWitnessesSuffice(
      {str(exec::BeamAccumulateOp::name),
       {f64({2, 2}), f64({2, 2, 3}), type("i64", {2, 2, 2})},
       {0, 1, 2},
       json::object(),
       f64({2, 4}),
       {0, 1}},
      {uniformDoubles({2, 2}, -1, 1, 58), uniformDoubles({2, 2, 3}, 0.1, 1, 59),
       torch::tensor({{{0, 2}, {1, 0}}, {{2, 1}, {0, 0}}}, torch::kLong)},
      {0}, uniformDoubles({2, 4}, -1, 1, 60));

  expectShapeWitnessesSuffice(
      {str(exec::BeamMarginalizeOp::name),
       {f64({2, 3, 4}), f64({2, 3}), f64({2, 3})},
       {0, 1, 2},
       json::object(),
       f64({2, 4}),
       {0}},
      {uniformDoubles({2, 3, 4}, -1, 1, 61), uniformDoubles({2, 3}, -1, 1, 62),
       torch::tensor({{1.0, 1.0, 0.0}, {1.0, 0.0, 1.0}}, torch::kDouble)},
      {0}, uniformDoubles({2, 4}, -1, 1, 63));

  for (std::string kind : {"first", "last", "mean"})
    expectShapeWitnessesSuffice(
        {str(exec::PoolOp::name),
         {f64({2, 3, 4}), f64({2, 3})},
         {0, 1},
         {{"kind", kind}},
         f64({2, 4}),
         {0}},
        {uniformDoubles({2, 3, 4}, -1, 1, 64),
         torch::tensor({{1.0, 1.0, 0.0}, {1.0, 1.0, 1.0}}, torch::kDouble)},
        {0}, uniformDoubles({2, 4}, -1, 1, 65));

  expectShapeWitnessesSuffice({str(exec::EmbeddingOp::name),
                               {f64({5, 3}), i64Index},
                               {0, 1},
                               json::object(),
                               f64({2, 2, 3}),
                               {0}},
                              {uniformDoubles({5, 3}, -1, 1, 66),
                               torch::tensor({{4, 0}, {4, 2}}, torch::kLong)},
                              {0}, uniformDoubles({2, 2, 3}, -1, 1, 67));

  expectShapeWitnessesSuffice(
      {str(exec::UnchunkOp::name),
       {f64({4, 3}), f64({2, 5})},
       {0, 1},
       {{"dim", 1}},
       f64({2, 2, 3}),
       {0}},
      {uniformDoubles({4, 3}, -1, 1, 68), uniformDoubles({2, 5}, -1, 1, 69)},
      {0, 1}, uniformDoubles({2, 2, 3}, -1, 1, 70));
}

TEST(Vjp, AutogradRuleIsTheVectorJacobianProduct) {
  // cross_entropy has no fast rule (it ends the loss, outside any loop):
  // ATen autograd through its reference handler.
  VjpCase c{str(exec::CrossEntropyOp::name),
            {f64({3, 4}), type("i64", {3})},
            {0, 1},
            json::object(),
            f64({}),
            {0}};
  Tensor x = uniformDoubles({3, 4}, -2, 2, 32);
  Tensor labels = torch::tensor({2, 0, 3}, torch::kLong);
  Tensor dy = torch::tensor(0.7, torch::kDouble);
  Plan plan = vjpPlan(c, /*throughAutograd=*/false, "vjp-cross_entropy");
  ExecutionContext context;
  Executor executor = executorFor(plan, context);
  Tensor got =
      std::get<Tensor>(executor.call("forward", {x, labels, dy}).at(0));
  Tensor expected =
      (torch::softmax(x, -1) - torch::one_hot(labels, 4).to(torch::kDouble)) *
      dy / 3;
  EXPECT_TRUE(torch::allclose(got, expected, 1e-12, 1e-12)) << got - expected;
}

TEST(Vjp, SoftmaxRuleMatchesAutograd) {
  for (int64_t dim : {-1, 0})
    expectFastRuleMatchesAutograd({str(exec::SoftmaxOp::name),
                                   {f64({3, 4})},
                                   {0},
                                   {{"dim", dim}},
                                   f64({3, 4}),
                                   {0}},
                                  {uniformDoubles({3, 4}, -2, 2, 32)},
                                  uniformDoubles({3, 4}, -1, 1, 33));
}

namespace {

/// Runs one handler on operands 0..k-1 into result k, like ExecutorTest's
/// ExecOps fixture.
Tensor runOp(ExecutionContext &context, std::string_view opName,
             std::vector<RuntimeValue> operands, ValueType resultType,
             json attrs = json::object()) {
  Plan plan;
  Executor executor = executorFor(plan, context);
  return std::get<Tensor>(runSingleOp(executor, opName, std::move(operands),
                                      std::move(resultType), std::move(attrs)));
}

} // namespace

TEST(SumToLike, SumsLeadingAndUnitDims) {
  ExecutionContext context;
  Tensor x = uniformDoubles({2, 3, 4}, -1, 1, 34);
  Tensor like = torch::zeros({3, 1}, torch::kDouble);
  Tensor got =
      runOp(context, exec::SumToLikeOp::name, {x, like}, {"f64", {3, 1}, true});
  EXPECT_TRUE(torch::allclose(got, x.sum(0).sum(1, /*keepdim=*/true)));
}

TEST(DropoutMask, MultipliesToTheDropoutOfTheSameDraws) {
  Tensor x = uniformDoubles({8, 16}, 1, 2, 35);
  json attrs = dropoutAttrs(0.25, {0});
  ExecutionContext context;
  context.training = true;
  context.draws = {7, 12};
  Tensor mask = runOp(context, exec::DropoutMaskOp::name, {x},
                      {"f64", {8, 16}, true}, attrs);
  const uint64_t afterMask = context.draws.offset;
  // One decision per column (dim 0 shared): 16 words.
  EXPECT_EQ(afterMask, 12u + 16u);
  context.draws = {7, 12};
  Tensor dropped =
      runOp(context, exec::DropoutOp::name, {x}, {"f64", {8, 16}, true}, attrs);
  EXPECT_TRUE(torch::equal(x * mask, dropped));
  EXPECT_EQ(context.draws.offset, afterMask);
  EXPECT_TRUE(((mask == 0) | (mask == 1 / 0.75)).all().item<bool>());
  EXPECT_TRUE(torch::equal(mask, mask.select(0, 0).expand({8, 16})));

  // At evaluation: ones, nothing drawn.
  context.training = false;
  Tensor ones = runOp(context, exec::DropoutMaskOp::name, {x},
                      {"f64", {8, 16}, true}, attrs);
  EXPECT_TRUE(torch::equal(ones, torch::ones_like(x)));
  EXPECT_EQ(context.draws.offset, afterMask);
}

// redraw_dropout_mask at the position draw_position read gives the mask
// drawn there, element for element, and leaves the stream where it is.
TEST(DropoutMask, RedrawAtItsPositionGivesTheSameMask) {
  Tensor x = uniformDoubles({8, 16}, 1, 2, 36);
  json attrs = dropoutAttrs(0.25, {1});
  ExecutionContext context;
  context.training = true;
  context.draws = {7, 12};
  Tensor first = runOp(context, exec::DropoutMaskOp::name, {x},
                       {"f64", {8, 16}, true}, attrs);
  const int64_t position = static_cast<int64_t>(context.draws.offset);
  Tensor drawn = runOp(context, exec::DropoutMaskOp::name, {x},
                       {"f64", {8, 16}, true}, attrs);
  const uint64_t after = context.draws.offset;
  Tensor witness = torch::zeros({}, torch::kDouble).expand({8, 16});
  Tensor redrawn = runOp(context, exec::RedrawDropoutMaskOp::name,
                         {witness, position}, {"f64", {8, 16}, true}, attrs);
  EXPECT_TRUE(torch::equal(redrawn, drawn));
  EXPECT_FALSE(torch::equal(redrawn, first))
      << "another position, another mask";
  EXPECT_EQ(context.draws.offset, after);
  // At evaluation: ones, as dropout_mask.
  context.training = false;
  Tensor ones = runOp(context, exec::RedrawDropoutMaskOp::name,
                      {witness, position}, {"f64", {8, 16}, true}, attrs);
  EXPECT_TRUE(torch::equal(ones, torch::ones_like(x)));
}

// mode_select's cotangent lands on the operand the mode selects, by the
// fast rule, by autograd and by finite differences of <dy, result>; neither
// operand's value is read (both may be shape witnesses).
TEST(Vjp, ModeSelectRuleFollowsTheMode) {
  VjpCase c{str(exec::ModeSelectOp::name),
            {f64({2, 3}), f64({2, 3})},
            {0, 1},
            json::object(),
            f64({2, 3}),
            {0, 1}};
  std::vector<RuntimeValue> primals{uniformDoubles({2, 3}, -1, 1, 71),
                                    uniformDoubles({2, 3}, -1, 1, 72)};
  Tensor dy = uniformDoubles({2, 3}, -1, 1, 73);
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "evaluation");
    ExecutionContext context;
    context.training = training;
    auto forward = [&](const std::vector<RuntimeValue> &operands) {
      return runOp(context, exec::ModeSelectOp::name, operands,
                   {"f64", {2, 3}, true});
    };
    const size_t selected = training ? 0 : 1;
    EXPECT_TRUE(
        torch::equal(forward(primals), std::get<Tensor>(primals[selected])));

    // Central differences of <dy, result> in every element of each operand.
    std::vector<RuntimeValue> numeric;
    for (size_t operand : {0, 1}) {
      Tensor grad = torch::zeros({2, 3}, torch::kDouble);
      for (int64_t i = 0; i < 6; ++i) {
        std::vector<RuntimeValue> shifted = primals;
        double sides[2];
        for (int side : {0, 1}) {
          Tensor x = std::get<Tensor>(primals[operand]).clone();
          x.view(-1)[i] += side ? 1e-6 : -1e-6;
          shifted[operand] = x;
          sides[side] = (forward(shifted) * dy).sum().item<double>();
        }
        grad.view(-1)[i] = (sides[1] - sides[0]) / 2e-6;
      }
      numeric.push_back(grad);
    }
    std::vector<RuntimeValue> fast = vjpGrads(c, false, primals, dy, training);
    expectSameGrads(c, vjpGrads(c, true, primals, dy, training), fast,
                    "autograd rule");
    for (size_t k = 0; k < 2; ++k)
      EXPECT_TRUE(torch::allclose(std::get<Tensor>(fast[k]),
                                  std::get<Tensor>(numeric[k]), 1e-6, 1e-8))
          << "operand " << k;
    std::vector<RuntimeValue> witnessed = withShapeWitnesses(primals, {0, 1});
    expectSameGrads(c, vjpGrads(c, false, witnessed, dy, training), fast,
                    "fast rule on shape witnesses");
    expectSameGrads(c, vjpGrads(c, true, witnessed, dy, training), fast,
                    "autograd rule on shape witnesses");
  }
}

// diagonal_scan's reverse scan against autograd through its handler, both
// directions, with a padded sample and a masked hole; with only u's
// cotangent wanted, u itself is read for its shape only.
TEST(Vjp, DiagonalScanRuleMatchesAutograd) {
  std::vector<RuntimeValue> primals{uniformDoubles({2, 5, 3}, -1, 1, 150)};
  for (uint64_t i = 0; i < 6; ++i)
    primals.push_back(
        uniformDoubles({3, 4}, i < 2 ? -0.7 : -1, i < 2 ? 0.7 : 1, 151 + i));
  primals.push_back(torch::tensor(
      {{1.0, 1.0, 1.0, 0.0, 0.0}, {1.0, 0.0, 1.0, 1.0, 1.0}}, torch::kDouble));
  Tensor dy = uniformDoubles({2, 5, 3}, -1, 1, 160);
  for (bool reverse : {false, true}) {
    VjpCase c{str(exec::DiagonalScanOp::name),
              {f64({2, 5, 3}), f64({3, 4}), f64({3, 4}), f64({3, 4}),
               f64({3, 4}), f64({3, 4}), f64({3, 4}), f64({2, 5})},
              {0, 1, 2, 3, 4, 5, 6, 7},
              {{"reverse", reverse}},
              f64({2, 5, 3}),
              {0, 1, 2, 3, 4, 5, 6}};
    expectFastRuleMatchesAutograd(c, primals, dy);
    c.gradInputs = {2, 5};
    expectFastRuleMatchesAutograd(c, primals, dy);
    c.gradInputs = {0};
    expectShapeWitnessesSuffice(c, primals, {0}, dy);
  }
}
