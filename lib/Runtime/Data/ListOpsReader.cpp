#include "rvnn/Runtime/Data/ListOpsReader.h"

#include "TsvLines.h"
#include "rvnn/Runtime/Data/ListOpsEval.h"
#include "rvnn/Runtime/Data/ListOpsVocab.h"

#include <stdexcept>
#include <string>

namespace rvnn::runtime::data::listops {

namespace {

int parseLabel(const TsvLines &lines, std::string_view field) {
  std::string_view text = trimmed(field);
  if (text.empty() || text.find_first_not_of("0123456789") != text.npos)
    lines.fail("label '" + std::string(text) + "' is not a number");
  if (text.size() > 1)
    lines.fail("label " + std::string(text) + " out of range 0-9");
  return text[0] - '0';
}

std::vector<TokenId> parseSequence(const TsvLines &lines,
                                   std::string_view field) {
  lines.checkWordCount(field, "the sequence");
  std::vector<TokenId> tokens;
  try {
    tokens = tokenize(field);
  } catch (const std::invalid_argument &error) {
    lines.fail(error.what());
  }
  if (tokens.empty())
    lines.fail("empty sequence");
  // Evaluating checks the bracket structure; the value itself is not
  // compared with the label (see read()).
  try {
    evaluate(tokens);
  } catch (const std::invalid_argument &error) {
    lines.fail(std::string("malformed sequence: ") + error.what());
  }
  return tokens;
}

} // namespace

std::vector<Sample> parse(std::istream &in, const std::string &name) {
  TsvLines lines(in, name);
  std::vector<Sample> samples;
  bool lra = false;
  while (lines.next()) {
    if (samples.empty() && !lra && lines.line() == "Source\tTarget") {
      lra = true;
      continue;
    }
    const auto &fields = lines.fields();
    if (fields.size() != 2)
      lines.fail("expected 2 tab-separated fields (" +
                 std::string(lra ? "sequence, label" : "label, sequence") +
                 "), found " + std::to_string(fields.size()));
    Sample sample;
    sample.label = parseLabel(lines, fields[lra ? 1 : 0]);
    sample.tokens = parseSequence(lines, fields[lra ? 0 : 1]);
    sample.brackets = bracketSpans(fields[lra ? 0 : 1]);
    samples.push_back(std::move(sample));
  }
  lines.requireExamples(samples.size());
  return samples;
}

std::vector<Sample> read(const std::string &path) {
  std::ifstream file = openDataFile(path);
  return parse(file, path);
}

} // namespace rvnn::runtime::data::listops
