#ifndef RVNN_RUNTIME_REPORT_TREESVG_H
#define RVNN_RUNTIME_REPORT_TREESVG_H

#include <string>
#include <vector>

#include "rvnn/Runtime/Report/InducedTree.h"

namespace rvnn::runtime::report {

/// An SVG document drawing `tree`: the tokens side by side along the
/// bottom, each internal node above its children (one row per height, a
/// node centred over its outermost children) joined to them by lines, and
/// `title` on top. Self-contained, like renderSvg's charts.
std::string renderTreeSvg(const Tree &tree,
                          const std::vector<std::string> &tokens,
                          const std::string &title);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_TREESVG_H
