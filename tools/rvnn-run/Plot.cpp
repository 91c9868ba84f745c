#include "OptionParser.h"
#include "Subcommands.h"

#include <filesystem>
#include <iostream>
#include <set>

#include "rvnn/Runtime/Report/MetricsReader.h"
#include "rvnn/Runtime/Report/RunPlots.h"
#include "rvnn/Runtime/Train/AtomicFile.h"

namespace rvnn::cli {

namespace fs = std::filesystem;
using namespace rvnn::runtime;

namespace {

/// The run directory's name, for the legend; `run` is the directory or its
/// metrics file.
std::string runName(const fs::path &run, bool isFile) {
  fs::path dir = fs::absolute(run).lexically_normal();
  if (!dir.has_filename())
    dir = dir.parent_path();
  if (isFile)
    dir = dir.parent_path();
  return dir.filename().string();
}

} // namespace

int runPlot(const std::vector<std::string> &args) {
  std::string output;
  OptionParser parser(
      "rvnn-run plot",
      "USAGE: rvnn-run plot RUN... -o OUT.svg\n\n"
      "Draws the training curves of several runs on one chart, as in each\n"
      "run's curves.svg: training loss (log scale) and dev accuracy against\n"
      "step, dashed lines where a run's learning rate changed, one colour\n"
      "per run, named by its directory. RUN is a run directory (rvnn-run\n"
      "train --out) or its metrics.jsonl. A missing or malformed metrics\n"
      "file is an error naming the file and line, and writes nothing.\n");
  parser.add("--output", "FILE", "SVG file to write (atomically)", output);
  parser.alias("-o", "--output");
  // OptionParser takes one positional argument; the runs are set apart here.
  std::vector<std::string> runs, options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("-", 0) != 0) {
      runs.push_back(args[i]);
      continue;
    }
    options.push_back(args[i]);
    if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size())
      options.push_back(args[++i]);
  }
  if (!parser.parse(options))
    return 0;
  if (runs.empty())
    parser.fail("missing RUN (a run directory or its metrics.jsonl)");
  if (output.empty())
    parser.fail("missing -o FILE");

  std::vector<report::RunMetrics> metrics;
  std::set<std::string> names;
  for (const std::string &run : runs) {
    const bool isFile = !fs::is_directory(run);
    const std::string path =
        isFile ? run : (fs::path(run) / "metrics.jsonl").string();
    metrics.push_back({runName(run, isFile), report::readMetrics(path)});
    names.insert(metrics.back().name);
  }
  // Runs of the same name (a/run, b/run) are told apart by their paths.
  if (names.size() < metrics.size())
    for (std::size_t i = 0; i < runs.size(); ++i)
      metrics[i].name = runs[i];
  runtime::train::writeFileAtomically(output, report::curvesSvg(metrics));
  std::cout << "wrote " << output << " (" << metrics.size() << " run"
            << (metrics.size() == 1 ? "" : "s") << ")\n";
  return 0;
}

} // namespace rvnn::cli
