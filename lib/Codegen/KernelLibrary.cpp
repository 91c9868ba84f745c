// emitKernelLibrary: kernels module -> LLVM IR -> O3 -> object -> cc -shared.
#include "rvnn/Codegen/KernelLibrary.h"

#include "ExternalTool.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "rvnn/Codegen/Passes.h"
#include "rvnn/Dialect/Exec/HostCpu.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <mutex>

using namespace mlir;

namespace {

void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

/// Sets `info`'s level and tuning: an explicit level as given, with the
/// level's generic tuning (a library meant for other machines); by default
/// the newest level this machine runs, tuned for its CPU (LLVM's tuning then
/// picks the vector width: 512 bits on Zen 4, where the kernels ran 1.3-2.4x
/// faster than at x86-64-v3, bench/README.md session 37).
LogicalResult resolveCpu(Location loc, const mlir::rvnn::KernelTarget &target,
                         mlir::rvnn::KernelLibraryInfo &info) {
  const auto &levels = ::rvnn::contract::kKernelCpuLevels;
  if (target.cpu.empty()) {
    info.cpu = std::string(::rvnn::contract::hostCpuLevel());
    if (info.cpu.empty())
      return emitError(loc, "kernel codegen: this machine is not x86-64; "
                            "name the level to compile for");
    info.tuneCpu = llvm::sys::getHostCPUName().str();
    return success();
  }
  if (!llvm::is_contained(levels, target.cpu)) {
    InFlightDiagnostic error = emitError(loc, "kernel codegen: unknown CPU '")
                               << target.cpu << "'; expected one of ";
    llvm::interleaveComma(levels, error,
                          [&](std::string_view level) { error << level; });
    return error;
  }
  info.cpu = target.cpu;
  return success();
}

/// Tunes every function of `module` for `cpu` (LLVM's `tune-cpu`: scheduling
/// and vector width, not the instruction set).
void tuneFor(llvm::Module &module, llvm::StringRef cpu) {
  if (cpu.empty())
    return;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      function.addFnAttr("tune-cpu", cpu);
}

/// LLVM's default O3 module pipeline for `machine` (its cost model drives the
/// loop and SLP vectorisers).
void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

} // namespace

FailureOr<mlir::rvnn::KernelLibraryInfo>
mlir::rvnn::emitKernelLibrary(ModuleOp kernels, StringRef directory,
                              const KernelTarget &target) {
  Location loc = kernels.getLoc();

  // 1. Kernels module -> LLVM dialect, on a clone.
  OwningOpRef<ModuleOp> module = cloneKernelsForLowering(kernels);
  PassManager pm(kernels.getContext(), ModuleOp::getOperationName());
  buildLowerKernelsToLLVMPipeline(pm);
  if (failed(pm.run(*module)))
    return emitError(loc, "kernel codegen: lowering the kernels module to "
                          "the LLVM dialect failed");
  KernelLibraryInfo info;
  info.fileName = kKernelLibraryFile.str();
  for (auto func : module->getOps<LLVM::LLVMFuncOp>())
    if (func.getSymName().starts_with(kKernelEntryPrefix) && !func.isExternal())
      info.symbols.push_back(func.getSymName().str());
  llvm::sort(info.symbols);

  // 2. LLVM IR for the target, optimised at O3.
  initializeTargets();
  info.triple = target.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                                      : target.triple;
  if (failed(resolveCpu(loc, target, info)))
    return failure();
  std::string error;
  const llvm::Target *backend =
      llvm::TargetRegistry::lookupTarget(info.triple, error);
  if (!backend)
    return emitError(loc, "kernel codegen: no LLVM target for '")
           << info.triple << "': " << error;
  std::unique_ptr<llvm::TargetMachine> machine(backend->createTargetMachine(
      info.triple, info.cpu, target.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc, "kernel codegen: cannot create a target machine "
                          "for '")
           << info.triple << "' (cpu '" << info.cpu << "')";
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "rvnn_kernels");
  if (!llvmModule)
    return emitError(loc, "kernel codegen: translation to LLVM IR failed");
  llvmModule->setTargetTriple(info.triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  tuneFor(*llvmModule, info.tuneCpu);
  optimize(*llvmModule, *machine);

  // 3. Object file (temporary).
  llvm::SmallString<128> objectPath;
  int objectFd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "rvnn-kernels", "o", objectFd, objectPath))
    return emitError(loc, "kernel codegen: cannot create a temporary object "
                          "file: ")
           << ec.message();
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream os(objectFd, /*shouldClose=*/true);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return emitError(loc, "kernel codegen: target '")
             << info.triple << "' cannot emit object files";
    codegen.run(*llvmModule);
    os.close();
    if (os.has_error()) {
      // Cleared, or the stream's destructor aborts with LLVM's "IO failure".
      std::string reason = os.error().message();
      os.clear_error();
      return emitError(loc, "kernel codegen: cannot write '")
             << objectPath << "': " << reason;
    }
  }

  // 4. Link with the system C compiler, to a temporary name, then rename.
  llvm::SmallString<256> libraryPath(directory);
  llvm::sys::path::append(libraryPath, kKernelLibraryFile);
  std::string temporaryPath = (libraryPath + ".tmp").str();
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return emitError(loc, "kernel codegen: cannot find the C compiler 'cc' "
                          "on PATH to link '")
           << libraryPath << "'";
  if (failed(
          runTool(loc, "kernel codegen",
                  {*cc, "-shared", "-o", temporaryPath, objectPath, "-lm"}))) {
    llvm::sys::fs::remove(temporaryPath);
    return failure();
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporaryPath, libraryPath)) {
    llvm::sys::fs::remove(temporaryPath);
    return emitError(loc, "kernel codegen: cannot rename '")
           << temporaryPath << "' to '" << libraryPath << "': " << ec.message();
  }
  return info;
}
