#include "rvnn/Runtime/Report/BracketF1.h"

namespace rvnn::runtime::report {

std::set<Span> scoredSpans(const std::vector<Span> &spans, int64_t length) {
  std::set<Span> scored;
  for (const Span &span : spans)
    if (span.second - span.first >= 2 && span != Span{0, length})
      scored.insert(span);
  return scored;
}

void BracketScore::add(const std::set<Span> &inducedSpans,
                       const std::set<Span> &goldSpans) {
  for (const Span &span : inducedSpans)
    matched += static_cast<int64_t>(goldSpans.count(span));
  induced += static_cast<int64_t>(inducedSpans.size());
  gold += static_cast<int64_t>(goldSpans.size());
}

// Rows of one or two tokens have no inner span; a file of only those has
// nothing to get wrong, hence 1 rather than 0/0.
double BracketScore::precision() const {
  return induced ? static_cast<double>(matched) / static_cast<double>(induced)
                 : 1.0;
}

double BracketScore::recall() const {
  return gold ? static_cast<double>(matched) / static_cast<double>(gold) : 1.0;
}

double BracketScore::f1() const {
  double p = precision(), r = recall();
  return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

} // namespace rvnn::runtime::report
