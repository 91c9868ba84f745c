#ifndef RVNN_CONVERSION_PASSES_H
#define RVNN_CONVERSION_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"

namespace mlir::rvnn {
#define GEN_PASS_DECL
#include "rvnn/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "rvnn/Conversion/Passes.h.inc"
} // namespace mlir::rvnn

#endif // RVNN_CONVERSION_PASSES_H
