#include "OptionParser.h"
#include "Subcommands.h"

#include <iostream>

#ifdef RVNN_HAVE_COMPILER
#include "rvnn/Compiler/Compile.h"
#endif

namespace rvnn::cli {

int runCompile(const std::vector<std::string> &args) {
  std::string model, output, library, cpu;
  OptionParser parser(
      "rvnn-run compile",
      "Compiles a model written in the rvnn dialect into a compiled-model\n"
      "directory (plan.json + manifest.json, docs/compiled-model-format.md):\n"
      "links shared cells, inlines, infers shapes, canonicalises, exports.\n"
      "The same pipeline is `rvnn-opt --rvnn-compile`.\n");
  parser.positional("MODEL.mlir", "the model", model);
  parser.add("--output", "DIR", "compiled-model directory to write", output);
  parser.alias("-o", "--output");
  parser.add("--library", "FILE",
             "shared cells to link (default: cells.mlir beside the model)",
             library);
  parser.add("--cpu", "LEVEL",
             "x86-64 level of the CPU kernels: x86-64-v3 (AVX2) for a model "
             "to run on other machines, x86-64-v4 (AVX-512); default: the "
             "newest this machine runs, tuned for its CPU",
             cpu);
  if (!parser.parse(args))
    return 0;
  if (output.empty())
    parser.fail("missing -o DIR");
#ifdef RVNN_HAVE_COMPILER
  return compiler::compileModel({model, library, output, cpu}) ? 0 : 1;
#else
  std::cerr << "rvnn-run compile: this rvnn-run was built without the "
               "compiler (RVNN_ENABLE_COMPILER=OFF); compile on a machine "
               "with MLIR and copy the compiled-model directory here\n";
  return 1;
#endif
}

} // namespace rvnn::cli
