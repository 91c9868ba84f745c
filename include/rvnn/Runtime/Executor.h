#ifndef RVNN_RUNTIME_EXECUTOR_H
#define RVNN_RUNTIME_EXECUTOR_H

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include <torch/types.h>

#include "rvnn/Runtime/Ops/Random.h"
#include "rvnn/Runtime/Plan.h"
#include "rvnn/Runtime/Profile.h"
#include "rvnn/Runtime/StructureTrace.h"

namespace rvnn::runtime {

/// A runtime value: a tensor, or an integer scalar (`index`, `i64`, `i1`).
using RuntimeValue = std::variant<torch::Tensor, int64_t>;

/// How rvnn_exec.dispatch ops run: `Generated` calls the model's generated
/// kernels (kernels.so) and their compiler-derived backward; `Reference` runs
/// the dispatch's body with the reference handlers (ATen autograd backward).
/// Generated on a non-CPU device falls back to the reference body.
enum class KernelMode { Generated, Reference };

/// "generated" / "reference"; nullopt for anything else.
std::optional<KernelMode> parseKernelMode(std::string_view name);
std::string_view kernelModeName(KernelMode mode);

/// What an rvnn_exec.call whose gradient is recorded keeps for its backward
/// step: `Save` keeps the residuals its compiler-derived forward returns;
/// `Recompute` keeps only the call's operands and the draw offset, and reruns
/// the forward in backward (same draws), trading time for memory.
enum class RecomputePolicy { Save, Recompute };

/// "save" / "recompute"; nullopt for anything else.
std::optional<RecomputePolicy> parseRecomputePolicy(std::string_view name);
std::string_view recomputePolicyName(RecomputePolicy policy);

/// Steps between the host's "all halted?" checks of a per-sample halting
/// loop on CUDA: each check waits for the device to finish the steps.
constexpr int64_t kCudaHaltSyncEvery = 4;

/// Settings that change what a plan computes.
struct ExecutionContext {
  bool training = false;
  /// Seeds `draws` once per top-level forward pass (CompiledModel).
  torch::Generator generator;
  /// The counter-based stream the drawing ops (dropout, dropout_mask, Gumbel
  /// top-k, beam_align) draw from and advance.
  ops::DrawStream draws;
  RecomputePolicy recompute = RecomputePolicy::Save;
  torch::Device device = torch::kCPU;
  /// Per-sample halting checks "all halted?" on the host every this many
  /// steps; halted samples are frozen, so extra steps change nothing but
  /// cost a whole step each. On the CPU the check is one read of host
  /// memory, so it runs after every step; CompiledModel sets
  /// kCudaHaltSyncEvery on CUDA, where each check waits for the device.
  int64_t haltSyncEvery = 1;
  /// At those checks, also drop halted samples from the batch the loop body
  /// runs on (where the body reads batch-major values and the batch size
  /// only through its state; otherwise freezing alone is used). Results are
  /// the same up to float rounding.
  bool compactHalted = false;
  /// Generated kernels or the reference bodies for dispatch ops. Executor's
  /// constructor refuses Generated on the CPU for a plan that has dispatches
  /// but no loaded kernel library.
  KernelMode kernelMode = KernelMode::Generated;
  /// When set, the executor counts and times what it runs into it.
  ExecutionProfile *profile = nullptr;
  /// The run's values of the plan's rvnn_exec.eval_option ops by name, read
  /// at evaluation (CompiledModel::setEvalOptions checks the names).
  std::map<std::string, int64_t> evalOptions;
  /// When set, rvnn_exec.expose_structure ops record the values the model
  /// exposes as its induced structure into it (`rvnn-run parse`).
  StructureTrace *structureTrace = nullptr;
};

/// The values of one function activation, indexed by plan value id.
class Frame {
public:
  explicit Frame(int64_t numValues) : values(numValues) {}
  const RuntimeValue &get(const PlanOp &op, int64_t id) const;
  torch::Tensor tensor(const PlanOp &op, size_t operand) const;
  /// tensor(), but moved out of the frame where `op` is the value's last
  /// reader (PlanOp::lastUses): then the caller holds the frame's reference.
  torch::Tensor takeTensor(const PlanOp &op, size_t operand);
  int64_t integer(const PlanOp &op, size_t operand) const;
  /// Stores result `index` of `op`, checking it against the plan's type.
  void setResult(const PlanOp &op, size_t index, RuntimeValue value);
  void bind(int64_t id, RuntimeValue value) {
    values.at(id) = std::move(value);
  }
  int64_t size() const { return static_cast<int64_t>(values.size()); }

private:
  std::vector<std::optional<RuntimeValue>> values;
};

class Executor;
using OpHandler = std::function<void(Executor &, const PlanOp &, Frame &)>;
/// Keyed by the contract's op names, which are static strings.
using OpRegistry = std::map<std::string_view, OpHandler>;

/// The handlers of the rvnn_exec ops, keyed by their contract names
/// (rvnn/Dialect/Exec/ExecContract.h). Functions, parameter declarations and
/// terminators have none: the executor handles them itself.
OpRegistry execOpHandlers();

/// Interprets a plan of rvnn_exec ops with ATen reference implementations.
class Executor {
public:
  /// Throws PlanError naming the first op that has no handler.
  Executor(const Plan &plan,
           std::function<torch::Tensor(const std::string &)> parameter,
           ExecutionContext &context);

  std::vector<RuntimeValue> call(const std::string &function,
                                 const std::vector<RuntimeValue> &args);
  /// Runs a single-block region with `args` bound to its block arguments and
  /// returns its terminator's operands.
  std::vector<RuntimeValue> runRegion(const PlanRegion &region, Frame &frame,
                                      const std::vector<RuntimeValue> &args);
  /// runRegion for one step of a recursion (recurse / balanced_reduce
  /// body), counted as such by a profile.
  std::vector<RuntimeValue> runLoopBody(const PlanRegion &region, Frame &frame,
                                        const std::vector<RuntimeValue> &args);

  ExecutionContext &context() { return ctx; }
  const Plan &program() const { return plan; }
  torch::Tensor parameter(const std::string &name) const {
    return parameterLookup(name);
  }

  /// The tensor of constant op `op` on the context's device, built by
  /// `make` on first use and shared afterwards (ops never write to their
  /// operands), so a constant in a loop body is not rebuilt from the plan's
  /// JSON every step.
  torch::Tensor constant(const PlanOp &op,
                         const std::function<torch::Tensor()> &make);

  /// While a loop runs, the tensors its body reads from outside (its
  /// weights among them) do not change: a product by the transpose of one
  /// multiplies a row-major copy made once for the loop (transposedInvariant)
  /// instead of transposing operands every step, and their shape witnesses
  /// are made once (invariantWitness). Marks `tensors` so until the matching
  /// popLoopInvariants(); loops nest.
  void pushLoopInvariants(const std::vector<torch::Tensor> &tensors);
  void popLoopInvariants();
  /// `matrix`ᵀ laid out row-major when `matrix` is a 2-D tensor a running
  /// loop reads from outside, made on its first use in the loop; undefined
  /// otherwise, and where autograd records through `matrix` (the copy
  /// serves products that record no gradient).
  torch::Tensor transposedInvariant(const torch::Tensor &matrix);
  /// shapeWitness(like), made once per loop when `like` is a tensor a
  /// running loop reads from outside.
  torch::Tensor invariantWitness(const torch::Tensor &like);

  /// Throws PlanError when `mode` needs generated kernels that the plan
  /// does not have loaded (on a GPU too: the library says which kernels
  /// have CUDA code).
  static void checkKernels(const Plan &plan, KernelMode mode);

private:
  /// Runs one op's handler, counted and timed when profiling.
  void runOp(const PlanOp &op, Frame &frame);
  /// Finds the handler of every op of `region` (throws PlanError for an op
  /// without one).
  void resolveHandlers(const PlanRegion &region);

  const Plan &plan;
  std::function<torch::Tensor(const std::string &)> parameterLookup;
  ExecutionContext &ctx;
  OpRegistry registry;
  /// The plan's ops' handlers, found once: a step runs each op many times.
  std::unordered_map<const PlanOp *, const OpHandler *> handlers;
  /// Recursion bodies being run, for the profile's per-step counts.
  int loopDepth = 0;
  std::unordered_map<const PlanOp *, torch::Tensor> constants;
  /// Per running loop, its invariants by tensor and, once made, their
  /// transposes (2-D ones) and shape witnesses; the entry keeps the tensor
  /// alive, so its key is not reused.
  struct Invariant {
    torch::Tensor tensor, transposed, witness;
  };
  /// The running loops' entry of `tensor`, or null.
  Invariant *findInvariant(const torch::Tensor &tensor);
  std::vector<std::unordered_map<const c10::TensorImpl *, Invariant>>
      loopInvariants;
};

/// Maps a plan dtype name to a torch scalar type.
torch::ScalarType scalarType(const std::string &dtype);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_EXECUTOR_H
