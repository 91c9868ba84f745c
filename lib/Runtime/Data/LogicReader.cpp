#include "rvnn/Runtime/Data/LogicReader.h"

#include "TsvLines.h"
#include "rvnn/Runtime/Data/LogicFormula.h"
#include "rvnn/Runtime/Data/LogicVocab.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

namespace rvnn::runtime::data::logic {

namespace {

/// Nesting depth of round brackets in one formula. truthMask recurses once
/// per level, so this bounds its stack use (public data nests about 12 deep).
constexpr std::size_t kMaxFormulaDepth = 10000;

void checkDepth(const TsvLines &lines, std::string_view field,
                const char *side) {
  std::size_t depth = 0;
  for (std::size_t start = 0;
       (start = field.find_first_not_of(" \t", start)) != field.npos;) {
    const std::size_t end =
        std::min(field.find_first_of(" \t", start), field.size());
    const std::string_view word = field.substr(start, end - start);
    if (word == "(" && ++depth > kMaxFormulaDepth)
      lines.fail(std::string(side) + " formula nests deeper than " +
                 std::to_string(kMaxFormulaDepth) +
                 " brackets, the limit for one formula (kMaxFormulaDepth)");
    if (word == ")" && depth > 0)
      --depth;
    start = end;
  }
}

std::vector<TokenId> parseFormula(const TsvLines &lines, std::string_view field,
                                  const char *side) {
  lines.checkWordCount(field, std::string(side) + " formula");
  checkDepth(lines, field, side);
  std::vector<TokenId> tokens;
  try {
    tokens = tokenize(field);
  } catch (const std::invalid_argument &error) {
    lines.fail(std::string(side) + " formula: " + error.what());
  }
  if (tokens.empty())
    lines.fail(std::string(side) + " formula is empty");
  // Parsing checks the bracket structure; the truth table is not compared
  // with the label (see read()).
  try {
    truthMask(field);
  } catch (const std::invalid_argument &error) {
    lines.fail(std::string(side) + " formula is malformed: " + error.what());
  }
  return tokens;
}

} // namespace

std::vector<Sample> parse(std::istream &in, const std::string &name) {
  TsvLines lines(in, name);
  std::vector<Sample> samples;
  while (lines.next()) {
    const auto &fields = lines.fields();
    if (fields.size() != 3)
      lines.fail("expected 3 tab-separated fields (label, formula, "
                 "formula), found " +
                 std::to_string(fields.size()));
    std::string_view label = trimmed(fields[0]);
    std::optional<Relation> relation = parseRelation(label);
    if (!relation)
      lines.fail("unknown label '" + std::string(label) +
                 "' (expected one of < > = ^ | # v)");
    samples.push_back({parseFormula(lines, fields[1], "first"),
                       parseFormula(lines, fields[2], "second"), *relation});
  }
  lines.requireExamples(samples.size());
  return samples;
}

std::vector<Sample> read(const std::string &path) {
  std::ifstream file = openDataFile(path);
  return parse(file, path);
}

} // namespace rvnn::runtime::data::logic
