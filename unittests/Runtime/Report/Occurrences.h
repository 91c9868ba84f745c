// How often a piece of SVG appears in a chart: the report tests' measure.
#ifndef RVNN_UNITTESTS_RUNTIME_REPORT_OCCURRENCES_H
#define RVNN_UNITTESTS_RUNTIME_REPORT_OCCURRENCES_H

#include <cstddef>
#include <string>

namespace rvnn::runtime::report::testing {

inline std::size_t count(const std::string &text, const std::string &what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace rvnn::runtime::report::testing

#endif // RVNN_UNITTESTS_RUNTIME_REPORT_OCCURRENCES_H
