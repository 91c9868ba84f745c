// rvnn-replace-libdevice-calls: libdevice functions that are one NVPTX
// instruction become LLVM intrinsics, so the PTX needs no libdevice.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNREPLACELIBDEVICECALLS
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

/// Builds the intrinsic op equivalent to `callee` (f32 `...f` and f64
/// spellings) on `operands`, or returns null for any other function.
using IntrinsicBuilder = Value (*)(OpBuilder &, Location, Type, ValueRange);

template <typename IntrinsicOp>
Value buildIntrinsic(OpBuilder &builder, Location loc, Type type,
                     ValueRange operands) {
  return builder.create<IntrinsicOp>(loc, type, operands).getResult();
}

IntrinsicBuilder intrinsicFor(StringRef callee) {
  if (!callee.consume_front("__nv_"))
    return nullptr;
  // f32 variants end in 'f'; both map to the same overloaded intrinsic.
  StringRef base = callee.ends_with("f") ? callee.drop_back() : callee;
  return llvm::StringSwitch<IntrinsicBuilder>(base)
      .Case("fabs", buildIntrinsic<LLVM::FAbsOp>)
      .Case("floor", buildIntrinsic<LLVM::FFloorOp>)
      .Case("ceil", buildIntrinsic<LLVM::FCeilOp>)
      .Case("trunc", buildIntrinsic<LLVM::FTruncOp>)
      .Case("round", buildIntrinsic<LLVM::RoundOp>)
      .Case("rint", buildIntrinsic<LLVM::RoundEvenOp>)
      .Case("sqrt", buildIntrinsic<LLVM::SqrtOp>)
      .Case("fma", buildIntrinsic<LLVM::FMAOp>)
      .Case("copysign", buildIntrinsic<LLVM::CopySignOp>)
      .Case("fmin", buildIntrinsic<LLVM::MinNumOp>)
      .Case("fmax", buildIntrinsic<LLVM::MaxNumOp>)
      .Default(nullptr);
}

struct ReplaceLibdeviceCallsPass
    : public mlir::rvnn::impl::RvnnReplaceLibdeviceCallsBase<
          ReplaceLibdeviceCallsPass> {
  void runOnOperation() override {
    SmallVector<LLVM::CallOp> calls;
    getOperation()->walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && call.getNumResults() == 1 && intrinsicFor(*callee))
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      OpBuilder builder(call);
      Value replacement = intrinsicFor(*call.getCallee())(
          builder, call.getLoc(), call.getResult().getType(),
          call.getArgOperands());
      call.getResult().replaceAllUsesWith(replacement);
      call.erase();
    }
    // Declarations nothing calls any more.
    getOperation()->walk([&](Operation *table) {
      if (!table->hasTrait<OpTrait::SymbolTable>())
        return;
      SmallVector<LLVM::LLVMFuncOp> unused;
      for (Block &block : table->getRegion(0))
        for (auto func : block.getOps<LLVM::LLVMFuncOp>())
          if (func.isExternal() && intrinsicFor(func.getSymName()) &&
              SymbolTable::symbolKnownUseEmpty(func, table))
            unused.push_back(func);
      for (LLVM::LLVMFuncOp func : unused)
        func.erase();
    });
  }
};
} // namespace
