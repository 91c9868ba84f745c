#ifndef RVNN_TRANSFORMS_PIPELINE_H
#define RVNN_TRANSFORMS_PIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::rvnn {

struct CompilePipelineOptions
    : public PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> library{*this, "library",
                              llvm::cl::desc("Library of shared cells to link "
                                             "(empty: link nothing)")};
};

/// link cells -> expand bounded self-recursion -> inline -> infer shapes ->
/// canonicalize -> cse: the model in the rvnn dialect and upstream ops.
/// Registered as `rvnn-front`.
void buildFrontPipeline(OpPassManager &pm,
                        const CompilePipelineOptions &options);

/// The front end, then the lowering to the execution dialect, elementwise
/// fusion into dispatches, their kernel IR (forward and derived backward)
/// and the contract check: the module the plan exporter serialises (program)
/// and compiles (kernels). Registered as
/// `rvnn-compile`.
void buildCompilePipeline(OpPassManager &pm,
                          const CompilePipelineOptions &options);

void registerCompilePipeline();

} // namespace mlir::rvnn

#endif // RVNN_TRANSFORMS_PIPELINE_H
