// Copies function definitions from a library module into the declarations
// of the module being compiled, so cells are written once and shared.
#include "rvnn/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/SourceMgr.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNLINKLIBRARY
#include "rvnn/Transforms/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {
struct LinkLibraryPass
    : public rvnn::impl::RvnnLinkLibraryBase<LinkLibraryPass> {
  using RvnnLinkLibraryBase::RvnnLinkLibraryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (path.empty()) {
      module.emitError("rvnn-link-library: option 'path' is required");
      return signalPassFailure();
    }
    llvm::SourceMgr sourceMgr;
    ParserConfig config(module.getContext());
    OwningOpRef<ModuleOp> library =
        parseSourceFile<ModuleOp>(path, sourceMgr, config);
    if (!library) {
      module.emitError("rvnn-link-library: cannot parse library '")
          << path << "'";
      return signalPassFailure();
    }
    // Fill the declarations; a filled definition that calls a library
    // function the module does not have gets it as a new private
    // declaration, filled in turn, so a cell may call other cells.
    SmallVector<func::FuncOp> pending(module.getOps<func::FuncOp>());
    while (!pending.empty()) {
      func::FuncOp decl = pending.pop_back_val();
      if (!decl.isExternal())
        continue;
      auto def = library->lookupSymbol<func::FuncOp>(decl.getSymName());
      if (!def || def.isExternal())
        continue;
      if (def.getFunctionType() != decl.getFunctionType()) {
        decl.emitError("declared type ")
            << decl.getFunctionType() << " differs from the library definition "
            << def.getFunctionType() << " in '" << path << "'";
        return signalPassFailure();
      }
      IRMapping mapping;
      def.getBody().cloneInto(&decl.getBody(), mapping);
      // Argument attributes of the definition come with it (a recursive
      // cell's `rvnn.recursion_depth`); the declaration's own win.
      for (unsigned i = 0, e = def.getNumArguments(); i < e; ++i)
        if (DictionaryAttr attrs = def.getArgAttrDict(i))
          for (NamedAttribute attr : attrs)
            if (!decl.getArgAttr(i, attr.getName()))
              decl.setArgAttr(i, attr.getName(), attr.getValue());
      decl.walk([&](func::CallOp call) {
        StringRef callee = call.getCallee();
        if (module.lookupSymbol(callee))
          return;
        auto calleeDef = library->lookupSymbol<func::FuncOp>(callee);
        if (!calleeDef)
          return;
        OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
        auto added = builder.create<func::FuncOp>(calleeDef.getLoc(), callee,
                                                  calleeDef.getFunctionType());
        added.setPrivate();
        pending.push_back(added);
      });
    }
  }
};
} // namespace
