#include "rvnn/Runtime/Report/InducedStructure.h"

#include <cstdio>
#include <stdexcept>

namespace rvnn::runtime::report {

namespace {

using contract::StructureKind;

std::vector<const StructureRecord *> recordsOf(const StructureTrace &trace,
                                               StructureKind kind) {
  std::vector<const StructureRecord *> records;
  for (const StructureRecord &record : trace)
    if (record.kind == kind)
      records.push_back(&record);
  return records;
}

[[noreturn]] void fail(const StructureRecord &record,
                       const std::string &problem) {
  throw std::invalid_argument(record.where + ": exposed " +
                              std::string(contract::keyword(record.kind)) +
                              " value: " + problem);
}

/// Row `row` of the record's value.
torch::Tensor rowOf(const StructureRecord &record, int64_t row) {
  if (record.value.dim() < 1 || record.value.size(0) <= row)
    fail(record,
         "no row " + std::to_string(row) + " in a value of " +
             std::to_string(record.value.dim() ? record.value.size(0) : 0) +
             " rows");
  return record.value[row];
}

/// The first `length` entries of row `row` of an [N, S] value.
std::vector<double> tokenValues(const StructureRecord &record, int64_t row,
                                int64_t length) {
  torch::Tensor values = rowOf(record, row);
  if (values.dim() != 1 || values.size(0) < length)
    fail(record, "expected at least " + std::to_string(length) +
                     " values per row (one per token)");
  values = values.slice(0, 0, length).to(torch::kDouble).contiguous();
  const double *data = values.data_ptr<double>();
  return {data, data + length};
}

std::string joinedText(const std::string &left, const std::string &right) {
  return "( " + left + " " + right + " )";
}

std::string spanText(const Span &span, const std::vector<std::string> &tokens) {
  std::string text;
  for (int64_t i = span.first; i < span.second; ++i)
    text += (text.empty() ? "" : " ") + tokens.at(static_cast<size_t>(i));
  return "{" + text + "}";
}

std::string valuesText(const std::vector<double> &values) {
  std::string text;
  for (double value : values) {
    char number[16];
    std::snprintf(number, sizeof number, "%.2f", value);
    text += (text.empty() ? "" : " ") + std::string(number);
  }
  return text;
}

/// Beam 0 of the last step followed back through the parents: each step's
/// merge position on that path (the followed beam is in `beams`).
std::vector<int64_t>
topBeamPositions(const std::vector<const StructureRecord *> &selections,
                 const std::vector<const StructureRecord *> &parents,
                 int64_t row, int64_t length, std::vector<int64_t> &beams) {
  const size_t steps = selections.size();
  std::vector<int64_t> positions(steps);
  beams.assign(steps, 0);
  int64_t beam = 0;
  for (size_t t = steps; t-- > 0;) {
    const StructureRecord &record = *selections[t];
    torch::Tensor selection = rowOf(record, row);
    if (selection.dim() == 1)
      selection = selection.unsqueeze(0);
    if (beam >= selection.size(0) || selection.size(1) == 0)
      fail(record, "step " + std::to_string(t) + " has no pair for beam " +
                       std::to_string(beam));
    torch::Tensor pairs = selection[beam];
    positions[t] = pairs.argmax().item<int64_t>();
    if (static_cast<int64_t>(t) < length - 1 &&
        pairs[positions[t]].item<double>() <= 0)
      fail(record, "step " + std::to_string(t) + " selects no pair");
    beams[t] = beam;
    if (!parents.empty()) {
      const StructureRecord &parent = *parents[t];
      torch::Tensor ids = rowOf(parent, row);
      if (ids.dim() != 1 || beam >= ids.size(0))
        fail(parent, "no parent for beam " + std::to_string(beam));
      beam = ids[beam].item<int64_t>() / parent.factor;
    }
  }
  return positions;
}

InducedRow fromMerges(const StructureTrace &trace, int64_t row, int64_t length,
                      const std::vector<std::string> &tokens) {
  auto selections = recordsOf(trace, StructureKind::merge_selection);
  auto parents = recordsOf(trace, StructureKind::beam_parent);
  if (!parents.empty() && parents.size() != selections.size())
    fail(*parents.front(),
         std::to_string(parents.size()) + " beam_parent records for " +
             std::to_string(selections.size()) + " merge_selection records");
  std::vector<int64_t> beams;
  std::vector<int64_t> positions =
      topBeamPositions(selections, parents, row, length, beams);
  positions.resize(
      std::min<size_t>(positions.size(), static_cast<size_t>(length - 1)));
  InducedRow result;
  try {
    result.tree = treeFromMerges(length, positions);
  } catch (const std::invalid_argument &error) {
    fail(*selections.front(), error.what());
  }
  std::vector<std::string> nodes = tokens;
  for (size_t t = 0; t < positions.size(); ++t) {
    size_t p = static_cast<size_t>(positions[t]);
    nodes[p] = joinedText(nodes[p], nodes[p + 1]);
    nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(p) + 1);
    result.derivation.push_back("step " + std::to_string(t) + " (beam " +
                                std::to_string(beams[t]) + "): pair " +
                                std::to_string(p) + " -> " + nodes[p]);
  }
  return result;
}

InducedRow fromCompositions(const StructureTrace &trace, int64_t row,
                            int64_t length,
                            const std::vector<std::string> &tokens) {
  auto compositions = recordsOf(trace, StructureKind::composition);
  auto existences = recordsOf(trace, StructureKind::existence);
  std::vector<CompositionStep> iterations;
  for (const StructureRecord *record : compositions)
    iterations.push_back(tokenValues(*record, row, length));
  std::vector<std::pair<Span, Span>> joined;
  InducedRow result{treeFromCompositions(length, iterations, &joined), {}};
  for (size_t i = 0; i < std::max(iterations.size(), joined.size()); ++i) {
    std::string line = i < iterations.size()
                           ? "iteration " + std::to_string(i) +
                                 ": c = " + valuesText(iterations[i])
                           : std::string("after the last iteration:");
    if (i < iterations.size() && i < existences.size())
      line += "; e = " + valuesText(tokenValues(*existences[i], row, length));
    if (i < joined.size())
      line += (i < iterations.size() ? "; joins " : " joins ") +
              spanText(joined[i].first, tokens) + " + " +
              spanText(joined[i].second, tokens);
    result.derivation.push_back(line);
  }
  return result;
}

} // namespace

InducedRow inducedTree(const StructureTrace &trace, const torch::Tensor &mask,
                       int64_t row, const std::vector<std::string> &tokens) {
  const int64_t length =
      static_cast<int64_t>(mask[row].sum().item<double>() + 0.5);
  if (length < 1 || static_cast<int64_t>(tokens.size()) < length)
    throw std::invalid_argument("row " + std::to_string(row) + " has " +
                                std::to_string(length) + " real tokens");
  // One token has one tree, whatever the model exposed (a loop over
  // length - 1 merges may not have run at all).
  if (length == 1)
    return {Tree::leaf(0), {}};
  auto balanced = recordsOf(trace, StructureKind::balanced);
  bool merges = !recordsOf(trace, StructureKind::merge_selection).empty();
  bool compositions = !recordsOf(trace, StructureKind::composition).empty();
  int kinds = !balanced.empty() + merges + compositions;
  if (kinds == 0)
    throw std::invalid_argument("the forward pass exposed no structure "
                                "(balanced, merge_selection or composition)");
  if (kinds > 1)
    throw std::invalid_argument(
        "the forward pass exposed more than one kind of structure "
        "(balanced, merge_selection, composition): the tree is ambiguous");
  if (!balanced.empty()) {
    // The reduction's own mask decides its tree: it must be the row's.
    const StructureRecord &record = *balanced.front();
    double exposed = rowOf(record, row).sum().item<double>();
    if (static_cast<int64_t>(exposed + 0.5) != length)
      fail(record, "its mask has " + std::to_string(exposed) +
                       " real tokens in row " + std::to_string(row) +
                       ", the input " + std::to_string(length));
    return {balancedTree(length, record.arity), {}};
  }
  if (merges)
    return fromMerges(trace, row, length, tokens);
  return fromCompositions(trace, row, length, tokens);
}

} // namespace rvnn::runtime::report
