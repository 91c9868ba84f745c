#include "rvnn/Codegen/OutputFile.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::rvnn {

LogicalResult writeFileAtomically(Location loc, llvm::StringRef path,
                                  llvm::StringRef text) {
  std::string temporary = (path + ".tmp").str();
  {
    std::error_code error;
    llvm::raw_fd_ostream os(temporary, error);
    if (error)
      return emitError(loc, "cannot write '")
             << temporary << "': " << error.message();
    os << text;
    os.close();
    if (os.has_error()) {
      // Cleared, or the stream's destructor aborts with LLVM's "IO failure".
      std::string reason = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return emitError(loc, "cannot write '") << temporary << "': " << reason;
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return emitError(loc, "cannot rename '")
           << temporary << "' to '" << path << "': " << error.message();
  }
  return success();
}

} // namespace mlir::rvnn
