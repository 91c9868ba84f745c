#ifndef RVNN_DIALECT_EXEC_TRANSFORMS_PASSES_H
#define RVNN_DIALECT_EXEC_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::rvnn::exec {
#define GEN_PASS_DECL
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"

/// The op-by-op check behind rvnn-exec-check-contract: emits an error at
/// every op outside the contract and fails if there was one.
LogicalResult checkContract(ModuleOp module);
} // namespace mlir::rvnn::exec

#endif // RVNN_DIALECT_EXEC_TRANSFORMS_PASSES_H
