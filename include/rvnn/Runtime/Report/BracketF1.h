#ifndef RVNN_RUNTIME_REPORT_BRACKETF1_H
#define RVNN_RUNTIME_REPORT_BRACKETF1_H

#include <cstdint>
#include <set>
#include <vector>

#include "rvnn/Runtime/Report/InducedTree.h"

namespace rvnn::runtime::report {

/// The spans of a tree over `length` tokens that bracket F1 scores: those
/// at least 2 tokens long, without the whole sequence (every tree has it),
/// each once.
std::set<Span> scoredSpans(const std::vector<Span> &spans, int64_t length);

/// Unlabelled bracket agreement of induced trees with gold trees, in the
/// manner of EVALB without labels, micro-averaged: span counts add up over
/// all rows before precision, recall and F1 are taken.
struct BracketScore {
  int64_t matched = 0; ///< induced spans that are also gold spans
  int64_t induced = 0;
  int64_t gold = 0;

  /// Adds one row's scored spans.
  void add(const std::set<Span> &inducedSpans, const std::set<Span> &goldSpans);
  /// matched / induced (1 when nothing was induced).
  double precision() const;
  /// matched / gold (1 when there is no gold span).
  double recall() const;
  /// The harmonic mean of precision and recall (0 when both are 0).
  double f1() const;
};

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_BRACKETF1_H
