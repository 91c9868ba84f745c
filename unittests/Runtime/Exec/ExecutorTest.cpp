// The plan loader and interpreter on hand-written rvnn_exec plans: the
// manifest's file list and hashes, the execution contract, op semantics,
// recurse's per-sample halting, and errors.
#include "rvnn/Runtime/Executor.h"
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Runtime/Ops/ConstantElements.h"
#include "rvnn/Runtime/Ops/NN.h"

#include "PlanJson.h"

#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace rvnn::runtime;
using namespace rvnn::runtime::planjson;
namespace contract = rvnn::contract;
namespace exec = rvnn::contract::ops;

namespace {

constexpr int64_t kDynamic = std::numeric_limits<int64_t>::min();

/// A plan holding `@forward` with these arguments and body, as text.
std::string planText(JsonList args, JsonList body) {
  return planjson::planText(
      {planjson::function("forward", std::move(args), std::move(body))});
}

/// Writes a compiled-model directory holding `@forward` and loads it.
Plan planOf(JsonList args, JsonList body, const std::string &name) {
  return loadPlan(writeModel(
      name,
      {{"plan.json", "plan", planText(std::move(args), std::move(body))}}));
}

std::string loadError(const std::string &directory) {
  try {
    loadPlan(directory);
  } catch (const PlanError &error) {
    return error.what();
  }
  return "(loaded)";
}

std::vector<RuntimeValue> run(const Plan &plan,
                              const std::vector<RuntimeValue> &args,
                              ExecutionContext context = {}) {
  Executor executor(
      plan, [](const std::string &) { return torch::Tensor(); }, context);
  return executor.call("forward", args);
}

} // namespace

TEST(Executor, SliceDropsTheListedUnitDims) {
  // slice %x[0, %off, 0] [%n, 1, 3] [1, 1, 1] dropping dim 1, run with N = 1:
  // the dynamic batch dim of size 1 survives, only dim 1 goes.
  Plan plan = planOf(
      {value(0, type("f32", {-1, 4, 3})), value(1, type("index", {}, false)),
       value(2, type("index", {}, false))},
      {op(exec::SliceOp::name, {0, 1, 2}, {value(3, type("f32", {-1, 3}))},
          {{"static_offsets", {0, kDynamic, 0}},
           {"static_sizes", {kDynamic, 1, 3}},
           {"static_strides", {1, 1, 1}},
           {"dropped_dims", {1}},
           {"operandSegmentSizes", {1, 1, 1, 0}}}),
       returnOp({3})},
      "slice");
  torch::Tensor x = torch::arange(12, torch::kFloat).reshape({1, 4, 3});
  torch::Tensor out =
      std::get<torch::Tensor>(run(plan, {x, int64_t{2}, int64_t{1}}).at(0));
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(torch::equal(out, x.select(1, 2)));
}

TEST(Executor, SliceRejectsDroppingALongerDim) {
  Plan plan = planOf({value(0, type("f32", {2, 3}))},
                     {op(exec::SliceOp::name, {0}, {value(1, type("f32", {3}))},
                         {{"static_offsets", {0, 0}},
                          {"static_sizes", {2, 3}},
                          {"static_strides", {1, 1}},
                          {"dropped_dims", {0}},
                          {"operandSegmentSizes", {1, 0, 0, 0}}}),
                      returnOp({1})},
                     "slice-drop");
  try {
    run(plan, {torch::zeros({2, 3})});
    FAIL() << "dim 0 has size 2 and cannot be dropped";
  } catch (const PlanError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("rvnn_exec.slice: dropped dim 0 is not a unit dim"),
              std::string::npos)
        << error.what();
  }
}

// The integer-array attributes the loader decodes (PlanOp::setAttrs) keep
// their errors: missing or not integers, the op and the attribute named.
TEST(Executor, SliceNamesAMissingOrNonIntegerAttribute) {
  json attrs = {{"static_offsets", {0, 0}},
                {"static_strides", {1, 1}},
                {"dropped_dims", json::array()},
                {"operandSegmentSizes", {1, 0, 0, 0}}};
  for (const auto &[sizes, message] : std::vector<std::pair<json, std::string>>{
           {json(), "missing attribute 'static_sizes'"},
           {json({2, "3"}),
            "attribute 'static_sizes' is not an array of integers"}}) {
    json withSizes = attrs;
    if (!sizes.is_null())
      withSizes["static_sizes"] = sizes;
    Plan plan = planOf({value(0, type("f32", {2, 3}))},
                       {op(exec::SliceOp::name, {0},
                           {value(1, type("f32", {2, 3}))}, withSizes),
                        returnOp({1})},
                       "slice-attrs");
    try {
      run(plan, {torch::zeros({2, 3})});
      FAIL() << "the slice needs integer static_sizes";
    } catch (const PlanError &error) {
      EXPECT_NE(std::string(error.what()).find("rvnn_exec.slice: " + message),
                std::string::npos)
          << error.what();
    }
  }
}

// A window past the source's end (an offset operand the plan computed
// wrongly) is an error naming the dim, not a view of other memory.
TEST(Executor, SliceRejectsAWindowOutsideItsSource) {
  Plan plan = planOf(
      {value(0, type("f32", {2, 5})), value(1, type("index", {}, false))},
      {op(exec::SliceOp::name, {0, 1}, {value(2, type("f32", {2, 3}))},
          {{"static_offsets", {0, kDynamic}},
           {"static_sizes", {2, 3}},
           {"static_strides", {1, 1}},
           {"dropped_dims", std::vector<int64_t>{}},
           {"operandSegmentSizes", {1, 1, 0, 0}}}),
       returnOp({2})},
      "slice-outside");
  torch::Tensor x = torch::arange(10, torch::kFloat).reshape({2, 5});
  EXPECT_TRUE(
      torch::equal(std::get<torch::Tensor>(run(plan, {x, int64_t{2}}).at(0)),
                   x.slice(1, 2, 5)));
  for (int64_t offset : {3, -1}) {
    try {
      run(plan, {x, offset});
      FAIL() << "offset " << offset << " puts the window outside dim 1";
    } catch (const PlanError &error) {
      EXPECT_NE(std::string(error.what())
                    .find("rvnn_exec.slice: dim 1 of the slice (offset " +
                          std::to_string(offset) +
                          ", size 3, stride 1) is outside the source's 5"),
                std::string::npos)
          << error.what();
    }
  }
}

namespace {

/// add_into_window's attributes: a window of columns [offset, offset + 2)
/// of every row of a [3, 5] tensor (offset `offset`, or the operand after
/// `update` when it is kDynamic).
json columnWindow(int64_t offset) {
  return {{"static_offsets", {0, offset}},
          {"static_sizes", {3, 2}},
          {"static_strides", {1, 1}},
          {"dropped_dims", std::vector<int64_t>{}},
          {"operandSegmentSizes", {1, 1, offset == kDynamic ? 1 : 0, 0, 0}}};
}

} // namespace

// The loader marks the operands an op reads last in its region; the
// executor adds into such a buffer and copies any other. `a` is read by two
// add_into_window ops: the first must copy (the second sees `a` unchanged),
// the second may write into it. The third reads a value the return reads
// again.
TEST(Executor, AddIntoWindowCopiesAValueReadAgain) {
  const json x = type("f32", {3, 5});
  Plan plan = planOf(
      {value(0, x), value(1, type("f32", {3, 2})),
       value(2, type("index", {}, false))},
      {op(exec::ElementwiseOp::name, {0, 0}, {value(3, x)}, {{"fn", "add"}}),
       op(exec::AddIntoWindowOp::name, {3, 1, 2}, {value(4, x)},
          columnWindow(kDynamic)),
       op(exec::AddIntoWindowOp::name, {3, 1, 2}, {value(5, x)},
          columnWindow(kDynamic)),
       op(exec::AddIntoWindowOp::name, {4, 1}, {value(6, x)}, columnWindow(3)),
       returnOp({4, 5, 6})},
      "add-into-window");
  const std::vector<PlanOp> &ops = plan.function("forward").body.body;
  EXPECT_EQ(ops[0].lastUses, (std::vector<bool>{false, false}));
  EXPECT_EQ(ops[1].lastUses, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(ops[2].lastUses, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(ops[3].lastUses, (std::vector<bool>{false, false}));
  EXPECT_EQ(ops[4].lastUses, (std::vector<bool>{true, true, true}));

  torch::Tensor in = torch::arange(15, torch::kFloat).reshape({3, 5});
  torch::Tensor update = torch::full({3, 2}, 100.0f);
  std::vector<RuntimeValue> out = run(plan, {in, update, int64_t{1}});
  torch::Tensor once = 2 * in;
  once.slice(1, 1, 3) += update;
  torch::Tensor twice = once.clone();
  twice.slice(1, 3, 5) += update;
  EXPECT_TRUE(torch::equal(std::get<torch::Tensor>(out[0]), once));
  EXPECT_TRUE(torch::equal(std::get<torch::Tensor>(out[1]), once));
  EXPECT_TRUE(torch::equal(std::get<torch::Tensor>(out[2]), twice));
}

// Last reads around a loop: a value its body reads from outside (2x) is
// read last by the loop op, not by the op before (nor inside the body,
// which runs again); a value read twice by one op is not its last read
// there. forward(x) = (6x, a loop of 2 steps from 6x adding 2x = 10x).
TEST(Executor, LastUsesSeeReadsInNestedRegions) {
  const json x = type("f32", {3});
  auto add = [&](int64_t a, int64_t b, int64_t result) {
    return op(exec::ElementwiseOp::name, {a, b}, {value(result, x)},
              {{"fn", "add"}});
  };
  JsonList body = {add(5, 1, 6),
                   op(exec::YieldOp::name, {6}, {}, {{"has_halt", false}})};
  Plan plan = planOf(
      {value(0, x)},
      {add(0, 0, 1), add(1, 0, 2), add(2, 2, 3),
       op(exec::RecurseOp::name, {3}, {value(7, x)},
          {{"halting", "fixed"}, {"steps", 2}, {"operandSegmentSizes", {1, 0}}},
          {{{"args", {value(4, type("index", {}, false)), value(5, x)}},
            {"body", body}}}),
       returnOp({3, 7})},
      "last-uses-nested");
  const std::vector<PlanOp> &ops = plan.function("forward").body.body;
  EXPECT_EQ(ops[1].lastUses, (std::vector<bool>{false, false}));
  EXPECT_EQ(ops[2].lastUses, (std::vector<bool>{false, false}));
  EXPECT_EQ(ops[3].lastUses, (std::vector<bool>{false}));
  EXPECT_EQ(ops[4].lastUses, (std::vector<bool>{true, true}));
  const std::vector<PlanOp> &loop = ops[3].regions.at(0).body;
  EXPECT_EQ(loop[0].lastUses, (std::vector<bool>{false, false}));
  EXPECT_EQ(loop[1].lastUses, (std::vector<bool>{true}));
  torch::Tensor in = torch::tensor({1.0f, 2.0f, 3.0f});
  std::vector<RuntimeValue> out = run(plan, {in});
  EXPECT_TRUE(torch::equal(std::get<torch::Tensor>(out[0]), 6 * in));
  EXPECT_TRUE(torch::equal(std::get<torch::Tensor>(out[1]), 10 * in));
}

// Run by hand on a frame: at its last read a buffer nothing else holds is
// the result; a buffer with a view alive, or one read again later, is
// copied and left as it was. An update of another shape than the window's
// is an error naming both.
/// forward(h0, inc, halt, n) = recurse (h = h0) halting <per_sample>
/// max_steps n { h' = h + inc; yield h' halt %halt }.
Plan haltingPlan() {
  JsonList body = {op(exec::ElementwiseOp::name, {5, 1},
                      {value(6, type("f32", {-1}))}, {{"fn", "add"}}),
                   op(exec::YieldOp::name, {6, 2}, {}, {{"has_halt", true}})};
  json recurse =
      op(exec::RecurseOp::name, {0, 3}, {value(7, type("f32", {-1}))},
         {{"halting", "per_sample"}, {"operandSegmentSizes", {1, 1}}},
         {{{"args",
            {value(4, type("index", {}, false)), value(5, type("f32", {-1}))}},
           {"body", body}}});
  return planOf({value(0, type("f32", {-1})), value(1, type("f32", {-1})),
                 value(2, type("i1", {-1})),
                 value(3, type("index", {}, false))},
                {recurse, returnOp({7})}, "halt");
}

TEST(Executor, PerSampleHaltingFreezesHaltedRows) {
  // Sample 0 halts after the first step: that step's update is kept, later
  // ones are not; the others run all three steps.
  Plan plan = haltingPlan();
  torch::Tensor out = std::get<torch::Tensor>(
      run(plan, {torch::zeros({3}), torch::ones({3}),
                 torch::tensor({true, false, false}), int64_t{3}})
          .at(0));
  EXPECT_TRUE(torch::equal(out, torch::tensor({1.0f, 3.0f, 3.0f}))) << out;
}

TEST(Executor, AllHaltedEndsTheLoopEarly) {
  // Every sample halts at step 1; the bound of 1000 steps is never reached
  // (the host checks every haltSyncEvery steps, frozen rows stay put).
  Plan plan = haltingPlan();
  torch::Tensor out = std::get<torch::Tensor>(
      run(plan, {torch::zeros({2}), torch::ones({2}),
                 torch::tensor({true, true}), int64_t{1000}})
          .at(0));
  EXPECT_TRUE(torch::equal(out, torch::ones({2}))) << out;
}

/// forward(h0, limit, one, n): h counts up by `one` until it reaches the
/// sample's limit, for at most n steps; the body reads the batch only through
/// its state (h, limit), and with `bodyReadsBound` also reads n.
Plan countingPlan(bool bodyReadsBound = false) {
  JsonList body = {
      op(exec::BroadcastLikeOp::name, {2, 5}, {value(7, type("f32", {-1}))}),
      op(exec::ElementwiseOp::name, {5, 7}, {value(8, type("f32", {-1}))},
         {{"fn", "add"}}),
      op(exec::CompareOp::name, {8, 6}, {value(9, type("i1", {-1}))},
         {{"predicate", "oge"}}),
      op(exec::YieldOp::name, {8, 6, 9}, {}, {{"has_halt", true}})};
  if (bodyReadsBound)
    body.insert(body.end() - 1,
                op(exec::IndexArithOp::name, {3, 3},
                   {value(10, type("index", {}, false))}, {{"kind", "add"}}));
  const int64_t out = bodyReadsBound ? 11 : 10; // ids are dense
  json recurse =
      op(exec::RecurseOp::name, {0, 1, 3},
         {value(out, type("f32", {-1})), value(out + 1, type("f32", {-1}))},
         {{"halting", "per_sample"}, {"operandSegmentSizes", {2, 1}}},
         {{{"args",
            {value(4, type("index", {}, false)), value(5, type("f32", {-1})),
             value(6, type("f32", {-1}))}},
           {"body", body}}});
  return planOf({value(0, type("f32", {-1})), value(1, type("f32", {-1})),
                 value(2, type("f32", {1})),
                 value(3, type("index", {}, false))},
                {recurse, returnOp({out})}, "count");
}

/// Runs `plan` with or without compaction of halted samples: its result and
/// the sample-steps its per-sample loop ran.
std::pair<torch::Tensor, int64_t>
runHalting(const Plan &plan, const std::vector<RuntimeValue> &args,
           bool compact) {
  ExecutionProfile profile;
  ExecutionContext context;
  context.profile = &profile;
  context.compactHalted = compact;
  Executor executor(
      plan, [](const std::string &) { return torch::Tensor(); }, context);
  return {std::get<torch::Tensor>(executor.call("forward", args)[0]),
          profile.sampleSteps};
}

TEST(Executor, CompactionDropsHaltedRowsWithSameResult) {
  Plan plan = countingPlan();
  std::vector<RuntimeValue> args{torch::zeros({4}),
                                 torch::tensor({1.0f, 3.0f, 10.0f, 2.0f}),
                                 torch::ones({1}), int64_t{5}};
  auto [a, frozenSteps] = runHalting(plan, args, /*compact=*/false);
  auto [b, compactedSteps] = runHalting(plan, args, /*compact=*/true);
  EXPECT_TRUE(torch::equal(a, torch::tensor({1.0f, 3.0f, 5.0f, 2.0f}))) << a;
  EXPECT_TRUE(torch::equal(a, b)) << b;
  // Freezing runs all 4 rows for 5 steps; compaction runs 4, 3, 2, 1, 1.
  EXPECT_EQ(frozenSteps, 20);
  EXPECT_EQ(compactedSteps, 11);
}

/// Whether autograd's graph behind `tensor` has a node named like `name`.
bool graphHasNode(const torch::Tensor &tensor, const std::string &name) {
  std::vector<torch::autograd::Node *> stack{tensor.grad_fn().get()};
  std::set<torch::autograd::Node *> seen;
  while (!stack.empty()) {
    torch::autograd::Node *node = stack.back();
    stack.pop_back();
    if (!node || !seen.insert(node).second)
      continue;
    if (node->name().find(name) != std::string::npos)
      return true;
    for (const torch::autograd::Edge &edge : node->next_edges())
      stack.push_back(edge.function.get());
  }
  return false;
}

TEST(Executor, OnlyTensorsALoopReadsCollectTheirGradients) {
  torch::Tensor w = torch::ones({4}).requires_grad_();
  ExecutionContext context;
  Plan plan;
  Executor executor(
      plan, [&](const std::string &) { return w; }, context);
  EXPECT_TRUE(
      std::get<torch::Tensor>(runSingleOp(executor, exec::ParamGetOp::name, {},
                                          {"f32", {4}, true}, {{"name", "w"}}))
          .is_same(w));
  // The recurse body reads `inc` from outside: it collects (generated
  // kernels, gradients recorded), the reference path does not.
  for (KernelMode mode : {KernelMode::Generated, KernelMode::Reference}) {
    ExecutionContext loopContext;
    loopContext.kernelMode = mode;
    Plan halting = haltingPlan();
    Executor loopExecutor(
        halting, [](const std::string &) { return torch::Tensor(); },
        loopContext);
    torch::Tensor inc = torch::ones({2}).requires_grad_();
    auto out = std::get<torch::Tensor>(loopExecutor.call(
        "forward", {torch::zeros({2}), inc, torch::tensor({false, false}),
                    int64_t{3}})[0]);
    EXPECT_EQ(graphHasNode(out, "CollectFunction"),
              mode == KernelMode::Generated)
        << kernelModeName(mode);
  }
}

TEST(Executor, LoopInvariantsAreTransposedOnceWhileTheLoopRuns) {
  Plan plan;
  ExecutionContext context;
  Executor executor(
      plan, [](const std::string &) { return torch::Tensor(); }, context);
  const torch::Tensor w = torch::randn({3, 5}), other = torch::randn({3, 5});
  EXPECT_FALSE(executor.transposedInvariant(w).defined()) << "no loop runs";
  executor.pushLoopInvariants({w, torch::randn({4})});
  const torch::Tensor transposed = executor.transposedInvariant(w);
  ASSERT_TRUE(transposed.defined());
  EXPECT_TRUE(transposed.is_contiguous());
  EXPECT_TRUE(torch::equal(transposed, w.t()));
  EXPECT_TRUE(executor.transposedInvariant(w).is_same(transposed));
  // Only the tensors the loop reads from outside, not their views.
  EXPECT_FALSE(executor.transposedInvariant(other).defined());
  EXPECT_FALSE(executor.transposedInvariant(w.view_as(w)).defined());
  // A nested loop sees the outer loop's invariants and its own.
  executor.pushLoopInvariants({other});
  EXPECT_TRUE(executor.transposedInvariant(w).is_same(transposed));
  EXPECT_TRUE(executor.transposedInvariant(other).defined());
  executor.popLoopInvariants();
  EXPECT_FALSE(executor.transposedInvariant(other).defined());
  executor.popLoopInvariants();
  EXPECT_FALSE(executor.transposedInvariant(w).defined());
  // A copy made outside autograd cannot stand in for a recorded product.
  const torch::Tensor weight = torch::randn({3, 5}).requires_grad_();
  executor.pushLoopInvariants({weight});
  EXPECT_FALSE(executor.transposedInvariant(weight).defined());
  torch::NoGradGuard noGrad;
  EXPECT_TRUE(executor.transposedInvariant(weight).defined());
  executor.popLoopInvariants();
}

// A loop body's shape witnesses of what it reads from outside (the hoisted
// gate tensors it slices a step of) are made once for the loop.
TEST(Executor, LoopInvariantsHaveOneShapeWitnessWhileTheLoopRuns) {
  Plan plan;
  ExecutionContext context;
  Executor executor(
      plan, [](const std::string &) { return torch::Tensor(); }, context);
  const torch::Tensor x = torch::randn({2, 3, 4}), other = torch::randn({3});
  EXPECT_FALSE(
      executor.invariantWitness(x).is_same(executor.invariantWitness(x)))
      << "no loop runs";
  executor.pushLoopInvariants({x});
  const torch::Tensor witness = executor.invariantWitness(x);
  EXPECT_EQ(witness.sizes(), x.sizes());
  EXPECT_TRUE(torch::equal(witness, torch::zeros_like(x)));
  EXPECT_TRUE(executor.invariantWitness(x).is_same(witness));
  EXPECT_FALSE(executor.invariantWitness(other).is_same(
      executor.invariantWitness(other)));
  executor.popLoopInvariants();
  EXPECT_FALSE(executor.invariantWitness(x).is_same(witness));
}

TEST(Executor, CompactionIsOffWhenTheBodyCapturesTheBatchSize) {
  // The body reads an integer from outside the loop (the step bound) that
  // equals the batch size: it might size a batch-major value, so the loop
  // only freezes. With any other bound the same body is compacted.
  Plan plan = countingPlan(/*bodyReadsBound=*/true);
  auto sampleSteps = [&](int64_t bound) {
    auto [out, steps] =
        runHalting(plan,
                   {torch::zeros({4}), torch::tensor({1.0f, 3.0f, 10.0f, 2.0f}),
                    torch::ones({1}), bound},
                   /*compact=*/true);
    EXPECT_TRUE(torch::equal(
        out, torch::tensor({1.0f, 3.0f, static_cast<float>(bound), 2.0f})))
        << out;
    return steps;
  };
  EXPECT_EQ(sampleSteps(4), 16); // 4 rows for 4 steps
  EXPECT_EQ(sampleSteps(5), 11); // 4, 3, 2, 1, 1
}

TEST(Executor, CompactionIsOffWhenTheBodyCapturesBatchRows) {
  // haltingPlan's body reads `inc` and `halt` ([N]) from outside the loop:
  // compaction would misalign them, so the loop only freezes.
  auto [out, steps] =
      runHalting(haltingPlan(),
                 {torch::zeros({3}), torch::ones({3}),
                  torch::tensor({true, false, false}), int64_t{3}},
                 /*compact=*/true);
  EXPECT_TRUE(torch::equal(out, torch::tensor({1.0f, 3.0f, 3.0f}))) << out;
  EXPECT_EQ(steps, 9);
}

TEST(Executor, WrongInputShapeNamesTheArgument) {
  Plan plan =
      planOf({value(0, type("f32", {-1, 4}))}, {returnOp({0})}, "shape");
  try {
    run(plan, {torch::zeros({2, 5})});
    FAIL() << "a [2, 5] input for a ?x4 argument must be rejected";
  } catch (const PlanError &error) {
    EXPECT_NE(std::string(error.what()).find("argument #0 has shape [2, 5]"),
              std::string::npos)
        << error.what();
  }
}

/// forward(a, b) = dispatch "forward_k0" (a, b) { sigmoid(x) * y }, without
/// a kernel library (a hand-written model has none).
Plan dispatchPlan() {
  JsonList body = {
      op(exec::SigmoidOp::name, {2}, {value(4, type("f32", {-1}))}),
      op(exec::ElementwiseOp::name, {4, 3}, {value(5, type("f32", {-1}))},
         {{"fn", "mul"}}),
      op(exec::YieldOp::name, {5}, {})};
  json dispatch =
      op(exec::DispatchOp::name, {0, 1}, {value(6, type("f32", {-1}))},
         {{str(exec::DispatchOp::attr::kernel), "forward_k0"}},
         {{{"args", {value(2, type("f32", {-1})), value(3, type("f32", {-1}))}},
           {"body", body}}});
  return planOf({value(0, type("f32", {-1})), value(1, type("f32", {-1}))},
                {dispatch, returnOp({6})}, "dispatch");
}

TEST(Executor, DispatchReferenceRunsItsBody) {
  Plan plan = dispatchPlan();
  EXPECT_EQ(plan.dispatchKernels, std::vector<std::string>{"forward_k0"});
  EXPECT_FALSE(plan.kernels);
  ExecutionContext context;
  context.kernelMode = KernelMode::Reference;
  torch::Tensor a = torch::tensor({-1.0f, 0.0f, 2.0f});
  torch::Tensor b = torch::tensor({3.0f, 4.0f, 5.0f});
  torch::Tensor out = std::get<torch::Tensor>(run(plan, {a, b}, context).at(0));
  EXPECT_TRUE(torch::allclose(out, torch::sigmoid(a) * b)) << out;
}

TEST(Executor, DispatchGeneratedNeedsAKernelLibrary) {
  Plan plan = dispatchPlan();
  try {
    run(plan, {torch::zeros({2}), torch::zeros({2})});
    FAIL() << "generated kernels without a kernel library must be refused";
  } catch (const PlanError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("compiled without a kernel library; recompile or use "
                        "--kernels reference"),
              std::string::npos)
        << error.what();
  }
}

TEST(Executor, KernelModeNames) {
  EXPECT_EQ(parseKernelMode("generated"), KernelMode::Generated);
  EXPECT_EQ(parseKernelMode("reference"), KernelMode::Reference);
  EXPECT_FALSE(parseKernelMode("native"));
  EXPECT_EQ(kernelModeName(KernelMode::Reference), "reference");
}

TEST(Executor, EveryExecutableContractOpHasAHandler) {
  OpRegistry handlers = execOpHandlers();
  for (const contract::OpInfo &info : contract::kOps) {
    bool handledElsewhere =
        info.name == exec::FuncOp::name || info.name == exec::ParamOp::name ||
        info.name == exec::ReturnOp::name || info.name == exec::YieldOp::name;
    EXPECT_EQ(handlers.count(info.name), handledElsewhere ? 0u : 1u)
        << info.name;
  }
  EXPECT_EQ(handlers.size(), contract::kOps.size() - 4);
}

TEST(Loader, OpOutsideTheContractIsRejected) {
  std::string dir = writeModel(
      "outside",
      {{"plan.json", "plan",
        planText({value(0, type("f32", {-1}))},
                 {op("arith.addf", {0, 0}, {value(1, type("f32", {-1}))}),
                  returnOp({1})})}});
  EXPECT_NE(loadError(dir).find("plan.json: test.mlir:1:1: arith.addf: op is "
                                "outside the execution contract"),
            std::string::npos)
      << loadError(dir);
}

TEST(Loader, ContractOpWithoutHandlerIsRejected) {
  // rvnn_exec.param declares a parameter at the top level; it never runs.
  Plan plan =
      planOf({}, {op(exec::ParamOp::name, {}, {}), returnOp({})}, "param");
  try {
    run(plan, {});
    FAIL() << "a param op in a function body must be rejected";
  } catch (const PlanError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("rvnn_exec.param: op is not implemented"),
              std::string::npos)
        << error.what();
  }
}

TEST(Loader, EditedFileFailsItsHash) {
  std::string plan = planText({value(0, type("f32", {-1}))}, {returnOp({0})});
  std::string dir = writeModel("edited", {{"plan.json", "plan", plan}});
  ASSERT_EQ(loadError(dir), "(loaded)");
  std::ofstream(dir + "/plan.json") << plan << ' ';
  EXPECT_EQ(loadError(dir),
            dir + "/manifest.json: files[0]: plan.json: SHA-256 mismatch (the "
                  "file changed after compilation; recompile the model)");
}

TEST(Loader, EveryListedFileIsChecked) {
  std::string plan = planText({value(0, type("f32", {-1}))}, {returnOp({0})});
  // Other roles are accepted when present and hashed.
  std::string dir = writeModel("kernels", {{"plan.json", "plan", plan},
                                           {"kernels.ptx", "kernels", "ptx"}});
  EXPECT_EQ(loadError(dir), "(loaded)");
  std::filesystem::remove(dir + "/kernels.ptx");
  EXPECT_EQ(loadError(dir), dir + "/manifest.json: files[1]: kernels.ptx: "
                                  "listed but missing from the directory");
}

TEST(Loader, ListedPathsStayInsideTheDirectory) {
  std::string plan = planText({value(0, type("f32", {-1}))}, {returnOp({0})});
  std::string dir = writeModel("escape", {{"plan.json", "plan", plan}});
  std::ofstream(dir + "/manifest.json") << json{
      {"format", str(contract::kModelFormat)},
      {"version", contract::kFormatVersion},
      {"files",
       {{{"path", "../rvnn-exec-escape/plan.json"},
         {"role", "plan"},
         {"sha256", sha256Hex(plan)}}}}}.dump();
  EXPECT_NE(loadError(dir).find("files[0]: ../rvnn-exec-escape/plan.json: "
                                "path must be relative and inside"),
            std::string::npos)
      << loadError(dir);
}

TEST(Loader, ExactlyOnePlanAndTheContractVersion) {
  std::string plan = planText({value(0, type("f32", {-1}))}, {returnOp({0})});
  std::string none = writeModel("no-plan", {{"plan.json", "kernels", plan}});
  EXPECT_NE(loadError(none).find("exactly one file with role 'plan'"),
            std::string::npos)
      << loadError(none);
  // The next format version, which this runtime cannot know.
  const int64_t next = contract::kFormatVersion + 1;
  std::string newer = writeModel("newer", {{"plan.json", "plan", plan}});
  std::ifstream in(newer + "/manifest.json");
  json manifest = json::parse(in);
  manifest["version"] = next;
  std::ofstream(newer + "/manifest.json") << manifest.dump();
  EXPECT_EQ(loadError(newer),
            newer + "/manifest.json: format version " + std::to_string(next) +
                " is not supported by this runtime (reads version " +
                std::to_string(contract::kFormatVersion) +
                "); recompile the model with this release");
}

namespace {

/// Runs one handler on operands 0..k-1, returning result k.
class ExecOps : public ::testing::Test {
protected:
  ExecOps()
      : executor(
            plan, [](const std::string &) { return torch::Tensor(); },
            context) {}

  RuntimeValue run(std::string_view opName, std::vector<RuntimeValue> operands,
                   ValueType resultType, json attrs = json::object()) {
    return runSingleOp(executor, opName, std::move(operands),
                       std::move(resultType), std::move(attrs));
  }

  torch::Tensor tensor(std::string_view opName,
                       std::vector<RuntimeValue> operands, ValueType type,
                       json attrs = json::object()) {
    return std::get<torch::Tensor>(
        run(opName, std::move(operands), std::move(type), std::move(attrs)));
  }

  /// An op `opName` of operands 0 and 1 and result 2, at test.mlir:1:1, for
  /// a test that runs its handler on a frame of its own.
  static PlanOp binaryOp(std::string_view opName, ValueType resultType,
                         json attrs) {
    PlanOp op;
    op.name = str(opName);
    op.loc = "test.mlir:1:1";
    op.operands = {0, 1};
    op.results = {2};
    op.resultTypes = {std::move(resultType)};
    op.setAttrs(std::move(attrs));
    return op;
  }

  int64_t integer(contract::IndexArithKind kind, int64_t a, int64_t b) {
    return std::get<int64_t>(run(exec::IndexArithOp::name, {a, b},
                                 {"index", {}, false},
                                 {{"kind", str(contract::keyword(kind))}}));
  }

  Plan plan;
  ExecutionContext context;
  Executor executor;
};

} // namespace

TEST_F(ExecOps, AddIntoWindowWritesOnlyIntoASoleBuffer) {
  PlanOp add =
      binaryOp(exec::AddIntoWindowOp::name, {"f32", {3, 5}}, columnWindow(1));
  const torch::Tensor update = torch::ones({3, 2});
  torch::Tensor expected = torch::zeros({3, 5});
  expected.slice(1, 1, 3) += 1;
  // Returns whether the result is `into`'s buffer, checking its value and
  // that a copied `into` is unchanged.
  auto writesInPlace = [&](bool lastUse, bool keepView) {
    add.lastUses = {lastUse, false};
    Frame frame(3);
    torch::Tensor into = torch::zeros({3, 5});
    const void *buffer = into.data_ptr();
    torch::Tensor view = keepView ? into.select(0, 0) : torch::Tensor();
    frame.bind(0, std::move(into));
    frame.bind(1, update);
    execOpHandlers().at(add.name)(executor, add, frame);
    torch::Tensor result = std::get<torch::Tensor>(frame.get(add, 2));
    EXPECT_TRUE(torch::equal(result, expected));
    if (keepView) {
      EXPECT_TRUE(torch::equal(view, torch::zeros({5})));
    }
    if (!lastUse) {
      EXPECT_TRUE(torch::equal(frame.tensor(add, 0), torch::zeros({3, 5})));
    }
    return result.data_ptr() == buffer;
  };
  EXPECT_TRUE(writesInPlace(/*lastUse=*/true, /*keepView=*/false));
  EXPECT_FALSE(writesInPlace(/*lastUse=*/true, /*keepView=*/true));
  EXPECT_FALSE(writesInPlace(/*lastUse=*/false, /*keepView=*/false));

  Frame frame(3);
  frame.bind(0, torch::zeros({3, 5}));
  frame.bind(1, torch::ones({2, 2}));
  try {
    execOpHandlers().at(add.name)(executor, add, frame);
    FAIL() << "a [2, 2] update does not fit a [3, 2] window";
  } catch (const PlanError &error) {
    EXPECT_EQ(std::string(error.what()),
              "test.mlir:1:1: rvnn_exec.add_into_window: update of shape "
              "[2, 2] for a window of shape [3, 2]");
  }
}

TEST_F(ExecOps, AddWritesIntoAnOperandItReadsLast) {
  PlanOp add =
      binaryOp(exec::ElementwiseOp::name, {"f32", {3, 5}}, {{"fn", "add"}});
  // Which operand's buffer the sum took (-1: a new one), checking the sum
  // and that an operand read again is unchanged.
  auto writtenInto = [&](std::vector<bool> lastUses, torch::Tensor a,
                         torch::Tensor b) {
    add.lastUses = lastUses;
    const torch::Tensor expected = a + b, aBefore = a.clone(),
                        bBefore = b.clone();
    const void *buffers[] = {a.data_ptr(), b.data_ptr()};
    Frame frame(3);
    frame.bind(0, std::move(a));
    frame.bind(1, std::move(b));
    execOpHandlers().at(add.name)(executor, add, frame);
    torch::Tensor result = std::get<torch::Tensor>(frame.get(add, 2));
    EXPECT_TRUE(torch::equal(result, expected));
    if (!lastUses[0]) {
      EXPECT_TRUE(torch::equal(frame.tensor(add, 0), aBefore));
    }
    if (!lastUses[1]) {
      EXPECT_TRUE(torch::equal(frame.tensor(add, 1), bBefore));
    }
    for (int i : {0, 1})
      if (result.data_ptr() == buffers[i])
        return i;
    return -1;
  };
  auto full = [] { return torch::rand({3, 5}); };
  EXPECT_EQ(writtenInto({true, false}, full(), full()), 0);
  EXPECT_EQ(writtenInto({false, true}, full(), full()), 1);
  EXPECT_EQ(writtenInto({false, false}, full(), full()), -1);
  // A broadcast operand cannot hold the sum; the full one can.
  EXPECT_EQ(writtenInto({true, false}, torch::rand({3, 1}), full()), -1);
  EXPECT_EQ(writtenInto({true, true}, torch::rand({3, 1}), full()), 1);
  // Nor can one whose storage a view shares.
  torch::Tensor view;
  auto viewed = [&] {
    torch::Tensor viewedTensor = full();
    view = viewedTensor.select(0, 0);
    return viewedTensor;
  };
  EXPECT_EQ(writtenInto({true, false}, viewed(), full()), -1);
}

TEST_F(ExecOps, GemmTransposedMatrixIsTheLinearLayer) {
  torch::manual_seed(0);
  auto x = torch::randn({5, 3, 8});
  auto w = torch::randn({4, 8});
  auto b = torch::randn({4});
  auto acc = torch::randn({5, 3, 4});
  ValueType out{"f32", {5, 3, 4}, true};
  json transposed = {{"transpose_rhs", true},
                     {"operandSegmentSizes", {1, 1, 1, 0}}};
  // The generated-kernel product (ops::jitProduct) where the build has it
  // sums in another order than the BLAS: equal up to float rounding.
  EXPECT_TRUE(
      torch::allclose(tensor(exec::GemmOp::name, {x, w, b}, out, transposed),
                      ops::linear(x, w, b), 1e-5, 1e-6));
  json accumulating = {{"transpose_rhs", true},
                       {"operandSegmentSizes", {1, 1, 1, 1}}};
  EXPECT_TRUE(torch::allclose(
      tensor(exec::GemmOp::name, {x, w, b, acc}, out, accumulating),
      acc + ops::linear(x, w, b), 1e-5, 1e-6));
}

TEST_F(ExecOps, GemmBatchedWithAccumulatorAndTransposedBatch) {
  torch::manual_seed(0);
  auto lhs = torch::randn({2, 3, 4});
  auto rhs = torch::randn({2, 4, 5});
  auto acc = torch::randn({2, 3, 5});
  ValueType out{"f32", {2, 3, 5}, true};
  // Three rows a batch entry take one BLAS gemv a row (FewRowProduct.h):
  // ATen's rounding, not its bits.
  EXPECT_TRUE(torch::allclose(tensor(exec::GemmOp::name, {lhs, rhs, acc}, out,
                                     {{"operandSegmentSizes", {1, 1, 0, 1}}}),
                              acc + torch::matmul(lhs, rhs)));
  auto bias = torch::randn({5});
  auto rhsT = rhs.transpose(1, 2).contiguous();
  EXPECT_TRUE(torch::allclose(
      tensor(exec::GemmOp::name, {lhs, rhsT, bias}, out,
             {{"transpose_rhs", true}, {"operandSegmentSizes", {1, 1, 1, 0}}}),
      torch::matmul(lhs, rhs) + bias));
}

TEST_F(ExecOps, ComparePredicatesFollowIeee) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Pairs: less, equal, greater, NaN on the left, NaN on the right.
  auto a = torch::tensor({1.0, 2.0, 3.0, nan, 1.0}, torch::kFloat);
  auto b = torch::tensor({2.0, 2.0, 2.0, 1.0, nan}, torch::kFloat);
  const std::vector<std::pair<std::string, std::vector<bool>>> expected = {
      {"false", {0, 0, 0, 0, 0}}, {"oeq", {0, 1, 0, 0, 0}},
      {"ogt", {0, 0, 1, 0, 0}},   {"oge", {0, 1, 1, 0, 0}},
      {"olt", {1, 0, 0, 0, 0}},   {"ole", {1, 1, 0, 0, 0}},
      {"one", {1, 0, 1, 0, 0}},   {"ord", {1, 1, 1, 0, 0}},
      {"ueq", {0, 1, 0, 1, 1}},   {"ugt", {0, 0, 1, 1, 1}},
      {"uge", {0, 1, 1, 1, 1}},   {"ult", {1, 0, 0, 1, 1}},
      {"ule", {1, 1, 0, 1, 1}},   {"une", {1, 0, 1, 1, 1}},
      {"uno", {0, 0, 0, 1, 1}},   {"true", {1, 1, 1, 1, 1}},
  };
  for (const auto &[predicate, bits] : expected) {
    torch::Tensor got = tensor(exec::CompareOp::name, {a, b}, {"i1", {5}, true},
                               {{"predicate", predicate}});
    std::vector<int64_t> want(bits.begin(), bits.end());
    EXPECT_TRUE(torch::equal(got.to(torch::kLong), torch::tensor(want)))
        << predicate << ": got " << got;
  }
}

TEST_F(ExecOps, UnknownKeywordNamesTheOp) {
  auto a = torch::zeros({2});
  try {
    run(exec::CompareOp::name, {a, a}, {"i1", {2}, true},
        {{"predicate", "sometimes"}});
    FAIL() << "an unknown predicate must be rejected";
  } catch (const PlanError &error) {
    EXPECT_STREQ(error.what(), "test.mlir:1:1: rvnn_exec.compare: unknown "
                               "predicate 'sometimes'");
  }
}

TEST_F(ExecOps, ConvertMapsTrueToOne) {
  auto got = tensor(exec::ConvertOp::name, {torch::tensor({true, false, true})},
                    {"f32", {3}, true});
  EXPECT_TRUE(torch::equal(got, torch::tensor({1.0f, 0.0f, 1.0f})));
  EXPECT_THROW(
      run(exec::ConvertOp::name, {torch::ones({3})}, {"f32", {3}, true}),
      PlanError);
}

TEST_F(ExecOps, ElementwiseFunctions) {
  auto x = torch::tensor({-1.0f, 0.5f, 2.0f});
  auto y = torch::tensor({3.0f, -0.5f, 1.0f});
  ValueType f32{"f32", {3}, true};
  EXPECT_TRUE(torch::equal(
      tensor(exec::ElementwiseOp::name, {x}, f32, {{"fn", "tanh"}}),
      torch::tanh(x)));
  EXPECT_TRUE(torch::equal(
      tensor(exec::ElementwiseOp::name, {x, y}, f32, {{"fn", "max"}}),
      torch::maximum(x, y)));
  EXPECT_TRUE(torch::equal(tensor(exec::ElementwiseOp::name,
                                  {torch::tensor({true, false, false}),
                                   torch::tensor({false, false, true})},
                                  {"i1", {3}, true}, {{"fn", "or"}}),
                           torch::tensor({true, false, true})));
  EXPECT_THROW(run(exec::ElementwiseOp::name, {x}, f32, {{"fn", "add"}}),
               PlanError);
}

TEST_F(ExecOps, ProductWithBroadcastOnesIsTheOtherOperand) {
  auto x = torch::tensor({{-1.0f, 0.5f}, {2.0f, 3.0f}});
  ValueType f32{"f32", {2, 2}, true};
  auto ones = ops::broadcastConstant(ops::Constant::One, x, x.sizes());
  EXPECT_TRUE(tensor(exec::ElementwiseOp::name, {x, ones}, f32, {{"fn", "mul"}})
                  .is_same(x));
  EXPECT_TRUE(tensor(exec::ElementwiseOp::name, {ones, x}, f32, {{"fn", "mul"}})
                  .is_same(x));
  // Ones made otherwise, or of another shape, are multiplied.
  auto row = ops::broadcastConstant(ops::Constant::One, x, {2});
  torch::Tensor product =
      tensor(exec::ElementwiseOp::name, {x, row}, f32, {{"fn", "mul"}});
  EXPECT_FALSE(product.is_same(x));
  EXPECT_TRUE(torch::equal(product, x));
  EXPECT_FALSE(tensor(exec::ElementwiseOp::name, {x, torch::ones({2, 2})}, f32,
                      {{"fn", "mul"}})
                   .is_same(x));
}

TEST_F(ExecOps, ConcatOfAdjacentWindowsIsAView) {
  auto base = torch::arange(24, torch::kFloat).reshape({3, 8});
  auto concat = [&](std::vector<RuntimeValue> parts, int64_t dim,
                    std::vector<int64_t> shape) {
    return tensor(exec::ConcatOp::name, std::move(parts),
                  {"f32", std::move(shape), true}, {{"dim", dim}});
  };
  auto w0 = base.narrow(1, 0, 2), w1 = base.narrow(1, 2, 3),
       w2 = base.narrow(1, 5, 3);
  // Side by side, in order: a view of the buffer they lie in.
  torch::Tensor whole = concat({w0, w1, w2}, 1, {3, 8});
  EXPECT_TRUE(torch::equal(whole, base));
  EXPECT_EQ(whole.data_ptr(), base.data_ptr());
  torch::Tensor part = concat({w1, w2}, 1, {3, 6});
  EXPECT_TRUE(part.is_alias_of(base));
  EXPECT_TRUE(torch::equal(part, base.narrow(1, 2, 6)));
  // Rows of windows with a unit dim between (the GRC cell's children).
  torch::Tensor rows =
      concat({w0.narrow(1, 0, 1).unsqueeze(1), w0.narrow(1, 1, 1).unsqueeze(1)},
             1, {3, 2, 1});
  EXPECT_TRUE(rows.is_alias_of(base));
  EXPECT_TRUE(torch::equal(rows, w0.unsqueeze(-1)));
  // Out of order, with a gap, or tracked by autograd: copied.
  for (const auto &parts : {std::vector<torch::Tensor>{w1, w0, w2},
                            std::vector<torch::Tensor>{w0, w2, w1}}) {
    torch::Tensor copy = concat({parts[0], parts[1], parts[2]}, 1, {3, 8});
    EXPECT_FALSE(copy.is_alias_of(base));
    EXPECT_TRUE(torch::equal(copy, torch::cat(parts, 1)));
  }
  torch::Tensor tracked = base.clone().requires_grad_(true);
  torch::Tensor joined =
      concat({tracked.narrow(1, 0, 4), tracked.narrow(1, 4, 4)}, 1, {3, 8});
  EXPECT_FALSE(joined.is_alias_of(tracked));
  joined.sum().backward();
  EXPECT_TRUE(torch::equal(tracked.grad(), torch::ones({3, 8})));
}

TEST_F(ExecOps, IndexArithRoundsAsDocumented) {
  using Kind = contract::IndexArithKind;
  EXPECT_EQ(integer(Kind::floordiv, -7, 2), -4);
  EXPECT_EQ(integer(Kind::ceildiv, -7, 2), -3);
  EXPECT_EQ(integer(Kind::ceildiv, 7, 2), 4);
  EXPECT_EQ(integer(Kind::div, -7, 2), -3);
  EXPECT_EQ(integer(Kind::rem, -7, 2), -1);
  EXPECT_EQ(integer(Kind::bit_or, 4, 1), 5);
  EXPECT_EQ(integer(Kind::min, 4, 1), 1);
  EXPECT_THROW(integer(Kind::div, 1, 0), PlanError);
}

TEST_F(ExecOps, AllocAndReshapeTakeOneSizePerDynamicDim) {
  auto zeros =
      tensor(exec::AllocOp::name, {int64_t{2}}, {"f32", {-1, 3}, true});
  EXPECT_TRUE(torch::equal(zeros, torch::zeros({2, 3})));
  auto x = torch::arange(6, torch::kFloat);
  EXPECT_TRUE(torch::equal(
      tensor(exec::ReshapeOp::name, {x, int64_t{3}}, {"f32", {-1, 2}, true}),
      x.reshape({3, 2})));
  EXPECT_THROW(run(exec::AllocOp::name, {}, {"f32", {-1, 3}, true}), PlanError);
}
