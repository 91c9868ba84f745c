// ATen's RecordFunction has a member only without NDEBUG, and its inline
// inputs() reads the member after it: this file must see the layout of the
// LibTorch it links (built with NDEBUG) in every build type, or a Debug or
// sanitizer build reads the inputs at a wrong offset (UBSan found it).
#ifndef NDEBUG
#define NDEBUG
#endif
#include <ATen/record_function.h>

#include "GemmReplay.h"

#include "rvnn/Runtime/Ops/FewRowProduct.h"
#include "rvnn/Runtime/Ops/JitProduct.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <torch/torch.h>

namespace rvnn::cli {

namespace {

using runtime::ops::kFewRowProductEvent;
using runtime::ops::kJitBatchedProductEvent;
using runtime::ops::kJitProductEvent;

/// The recorder of this thread, if any: RecordFunction takes plain function
/// pointers, so the callback finds its sink here.
thread_local GemmRecorder *activeRecorder = nullptr;

/// ATen's GEMM-backed functions by the name RecordFunction reports, and the
/// runtime's few-row and generated-kernel products, with the number of
/// tensor operands the functional form takes.
const std::map<std::string, size_t> &gemmFunctions() {
  static const std::map<std::string, size_t> functions = {
      {"mm", 2},
      {"bmm", 2},
      {"mv", 2},
      {"dot", 2},
      {"addmm", 3},
      {"baddbmm", 3},
      {"addmv", 3},
      {kFewRowProductEvent, 2},
      {kJitProductEvent, 2},
      {kJitBatchedProductEvent, 2}};
  return functions;
}

/// "aten::addmm_" -> "addmm", the runtime's product events as they are;
/// empty for any other function.
std::string gemmFunction(const char *recordedName) {
  std::string name(recordedName);
  if (name == kFewRowProductEvent || name == kJitProductEvent ||
      name == kJitBatchedProductEvent)
    return name;
  const std::string prefix = "aten::";
  if (name.compare(0, prefix.size(), prefix) != 0)
    return {};
  name.erase(0, prefix.size());
  if (!name.empty() && name.back() == '_')
    name.pop_back();
  return gemmFunctions().count(name) ? name : std::string();
}

/// When a recorded call started, and which call it is.
struct GemmStart : at::ObserverContext {
  std::chrono::steady_clock::time_point time;
  size_t index = 0;
};

std::unique_ptr<at::ObserverContext> recordGemm(const at::RecordFunction &fn) {
  if (!activeRecorder)
    return nullptr;
  std::string function = gemmFunction(fn.name());
  if (function.empty())
    return nullptr;
  GemmCall call;
  call.function = function;
  for (const c10::IValue &input : fn.inputs()) {
    if (!input.isTensor())
      continue;
    const at::Tensor &tensor = input.toTensor();
    // Out variants end with their output; the functional form ignores it.
    if (call.sizes.size() == gemmFunctions().at(function))
      break;
    call.sizes.push_back(tensor.sizes().vec());
    call.strides.push_back(tensor.strides().vec());
    call.dtype = tensor.scalar_type();
  }
  activeRecorder->calls.push_back(std::move(call));
  auto start = std::make_unique<GemmStart>();
  start->index = activeRecorder->calls.size() - 1;
  start->time = std::chrono::steady_clock::now();
  return start;
}

void timeGemm(const at::RecordFunction &, at::ObserverContext *context) {
  if (!activeRecorder || !context)
    return;
  const auto *start = static_cast<const GemmStart *>(context);
  activeRecorder->calls.at(start->index).stepMs =
      std::chrono::duration<double, std::milli>(
          std::chrono::steady_clock::now() - start->time)
          .count();
}

/// Random values laid out with `strides` (broadcast zero strides included:
/// the values live in a flat buffer the view reads).
at::Tensor stridedRandom(const std::vector<int64_t> &sizes,
                         const std::vector<int64_t> &strides,
                         c10::ScalarType dtype) {
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0)
      return at::empty(sizes, at::TensorOptions().dtype(dtype));
    extent += (sizes[d] - 1) * strides[d];
  }
  return at::randn({extent}, at::TensorOptions().dtype(dtype))
      .as_strided(sizes, strides);
}

double median(std::vector<double> values) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

at::Tensor run(const GemmCall &call, const std::vector<at::Tensor> &t) {
  const std::string &f = call.function;
  if (f == "mm")
    return at::mm(t[0], t[1]);
  if (f == "bmm")
    return at::bmm(t[0], t[1]);
  if (f == "mv")
    return at::mv(t[0], t[1]);
  if (f == kFewRowProductEvent)
    return runtime::ops::fewRowProduct(t[0], t[1]);
  if (f == kJitProductEvent)
    return runtime::ops::jitProduct(t[0], t[1]);
  if (f == kJitBatchedProductEvent)
    return runtime::ops::jitBatchedProduct(t[0], t[1]);
  if (f == "dot")
    return at::dot(t[0], t[1]);
  if (f == "addmm")
    return at::addmm(t[0], t[1], t[2]);
  if (f == "baddbmm")
    return at::baddbmm(t[0], t[1], t[2]);
  return at::addmv(t[0], t[1], t[2]);
}

} // namespace

GemmRecorder::GemmRecorder() {
  if (activeRecorder)
    throw std::logic_error("a GemmRecorder is already recording this thread");
  activeRecorder = this;
  handle = at::addThreadLocalCallback(
      at::RecordFunctionCallback(recordGemm, timeGemm)
          .needsInputs(true)
          .scopes({at::RecordScope::FUNCTION}));
}

GemmRecorder::~GemmRecorder() {
  at::removeCallback(handle);
  activeRecorder = nullptr;
}

double gemmMultiplyAdds(const GemmCall &call) {
  if (call.sizes.size() < 2)
    return 0;
  const std::vector<int64_t> &rows = call.sizes[call.sizes.size() - 2];
  const std::vector<int64_t> &columns = call.sizes.back();
  double elements = 1;
  for (int64_t size : rows)
    elements *= static_cast<double>(size);
  return elements *
         (columns.size() >= 2 ? static_cast<double>(columns.back()) : 1.0);
}

std::vector<GemmShape> gemmShapes(const std::vector<GemmCall> &calls) {
  using Key = std::tuple<std::string, std::vector<std::vector<int64_t>>,
                         std::vector<std::vector<int64_t>>>;
  std::map<Key, size_t> index;
  std::vector<GemmShape> shapes;
  for (const GemmCall &call : calls) {
    auto [it, added] = index.try_emplace(
        Key{call.function, call.sizes, call.strides}, shapes.size());
    if (added)
      shapes.push_back({call.function, call.sizes, call.strides});
    GemmShape &shape = shapes[it->second];
    ++shape.calls;
    shape.stepMs += call.stepMs;
    shape.replayMs += call.replayMs;
    shape.multiplyAdds += gemmMultiplyAdds(call);
  }
  std::stable_sort(shapes.begin(), shapes.end(),
                   [](const GemmShape &a, const GemmShape &b) {
                     return a.stepMs > b.stepMs;
                   });
  return shapes;
}

double replayGemmsMs(std::vector<GemmCall> &calls, int rounds) {
  torch::NoGradGuard noGrad;
  // One operand buffer per distinct (sizes, strides, type).
  using Key =
      std::tuple<std::vector<int64_t>, std::vector<int64_t>, c10::ScalarType>;
  std::map<Key, at::Tensor> buffers;
  std::vector<std::vector<at::Tensor>> operands;
  for (const GemmCall &call : calls) {
    std::vector<at::Tensor> tensors;
    for (size_t i = 0; i < call.sizes.size(); ++i) {
      at::Tensor &buffer =
          buffers[{call.sizes[i], call.strides[i], call.dtype}];
      if (!buffer.defined())
        buffer = stridedRandom(call.sizes[i], call.strides[i], call.dtype);
      tensors.push_back(buffer);
    }
    operands.push_back(std::move(tensors));
  }
  using Clock = std::chrono::steady_clock;
  auto msSince = [](Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start)
        .count();
  };
  std::vector<double> totals;
  std::vector<std::vector<double>> perCall(calls.size());
  for (int round = -1; round < rounds; ++round) {
    const auto start = Clock::now();
    for (size_t i = 0; i < calls.size(); ++i) {
      const auto callStart = Clock::now();
      (void)run(calls[i], operands[i]);
      if (round >= 0)
        perCall[i].push_back(msSince(callStart));
    }
    if (round >= 0)
      totals.push_back(msSince(start));
  }
  for (size_t i = 0; i < calls.size(); ++i)
    calls[i].replayMs = median(perCall[i]);
  return median(totals);
}

} // namespace rvnn::cli
