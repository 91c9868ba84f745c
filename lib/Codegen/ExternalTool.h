// Pieces the CPU and CUDA kernel emitters share: the clone they lower and
// the external tools (cc, ptxas) they run.
#ifndef RVNN_LIB_CODEGEN_EXTERNALTOOL_H
#define RVNN_LIB_CODEGEN_EXTERNALTOOL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::rvnn {

/// A clone of `kernels` (the nested module marked `rvnn_exec.kernels`)
/// without the marker, with the codegen interfaces registered in its
/// context: what a target's lowering pipeline runs on.
OwningOpRef<ModuleOp> cloneKernelsForLowering(ModuleOp kernels);

/// Runs `command` (command[0] is the program) with stdout and stderr
/// captured. On success, that output; otherwise an error at `loc`,
/// "<emitter>: '<command>' failed with exit status N:" and the output.
FailureOr<std::string> runTool(Location loc, llvm::StringRef emitter,
                               llvm::ArrayRef<llvm::StringRef> command);

} // namespace mlir::rvnn

#endif // RVNN_LIB_CODEGEN_EXTERNALTOOL_H
