// Generated kernels (kernels.so, rvnn-memref-v4) against the reference
// bodies of their dispatches: small f64 and f32 models compiled with the
// compiler facade into a temporary directory, run with KernelMode::Generated
// and KernelMode::Reference. Forward results, backward (the kernels'
// compiler-derived _grad against ATen autograd of the bodies, and against
// central finite differences), and the load-time checks of the kernel
// library (SHA-256, missing file, missing symbol, ABI).
#include "rvnn/Compiler/Compile.h"
#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/KernelLibrary.h"

#include "GradCheck.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include <unistd.h>

#include <gtest/gtest.h>
#include <torch/torch.h>

using namespace rvnn::runtime;
using nlohmann::json;
namespace fs = std::filesystem;
using torch::Tensor;

namespace {

/// Two elementwise chains on same-shaped inputs (one of them read through a
/// broadcast view, so not contiguous; the first with two results, %p and
/// %y1) and a per-sample-halting loop whose body is a chain: three
/// dispatches. TYPE is f32 or f64.
constexpr const char *kModel = R"mlir(
func.func @forward(%a: tensor<?x5xTYPE>, %b: tensor<?x5xTYPE>,
                   %g: tensor<?x5xTYPE>, %halt: tensor<?xi1>)
    -> (tensor<?x5xTYPE>, tensor<?x5xTYPE>, tensor<?x5xTYPE>,
        tensor<?x5xTYPE>) {
  %c1 = arith.constant dense<1.0> : tensor<1x1xTYPE>
  %one = rvnn.broadcast_like %c1, %a
      : (tensor<1x1xTYPE>, tensor<?x5xTYPE>) -> tensor<?x5xTYPE>
  // sigmoid(a) * b + tanh(a) - exp(b) / (1 + a * a)
  %sa = rvnn.sigmoid %a : tensor<?x5xTYPE>
  %p = arith.mulf %sa, %b : tensor<?x5xTYPE>
  %ta = math.tanh %a : tensor<?x5xTYPE>
  %q = arith.addf %p, %ta : tensor<?x5xTYPE>
  %eb = math.exp %b : tensor<?x5xTYPE>
  %aa = arith.mulf %a, %a : tensor<?x5xTYPE>
  %den = arith.addf %one, %aa : tensor<?x5xTYPE>
  %r = arith.divf %eb, %den : tensor<?x5xTYPE>
  %y1 = arith.subf %q, %r : tensor<?x5xTYPE>
  // gate(sigmoid(g), max(gelu(b), relu(a)), min(a, b))
  %ge = rvnn.gelu %b : tensor<?x5xTYPE>
  %re = rvnn.relu %a : tensor<?x5xTYPE>
  %mx = arith.maximumf %ge, %re : tensor<?x5xTYPE>
  %mn = arith.minimumf %a, %b : tensor<?x5xTYPE>
  %sg = rvnn.sigmoid %g : tensor<?x5xTYPE>
  %y2 = rvnn.gate %sg, %mx, %mn
      : (tensor<?x5xTYPE>, tensor<?x5xTYPE>, tensor<?x5xTYPE>) -> tensor<?x5xTYPE>
  // s <- tanh(s) * sigmoid(s) + s, three steps, halted samples frozen.
  %h = rvnn.recurse (%s = %y1) : tensor<?x5xTYPE> halting <per_sample> steps = 3 {
  ^bb0(%t: index, %s: tensor<?x5xTYPE>):
    %u = math.tanh %s : tensor<?x5xTYPE>
    %v = rvnn.sigmoid %s : tensor<?x5xTYPE>
    %w = arith.mulf %u, %v : tensor<?x5xTYPE>
    %x = arith.addf %w, %s : tensor<?x5xTYPE>
    rvnn.yield %x halt %halt : tensor<?x5xTYPE>, tensor<?xi1>
  }
  return %y1, %y2, %h, %p
      : tensor<?x5xTYPE>, tensor<?x5xTYPE>, tensor<?x5xTYPE>, tensor<?x5xTYPE>
}
)mlir";

std::string readAll(const fs::path &file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path &file, const std::string &bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

fs::path scratch() {
  return fs::path(testing::TempDir()) /
         ("rvnn-kernels-" + std::to_string(::getpid()));
}

/// Removes the scratch directory after the tests.
class ScratchCleanup : public testing::Environment {
public:
  void TearDown() override { fs::remove_all(scratch()); }
};
[[maybe_unused]] testing::Environment *const cleanup =
    testing::AddGlobalTestEnvironment(new ScratchCleanup);

/// Compiles `source` once per process under `name`; returns the model
/// directory.
const std::string &compiledSource(const std::string &name,
                                  const std::string &source) {
  static std::map<std::string, std::string> models;
  auto it = models.find(name);
  if (it != models.end())
    return it->second;
  fs::path dir = scratch() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeAll(dir / "model.mlir", source);
  std::string model = (dir / "model").string();
  bool ok =
      rvnn::compiler::compileModel({(dir / "model.mlir").string(), "", model});
  EXPECT_TRUE(ok) << "compiling the test model " << name << " failed";
  return models[name] = model;
}

/// kModel for `dtype`.
const std::string &compiled(const std::string &dtype) {
  return compiledSource(dtype,
                        std::regex_replace(kModel, std::regex("TYPE"), dtype));
}

/// A copy of a compiled model that a test may break.
fs::path copyOf(const std::string &model, const std::string &name) {
  fs::path copy = scratch() / name;
  fs::remove_all(copy);
  fs::copy(model, copy, fs::copy_options::recursive);
  return copy;
}

/// Rewrites the manifest's entry for `path` to the file's current SHA-256.
void rehash(const fs::path &dir, const std::string &path) {
  json manifest = json::parse(readAll(dir / "manifest.json"));
  for (json &file : manifest["files"])
    if (file["path"] == path)
      file["sha256"] = sha256Hex(readAll(dir / path));
  writeAll(dir / "manifest.json", manifest.dump(2));
}

std::string loadError(const fs::path &dir) {
  try {
    loadPlan(dir.string());
  } catch (const PlanError &error) {
    return error.what();
  }
  return "(loaded)";
}

struct Inputs {
  std::vector<Tensor> floats; ///< a, b, g: the differentiable inputs
  Tensor halt;
};

Inputs makeInputs(torch::ScalarType dtype) {
  const int64_t batch = 6;
  Inputs in;
  for (uint64_t seed : {11u, 12u, 13u})
    in.floats.push_back(
        rvnn::runtime::ops::testing::uniformDoubles({batch, 5}, -2.0, 2.0, seed)
            .to(dtype));
  in.halt = torch::tensor({false, true, false, false, true, false});
  return in;
}

std::vector<Tensor> run(const Plan &plan, KernelMode mode,
                        const std::vector<Tensor> &floats, const Tensor &halt) {
  ExecutionContext context;
  context.kernelMode = mode;
  Executor executor(
      plan, [](const std::string &) { return Tensor(); }, context);
  std::vector<RuntimeValue> args(floats.begin(), floats.end());
  args.emplace_back(halt);
  std::vector<Tensor> results;
  for (const RuntimeValue &value : executor.call("forward", args))
    results.push_back(std::get<Tensor>(value));
  return results;
}

double maxRelativeError(const Tensor &actual, const Tensor &expected) {
  Tensor a = actual.to(torch::kDouble), e = expected.to(torch::kDouble);
  return ((a - e).abs() / e.abs().clamp_min(1.0)).max().item<double>();
}

class GeneratedKernelTest : public testing::TestWithParam<std::string> {
protected:
  torch::ScalarType dtype() const {
    return GetParam() == "f64" ? torch::kDouble : torch::kFloat;
  }
  double forwardTolerance() const { return GetParam() == "f64" ? 1e-12 : 1e-5; }
  double backwardTolerance() const {
    return GetParam() == "f64" ? 1e-10 : 1e-5;
  }
};

TEST_P(GeneratedKernelTest, PlanHasDispatchesAndLibrary) {
  Plan plan = loadPlan(compiled(GetParam()));
  EXPECT_EQ(plan.dispatchKernels.size(), 3u)
      << "the compile pipeline should fuse the model into three dispatches";
  ASSERT_TRUE(plan.kernels);
  EXPECT_EQ(plan.kernelLibraryFile, "kernels.so");
  for (const std::string &name : plan.dispatchKernels) {
    EXPECT_NE(plan.kernels->kernel(name).forward, nullptr);
    EXPECT_NE(plan.kernels->kernel(name).backward, nullptr);
  }
}

TEST_P(GeneratedKernelTest, ForwardMatchesReference) {
  Plan plan = loadPlan(compiled(GetParam()));
  Inputs in = makeInputs(dtype());
  std::vector<Tensor> generated =
      run(plan, KernelMode::Generated, in.floats, in.halt);
  std::vector<Tensor> reference =
      run(plan, KernelMode::Reference, in.floats, in.halt);
  ASSERT_EQ(generated.size(), reference.size());
  for (size_t i = 0; i < generated.size(); ++i) {
    EXPECT_EQ(generated[i].scalar_type(), dtype());
    EXPECT_LE(maxRelativeError(generated[i], reference[i]), forwardTolerance())
        << "result #" << i;
  }
}

TEST_P(GeneratedKernelTest, BackwardMatchesReferenceAutograd) {
  Plan plan = loadPlan(compiled(GetParam()));
  Inputs in = makeInputs(dtype());
  auto gradients = [&](KernelMode mode) {
    std::vector<Tensor> leaves;
    for (const Tensor &x : in.floats)
      leaves.push_back(x.clone().requires_grad_(true));
    std::vector<Tensor> results = run(plan, mode, leaves, in.halt);
    // %y1 is a dispatch result: the generated kernel's autograd node, or
    // the last reference op's.
    bool generatedNode = results[0].grad_fn()->name().find(
                             "GeneratedKernelFunction") != std::string::npos;
    EXPECT_EQ(generatedNode, mode == KernelMode::Generated)
        << results[0].grad_fn()->name();
    Tensor loss = torch::zeros({}, leaves[0].options());
    for (size_t i = 0; i < results.size(); ++i)
      loss = loss + (results[i] * torch::arange(1, results[i].numel() + 1,
                                                results[i].options())
                                      .sin()
                                      .mul(static_cast<double>(i + 1))
                                      .view(results[i].sizes()))
                        .sum();
    return torch::autograd::grad({loss}, leaves);
  };
  std::vector<Tensor> generated = gradients(KernelMode::Generated);
  std::vector<Tensor> reference = gradients(KernelMode::Reference);
  for (size_t i = 0; i < generated.size(); ++i)
    EXPECT_LE(maxRelativeError(generated[i], reference[i]), backwardTolerance())
        << "gradient of input #" << i;
}

/// The kernels take operands whose rows are strided as they are
/// (rvnn-memref-v4): a column window of a wider tensor, a row broadcast
/// (row stride 0) or a broadcast scalar (every stride 0, passed as one row of
/// it), and a transposed tensor (innermost stride not 1, copied first) give
/// what their contiguous copies give, forward and backward.
TEST_P(GeneratedKernelTest, StridedOperandsMatchContiguousOnes) {
  Plan plan = loadPlan(compiled(GetParam()));
  Inputs in = makeInputs(dtype());
  Tensor wide = torch::zeros({6, 9}, in.floats[0].options());
  wide.narrow(1, 2, 5).copy_(in.floats[0]);
  Tensor transposed = in.floats[2].t().contiguous();
  for (Tensor broadcast : {in.floats[1].narrow(0, 0, 1).clone(),
                           in.floats[1].narrow(0, 0, 1).narrow(1, 0, 1)}) {
    SCOPED_TRACE("broadcast " + c10::str(broadcast.sizes()));
    auto outputsAndGradients = [&](bool strided) {
      std::vector<Tensor> leaves{wide.clone().requires_grad_(true),
                                 broadcast.clone().requires_grad_(true),
                                 transposed.clone().requires_grad_(true)};
      std::vector<Tensor> operands{leaves[0].narrow(1, 2, 5),
                                   leaves[1].expand({6, 5}), leaves[2].t()};
      EXPECT_EQ(operands[0].stride(0), 9);
      EXPECT_EQ(operands[1].stride(0), 0);
      EXPECT_NE(operands[2].stride(1), 1);
      if (!strided)
        for (Tensor &operand : operands)
          operand = operand.contiguous();
      std::vector<Tensor> results =
          run(plan, KernelMode::Generated, operands, in.halt);
      Tensor loss = torch::zeros({}, wide.options());
      for (size_t i = 0; i < results.size(); ++i)
        loss = loss + results[i].mul(static_cast<double>(i + 1)).sin().sum();
      std::vector<Tensor> gradients = torch::autograd::grad({loss}, leaves);
      results.insert(results.end(), gradients.begin(), gradients.end());
      return results;
    };
    std::vector<Tensor> strided = outputsAndGradients(true);
    std::vector<Tensor> contiguous = outputsAndGradients(false);
    ASSERT_EQ(strided.size(), contiguous.size());
    for (size_t i = 0; i < strided.size(); ++i)
      EXPECT_LE(maxRelativeError(strided[i], contiguous[i]), forwardTolerance())
          << "result or gradient #" << i;
  }
}

TEST_P(GeneratedKernelTest, UnusedResultHasUndefinedGradient) {
  // Only %y1 feeds the loss, so the gradient of the first dispatch's other
  // result (%p) is undefined: zeros for the generated backward.
  Plan plan = loadPlan(compiled(GetParam()));
  Inputs in = makeInputs(dtype());
  auto gradient = [&](KernelMode mode) {
    Tensor a = in.floats[0].clone().requires_grad_(true);
    std::vector<Tensor> results =
        run(plan, mode, {a, in.floats[1], in.floats[2]}, in.halt);
    return torch::autograd::grad({results[0].sum()}, {a})[0];
  };
  EXPECT_LE(maxRelativeError(gradient(KernelMode::Generated),
                             gradient(KernelMode::Reference)),
            backwardTolerance());
}

namespace {

/// `vjp (primals) cotangents (cotangents) grad_inputs [all]` around a copy
/// of the plan's dispatch `dispatch`, with fresh value ids from `firstId`
/// for the primals, then the cotangents, then the results.
PlanOp vjpOfDispatch(const PlanOp &dispatch, int64_t firstId) {
  namespace exec = rvnn::contract::ops;
  const PlanRegion &kernelBody = dispatch.regions.at(0);
  const int64_t numPrimals = static_cast<int64_t>(dispatch.operands.size());
  const int64_t numResults = static_cast<int64_t>(dispatch.results.size());
  PlanOp vjp;
  vjp.name = std::string(exec::VjpOp::name);
  vjp.loc = "test.mlir:1:1";
  std::vector<int64_t> gradInputs;
  for (int64_t i = 0; i < numPrimals + numResults; ++i)
    vjp.operands.push_back(firstId + i);
  for (int64_t i = 0; i < numPrimals; ++i) {
    gradInputs.push_back(i);
    vjp.results.push_back(firstId + numPrimals + numResults + i);
    vjp.resultTypes.push_back(kernelBody.argTypes.at(i));
  }
  vjp.setAttrs({{"operandSegmentSizes", {numPrimals, numResults}},
                {"grad_inputs", gradInputs}});
  PlanOp yield;
  yield.name = std::string(exec::YieldOp::name);
  yield.operands = dispatch.results;
  PlanRegion body;
  body.args = dispatch.operands;
  body.argTypes = kernelBody.argTypes;
  body.body = {dispatch, yield};
  vjp.regions.push_back(body);
  return vjp;
}

} // namespace

namespace {

/// The vjp (vjpOfDispatch) of the first dispatch of a plan's forward, run
/// by itself on given primals and cotangents.
struct DispatchVjp {
  explicit DispatchVjp(const Plan &plan) : plan(plan) {
    const PlanFunction &forward = plan.function("forward");
    for (const PlanOp &op : forward.body.body)
      if (op.name == rvnn::contract::ops::DispatchOp::name) {
        firstId = forward.numValues;
        vjp = vjpOfDispatch(op, firstId);
        numPrimals = static_cast<int64_t>(op.operands.size());
        numResults = static_cast<int64_t>(op.results.size());
        break;
      }
  }

  /// The primals' cotangents: `values` holds the primals, then the
  /// results' cotangents. `profile`, if given, counts the ops run.
  std::vector<Tensor> run(KernelMode mode, const std::vector<Tensor> &values,
                          ExecutionProfile *profile = nullptr) const {
    ExecutionContext context;
    context.kernelMode = mode;
    context.profile = profile;
    Executor executor(
        plan, [](const std::string &) { return Tensor(); }, context);
    Frame frame(firstId + 2 * numPrimals + numResults);
    for (size_t i = 0; i < values.size(); ++i)
      frame.bind(firstId + static_cast<int64_t>(i), values[i]);
    execOpHandlers().at(vjp.name)(executor, vjp, frame);
    std::vector<Tensor> result;
    for (int64_t id : vjp.results)
      result.push_back(std::get<Tensor>(frame.get(vjp, id)));
    return result;
  }

  const Plan &plan;
  PlanOp vjp;
  int64_t firstId = 0, numPrimals = 0, numResults = 0;
};

/// [6, 5] values in [-2, 2] of `dtype`, one per seed from `firstSeed`.
std::vector<Tensor> uniformValues(int64_t count, uint64_t firstSeed,
                                  torch::ScalarType dtype) {
  std::vector<Tensor> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(rvnn::runtime::ops::testing::uniformDoubles(
                         {6, 5}, -2.0, 2.0, firstSeed + i)
                         .to(dtype));
  return values;
}

} // namespace

TEST_P(GeneratedKernelTest, VjpOfDispatchCallsTheGeneratedBackward) {
  // The vjp's fast rule for a dispatch under generated kernels is the
  // kernel's _grad entry point; under reference kernels it is autograd
  // through the dispatch's body. Both must agree.
  Plan plan = loadPlan(compiled(GetParam()));
  DispatchVjp vjp(plan);
  ASSERT_GT(vjp.numPrimals, 0);
  const std::vector<Tensor> values =
      uniformValues(vjp.numPrimals + vjp.numResults, 40, dtype());
  auto grads = [&](KernelMode mode) {
    ExecutionProfile profile;
    std::vector<Tensor> result = vjp.run(mode, values, &profile);
    // The generated backward runs no op of the body; autograd runs them.
    EXPECT_EQ(profile.byOp.empty(), mode == KernelMode::Generated);
    return result;
  };
  std::vector<Tensor> generated = grads(KernelMode::Generated);
  std::vector<Tensor> reference = grads(KernelMode::Reference);
  ASSERT_EQ(generated.size(), static_cast<size_t>(vjp.numPrimals));
  for (size_t i = 0; i < generated.size(); ++i)
    EXPECT_LE(maxRelativeError(generated[i], reference[i]), backwardTolerance())
        << "cotangent of primal #" << i;
}

TEST_P(GeneratedKernelTest, GradientsOfColumnWindowsShareOneBuffer) {
  // Primals that are column windows of one tensor (a linear's gate split)
  // get their gradients written into the same windows of one new buffer, so
  // that concatenating them is a view; the values are the reference's.
  Plan plan = loadPlan(compiled(GetParam()));
  DispatchVjp vjp(plan);
  const int64_t numPrimals = vjp.numPrimals;
  ASSERT_GE(numPrimals, 2);
  const Tensor wide = rvnn::runtime::ops::testing::uniformDoubles(
                          {6, 5 * numPrimals + 3}, -2.0, 2.0, 50)
                          .to(dtype());
  const std::vector<Tensor> cotangents =
      uniformValues(vjp.numResults, 60, dtype());
  auto grads = [&](KernelMode mode, bool windows) {
    std::vector<Tensor> values;
    for (int64_t i = 0; i < numPrimals; ++i) {
      Tensor window = wide.narrow(1, 5 * i, 5);
      values.push_back(windows ? window : window.contiguous());
    }
    values.insert(values.end(), cotangents.begin(), cotangents.end());
    return vjp.run(mode, values);
  };
  std::vector<Tensor> generated = grads(KernelMode::Generated, true);
  std::vector<Tensor> reference = grads(KernelMode::Reference, false);
  ASSERT_EQ(generated.size(), static_cast<size_t>(numPrimals));
  for (int64_t i = 0; i < numPrimals; ++i) {
    EXPECT_LE(maxRelativeError(generated[i], reference[i]), backwardTolerance())
        << "cotangent of primal #" << i;
    EXPECT_TRUE(generated[i].is_alias_of(generated[0])) << "primal #" << i;
    EXPECT_EQ(generated[i].storage_offset() - generated[0].storage_offset(),
              5 * i);
    EXPECT_EQ(generated[i].stride(0), 5 * numPrimals);
  }
  // Contiguous primals each get a buffer of their own.
  std::vector<Tensor> separate = grads(KernelMode::Generated, false);
  EXPECT_FALSE(separate[1].is_alias_of(separate[0]));
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GeneratedKernelTest,
                         testing::Values("f64", "f32"),
                         [](const auto &info) { return info.param; });

TEST(GeneratedKernels, BackwardMatchesFiniteDifferences) {
  Plan plan = loadPlan(compiled("f64"));
  Inputs in = makeInputs(torch::kDouble);
  rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences(
      [&](const std::vector<Tensor> &xs) {
        std::vector<Tensor> results =
            run(plan, KernelMode::Generated, xs, in.halt);
        std::vector<Tensor> flat;
        for (const Tensor &r : results)
          flat.push_back(r.flatten());
        return torch::cat(flat);
      },
      in.floats);
}

TEST(GeneratedKernels, TamperedLibraryIsRefused) {
  fs::path dir = copyOf(compiled("f64"), "tampered");
  std::string bytes = readAll(dir / "kernels.so");
  bytes[bytes.size() / 2] ^= 0x01;
  writeAll(dir / "kernels.so", bytes);
  std::string error = loadError(dir);
  EXPECT_NE(error.find("kernels.so"), std::string::npos) << error;
  EXPECT_NE(error.find("SHA-256 mismatch"), std::string::npos) << error;
}

TEST(GeneratedKernels, MissingLibraryIsRefused) {
  fs::path dir = copyOf(compiled("f64"), "missing");
  fs::remove(dir / "kernels.so");
  std::string error = loadError(dir);
  EXPECT_NE(error.find("kernels.so"), std::string::npos) << error;
  EXPECT_NE(error.find("missing"), std::string::npos) << error;
}

TEST(GeneratedKernels, DispatchWithoutSymbolIsRefused) {
  // The plan names a kernel the library does not have.
  fs::path dir = copyOf(compiled("f64"), "nosymbol");
  std::string plan = readAll(dir / "plan.json");
  Plan loaded = loadPlan(dir.string());
  const std::string kernel = loaded.dispatchKernels.at(0);
  std::string quoted = "\"" + kernel + "\"";
  size_t at = plan.find(quoted);
  ASSERT_NE(at, std::string::npos);
  plan.replace(at, quoted.size(), "\"no_such_kernel\"");
  writeAll(dir / "plan.json", plan);
  rehash(dir, "plan.json");
  std::string error = loadError(dir);
  EXPECT_NE(error.find("kernels.so"), std::string::npos) << error;
  EXPECT_NE(error.find("rvnn_kernel_no_such_kernel"), std::string::npos)
      << error;
}

TEST(GeneratedKernels, ListedSymbolMissingIsRefused) {
  fs::path dir = copyOf(compiled("f64"), "nolisted");
  json manifest = json::parse(readAll(dir / "manifest.json"));
  manifest["kernels"]["symbols"].push_back("rvnn_kernel_gone");
  writeAll(dir / "manifest.json", manifest.dump(2));
  std::string error = loadError(dir);
  EXPECT_NE(error.find("rvnn_kernel_gone"), std::string::npos) << error;
}

TEST(GeneratedKernels, UnlistedLibraryIsRefused) {
  // The library must be a file the manifest lists (and so hashes).
  fs::path dir = copyOf(compiled("f64"), "unlisted");
  json manifest = json::parse(readAll(dir / "manifest.json"));
  manifest["kernels"]["library"] = "other.so";
  writeAll(dir / "manifest.json", manifest.dump(2));
  std::string error = loadError(dir);
  EXPECT_NE(error.find("kernels: library 'other.so' is not listed"),
            std::string::npos)
      << error;
}

TEST(GeneratedKernels, OtherAbiIsRefused) {
  fs::path dir = copyOf(compiled("f64"), "abi");
  json manifest = json::parse(readAll(dir / "manifest.json"));
  manifest["kernels"]["abi"] = "rvnn-memref-v0";
  writeAll(dir / "manifest.json", manifest.dump(2));
  std::string error = loadError(dir);
  EXPECT_NE(error.find("rvnn-memref-v0"), std::string::npos) << error;
  EXPECT_NE(error.find(std::string(kKernelAbi)), std::string::npos) << error;
}

TEST(GeneratedKernels, ModelWithoutLibraryNeedsReferenceMode) {
  fs::path dir = copyOf(compiled("f64"), "nolibrary");
  json manifest = json::parse(readAll(dir / "manifest.json"));
  manifest.erase("kernels");
  json files = json::array();
  for (const json &file : manifest["files"])
    if (file["role"] != "kernels")
      files.push_back(file);
  manifest["files"] = files;
  writeAll(dir / "manifest.json", manifest.dump(2));
  fs::remove(dir / "kernels.so");

  Plan plan = loadPlan(dir.string());
  EXPECT_FALSE(plan.kernels);
  Inputs in = makeInputs(torch::kDouble);
  try {
    run(plan, KernelMode::Generated, in.floats, in.halt);
    ADD_FAILURE() << "generated mode ran without a kernel library";
  } catch (const PlanError &error) {
    EXPECT_NE(std::string(error.what())
                  .find("compiled without a kernel library; recompile or use "
                        "--kernels reference"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(run(plan, KernelMode::Reference, in.floats, in.halt).size(), 4u);
}

TEST(GeneratedKernels, ReferenceModeNeedsNoLibrary) {
  // loadPlan(dir, /*loadKernels=*/false) skips dlopen; reference mode runs.
  Plan plan = loadPlan(compiled("f64"), /*loadKernels=*/false);
  EXPECT_FALSE(plan.kernels);
  EXPECT_EQ(plan.kernelLibraryFile, "kernels.so");
  Inputs in = makeInputs(torch::kDouble);
  EXPECT_EQ(run(plan, KernelMode::Reference, in.floats, in.halt).size(), 4u);
  EXPECT_THROW(run(plan, KernelMode::Generated, in.floats, in.halt), PlanError);
}

/// A row reduction between elementwise chains: one dispatch whose kernel
/// holds it; %b is read before and after it, the gate's %h [rows, 1] is a
/// broadcast operand. WIDTH, the reduced (last) dim: 16 takes the kernels'
/// 8-lane row folds, 5 the plain ones. EXTRA_ARGS and REDUCTION: the
/// reduction's own operands and the op (ReductionKind; a product for the
/// purely elementwise kernel). INPUT: %q (the kernel computes the
/// reduction's input) or %a (it reads a kernel input; the ops before it are
/// dead). RESULT: %y (ops after the reduction) or %n (the reduction is the
/// kernel's result: its cotangent is the result's, read in place; the gate
/// is dead).
constexpr const char *kRowReductionModel = R"mlir(
func.func @forward(%a: tensor<?xWIDTHxTYPE>, %b: tensor<?xWIDTHxTYPE>,
                   %h: tensor<?x1xTYPE>EXTRA_ARGS)
    -> tensor<?xWIDTHxTYPE> {
  %s = rvnn.sigmoid %a : tensor<?xWIDTHxTYPE>
  %p = arith.mulf %s, %b : tensor<?xWIDTHxTYPE>
  %q = arith.addf %p, %a : tensor<?xWIDTHxTYPE>
  %n = REDUCTION
  %t = math.tanh %n : tensor<?xWIDTHxTYPE>
  %y = rvnn.gate %h, %t, %b
      : (tensor<?x1xTYPE>, tensor<?xWIDTHxTYPE>, tensor<?xWIDTHxTYPE>)
      -> tensor<?xWIDTHxTYPE>
  return RESULT : tensor<?xWIDTHxTYPE>
}
)mlir";

/// A row reduction of kRowReductionModel: its op, its operands beyond the
/// input (gamma and beta; a mask) and how to draw them.
struct ReductionKind {
  const char *name;
  std::string_view opName;
  const char *extraArgs;
  const char *op;
  /// The extra operands' values for a [rows, width] input.
  std::vector<Tensor> (*extraInputs)(int64_t rows, int64_t width);
};

std::vector<Tensor> normOperands(int64_t, int64_t width) {
  using rvnn::runtime::ops::testing::uniformDoubles;
  return {uniformDoubles({width}, 0.5, 1.5, 23),
          uniformDoubles({width}, -0.5, 0.5, 24)};
}
std::vector<Tensor> noOperands(int64_t, int64_t) { return {}; }
/// A 0/1 mask (about a third of the entries 0), its second row all 0.
std::vector<Tensor> maskOperand(int64_t rows, int64_t width) {
  Tensor draw =
      rvnn::runtime::ops::testing::uniformDoubles({rows, width}, 0, 1, 25);
  Tensor mask = (draw > 0.33).to(torch::kDouble);
  mask[1].zero_();
  return {mask};
}

const ReductionKind kReductionKinds[] = {
    {"elementwise", rvnn::contract::ops::ElementwiseOp::name, "",
     "arith.mulf INPUT, %a : tensor<?xWIDTHxTYPE>", noOperands},
    {"layer_norm", rvnn::contract::ops::LayerNormOp::name,
     ", %g: tensor<WIDTHxTYPE>, %be: tensor<WIDTHxTYPE>",
     "rvnn.layer_norm INPUT, %g, %be : (tensor<?xWIDTHxTYPE>, "
     "tensor<WIDTHxTYPE>, tensor<WIDTHxTYPE>) -> tensor<?xWIDTHxTYPE>",
     normOperands},
    {"softmax", rvnn::contract::ops::SoftmaxOp::name, "",
     "rvnn.softmax INPUT {dim = -1 : i64} : tensor<?xWIDTHxTYPE>", noOperands},
    {"masked_softmax", rvnn::contract::ops::MaskedSoftmaxOp::name,
     ", %m: tensor<?xWIDTHxTYPE>",
     "rvnn.masked_softmax INPUT, %m {dim = 1 : i64} : tensor<?xWIDTHxTYPE>, "
     "tensor<?xWIDTHxTYPE>",
     maskOperand}};

/// Where the reduction sits in kRowReductionModel: its input and the
/// model's result.
struct ReductionPlace {
  const char *name;
  const char *input;
  const char *result;
};
const ReductionPlace kReductionPlaces[] = {{"computed", "%q", "%y"},
                                           {"input", "%a", "%y"},
                                           {"computed_result", "%q", "%n"}};

/// The results of `plan`'s forward on `inputs`, concatenated along their
/// last dim.
Tensor runResults(const Plan &plan, KernelMode mode,
                  const std::vector<Tensor> &inputs) {
  ExecutionContext context;
  context.kernelMode = mode;
  Executor executor(
      plan, [](const std::string &) { return Tensor(); }, context);
  std::vector<RuntimeValue> args(inputs.begin(), inputs.end());
  std::vector<Tensor> results;
  for (const RuntimeValue &value : executor.call("forward", args))
    results.push_back(std::get<Tensor>(value));
  return torch::cat(results, -1);
}

/// `plan`'s results (runResults) on the generated path against those on
/// the reference path, within `tolerance`.
void expectResultsMatchReference(const Plan &plan,
                                 const std::vector<Tensor> &inputs,
                                 double tolerance) {
  EXPECT_LE(maxRelativeError(runResults(plan, KernelMode::Generated, inputs),
                             runResults(plan, KernelMode::Reference, inputs)),
            tolerance);
}

/// The gradients of `plan`'s results (runResults) with respect to `inputs`
/// on the generated path against those on the reference path (ATen
/// autograd of the dispatch bodies), within `tolerance`.
void expectGradientsMatchReference(const Plan &plan,
                                   const std::vector<Tensor> &inputs,
                                   double tolerance) {
  auto gradients = [&](KernelMode mode) {
    std::vector<Tensor> leaves;
    for (const Tensor &x : inputs)
      leaves.push_back(x.clone().requires_grad_(true));
    Tensor y = runResults(plan, mode, leaves);
    Tensor weights =
        torch::arange(1, y.numel() + 1, y.options()).sin().view(y.sizes());
    // Inputs of dead code get none.
    return torch::autograd::grad({(y * weights).sum()}, leaves, {},
                                 /*retain_graph=*/c10::nullopt,
                                 /*create_graph=*/false, /*allow_unused=*/true);
  };
  std::vector<Tensor> generated = gradients(KernelMode::Generated);
  std::vector<Tensor> reference = gradients(KernelMode::Reference);
  for (size_t i = 0; i < generated.size(); ++i) {
    ASSERT_EQ(generated[i].defined(), reference[i].defined()) << "input #" << i;
    if (!generated[i].defined())
      continue;
    EXPECT_EQ(generated[i].sizes(), reference[i].sizes()) << "input #" << i;
    EXPECT_LE(maxRelativeError(generated[i], reference[i]), tolerance)
        << "gradient of input #" << i;
  }
}

/// (dtype, width, the reduction, its place) of a RowReductionKernelTest.
using ReductionCase =
    std::tuple<std::string, int64_t, ReductionKind, ReductionPlace>;

class RowReductionKernelTest : public testing::TestWithParam<ReductionCase> {
protected:
  const std::string &dtypeName() const { return std::get<0>(GetParam()); }
  int64_t width() const { return std::get<1>(GetParam()); }
  const ReductionKind &kind() const { return std::get<2>(GetParam()); }
  torch::ScalarType dtype() const {
    return dtypeName() == "f64" ? torch::kDouble : torch::kFloat;
  }
  double tolerance() const { return dtypeName() == "f64" ? 1e-10 : 2e-5; }

  Plan plan() const {
    const ReductionPlace &place = std::get<3>(GetParam());
    const std::string widthText = std::to_string(width());
    std::string source = kRowReductionModel;
    for (auto [pattern, text] :
         {std::pair{"EXTRA_ARGS", kind().extraArgs},
          std::pair{"REDUCTION", kind().op}, std::pair{"INPUT", place.input},
          std::pair{"RESULT", place.result},
          std::pair{"TYPE", dtypeName().c_str()},
          std::pair{"WIDTH", widthText.c_str()}})
      source = std::regex_replace(source, std::regex(pattern), text);
    return loadPlan(
        compiledSource(std::string(kind().name) + "-" + dtypeName() + "-" +
                           std::to_string(width()) + "-" + place.name,
                       source));
  }
  /// a, b [7, width], h [7, 1], then the reduction's extra operands, fixed.
  std::vector<Tensor> inputs() const {
    using rvnn::runtime::ops::testing::uniformDoubles;
    std::vector<Tensor> in = {uniformDoubles({7, width()}, -2.0, 2.0, 21),
                              uniformDoubles({7, width()}, -2.0, 2.0, 22),
                              uniformDoubles({7, 1}, 0.0, 1.0, 26)};
    for (Tensor &extra : kind().extraInputs(7, width()))
      in.push_back(extra);
    for (Tensor &x : in)
      x = x.to(dtype());
    return in;
  }
};

/// The ops named `name` of `region` (nested regions included) inside and
/// outside dispatch bodies.
void countOps(const PlanRegion &region, std::string_view name, bool inDispatch,
              int &inside, int &outside) {
  for (const PlanOp &op : region.body) {
    if (op.name == name)
      ++(inDispatch ? inside : outside);
    for (const PlanRegion &nested : op.regions)
      countOps(nested, name,
               inDispatch || op.name == rvnn::contract::ops::DispatchOp::name,
               inside, outside);
  }
}

TEST_P(RowReductionKernelTest, OneDispatchHoldsTheReductionAndTheGate) {
  Plan plan = this->plan();
  int inside = 0, outside = 0;
  int gatesInside = 0, gatesOutside = 0;
  for (const auto &entry : plan.functions) {
    countOps(entry.second.body, kind().opName, false, inside, outside);
    countOps(entry.second.body, rvnn::contract::ops::GateOp::name, false,
             gatesInside, gatesOutside);
  }
  EXPECT_GE(inside, 1);
  EXPECT_EQ(outside, 0);
  EXPECT_EQ(gatesOutside, 0) << "the gate's broadcast g is a kernel operand";
  ASSERT_EQ(plan.dispatchKernels.size(), 1u);
  ASSERT_TRUE(plan.kernels);
  const GeneratedKernel &kernel =
      plan.kernels->kernel(*plan.dispatchKernels.begin());
  EXPECT_NE(kernel.forward, nullptr);
  EXPECT_NE(kernel.backward, nullptr);
}

TEST_P(RowReductionKernelTest, ForwardMatchesReference) {
  expectResultsMatchReference(plan(), inputs(), tolerance());
}

TEST_P(RowReductionKernelTest, BackwardMatchesReferenceAutograd) {
  // The gate's inputs get no gradient when the result is %n.
  expectGradientsMatchReference(plan(), inputs(), tolerance());
}

TEST_P(RowReductionKernelTest, BackwardMatchesFiniteDifferences) {
  if (dtype() != torch::kDouble)
    GTEST_SKIP() << "finite differences in float64 only";
  Plan plan = this->plan();
  std::vector<Tensor> in = inputs();
  // A fully masked row's mask cotangent is O(1 / 1e-20), exact in the
  // autograd comparison but beyond a finite difference's reach.
  if (kind().opName == rvnn::contract::ops::MaskedSoftmaxOp::name)
    in.back()[1][0] = 1.0;
  rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences(
      [&](const std::vector<Tensor> &xs) {
        return runResults(plan, KernelMode::Generated, xs);
      },
      in);
}

TEST_P(RowReductionKernelTest, BroadcastOperandOfAnotherShapeIsRefused) {
  if (std::string(std::get<3>(GetParam()).result) != "%y")
    GTEST_SKIP() << "the gate is dead code here";
  Plan plan = this->plan();
  // [3, 1] fits g's declared [?, 1] but not the kernel's 7 rows.
  std::vector<Tensor> in = inputs();
  in[2] = in[2].narrow(0, 0, 3);
  try {
    runResults(plan, KernelMode::Generated, in);
    ADD_FAILURE() << "a [3, 1] g for [7, " << width() << "] rows ran";
  } catch (const PlanError &error) {
    EXPECT_NE(std::string(error.what()).find("is neither of the kernel's"),
              std::string::npos)
        << error.what();
  }
}

INSTANTIATE_TEST_SUITE_P(DtypesWidthsKindsAndPlaces, RowReductionKernelTest,
                         testing::Combine(testing::Values("f64", "f32"),
                                          testing::Values(16, 5),
                                          testing::ValuesIn(kReductionKinds),
                                          testing::ValuesIn(kReductionPlaces)),
                         [](const auto &info) {
                           return std::get<2>(info.param).name +
                                  std::string("_") + std::get<0>(info.param) +
                                  "_width" +
                                  std::to_string(std::get<1>(info.param)) +
                                  "_" + std::get<3>(info.param).name;
                         });

/// Two linears whose biases rvnn-exec-fuse-linear-epilogue moves into the
/// kernels that read them: the first split into three gate windows (the GRC
/// cell's pattern), the second read whole. TYPE is f32 or f64.
constexpr const char *kLinearEpilogueModel = R"mlir(
func.func @forward(%x: tensor<?x4xTYPE>, %w: tensor<12x4xTYPE>,
                   %b: tensor<12xTYPE>, %l: tensor<?x4xTYPE>,
                   %w2: tensor<4x4xTYPE>, %b2: tensor<4xTYPE>)
    -> (tensor<?x4xTYPE>, tensor<?x4xTYPE>) {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %x, %c0 : tensor<?x4xTYPE>
  %c = rvnn.linear %x, %w, %b
      : (tensor<?x4xTYPE>, tensor<12x4xTYPE>, tensor<12xTYPE>) -> tensor<?x12xTYPE>
  %g = tensor.extract_slice %c[0, 0] [%m, 4] [1, 1]
      : tensor<?x12xTYPE> to tensor<?x4xTYPE>
  %h = tensor.extract_slice %c[0, 4] [%m, 4] [1, 1]
      : tensor<?x12xTYPE> to tensor<?x4xTYPE>
  %p = tensor.extract_slice %c[0, 8] [%m, 4] [1, 1]
      : tensor<?x12xTYPE> to tensor<?x4xTYPE>
  %s = rvnn.sigmoid %g : tensor<?x4xTYPE>
  %t = math.tanh %h : tensor<?x4xTYPE>
  %u = arith.mulf %s, %l : tensor<?x4xTYPE>
  %v = arith.mulf %t, %p : tensor<?x4xTYPE>
  %y = arith.addf %u, %v : tensor<?x4xTYPE>
  %z = rvnn.linear %x, %w2, %b2
      : (tensor<?x4xTYPE>, tensor<4x4xTYPE>, tensor<4xTYPE>) -> tensor<?x4xTYPE>
  %q = math.tanh %z : tensor<?x4xTYPE>
  %r = arith.mulf %q, %z : tensor<?x4xTYPE>
  return %y, %r : tensor<?x4xTYPE>, tensor<?x4xTYPE>
}
)mlir";

class LinearEpilogueKernelTest : public testing::TestWithParam<std::string> {
protected:
  torch::ScalarType dtype() const {
    return GetParam() == "f64" ? torch::kDouble : torch::kFloat;
  }
  double tolerance() const { return GetParam() == "f64" ? 1e-10 : 1e-5; }
  Plan plan() const {
    return loadPlan(
        compiledSource("linear-epilogue-" + GetParam(),
                       std::regex_replace(kLinearEpilogueModel,
                                          std::regex("TYPE"), GetParam())));
  }
  /// x [6, 4], w [12, 4], b [12], l [6, 4], w2 [4, 4], b2 [4].
  std::vector<Tensor> inputs() const {
    using rvnn::runtime::ops::testing::uniformDoubles;
    std::vector<Tensor> in = {uniformDoubles({6, 4}, -1.0, 1.0, 31),
                              uniformDoubles({12, 4}, -1, 1, 32),
                              uniformDoubles({12}, -1.0, 1.0, 33),
                              uniformDoubles({6, 4}, -1, 1, 34),
                              uniformDoubles({4, 4}, -1.0, 1.0, 35),
                              uniformDoubles({4}, -1, 1, 36)};
    for (Tensor &x : in)
      x = x.to(dtype());
    return in;
  }
};

TEST_P(LinearEpilogueKernelTest, BiasesAreAddedInTheKernels) {
  Plan plan = this->plan();
  int inside = 0, outside = 0;
  for (const auto &entry : plan.functions)
    countOps(entry.second.body, rvnn::contract::ops::BroadcastLikeOp::name,
             false, inside, outside);
  EXPECT_EQ(inside, 4) << "one bias piece per gate window, one whole bias";
  EXPECT_EQ(outside, 0);
  EXPECT_EQ(plan.dispatchKernels.size(), 2u);
}

TEST_P(LinearEpilogueKernelTest, ForwardMatchesReference) {
  expectResultsMatchReference(plan(), inputs(), tolerance());
}

TEST_P(LinearEpilogueKernelTest, BackwardMatchesReferenceAutograd) {
  expectGradientsMatchReference(plan(), inputs(), tolerance());
}

TEST_P(LinearEpilogueKernelTest, BackwardMatchesFiniteDifferences) {
  if (dtype() != torch::kDouble)
    GTEST_SKIP() << "finite differences in float64 only";
  Plan plan = this->plan();
  rvnn::runtime::ops::testing::expectGradientsMatchFiniteDifferences(
      [&](const std::vector<Tensor> &xs) {
        return runResults(plan, KernelMode::Generated, xs);
      },
      inputs());
}

INSTANTIATE_TEST_SUITE_P(Dtypes, LinearEpilogueKernelTest,
                         testing::Values("f64", "f32"));

} // namespace
