// rvnn-gpu-kernel-entry-points: outlined GPU kernels -> the rvnn-cuda-v1
// entry points `rvnn_kernel_<K>(<the arguments of @K>)` in one gpu.module.
#include "rvnn/Codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "rvnn/Dialect/Exec/ExecContract.h"

namespace mlir::rvnn {
#define GEN_PASS_DEF_RVNNGPUKERNELENTRYPOINTS
#include "rvnn/Codegen/Passes.h.inc"
} // namespace mlir::rvnn

using namespace mlir;

namespace {

bool isConstantIndex(Value value, int64_t expected) {
  auto constant = value.getDefiningOp<arith::ConstantIndexOp>();
  return constant && constant.value() == expected;
}

/// Whether `value` is an argument of `host` seen through views
/// (collapse_shape, casts): a result the kernel wrote in place.
bool isArgumentView(Value value, func::FuncOp host) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  auto argument = dyn_cast<BlockArgument>(value);
  return argument && argument.getOwner() == &host.getBody().front();
}

/// The launch of `host`, after checking that `host` is nothing but that
/// launch in the shape rvnn-cuda-v1 promises the runtime.
FailureOr<gpu::LaunchFuncOp> getOnlyLaunch(func::FuncOp host) {
  auto fail = [&](const Twine &why) {
    return host.emitError("kernel '") << host.getSymName() << "' " << why;
  };
  SmallVector<gpu::LaunchFuncOp> launches;
  for (Operation &op : host.getBody().front()) {
    if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
      launches.push_back(launch);
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (!llvm::all_of(ret.getOperands(),
                        [&](Value v) { return isArgumentView(v, host); }))
        return fail("returns a buffer that is not one of its arguments; "
                    "kernels must write their destination arguments in "
                    "place");
      continue;
    }
    // The runtime only launches the kernel: anything with an effect on the
    // host (an allocation, a copy, a host loop) would be lost.
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op))
      return fail("needs '" + op.getName().getStringRef() +
                  "' on the host, which rvnn-cuda-v1 cannot express");
  }
  if (!host.getBody().hasOneBlock() || launches.size() != 1)
    return fail("lowers to " + Twine(launches.size()) +
                " GPU launches; rvnn-cuda-v1 has exactly one per kernel");
  gpu::LaunchFuncOp launch = launches.front();
  int64_t blockSize = ::rvnn::contract::kCudaBlockSize;
  if (!isConstantIndex(launch.getBlockSizeX(), blockSize) ||
      !isConstantIndex(launch.getBlockSizeY(), 1) ||
      !isConstantIndex(launch.getBlockSizeZ(), 1) ||
      !isConstantIndex(launch.getGridSizeY(), 1) ||
      !isConstantIndex(launch.getGridSizeZ(), 1))
    return fail("is not launched on (n, 1, 1) blocks of (" + Twine(blockSize) +
                ", 1, 1) threads");
  if (launch.getDynamicSharedMemorySize() || launch.hasClusterSize() ||
      !launch.getAsyncDependencies().empty())
    return fail("needs dynamic shared memory, clusters or async tokens");
  return launch;
}

/// `value` (a launch operand, defined in `host`) in the entry point: an
/// argument of `host` is the entry's argument of the same number; a value
/// computed from arguments without effects (a collapse_shape, a constant)
/// is recomputed at `builder`.
FailureOr<Value> materialize(Value value, func::FuncOp host,
                             gpu::GPUFuncOp entry, OpBuilder &builder,
                             IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (argument.getOwner() != &host.getBody().front())
      return failure();
    Value mapped = entry.getArgument(argument.getArgNumber());
    mapping.map(value, mapped);
    return mapped;
  }
  Operation *op = value.getDefiningOp();
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return failure();
  for (Value operand : op->getOperands())
    if (failed(materialize(operand, host, entry, builder, mapping)))
      return failure();
  builder.clone(*op, mapping);
  return mapping.lookup(value);
}

/// Replaces `host` and its outlined kernel by the entry point
/// `rvnn_kernel_<host>` in `target`.
LogicalResult formEntryPoint(func::FuncOp host, gpu::GPUModuleOp target,
                             SymbolTable &targetSymbols) {
  FailureOr<gpu::LaunchFuncOp> launch = getOnlyLaunch(host);
  if (failed(launch))
    return failure();
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      *launch, launch->getKernel());
  if (!kernel)
    return launch->emitError("launched kernel not found");
  if (kernel.getNumWorkgroupAttributions() != 0 ||
      kernel.getNumPrivateAttributions() != 0)
    return kernel.emitError("kernel of '")
           << host.getSymName()
           << "' has memory attributions, which rvnn-cuda-v1 cannot express";
  std::string name = (mlir::rvnn::kKernelEntryPrefix + host.getSymName()).str();
  if (targetSymbols.lookup(name))
    return host.emitError("symbol '") << name << "' already exists";

  OpBuilder builder(target.getBodyRegion());
  builder.setInsertionPoint(target.getBody()->getTerminator());
  auto entry = builder.create<gpu::GPUFuncOp>(
      kernel.getLoc(), name,
      builder.getFunctionType(host.getArgumentTypes(), {}));
  entry->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                 builder.getUnitAttr());
  if (auto known = kernel.getKnownBlockSizeAttr())
    entry.setKnownBlockSizeAttr(known);
  targetSymbols.insert(entry);

  // The kernel's arguments, in terms of the entry's.
  Block &entryBlock = entry.getBody().front();
  builder.setInsertionPointToStart(&entryBlock);
  IRMapping mapping;
  for (auto [argument, operand] :
       llvm::zip_equal(kernel.getArguments(), launch->getKernelOperands())) {
    FailureOr<Value> value =
        materialize(operand, host, entry, builder, mapping);
    if (failed(value))
      return launch->emitError("kernel '")
             << host.getSymName() << "': launch operand #"
             << argument.getArgNumber()
             << " is not computed from the kernel's arguments alone";
    argument.replaceAllUsesWith(*value);
  }
  // The outlined body follows the recomputed values.
  Region &body = kernel.getBody();
  entryBlock.getOperations().splice(entryBlock.end(),
                                    body.front().getOperations());
  body.front().erase();
  entry.getBody().getBlocks().splice(entry.getBody().end(), body.getBlocks());

  auto kernelModule = kernel->getParentOfType<gpu::GPUModuleOp>();
  kernel.erase();
  if (kernelModule != target &&
      llvm::hasSingleElement(kernelModule.getBody()->getOperations()))
    kernelModule.erase();
  host.erase();
  return success();
}

struct GpuKernelEntryPointsPass
    : public mlir::rvnn::impl::RvnnGpuKernelEntryPointsBase<
          GpuKernelEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    if (symbols.lookup(mlir::rvnn::kCudaKernelsModule)) {
      module.emitError("symbol '")
          << mlir::rvnn::kCudaKernelsModule << "' already exists";
      return signalPassFailure();
    }
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto target = builder.create<gpu::GPUModuleOp>(
        module.getLoc(), mlir::rvnn::kCudaKernelsModule);
    symbols.insert(target);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    SymbolTable targetSymbols(target);

    SmallVector<func::FuncOp> hosts;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        hosts.push_back(func);
    for (func::FuncOp host : hosts)
      if (failed(formEntryPoint(host, target, targetSymbols)))
        return signalPassFailure();
  }
};
} // namespace
