#include "rvnn/Runtime/Executor.h"
#include "GradCollector.h"
#include "Handlers.h"
#include "rvnn/Runtime/Ops/JitProduct.h"

#include <chrono>
#include <sstream>

namespace rvnn::runtime {
namespace {

bool isTerminator(const std::string &name) {
  return name == exec::ReturnOp::name || name == exec::YieldOp::name;
}

std::string shapeText(c10::IntArrayRef shape) {
  std::ostringstream os;
  os << shape;
  return os.str();
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "")
       << (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  os << ']';
  return os.str();
}

/// Checks a value against its plan type; `what()` names it in the error. It
/// is called only on failure: every op result passes through here, and the
/// name is a few string allocations.
template <typename Describe>
void checkType(const RuntimeValue &value, const ValueType &type,
               Describe &&what) {
  if (!type.tensor) {
    if (!std::holds_alternative<int64_t>(value))
      throw PlanError(what() + " should be an integer scalar");
    return;
  }
  if (!std::holds_alternative<torch::Tensor>(value))
    throw PlanError(what() + " should be a tensor");
  const torch::Tensor &tensor = std::get<torch::Tensor>(value);
  bool ok = tensor.dim() == static_cast<int64_t>(type.shape.size());
  for (size_t d = 0; ok && d < type.shape.size(); ++d)
    ok = type.shape[d] < 0 || type.shape[d] == tensor.size(d);
  if (!ok)
    throw PlanError(what() + " has shape " + shapeText(tensor.sizes()) +
                    ", the model expects " + shapeText(type.shape));
  if (tensor.scalar_type() != scalarType(type.dtype))
    throw PlanError(what() + " has dtype " +
                    std::string(c10::toString(tensor.scalar_type())) +
                    ", the model expects " + type.dtype);
}

} // namespace

const nlohmann::json &attr(const PlanOp &op, std::string_view name) {
  auto it = op.attrs.find(name);
  if (it == op.attrs.end())
    throw PlanError(op.where() + ": missing attribute '" + std::string(name) +
                    "'");
  return *it;
}

const std::vector<int64_t> &intArrayAttr(const PlanOp &op,
                                         std::string_view name) {
  for (const auto &[attrName, values] : op.intArrays)
    if (attrName == name)
      return values;
  attr(op, name); // throws when missing
  throw PlanError(op.where() + ": attribute '" + std::string(name) +
                  "' is not an array of integers");
}

const std::string &stringAttr(const PlanOp &op, std::string_view name) {
  const nlohmann::json &value = attr(op, name);
  if (!value.is_string())
    throw PlanError(op.where() + ": attribute '" + std::string(name) +
                    "' is not a string");
  return value.get_ref<const std::string &>();
}

OperandGroup operandGroup(const PlanOp &op, size_t group) {
  // MLIR's attribute of ops with AttrSizedOperandSegments.
  const std::vector<int64_t> &sizes = intArrayAttr(op, "operandSegmentSizes");
  OperandGroup result;
  size_t total = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i == group)
      result = {total, static_cast<size_t>(sizes[i])};
    total += sizes[i];
  }
  if (total != op.operands.size())
    throw PlanError(op.where() +
                    ": operandSegmentSizes does not match the operands");
  // A group past the recorded ones is an optional operand the op gained
  // after the plan was written (the gemm's band): absent.
  return group < sizes.size() ? result : OperandGroup{total, 0};
}

OpRegistry execOpHandlers() {
  OpRegistry registry;
  registerControlOps(registry);
  registerScalarOps(registry);
  registerViewOps(registry);
  registerLibraryOps(registry);
  registerKernelOps(registry);
  registerDispatchOps(registry);
  registerCallOp(registry);
  registerVjpOp(registry);
  registerExposeStructureOp(registry);
  return registry;
}

torch::ScalarType scalarType(const std::string &dtype) {
  if (dtype == "f32")
    return torch::kFloat;
  if (dtype == "f64")
    return torch::kDouble;
  if (dtype == "i64" || dtype == "index")
    return torch::kLong;
  if (dtype == "i1")
    return torch::kBool;
  throw PlanError("unknown dtype '" + dtype + "'");
}

const RuntimeValue &Frame::get(const PlanOp &op, int64_t id) const {
  const std::optional<RuntimeValue> &value = values.at(id);
  if (!value)
    throw PlanError(op.where() + ": operand %" + std::to_string(id) +
                    " is used before it is defined");
  return *value;
}

torch::Tensor Frame::tensor(const PlanOp &op, size_t operand) const {
  const RuntimeValue &value = get(op, op.operands.at(operand));
  if (!std::holds_alternative<torch::Tensor>(value))
    throw PlanError(op.where() + ": operand #" + std::to_string(operand) +
                    " should be a tensor");
  return std::get<torch::Tensor>(value);
}

torch::Tensor Frame::takeTensor(const PlanOp &op, size_t operand) {
  torch::Tensor result = tensor(op, operand);
  if (operand < op.lastUses.size() && op.lastUses[operand])
    values.at(op.operands[operand]).reset();
  return result;
}

int64_t Frame::integer(const PlanOp &op, size_t operand) const {
  const RuntimeValue &value = get(op, op.operands.at(operand));
  if (!std::holds_alternative<int64_t>(value))
    throw PlanError(op.where() + ": operand #" + std::to_string(operand) +
                    " should be an integer scalar");
  return std::get<int64_t>(value);
}

void Frame::setResult(const PlanOp &op, size_t index, RuntimeValue value) {
  checkType(value, op.resultTypes.at(index),
            [&] { return op.where() + ": result #" + std::to_string(index); });
  bind(op.results.at(index), std::move(value));
}

Executor::Executor(const Plan &plan,
                   std::function<torch::Tensor(const std::string &)> parameter,
                   ExecutionContext &context)
    : plan(plan), parameterLookup(std::move(parameter)), ctx(context),
      registry(execOpHandlers()) {
  for (const auto &entry : plan.functions)
    resolveHandlers(entry.second.body);
  checkKernels(plan, ctx.kernelMode);
}

void Executor::checkKernels(const Plan &plan, KernelMode mode) {
  if (mode != KernelMode::Generated || plan.dispatchKernels.empty() ||
      plan.kernels)
    return;
  if (plan.kernelLibraryFile.empty())
    throw PlanError(plan.directory +
                    ": compiled without a kernel library; recompile or use "
                    "--kernels reference");
  throw PlanError(plan.directory + "/" + plan.kernelLibraryFile +
                  ": the kernel library was not loaded; load the plan with "
                  "its kernels or use --kernels reference");
}

void Executor::resolveHandlers(const PlanRegion &region) {
  for (const PlanOp &op : region.body) {
    if (!isTerminator(op.name)) {
      auto found = registry.find(op.name);
      if (found == registry.end())
        throw PlanError(plan.directory + "/plan.json: " + op.where() +
                        ": op is not implemented by this runtime");
      handlers[&op] = &found->second;
    }
    for (const PlanRegion &nested : op.regions)
      resolveHandlers(nested);
  }
}

std::vector<RuntimeValue>
Executor::call(const std::string &name, const std::vector<RuntimeValue> &args) {
  const PlanFunction &function = plan.function(name);
  if (args.size() != function.body.args.size())
    throw PlanError("@" + name + " takes " +
                    std::to_string(function.body.args.size()) +
                    " arguments, got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    checkType(args[i], function.body.argTypes[i],
              [&] { return "@" + name + " argument #" + std::to_string(i); });
  if (ctx.profile)
    ++ctx.profile->functionRuns[name];
  Frame frame(function.numValues);
  return runRegion(function.body, frame, args);
}

std::vector<RuntimeValue>
Executor::runRegion(const PlanRegion &region, Frame &frame,
                    const std::vector<RuntimeValue> &args) {
  for (size_t i = 0; i < region.args.size(); ++i)
    frame.bind(region.args[i], args.at(i));
  for (const PlanOp &op : region.body) {
    if (isTerminator(op.name)) {
      std::vector<RuntimeValue> results;
      for (int64_t id : op.operands)
        results.push_back(frame.get(op, id));
      return results;
    }
    try {
      runOp(op, frame);
    } catch (const PlanError &) {
      throw;
    } catch (const std::exception &error) {
      // ATen errors carry C++ backtraces; the first line is the message.
      std::string message = error.what();
      throw PlanError(op.where() + ": " +
                      message.substr(0, message.find('\n')));
    }
  }
  throw PlanError("region has no terminator");
}

std::vector<RuntimeValue>
Executor::runLoopBody(const PlanRegion &region, Frame &frame,
                      const std::vector<RuntimeValue> &args) {
  if (ctx.profile)
    ++ctx.profile->loopSteps;
  ++loopDepth;
  try {
    std::vector<RuntimeValue> results = runRegion(region, frame, args);
    --loopDepth;
    return results;
  } catch (...) {
    --loopDepth;
    throw;
  }
}

void Executor::pushLoopInvariants(const std::vector<torch::Tensor> &tensors) {
  auto &invariants = loopInvariants.emplace_back();
  for (const torch::Tensor &tensor : tensors)
    invariants.emplace(tensor.unsafeGetTensorImpl(), Invariant{tensor, {}, {}});
}

void Executor::popLoopInvariants() { loopInvariants.pop_back(); }

Executor::Invariant *Executor::findInvariant(const torch::Tensor &tensor) {
  for (auto &invariants : loopInvariants) {
    auto found = invariants.find(tensor.unsafeGetTensorImpl());
    if (found != invariants.end())
      return &found->second;
  }
  return nullptr;
}

torch::Tensor Executor::transposedInvariant(const torch::Tensor &matrix) {
  // The copy is made outside autograd: it serves products that record none.
  if (matrix.dim() != 2 ||
      (torch::GradMode::is_enabled() && matrix.requires_grad()))
    return {};
  Invariant *invariant = findInvariant(matrix);
  if (!invariant)
    return {};
  if (!invariant->transposed.defined())
    invariant->transposed = ops::transposedCopy(matrix);
  return invariant->transposed;
}

torch::Tensor Executor::invariantWitness(const torch::Tensor &like) {
  Invariant *invariant = findInvariant(like);
  if (!invariant)
    return shapeWitness(like);
  if (!invariant->witness.defined())
    invariant->witness = shapeWitness(like);
  return invariant->witness;
}

torch::Tensor Executor::constant(const PlanOp &op,
                                 const std::function<torch::Tensor()> &make) {
  torch::Tensor &cached = constants[&op];
  if (!cached.defined() || cached.device() != ctx.device)
    cached = make();
  return cached;
}

namespace {

/// An op's name, with a dispatch's kernel: "rvnn_exec.dispatch[forward_k3]".
std::string opKey(const PlanOp &op) {
  if (op.name != contract::ops::DispatchOp::name)
    return op.name;
  return op.name + "[" +
         stringAttr(op, contract::ops::DispatchOp::attr::kernel) + "]";
}

/// A vjp is timed under its primal op, "rvnn_exec.vjp(rvnn_exec.gemm)" or
/// "rvnn_exec.vjp(rvnn_exec.dispatch[forward_k3])": the backward's time by
/// op then says which derivatives (of which kernels) cost.
std::string profileKey(const PlanOp &op) {
  if (op.name != contract::ops::VjpOp::name || op.regions.empty() ||
      op.regions.front().body.empty())
    return opKey(op);
  return op.name + "(" + opKey(op.regions.front().body.front()) + ")";
}

} // namespace

void Executor::runOp(const PlanOp &op, Frame &frame) {
  auto resolved = handlers.find(&op);
  const OpHandler &handler =
      resolved != handlers.end() ? *resolved->second : registry.at(op.name);
  ExecutionProfile *profile = ctx.profile;
  if (!profile)
    return handler(*this, op, frame);
  contract::OpKind kind = *contract::lookupOp(op.name);
  // A reference dispatch is its body's ops, which count themselves.
  bool counted = !(op.name == contract::ops::DispatchOp::name &&
                   ctx.kernelMode == KernelMode::Reference);
  if (counted) {
    ++profile->opsByKind[static_cast<size_t>(kind)];
    if (loopDepth > 0 &&
        (kind == contract::OpKind::Kernel || kind == contract::OpKind::Library))
      ++profile->loopDispatches;
  }
  if (kind == contract::OpKind::Control || !counted)
    return handler(*this, op, frame);
  auto start = std::chrono::steady_clock::now();
  handler(*this, op, frame);
  ExecutionProfile::OpTime &time = profile->byOp[profileKey(op)];
  ++time.calls;
  time.seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
}

} // namespace rvnn::runtime
