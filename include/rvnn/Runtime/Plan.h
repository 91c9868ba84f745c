#ifndef RVNN_RUNTIME_PLAN_H
#define RVNN_RUNTIME_PLAN_H

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace rvnn::runtime {

class KernelLibrary;

/// A malformed or incompatible compiled model; the message names the file
/// and the field.
struct PlanError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ValueType {
  std::string dtype;          ///< f32 f64 i64 i1 index
  std::vector<int64_t> shape; ///< -1 = dynamic
  bool tensor = true;
};

struct PlanRegion;

struct PlanOp {
  std::string name;
  std::vector<int64_t> operands;
  std::vector<int64_t> results;
  std::vector<ValueType> resultTypes;
  nlohmann::json attrs; ///< set by setAttrs
  /// The attributes that are arrays of integers (static_offsets,
  /// operandSegmentSizes, grad_inputs, ...), decoded once by setAttrs: a
  /// loop body's ops read them every time they run.
  std::vector<std::pair<std::string, std::vector<int64_t>>> intArrays;
  std::vector<PlanRegion> regions;
  std::string loc; ///< file:line:col in the source model
  /// Per operand: whether this op is the last reader of its value, which an
  /// op of the same region defines and no later op there reads (nor a region
  /// nested in one), and which this op reads once, outside its regions.
  std::vector<bool> lastUses;

  /// "model.mlir:12:8: rvnn.linear" — the prefix of every error about it.
  std::string where() const;
  /// Sets `attrs` and decodes its integer arrays into `intArrays`.
  void setAttrs(nlohmann::json attributes);
};

struct PlanRegion {
  std::vector<int64_t> args;
  std::vector<ValueType> argTypes;
  std::vector<PlanOp> body;
};

struct PlanFunction {
  std::string name;
  PlanRegion body;
  std::vector<ValueType> resultTypes;
  int64_t numValues = 0; ///< values are numbered 0 .. numValues-1
};

struct ParamSpec {
  std::string name;
  ValueType type;
  std::string init; ///< zeros ones constant normal uniform xavier_uniform
  double scale = 1.0;
};

struct Plan {
  std::string directory;
  std::vector<ParamSpec> params;
  std::map<std::string, PlanFunction> functions;
  /// The `kernel` names of the plan's rvnn_exec.dispatch ops, sorted.
  std::vector<std::string> dispatchKernels;
  /// The manifest's kernel library file (`kernels.library`); empty when the
  /// model was compiled without one.
  std::string kernelLibraryFile;
  /// The loaded kernel library; null when there is none or it was not
  /// loaded (loadPlan's `loadKernels`).
  std::shared_ptr<const KernelLibrary> kernels;

  const PlanFunction &function(const std::string &name) const;
};

/// The SHA-256 of `bytes` as 64 lowercase hex digits, as the manifest records
/// it for every file of a compiled model.
std::string sha256Hex(const std::string &bytes);

/// Loads DIR/manifest.json and the plan it lists, in the format version of
/// the execution contract (rvnn/Dialect/Exec/ExecContract.h). Checks the
/// SHA-256 of every listed file and that every op of the plan is a contract
/// op. With `loadKernels`, also loads the generated kernel library the
/// manifest's `kernels` object names (KernelLibrary: ABI, dlopen, every
/// listed symbol and both entry points of every dispatch). Throws PlanError.
Plan loadPlan(const std::string &directory, bool loadKernels = true);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_PLAN_H
