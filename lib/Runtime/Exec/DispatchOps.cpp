// rvnn_exec.dispatch: a call of a generated kernel (kernels.so, ABI
// rvnn-memref-v4, rvnn/Runtime/KernelLibrary.h; on a GPU its CUDA code,
// rvnn-cuda-v1) through a torch::autograd::Function whose backward is the
// kernel's compiler-derived `_grad` entry point; or, under
// KernelMode::Reference and for kernels without code for the device, the
// dispatch's body run with the reference handlers (ATen autograd backward).
#include "Handlers.h"
#include "rvnn/Runtime/KernelLibrary.h"
#include "rvnn/Runtime/Ops/ConstantElements.h"
#ifdef RVNN_RUNTIME_CUDA_KERNELS
#include "rvnn/Runtime/Cuda/KernelLaunch.h"
#endif

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>

#include <torch/autograd.h>

namespace rvnn::runtime {
namespace {

using torch::Tensor;
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;
using Dispatch = exec::DispatchOp;

static_assert(sizeof(void *) == sizeof(int64_t),
              "rvnn-memref-v4 descriptors are built as 64-bit words");

/// `tensor` as a kernel takes it. rvnn-memref-v4: as it is when its
/// innermost dimension is contiguous, whatever its other strides (a slice,
/// a broadcast row); a broadcast scalar (a deferred zero, a constant) as one
/// row of it broadcast; a contiguous copy otherwise. rvnn-cuda-v1 reads only
/// the base address and the sizes: contiguous.
Tensor kernelOperand(const Tensor &tensor) {
  if (tensor.is_cuda())
    return tensor.contiguous();
  if (tensor.dim() == 0 || tensor.size(-1) <= 1 || tensor.stride(-1) == 1)
    return tensor;
  const auto strides = tensor.strides();
  if (std::all_of(strides.begin(), strides.end(),
                  [](int64_t stride) { return stride == 0; })) {
    Tensor row = ops::constantRow(tensor, tensor.size(-1));
    if (!row.defined())
      row = tensor.as_strided({tensor.size(-1)}, {0}).contiguous();
    return row.expand(tensor.sizes());
  }
  return tensor.contiguous();
}

/// Whether `a` and `b` are laid out as windows of the same rows: one
/// storage, the same sizes and strides in every leading dim with more than
/// one element (a unit dim's stride is never stepped), the last dim
/// contiguous. CPU only: rvnn-cuda-v1 takes contiguous operands.
bool sameRows(const Tensor &a, const Tensor &b) {
  if (!a.is_cpu() || !a.is_alias_of(b) || a.dim() != b.dim() || a.dim() == 0 ||
      a.stride(-1) != 1 || b.stride(-1) != 1)
    return false;
  for (int64_t d = 0; d + 1 < a.dim(); ++d)
    if (a.size(d) != b.size(d) || (a.size(d) > 1 && a.stride(d) != b.stride(d)))
      return false;
  return true;
}

/// The shortest step between rows of `window` (its smallest stride over
/// leading dims with more than one element); no bound without such dims.
int64_t rowStep(const Tensor &window) {
  int64_t step = std::numeric_limits<int64_t>::max();
  for (int64_t d = 0; d + 1 < window.dim(); ++d)
    if (window.size(d) > 1)
      step = std::min(step, window.stride(d));
  return step;
}

/// Gradient buffers for a kernel's inputs, for its `_grad` entry point to
/// write. Inputs that are disjoint column windows of the rows of one tensor
/// (the GRC cell's gate windows of its second linear's result; its left and
/// right children) get the same windows of one new buffer, so that joining
/// their gradients afterwards (the derived backward's concat) is a view of
/// it, not a copy (ViewOps.cpp).
std::vector<Tensor> inputGradBuffers(const std::vector<Tensor> &inputs) {
  std::vector<Tensor> grads(inputs.size());
  for (size_t first = 0; first < inputs.size(); ++first) {
    if (grads[first].defined())
      continue;
    const Tensor &base = inputs[first];
    std::vector<size_t> group;
    for (size_t i = first; i < inputs.size(); ++i)
      if (!grads[i].defined() && (i == first || sameRows(base, inputs[i])))
        group.push_back(i);
    std::sort(group.begin(), group.end(), [&](size_t a, size_t b) {
      return inputs[a].storage_offset() < inputs[b].storage_offset();
    });
    const int64_t start = inputs[group.front()].storage_offset();
    int64_t end = start;
    bool disjoint = group.size() > 1;
    for (size_t i : group) {
      disjoint = disjoint && inputs[i].storage_offset() >= end;
      end = inputs[i].storage_offset() + inputs[i].size(-1);
    }
    if (!disjoint || end - start > rowStep(base)) {
      grads[first] = at::empty(base.sizes(), base.options());
      continue;
    }
    std::vector<int64_t> sizes = base.sizes().vec();
    sizes.back() = end - start;
    const Tensor buffer = at::empty(sizes, base.options());
    for (size_t i : group)
      grads[i] = buffer.narrow(-1, inputs[i].storage_offset() - start,
                               inputs[i].size(-1));
  }
  return grads;
}

/// The MLIR strided memref descriptor of each of `tensors`
/// (kernelOperand's), `{allocated, aligned, offset, sizes[R], strides[R]}`
/// as 64-bit words. The innermost stride of a dimension of size 1 is never
/// used; it is written as 1, as the kernel's layout declares.
std::vector<std::vector<int64_t>>
memrefDescriptors(const std::vector<Tensor> &tensors) {
  std::vector<std::vector<int64_t>> descriptors(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor &tensor = tensors[i];
    const int64_t rank = tensor.dim();
    std::vector<int64_t> &words = descriptors[i];
    words.assign(3 + 2 * rank, 0);
    words[0] = words[1] = reinterpret_cast<intptr_t>(tensor.data_ptr());
    for (int64_t d = 0; d < rank; ++d) {
      words[3 + d] = tensor.size(d);
      words[3 + rank + d] = tensor.stride(d);
    }
    if (rank > 0)
      words[3 + 2 * rank - 1] = 1;
  }
  return descriptors;
}

enum class Entry { Forward, Backward };

/// Runs `kernel`'s forward or backward entry on `tensors` (one dtype, one
/// device): the kernels.so entry with the descriptors' addresses, or on a
/// GPU the CUDA entry, one thread per element of the results (`numel`).
void callKernel(const GeneratedKernel &kernel, Entry entry,
                const std::vector<Tensor> &tensors,
                [[maybe_unused]] int64_t numel) {
  std::vector<std::vector<int64_t>> descriptors = memrefDescriptors(tensors);
#ifdef RVNN_RUNTIME_CUDA_KERNELS
  const Tensor &any = tensors.front();
  if (any.is_cuda())
    return cuda::launchKernel(*kernel.cuda,
                              entry == Entry::Forward
                                  ? KernelLibrary::forwardSymbol(kernel.name)
                                  : KernelLibrary::backwardSymbol(kernel.name),
                              descriptors, numel, any.device());
#endif
  std::vector<void *> args;
  for (std::vector<int64_t> &words : descriptors)
    args.push_back(words.data());
  (entry == Entry::Forward ? kernel.forward : kernel.backward)(args.data());
}

/// A generated kernel as an autograd function of the dispatch's inputs. The
/// backward recomputes the forward from the saved inputs (the `_grad` entry
/// point), so nothing else is kept.
struct GeneratedKernelFunction
    : torch::autograd::Function<GeneratedKernelFunction> {
  static variable_list forward(AutogradContext *ctx,
                               const GeneratedKernel *kernel,
                               int64_t numResults, at::TensorList inputs) {
    std::vector<Tensor> args;
    args.reserve(inputs.size() + numResults);
    for (const Tensor &input : inputs)
      args.push_back(kernelOperand(input));
    ctx->save_for_backward(args);
    ctx->saved_data["kernel"] = reinterpret_cast<intptr_t>(kernel);
    const std::vector<int64_t> sizes = kernelResultSizes(args);
    variable_list results;
    for (int64_t i = 0; i < numResults; ++i)
      results.push_back(at::empty(sizes, args.front().options()));
    const int64_t numel = results.front().numel();
    if (numel > 0) {
      args.insert(args.end(), results.begin(), results.end());
      callKernel(*kernel, Entry::Forward, args, numel);
    }
    return results;
  }

  static variable_list backward(AutogradContext *ctx, variable_list grads) {
    const auto *kernel = reinterpret_cast<const GeneratedKernel *>(
        static_cast<intptr_t>(ctx->saved_data["kernel"].toInt()));
    std::vector<Tensor> inputGrads =
        generatedKernelGrads(*kernel, ctx->get_saved_variables(), grads);
    // Slots for the kernel pointer and the result count come first.
    variable_list result{Tensor(), Tensor()};
    result.insert(result.end(), inputGrads.begin(), inputGrads.end());
    return result;
  }
};

} // namespace

std::vector<Tensor> generatedKernelGrads(const GeneratedKernel &kernel,
                                         const std::vector<Tensor> &inputs,
                                         const std::vector<Tensor> &grads) {
  const std::vector<int64_t> sizes = kernelResultSizes(inputs);
  const at::TensorOptions options = inputs.front().options();
  std::vector<Tensor> args;
  for (const Tensor &input : inputs)
    args.push_back(kernelOperand(input));
  for (const Tensor &grad : grads)
    args.push_back(grad.defined() ? kernelOperand(grad)
                                  : at::zeros(sizes, options));
  // Without rows the kernel does not run: a row or broadcast operand's
  // gradient (which may have elements then) is zero.
  const int64_t numel = c10::multiply_integers(sizes);
  const bool runs = numel > 0;
  std::vector<Tensor> inputGrads;
  if (runs) {
    inputGrads = inputGradBuffers(inputs);
  } else {
    for (const Tensor &input : inputs)
      inputGrads.push_back(at::zeros(input.sizes(), input.options()));
  }
  args.insert(args.end(), inputGrads.begin(), inputGrads.end());
  if (runs)
    callKernel(kernel, Entry::Backward, args, numel);
  return inputGrads;
}

namespace {

/// "float [3, 128]", for errors.
std::string describe(const Tensor &tensor) {
  std::ostringstream os;
  os << c10::toString(tensor.scalar_type()) << ' ' << tensor.sizes();
  return os.str();
}

} // namespace

std::vector<int64_t> kernelResultSizes(const std::vector<Tensor> &inputs) {
  int64_t rank = 0;
  for (const Tensor &input : inputs)
    rank = std::max<int64_t>(rank, input.dim());
  // NumPy's broadcast: a dim's size is any input's that is not 1, else 1.
  std::vector<int64_t> sizes(rank, 1);
  for (const Tensor &input : inputs)
    if (input.dim() == rank)
      for (int64_t d = 0; d < rank; ++d)
        if (input.size(d) != 1)
          sizes[d] = input.size(d);
  return sizes;
}

void checkKernelOperands(const PlanOp &op, const std::vector<Tensor> &inputs) {
  const std::vector<int64_t> sizes = kernelResultSizes(inputs);
  const auto rank = static_cast<int64_t>(sizes.size());
  const at::ScalarType dtype = inputs.front().scalar_type();
  if (dtype != torch::kFloat && dtype != torch::kDouble)
    throw PlanError(op.where() + ": generated kernels take f32 or f64, got " +
                    std::string(c10::toString(dtype)));
  const std::vector<ValueType> &argTypes = op.regions.at(0).argTypes;
  auto isRowOperand = [&](const Tensor &input) {
    return rank >= 2 && input.dim() == 1 && input.size(0) == sizes.back();
  };
  // 1 only where the body argument's type says a static 1.
  auto isBroadcastOperand = [&](const Tensor &input, const ValueType &type) {
    if (input.dim() != rank || type.shape.size() != static_cast<size_t>(rank))
      return false;
    for (int64_t d = 0; d < rank; ++d)
      if (input.size(d) != sizes[d] &&
          !(input.size(d) == 1 && type.shape[d] == 1))
        return false;
    return true;
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].scalar_type() != dtype ||
        (!isRowOperand(inputs[i]) &&
         !isBroadcastOperand(inputs[i], argTypes.at(i))))
      throw PlanError(op.where() + ": input #" + std::to_string(i) + " " +
                      describe(inputs[i]) + " is neither of the kernel's " +
                      std::string(c10::toString(dtype)) + " " +
                      c10::str(at::IntArrayRef(sizes)) +
                      " nor a row operand of its last dim nor a broadcast "
                      "operand of it; a generated kernel takes one tensor "
                      "type, row operands and broadcast operands");
}

namespace {

/// Whether `kernel` has code this runtime can launch on `device` (CUDA).
bool runsOn(const GeneratedKernel &kernel, const torch::Device &device) {
#ifdef RVNN_RUNTIME_CUDA_KERNELS
  return device.is_cuda() && kernel.cuda;
#else
  (void)kernel;
  (void)device;
  return false;
#endif
}

} // namespace

const GeneratedKernel *generatedKernelFor(Executor &executor,
                                          const PlanOp &dispatchOp,
                                          const std::vector<Tensor> &inputs) {
  ExecutionContext &ctx = executor.context();
  if (ctx.kernelMode != KernelMode::Generated || inputs.empty())
    return nullptr;
  const Plan &plan = executor.program();
  const torch::Device device = inputs.front().device();
  if (!plan.kernels)
    Executor::checkKernels(plan, ctx.kernelMode);
  const GeneratedKernel &kernel =
      plan.kernels->kernel(stringAttr(dispatchOp, Dispatch::attr::kernel));
  if (!device.is_cpu() && !runsOn(kernel, device)) {
    static std::once_flag notice;
    std::call_once(notice, [&] {
      std::cerr << "rvnn: " << device
                << ": dispatches without CUDA code here (row reductions, "
                   "broadcast operands, "
                   "or a runtime built without CUDA) run their reference "
                   "bodies; the first: "
                << dispatchOp.where() << "\n";
    });
    return nullptr;
  }
  checkKernelOperands(dispatchOp, inputs);
  return &kernel;
}

namespace {

void runReference(Executor &executor, const PlanOp &op, Frame &frame,
                  const std::vector<Tensor> &inputs) {
  std::vector<RuntimeValue> args(inputs.begin(), inputs.end());
  std::vector<RuntimeValue> results =
      executor.runRegion(op.regions.at(0), frame, args);
  if (results.size() != op.results.size())
    throw PlanError(op.where() + ": the body yields " +
                    std::to_string(results.size()) + " values for " +
                    std::to_string(op.results.size()) + " results");
  for (size_t i = 0; i < results.size(); ++i)
    frame.setResult(op, i, std::move(results[i]));
}

void dispatch(Executor &executor, const PlanOp &op, Frame &frame) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < op.operands.size(); ++i)
    inputs.push_back(frame.tensor(op, i));
  const GeneratedKernel *kernel = generatedKernelFor(executor, op, inputs);
  if (!kernel)
    return runReference(executor, op, frame, inputs);
  variable_list results = GeneratedKernelFunction::apply(
      kernel, static_cast<int64_t>(op.results.size()), at::TensorList(inputs));
  for (size_t i = 0; i < results.size(); ++i)
    frame.setResult(op, i, std::move(results[i]));
}

} // namespace

void registerDispatchOps(OpRegistry &registry) {
  registry[Dispatch::name] = dispatch;
}

} // namespace rvnn::runtime
