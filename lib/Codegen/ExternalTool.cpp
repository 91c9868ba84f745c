#include "ExternalTool.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "rvnn/Codegen/Passes.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace mlir;

OwningOpRef<ModuleOp> mlir::rvnn::cloneKernelsForLowering(ModuleOp kernels) {
  DialectRegistry registry;
  registerCodegenInterfaces(registry);
  kernels.getContext()->appendDialectRegistry(registry);
  OwningOpRef<ModuleOp> module = kernels.clone();
  (*module)->removeAttr(exec::ExecDialect::kKernelsAttrName);
  return module;
}

FailureOr<std::string> mlir::rvnn::runTool(Location loc, StringRef emitter,
                                           ArrayRef<StringRef> command) {
  llvm::SmallString<128> logPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("rvnn-tool", "log", logPath))
    return emitError(loc, emitter)
           << ": cannot create a temporary file: " << ec.message();
  llvm::FileRemover removeLog(logPath);
  std::optional<StringRef> redirects[] = {std::nullopt, logPath.str(),
                                          logPath.str()};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(command.front(), command, std::nullopt,
                                         redirects, /*SecondsToWait=*/0,
                                         /*MemoryLimit=*/0, &message);
  std::string output;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    output = (*buffer)->getBuffer().rtrim().str();
  if (status == 0)
    return output;
  InFlightDiagnostic diag = emitError(loc, emitter)
                            << ": '" << llvm::join(command, " ") << "' failed";
  if (status < 0)
    diag << ": " << message;
  else
    diag << " with exit status " << status;
  if (!output.empty())
    diag << ":\n" << output;
  return diag;
}
