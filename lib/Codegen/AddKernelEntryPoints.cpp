// rvnn-add-kernel-entry-points: the packed, uniform entry point
// `void rvnn_kernel_<name>(void **args)` over every C-interface kernel.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNADDKERNELENTRYPOINTS
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

/// Marks the kernel's buffer pointers `noalias`: the ABI has the caller
/// pass each destination in memory no other argument reaches (arguments
/// only read may overlap). Without it LLVM vectorises a loop only behind a
/// run-time check that the destinations' address ranges do not overlap the
/// others', which destinations that are column windows of one buffer fail.
/// A memref argument is expanded into (allocated, aligned, offset, sizes,
/// strides), and scalars are never pointers, so the pointers come in pairs;
/// the kernel accesses memory through the aligned one, the second.
void markBuffersNoAlias(LLVM::LLVMFuncOp kernel) {
  UnitAttr unit = UnitAttr::get(kernel.getContext());
  bool aligned = false;
  for (auto [i, type] : llvm::enumerate(kernel.getFunctionType().getParams())) {
    if (!isa<LLVM::LLVMPointerType>(type))
      continue;
    if (aligned)
      kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), unit);
    aligned = !aligned;
  }
}

/// Adds `rvnn_kernel_<name>(ptr %args)`: argument i of the C interface is
/// `args[i]` when it is a pointer (a memref descriptor passed by address),
/// else the value `args[i]` points to (a scalar).
LogicalResult addEntryPoint(ModuleOp module, SymbolTable &symbols,
                            LLVM::LLVMFuncOp ciface) {
  StringRef name = ciface.getSymName().drop_front(kCInterfacePrefix.size());
  if (auto impl = symbols.lookup<LLVM::LLVMFuncOp>(name)) {
    // The C interface of a function with results takes the result
    // descriptor as an extra first argument: not the destination-passing
    // ABI.
    if (!isa<LLVM::LLVMVoidType>(impl.getFunctionType().getReturnType()))
      return impl.emitError("kernel '")
             << name
             << "' returns a value that is not one of its destination "
                "arguments; kernels must be in destination-passing style";
    markBuffersNoAlias(impl);
  }
  std::string entryName = (mlir::rvnn::kKernelEntryPrefix + name).str();
  if (symbols.lookup(entryName))
    return ciface.emitError("symbol '") << entryName << "' already exists";

  MLIRContext *context = module.getContext();
  Location loc = ciface.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(context);
  auto entryType =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptrType});
  OpBuilder builder(context);
  builder.setInsertionPointAfter(ciface);
  auto entry = builder.create<LLVM::LLVMFuncOp>(loc, entryName, entryType);
  Block *block = entry.addEntryBlock(builder);
  builder.setInsertionPointToStart(block);
  Value args = block->getArgument(0);
  SmallVector<Value> operands;
  for (auto [i, type] : llvm::enumerate(ciface.getFunctionType().getParams())) {
    Value slot = args;
    if (i != 0)
      slot = builder.create<LLVM::GEPOp>(loc, ptrType, ptrType, args,
                                         ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value pointer = builder.create<LLVM::LoadOp>(loc, ptrType, slot);
    operands.push_back(
        isa<LLVM::LLVMPointerType>(type)
            ? pointer
            : builder.create<LLVM::LoadOp>(loc, type, pointer).getResult());
  }
  builder.create<LLVM::CallOp>(loc, ciface, operands);
  builder.create<LLVM::ReturnOp>(loc, ValueRange{});
  symbols.insert(entry);
  return success();
}

struct AddKernelEntryPointsPass
    : public mlir::rvnn::impl::RvnnAddKernelEntryPointsBase<
          AddKernelEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<LLVM::LLVMFuncOp> interfaces;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func.getSymName().starts_with(kCInterfacePrefix) &&
          !func.isExternal())
        interfaces.push_back(func);
    for (LLVM::LLVMFuncOp ciface : interfaces)
      if (failed(addEntryPoint(module, symbols, ciface)))
        return signalPassFailure();
  }
};
} // namespace
