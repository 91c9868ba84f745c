#include "rvnn/Compiler/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "rvnn/Registration.h"
#include "rvnn/Target/PlanExport.h"
#include "rvnn/Transforms/Pipeline.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace {
std::string defaultLibrary(llvm::StringRef modelPath) {
  llvm::SmallString<256> library(llvm::sys::path::parent_path(modelPath));
  llvm::sys::path::append(library, "cells.mlir");
  return llvm::sys::fs::exists(library) ? library.str().str() : std::string();
}
} // namespace

bool ::rvnn::compiler::compileModel(const CompileOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(options.modelPath);
  if (!buffer) {
    llvm::errs() << options.modelPath << ": error: cannot read model: "
                 << buffer.getError().message() << "\n";
    return false;
  }
  std::string sourceText = (*buffer)->getBuffer().str();

  DialectRegistry registry;
  ::rvnn::registerDialects(registry);
  MLIRContext context(registry);
  // Errors name the model's file and line; printing the failing op (the
  // whole module for export errors) would bury them.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(*buffer), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return false;

  mlir::rvnn::CompilePipelineOptions pipelineOptions;
  pipelineOptions.library = options.libraryPath.empty()
                                ? defaultLibrary(options.modelPath)
                                : options.libraryPath;
  PassManager pm(&context);
  mlir::rvnn::buildCompilePipeline(pm, pipelineOptions);
  if (failed(pm.run(*module)))
    return false;
  mlir::rvnn::KernelTarget target;
  target.cpu = options.kernelCpu;
  return succeeded(mlir::rvnn::writeCompiledModel(
      *module, options.outputDir, options.modelPath, sourceText, target));
}
