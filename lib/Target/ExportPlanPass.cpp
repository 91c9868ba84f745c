#include "rvnn/Target/PlanExport.h"
#include "rvnn/Transforms/Passes.h"

#include "llvm/Support/MemoryBuffer.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNEXPORTPLAN
#include "rvnn/Transforms/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {
struct ExportPlanPass
    : public mlir::rvnn::impl::RvnnExportPlanBase<ExportPlanPass> {
  using RvnnExportPlanBase::RvnnExportPlanBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (dir.empty()) {
      module.emitError("rvnn-export-plan: option 'dir' is required");
      return signalPassFailure();
    }
    // The manifest records the source file the module was parsed from.
    std::string source = "<stdin>", sourceText;
    if (auto loc = dyn_cast<FileLineColLoc>(module.getLoc()))
      source = loc.getFilename().str();
    if (auto buffer = llvm::MemoryBuffer::getFile(source))
      sourceText = (*buffer)->getBuffer().str();
    mlir::rvnn::KernelTarget target;
    target.cpu = cpu;
    if (failed(mlir::rvnn::writeCompiledModel(module, dir, source, sourceText,
                                              target)))
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace
