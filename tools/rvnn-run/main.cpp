// rvnn-run: the runtime's command-line driver. main() only dispatches; each
// subcommand lives in its own file (see Subcommands.h).

#include "Dispatch.h"
#include "Subcommands.h"
#include "UsageError.h"
#include "rvnn/Runtime/HostAllocator.h"

#include <iostream>

using namespace rvnn::cli;

int main(int argc, char **argv) {
  // Generators write megabytes through std::cout; no C stdio mixing here.
  std::ios::sync_with_stdio(false);
  rvnn::runtime::keepFreedHostMemory();
  const CommandTable table{
      "rvnn-run",
      "subcommand",
      "Subcommands",
      {
          {"gen", "generate a dataset (listops, logic)", runGen},
          {"compile", "compile a model into a compiled-model directory",
           runCompile},
          {"train", "train a compiled model", runTrain},
          {"eval", "score a checkpoint on a data file", runEval},
          {"parse", "print the trees a model induces over a data file",
           runParse},
          {"export", "write a checkpoint's weights as torch or safetensors",
           runExport},
          {"dump-grads", "write a batch's loss and parameter gradients",
           runDumpGrads},
          {"bench", "time training steps per length bucket", runBench},
          {"plot", "draw several runs' training curves on one chart", runPlot},
      }};
  try {
    return dispatch(table, {argv + 1, argv + argc});
  } catch (const UsageError &error) {
    std::cerr << error.command() << ": error: " << error.what() << "\nRun '"
              << error.command() << " --help' for usage.\n";
    return 2;
  } catch (const std::exception &error) {
    std::cerr << "rvnn-run: error: " << error.what() << '\n';
    return 1;
  }
}
