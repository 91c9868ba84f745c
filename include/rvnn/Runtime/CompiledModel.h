#ifndef RVNN_RUNTIME_COMPILEDMODEL_H
#define RVNN_RUNTIME_COMPILEDMODEL_H

#include <memory>
#include <string>

#include "rvnn/Runtime/Executor.h"
#include "rvnn/Runtime/Model.h"
#include "rvnn/Runtime/Plan.h"

namespace rvnn::runtime {

/// A compiled model ready to train: its plan, its parameters (initialised
/// from the plan's initialisers with a seeded generator) and an executor.
///
/// Calling convention (docs/compiled-model-format.md): `@forward` takes the
/// batch inputs and returns class scores [N, C], optionally followed by an
/// auxiliary scalar loss (e.g. CRvNN's halting penalty, already weighted)
/// that training adds to the mean cross-entropy.
class CompiledModel : public TrainableModel {
public:
  /// Loads the model (and, for generated kernels on the CPU, its kernel
  /// library). Throws PlanError, e.g. for generated kernels on the CPU of a
  /// model that has dispatch ops but was compiled without a kernel library.
  CompiledModel(const std::string &directory, torch::Device device,
                uint64_t seed, KernelMode kernels = KernelMode::Generated);

  std::vector<std::pair<std::string, torch::Tensor>>
  namedParameters() override {
    return params;
  }
  torch::Tensor loss(const Batch &batch, bool training) override;
  torch::Tensor logits(const Batch &batch) override;
  torch::Generator &generator() override { return context.generator; }

  const Plan &plan() const { return compiled; }
  /// How the plan runs (halting checks, compaction, kernel mode; the kernel
  /// library is loaded only when the constructor's mode is Generated).
  ExecutionContext &executionContext() { return context; }
  /// The values of the plan's evaluation options (rvnn_exec.eval_option) for
  /// evaluation passes. Throws PlanError naming an option that no
  /// eval_option of the plan reads.
  void setEvalOptions(std::map<std::string, int64_t> options);

private:
  std::vector<RuntimeValue> forward(const Batch &batch, bool training);
  torch::Tensor parameter(const std::string &name) const;

  Plan compiled;
  std::vector<std::pair<std::string, torch::Tensor>> params;
  std::map<std::string, size_t> paramIndex;
  ExecutionContext context;
  std::unique_ptr<Executor> executor;
};

/// Initialises one parameter as its spec says, drawing from `generator`.
torch::Tensor initialiseParameter(const ParamSpec &spec,
                                  torch::Generator &generator);

} // namespace rvnn::runtime

#endif // RVNN_RUNTIME_COMPILEDMODEL_H
