// emitCudaKernels: kernels module -> PTX per chip (rvnn-lower-kernels-to-ptx)
// -> cubin per chip (ptxas, when the CUDA toolkit is installed).
#include "rvnn/Codegen/CudaKernels.h"

#include "ExternalTool.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "rvnn/Codegen/OutputFile.h"
#include "rvnn/Codegen/Passes.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {

/// Where the CUDA toolkit's installer puts ptxas when it is not on PATH.
constexpr llvm::StringLiteral kDefaultPtxas = "/usr/local/cuda/bin/ptxas";

/// The ptxas to assemble with, or why there is none.
struct Assembler {
  std::string path;
  std::string missing;
};

Assembler findPtxas() {
  if (std::optional<std::string> chosen =
          llvm::sys::Process::GetEnv("RVNN_PTXAS")) {
    if (chosen->empty())
      return {"", "ptxas disabled (RVNN_PTXAS is empty)"};
    if (!llvm::sys::fs::can_execute(*chosen))
      return {"", "RVNN_PTXAS '" + *chosen + "' is not an executable"};
    return {*chosen, ""};
  }
  if (llvm::ErrorOr<std::string> onPath = llvm::sys::findProgramByName("ptxas"))
    return {*onPath, ""};
  if (llvm::sys::fs::can_execute(kDefaultPtxas))
    return {kDefaultPtxas.str(), ""};
  return {"", "ptxas not found (on PATH or in /usr/local/cuda/bin)"};
}

/// "ptxas (<path>): Cuda compilation tools, release X, VX.Y.Z".
FailureOr<std::string> describePtxas(Location loc, StringRef ptxas) {
  FailureOr<std::string> version =
      mlir::rvnn::runTool(loc, "CUDA codegen", {ptxas, "--version"});
  if (failed(version))
    return failure();
  StringRef release;
  for (StringRef line : llvm::split(*version, '\n'))
    if (line.contains("release"))
      release = line.trim();
  return ("ptxas (" + ptxas + ")" + (release.empty() ? "" : ": ") + release)
      .str();
}

/// The CUDA toolkit directory holding nvvm/libdevice/libdevice.10.bc, looked
/// up as MLIR's NVVM target does (CUDA_ROOT, CUDA_HOME, CUDA_PATH, the first
/// set); empty if none has it.
std::string findLibdeviceToolkit() {
  SmallVector<std::string> candidates;
  for (const char *variable : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (std::optional<std::string> value = llvm::sys::Process::GetEnv(variable))
      if (!value->empty()) {
        candidates.push_back(*value);
        break;
      }
  for (const std::string &toolkit : candidates) {
    llvm::SmallString<256> libdevice(toolkit);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::is_regular_file(libdevice))
      return toolkit;
  }
  return "";
}

/// The device functions a PTX text declares but does not define (libdevice
/// functions that no toolkit provided at compile time).
SmallVector<StringRef> undefinedFunctions(StringRef ptx) {
  SmallVector<StringRef> names;
  for (StringRef line : llvm::split(ptx, '\n')) {
    line = line.trim();
    if (!line.consume_front(".extern .func"))
      continue;
    // `.extern .func (.param .b32 r) name(...)`: the name precedes '('.
    line = line.trim();
    if (line.starts_with("("))
      line = line.drop_until([](char c) { return c == ')'; }).drop_front();
    names.push_back(line.trim().take_until([](char c) { return c == '('; }));
  }
  return names;
}

/// Whether the CUDA pipeline lowers kernel `func`: one elementwise generic
/// of operands of one shape, one thread an element (rvnn-cuda-v1). Kernels
/// with a row reduction (stages over temporaries, KernelStages.h) would need
/// host work between launches, and the backward of a broadcast operand is a
/// reduction too; they are CPU-only for now.
bool isElementwiseKernel(func::FuncOp func) {
  auto ops = func.getBody().front().without_terminator();
  if (!llvm::hasSingleElement(ops))
    return false;
  auto generic = dyn_cast<linalg::GenericOp>(*ops.begin());
  return generic && generic.getNumReductionLoops() == 0 &&
         llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); });
}

} // namespace

FailureOr<mlir::rvnn::CudaKernelsInfo>
mlir::rvnn::emitCudaKernels(ModuleOp kernels, StringRef directory,
                            const CudaTarget &target) {
  Location loc = kernels.getLoc();
  MLIRContext *context = kernels.getContext();

  // 1. Kernels module -> gpu.module of rvnn-cuda-v1 entries (NVVM), on a
  //    clone; the entries are the PTX symbols.
  OwningOpRef<ModuleOp> module = cloneKernelsForLowering(kernels);
  CudaKernelsInfo info;
  for (auto func : llvm::make_early_inc_range(module->getOps<func::FuncOp>())) {
    if (isElementwiseKernel(func))
      continue;
    info.cpuOnly.push_back((kKernelEntryPrefix + func.getSymName()).str());
    func.erase();
  }
  llvm::sort(info.cpuOnly);
  if (module->getOps<func::FuncOp>().empty()) {
    info.unsupported = "every kernel has a row reduction or a broadcast "
                       "operand (CPU-only for now)";
    return info;
  }
  LowerKernelsToNVVMOptions options;
  options.chips = target.chips;
  options.features = target.features;
  PassManager nvvm(context, ModuleOp::getOperationName());
  buildLowerKernelsToNVVMPipeline(nvvm, options);
  if (failed(nvvm.run(*module)))
    return emitError(loc, "CUDA codegen: lowering the kernels module to the "
                          "NVVM dialect failed");
  SmallVector<StringRef> libdeviceCalls;
  module->walk([&](LLVM::LLVMFuncOp func) {
    if (func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()))
      info.symbols.push_back(func.getSymName().str());
    else if (func.isExternal() && func.getSymName().starts_with("__nv_"))
      libdeviceCalls.push_back(func.getSymName());
  });
  llvm::sort(info.symbols);

  // 2. PTX per chip (NVPTX through LLVM, in-process). f32 math needs no
  //    libdevice; f64 transcendental functions do, linked into the PTX at
  //    compile time from the toolkit's libdevice. Without one the model gets
  //    no CUDA code (the manifest says why) rather than PTX that cannot load.
  GpuModuleToBinaryPassOptions isa;
  isa.compilationTarget = "isa";
  if (!libdeviceCalls.empty()) {
    isa.toolkitPath = findLibdeviceToolkit();
    if (isa.toolkitPath.empty()) {
      info.symbols.clear();
      info.unsupported = "the kernels call '" +
                         llvm::join(libdeviceCalls, "', '") +
                         "' (f64 math), which needs the CUDA toolkit's "
                         "libdevice at compile time, and none was found";
      return info;
    }
  }
  PassManager binary(context, ModuleOp::getOperationName());
  binary.addPass(createGpuModuleToBinaryPass(isa));
  if (failed(binary.run(*module)))
    return emitError(loc, "CUDA codegen: generating PTX failed");
  auto binaryOp = SymbolTable::lookupNearestSymbolFrom<gpu::BinaryOp>(
      *module, StringAttr::get(context, kCudaKernelsModule));
  if (!binaryOp)
    return emitError(loc, "CUDA codegen: no gpu.binary @")
           << kCudaKernelsModule << " after PTX generation";

  Assembler ptxas = findPtxas();
  if (!ptxas.path.empty()) {
    FailureOr<std::string> described = describePtxas(loc, ptxas.path);
    if (failed(described))
      return failure();
    info.assembler = *described;
  } else {
    info.missingAssembler = ptxas.missing;
  }
  for (auto object : binaryOp.getObjects().getAsRange<gpu::ObjectAttr>()) {
    auto nvvmTarget = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (!nvvmTarget)
      return emitError(loc, "CUDA codegen: unexpected target ")
             << object.getTarget();
    // The object carries the NUL that cuModuleLoadData wants; a .ptx file
    // (ptxas's input) ends at the text.
    StringRef ptx = object.getObject().getValue().rtrim('\0');
    SmallVector<StringRef> undefined = undefinedFunctions(ptx);
    if (!undefined.empty())
      return emitError(loc, "CUDA codegen: the kernels call '")
             << llvm::join(undefined, "', '")
             << "', which only libdevice defines (f64 transcendental math; "
                "f32 math is expanded into polynomials) and no CUDA toolkit "
                "with libdevice was found at compile time";
    CudaArchFiles files;
    files.chip = nvvmTarget.getChip().str();
    files.ptx = ("kernels." + files.chip + ".ptx");
    llvm::SmallString<256> ptxPath(directory);
    llvm::sys::path::append(ptxPath, files.ptx);
    if (failed(writeFileAtomically(loc, ptxPath, ptx)))
      return failure();
    if (!ptxas.path.empty()) {
      files.cubin = ("kernels." + files.chip + ".cubin");
      llvm::SmallString<256> cubinPath(directory);
      llvm::sys::path::append(cubinPath, files.cubin);
      std::string temporary = (cubinPath + ".tmp").str();
      std::string arch = "-arch=" + files.chip;
      if (failed(
              runTool(loc, "CUDA codegen",
                      {ptxas.path, arch, "-O3", "-o", temporary, ptxPath}))) {
        llvm::sys::fs::remove(temporary);
        return failure();
      }
      if (std::error_code ec = llvm::sys::fs::rename(temporary, cubinPath)) {
        llvm::sys::fs::remove(temporary);
        return emitError(loc, "CUDA codegen: cannot rename '")
               << temporary << "' to '" << cubinPath << "': " << ec.message();
      }
    }
    info.archs.push_back(std::move(files));
  }
  return info;
}
