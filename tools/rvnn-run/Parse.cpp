#include "KernelsOption.h"
#include "OptionParser.h"
#include "Subcommands.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "rvnn/Runtime/CompiledModel.h"
#include "rvnn/Runtime/Data/ListOpsReader.h"
#include "rvnn/Runtime/Data/ListOpsVocab.h"
#include "rvnn/Runtime/Device.h"
#include "rvnn/Runtime/Report/BracketF1.h"
#include "rvnn/Runtime/Report/InducedStructure.h"
#include "rvnn/Runtime/Report/TreeSvg.h"
#include "rvnn/Runtime/StructureTrace.h"
#include "rvnn/Runtime/TaskData.h"
#include "rvnn/Runtime/Train/AtomicFile.h"
#include "rvnn/Runtime/Train/Checkpoint.h"

namespace rvnn::cli {

namespace fs = std::filesystem;
using namespace rvnn::runtime;
namespace listops = rvnn::runtime::data::listops;

namespace {

/// Examples [first, last] of the data file, counted from 1.
struct RowRange {
  size_t first = 1;
  size_t last = 0;
};

/// `--rows A:B` (examples A to B) or `--rows N` (example N) against a file
/// of `count` examples; all of them when not given.
RowRange rowRange(const OptionParser &parser, const std::string &text,
                  size_t count) {
  if (!parser.given("--rows"))
    return {1, count};
  size_t colon = text.find(':');
  std::string firstText = text.substr(0, colon);
  std::string lastText =
      colon == std::string::npos ? firstText : text.substr(colon + 1);
  auto number = [&](const std::string &part) -> size_t {
    if (part.empty() || part.find_first_not_of("0123456789") != part.npos ||
        part.size() > 9)
      parser.fail("--rows " + text +
                  ": expected N or A:B (examples counted "
                  "from 1)");
    return std::stoul(part);
  };
  RowRange range{number(firstText), number(lastText)};
  if (range.first < 1 || range.first > range.last || range.last > count)
    parser.fail("--rows " + text + ": out of range, the data file has " +
                std::to_string(count) + " examples (rows 1-" +
                std::to_string(count) + ")");
  return range;
}

/// The source model the compiled model's manifest names, for messages.
std::string modelSource(const std::string &modelDir) {
  std::ifstream in(fs::path(modelDir) / "manifest.json");
  nlohmann::json manifest = nlohmann::json::parse(in, nullptr, false);
  if (manifest.is_object() && manifest.contains("source") &&
      manifest["source"].is_string())
    return manifest["source"].get<std::string>();
  return "unknown source";
}

Dataset singleSequenceData(const std::vector<listops::Sample> &samples) {
  Dataset data{Task::ListOps, {}, {}, {}, {}};
  for (const listops::Sample &sample : samples) {
    data.first.push_back(sample.tokens);
    data.labels.push_back(sample.label);
    data.lengths.push_back(static_cast<int64_t>(sample.tokens.size()));
  }
  return data;
}

std::vector<std::string> tokenTexts(const listops::Sample &sample) {
  std::vector<std::string> texts;
  for (data::TokenId id : sample.tokens)
    texts.emplace_back(listops::tokenText(id));
  return texts;
}

std::string fixed4(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

void printScore(const report::BracketScore &score, size_t goldRows,
                const std::string &dataFile) {
  if (goldRows == 0) {
    std::cout << "no gold brackets in " << dataFile
              << ": no bracket F1 (its sequences have no round brackets)\n";
    return;
  }
  std::cout << "unlabelled bracket F1 over " << goldRows
            << " rows with gold brackets: " << fixed4(score.f1())
            << " (precision " << fixed4(score.precision()) << ", recall "
            << fixed4(score.recall()) << "; " << score.matched << " of "
            << score.induced << " induced spans match " << score.gold
            << " gold spans)\n";
}

/// What parse prints and writes besides each row's tree, and the score it
/// accumulates.
struct ParseReport {
  bool trace = false;
  std::string svgDir; ///< empty: no drawings
  report::BracketScore score;
  size_t goldRows = 0;
};

/// Runs row `row` (counted from 1) alone through the model and returns the
/// tree it induced; the title names the row, its label and the prediction.
report::InducedRow induceRow(CompiledModel &model, const Dataset &data,
                             StructureTrace &structure, size_t row,
                             const std::vector<std::string> &tokens,
                             const std::string &dataFile, std::string &title) {
  Batch batch = makeBatch(data, {row - 1});
  structure.clear();
  int64_t predicted = model.logits(batch).argmax(1).item<int64_t>();
  title = "row " + std::to_string(row) + " (label " +
          std::to_string(data.labels.at(row - 1)) + ", predicted " +
          std::to_string(predicted) + ")";
  try {
    return report::inducedTree(structure, batch.inputs.at(1), 0, tokens);
  } catch (const std::invalid_argument &error) {
    throw std::runtime_error(dataFile + ": row " + std::to_string(row) + ": " +
                             error.what());
  }
}

/// Prints one row's tree (and derivation), scores it against the gold
/// brackets, draws it.
void reportRow(const report::InducedRow &induced, const listops::Sample &sample,
               const std::vector<std::string> &tokens, size_t row,
               const std::string &title, ParseReport &out) {
  std::cout << title << ": " << report::bracketed(induced.tree, tokens) << '\n';
  if (out.trace)
    for (const std::string &line : induced.derivation)
      std::cout << "  " << line << '\n';
  if (!sample.brackets.empty()) {
    const int64_t length = static_cast<int64_t>(tokens.size());
    out.score.add(report::scoredSpans(report::nodeSpans(induced.tree), length),
                  report::scoredSpans(sample.brackets, length));
    ++out.goldRows;
  }
  if (!out.svgDir.empty())
    train::writeFileAtomically(
        (fs::path(out.svgDir) / ("row-" + std::to_string(row) + ".svg"))
            .string(),
        report::renderTreeSvg(induced.tree, tokens, title));
}

} // namespace

int runParse(const std::vector<std::string> &args) {
  std::string modelDir, checkpoint, dataFile, rows, svgDir;
  std::string device = "cpu", kernels = "generated";
  bool trace = false;
  OptionParser parser(
      "rvnn-run parse",
      "Prints the tree a trained model induces over each input row, as\n"
      "bracketed tokens, and the unlabelled bracket F1 against the gold\n"
      "brackets of ListOps data that has them. The model must expose its\n"
      "structure (rvnn.expose_structure; docs/user-guide.md, \"Looking at\n"
      "induced trees\").\n");
  parser.add("--model", "DIR", "compiled model", modelDir);
  parser.add("--checkpoint", "FILE",
             "checkpoint (best.pt or last.pt; its best parameters when it\n"
             "has them)",
             checkpoint);
  parser.add("--data", "FILE", "ListOps data", dataFile);
  parser.add("--rows", "A:B|N",
             "only examples A to B, or example N (counted from 1)", rows);
  parser.add("--svg", "DIR", "also draw each row's tree as DIR/row-N.svg",
             svgDir);
  parser.add("--device", "NAME", "cpu, cuda or cuda:N", device);
  addKernelsOption(parser, kernels);
  parser.addFlag("--trace",
                 "print how each tree was derived from the exposed values",
                 trace);
  if (!parser.parse(args))
    return 0;
  for (const char *required : {"--model", "--checkpoint", "--data"})
    if (!parser.given(required))
      parser.fail(std::string("missing ") + required);
  const KernelMode kernelMode = kernelsOption(parser, kernels);

  CompiledModel model(modelDir, selectDevice(device), /*seed=*/0, kernelMode);
  if (!exposesStructure(model.plan()))
    throw std::runtime_error(
        "model " + modelDir + " (" + modelSource(modelDir) +
        ") exposes no induced structure: its program has no "
        "rvnn_exec.expose_structure op");
  train::loadParameters(checkpoint, model, /*best=*/true);
  const std::vector<listops::Sample> samples = listops::read(dataFile);
  const RowRange range = rowRange(parser, rows, samples.size());
  const Dataset data = singleSequenceData(samples);
  if (!svgDir.empty())
    fs::create_directories(svgDir);

  // One row per forward pass, and a halting check after every step: the
  // trace then holds exactly the steps that row took.
  StructureTrace structure;
  ExecutionContext &context = model.executionContext();
  context.structureTrace = &structure;
  context.haltSyncEvery = 1;
  ParseReport out{trace, svgDir, {}, 0};
  for (size_t row = range.first; row <= range.last; ++row) {
    const listops::Sample &sample = samples[row - 1];
    const std::vector<std::string> tokens = tokenTexts(sample);
    std::string title;
    report::InducedRow induced =
        induceRow(model, data, structure, row, tokens, dataFile, title);
    reportRow(induced, sample, tokens, row, title, out);
  }
  printScore(out.score, out.goldRows, dataFile);
  return 0;
}

} // namespace rvnn::cli
