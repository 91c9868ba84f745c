#include "rvnn/Runtime/Report/TreeSvg.h"

#include <algorithm>
#include <sstream>

#include "rvnn/Runtime/Report/SvgText.h"

namespace rvnn::runtime::report {

namespace {

// Layout in pixels: about 8 px per character of the 14 px sans-serif text.
constexpr double kMargin = 24;
constexpr double kTitleBand = 40;
constexpr double kTokenBand = 36;
constexpr double kLevelHeight = 40;
constexpr double kMinTokenWidth = 36;
constexpr double kCharWidth = 8;
constexpr double kNodeRadius = 4;

int height(const Tree &tree) {
  int below = 0;
  for (const Tree &child : tree.children)
    below = std::max(below, height(child));
  return tree.isLeaf() ? 0 : below + 1;
}

struct Layout {
  std::vector<double> tokenX; ///< centre of each token
  double leafY = 0;           ///< the leaves' row (just above the tokens)
};

double nodeX(const Tree &tree, const Layout &layout) {
  if (tree.isLeaf())
    return layout.tokenX.at(static_cast<size_t>(tree.begin));
  return (nodeX(tree.children.front(), layout) +
          nodeX(tree.children.back(), layout)) /
         2;
}

double nodeY(const Tree &tree, const Layout &layout) {
  return layout.leafY - kLevelHeight * height(tree);
}

void drawNode(std::ostringstream &svg, const Tree &tree, const Layout &layout) {
  double x = nodeX(tree, layout), y = nodeY(tree, layout);
  for (const Tree &child : tree.children) {
    svg << "<line x1=\"" << pixels(x) << "\" y1=\"" << pixels(y) << "\" x2=\""
        << pixels(nodeX(child, layout)) << "\" y2=\""
        << pixels(nodeY(child, layout))
        << "\" stroke=\"#555\" stroke-width=\"1.5\"/>\n";
    drawNode(svg, child, layout);
  }
  svg << "<circle cx=\"" << pixels(x) << "\" cy=\"" << pixels(y) << "\" r=\""
      << pixels(tree.isLeaf() ? kNodeRadius / 2 : kNodeRadius) << "\" fill=\""
      << (tree.isLeaf() ? "#555" : "#1f77b4") << "\"/>\n";
}

} // namespace

std::string renderTreeSvg(const Tree &tree,
                          const std::vector<std::string> &tokens,
                          const std::string &title) {
  Layout layout;
  double x = kMargin;
  for (int64_t i = tree.begin; i < tree.end; ++i) {
    const std::string &text = tokens.at(static_cast<size_t>(i));
    double width = std::max(kMinTokenWidth,
                            kCharWidth * static_cast<double>(text.size()) + 12);
    layout.tokenX.resize(static_cast<size_t>(i) + 1);
    layout.tokenX[static_cast<size_t>(i)] = x + width / 2;
    x += width;
  }
  const double width =
      std::max(x + kMargin,
               kCharWidth * static_cast<double>(title.size()) + 2 * kMargin);
  const int levels = height(tree);
  layout.leafY = kTitleBand + kMargin + kLevelHeight * levels;
  const double total = layout.leafY + kTokenBand + kMargin;

  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << pixels(width)
      << "\" height=\"" << pixels(total) << "\" viewBox=\"0 0 " << pixels(width)
      << ' ' << pixels(total)
      << "\" font-family=\"sans-serif\" font-size=\"14\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << pixels(kMargin) << "\" y=\"" << pixels(kTitleBand - 12)
      << "\" font-weight=\"bold\">" << escapeXml(title) << "</text>\n";
  drawNode(svg, tree, layout);
  for (int64_t i = tree.begin; i < tree.end; ++i)
    svg << "<text x=\"" << pixels(layout.tokenX[static_cast<size_t>(i)])
        << "\" y=\"" << pixels(layout.leafY + 22)
        << "\" text-anchor=\"middle\">"
        << escapeXml(tokens.at(static_cast<size_t>(i))) << "</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

} // namespace rvnn::runtime::report
