#ifndef RVNN_COMPILER_COMPILE_H
#define RVNN_COMPILER_COMPILE_H

// Plain C++ entry point to the compiler, so tools that also use LibTorch
// never include MLIR headers in the same translation unit.
#include <string>

namespace rvnn::compiler {

struct CompileOptions {
  std::string modelPath; ///< models/<name>.mlir
  std::string
      libraryPath; ///< shared cells; empty: <model dir>/cells.mlir if present
  std::string outputDir; ///< compiled-model directory to write
  /// x86-64 level of the CPU kernels; empty: the newest this machine runs
  /// (KernelTarget::cpu).
  std::string kernelCpu;
};

/// Runs the compile pipeline and writes the compiled model. Diagnostics go to
/// stderr as `file:line:col: error: ...`. Returns true on success.
bool compileModel(const CompileOptions &options);

} // namespace rvnn::compiler

#endif // RVNN_COMPILER_COMPILE_H
