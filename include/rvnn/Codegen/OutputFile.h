//===- OutputFile.h - Writing the compiled model's files ---------*- C++
//-*-===//
#ifndef RVNN_CODEGEN_OUTPUTFILE_H
#define RVNN_CODEGEN_OUTPUTFILE_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::rvnn {

/// Writes `text` to `<path>.tmp` and renames it over `path`, so a failure
/// (a full disk) leaves the old file or none, never a truncated one; errors
/// are emitted at `loc` with the file and the system's reason. (Not
/// llvm::writeToOutput: in LLVM 19 its stream aborts the process on a write
/// error instead of returning it.)
LogicalResult writeFileAtomically(Location loc, llvm::StringRef path,
                                  llvm::StringRef text);

} // namespace mlir::rvnn

#endif // RVNN_CODEGEN_OUTPUTFILE_H
