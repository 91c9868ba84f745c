#ifndef RVNN_TOOLS_RVNN_RUN_SUBCOMMANDS_H
#define RVNN_TOOLS_RVNN_RUN_SUBCOMMANDS_H

#include <string>
#include <vector>

namespace rvnn::cli {

// Entry points of the rvnn-run subcommands, one file each. Each takes the
// arguments after its name and returns the exit status; command-line
// mistakes are thrown as UsageError.

/// `rvnn-run compile MODEL.mlir -o DIR` (Compile.cpp)
int runCompile(const std::vector<std::string> &args);
/// `rvnn-run train --config ... --model DIR ...` (Train.cpp)
int runTrain(const std::vector<std::string> &args);
/// `rvnn-run eval --model DIR --checkpoint FILE ...` (Eval.cpp)
int runEval(const std::vector<std::string> &args);
/// `rvnn-run parse --model DIR --checkpoint FILE --data FILE` (Parse.cpp)
int runParse(const std::vector<std::string> &args);
/// `rvnn-run export --checkpoint FILE --format NAME -o FILE` (Export.cpp)
int runExport(const std::vector<std::string> &args);
/// `rvnn-run dump-grads ...` (DumpGrads.cpp)
int runDumpGrads(const std::vector<std::string> &args);
/// `rvnn-run bench ...` (Bench.cpp)
int runBench(const std::vector<std::string> &args);
/// `rvnn-run plot RUN... -o OUT.svg` (Plot.cpp)
int runPlot(const std::vector<std::string> &args);
/// `rvnn-run gen <dataset> ...` (Gen.cpp)
int runGen(const std::vector<std::string> &args);
/// `rvnn-run gen listops ...` (GenListOps.cpp)
int runGenListOps(const std::vector<std::string> &args);
/// `rvnn-run gen logic ...` (GenLogic.cpp)
int runGenLogic(const std::vector<std::string> &args);

} // namespace rvnn::cli

#endif // RVNN_TOOLS_RVNN_RUN_SUBCOMMANDS_H
