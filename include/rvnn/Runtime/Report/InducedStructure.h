#ifndef RVNN_RUNTIME_REPORT_INDUCEDSTRUCTURE_H
#define RVNN_RUNTIME_REPORT_INDUCEDSTRUCTURE_H

#include <cstdint>
#include <string>
#include <vector>

#include <torch/types.h>

#include "rvnn/Runtime/Report/InducedTree.h"
#include "rvnn/Runtime/StructureTrace.h"

namespace rvnn::runtime::report {

/// One row's induced tree and how it came about, a line per step.
struct InducedRow {
  Tree tree;
  std::vector<std::string> derivation;
};

/// The tree that the structure a forward pass exposed (`trace`) induces
/// over the real tokens of row `row` of its batch (`mask` [N, S], 1 = real
/// token, right padding; `tokens` the row's token texts), by the kind the
/// model exposed:
///  - `balanced`: balancedTree over the row's real length;
///  - `merge_selection` (with `beam_parent` when the model has beams):
///    beam 0 of the last step is followed back through the parents, each
///    step's merge position is its selection's largest entry (the first of
///    equals), and treeFromMerges joins the first length - 1 of them;
///  - `composition`: treeFromCompositions over the row's per-iteration
///    probabilities (`existence`, when exposed, joins the derivation).
/// Throws std::invalid_argument when the trace has no structure, two kinds
/// of it, or values that do not fit the row (naming the exposing op).
InducedRow inducedTree(const StructureTrace &trace, const torch::Tensor &mask,
                       int64_t row, const std::vector<std::string> &tokens);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_INDUCEDSTRUCTURE_H
