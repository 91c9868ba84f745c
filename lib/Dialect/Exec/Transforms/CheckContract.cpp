#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"

namespace mlir::rvnn::exec {
#define GEN_PASS_DEF_RVNNEXECCHECKCONTRACT
#include "rvnn/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::rvnn::exec

using namespace mlir;

LogicalResult rvnn::exec::checkContract(ModuleOp module) {
  bool clean = true;
  module.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<ExecDialect>(op->getDialect()))
      return WalkResult::advance();
    if (isa<ModuleOp>(op) && op->hasAttr(ExecDialect::kKernelsAttrName))
      return WalkResult::skip();
    op->emitError("'") << op->getName()
                       << "' is outside the execution contract ("
                       << ExecDialect::getDialectNamespace() << ")";
    clean = false;
    return WalkResult::advance();
  });
  return success(clean);
}

namespace {
struct CheckContractPass
    : public rvnn::exec::impl::RvnnExecCheckContractBase<CheckContractPass> {
  void runOnOperation() override {
    if (failed(rvnn::exec::checkContract(getOperation())))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
