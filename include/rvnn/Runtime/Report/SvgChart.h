#ifndef RVNN_RUNTIME_REPORT_SVGCHART_H
#define RVNN_RUNTIME_REPORT_SVGCHART_H

#include <optional>
#include <string>
#include <vector>

namespace rvnn::runtime::report {

struct Point {
  double x;
  double y;
};

/// One line of a chart. A non-finite y (or one <= 0 on a log axis) breaks
/// the line there.
struct Series {
  std::string name; ///< legend text
  std::vector<Point> points;
  std::string color; ///< CSS colour; empty: the palette's next
  /// Marks every point; points without a neighbour are marked regardless.
  bool dots = false;
};

/// A vertical line across the plot, e.g. where the learning rate changed.
struct VerticalMarker {
  double x;
  std::string label; ///< written beside the line where there is room
  std::string color; ///< empty: grey
};

struct Axis {
  std::string title;
  bool log = false;
  /// Fixed ends; otherwise the data's extent, widened to round ticks.
  std::optional<double> min, max;
  /// Named positions 0, 1, ... instead of numeric ticks (e.g. length
  /// buckets).
  std::vector<std::string> categories;
};

struct LineChart {
  std::string title;
  Axis x;
  Axis y;
  std::vector<Series> series;
  std::vector<VerticalMarker> markers;
  /// Legend entry for the markers; empty: none.
  std::string markerLegend;
};

/// An SVG document showing `charts` stacked top to bottom, each
/// `chartHeight` pixels tall, with its axes, ticks, grid, and a legend to the
/// right of the plot so that it never hides data. Self-contained (no
/// scripts, fonts or external references).
std::string renderSvg(const std::vector<LineChart> &charts, int width = 900,
                      int chartHeight = 330);

/// The colour renderSvg gives the i-th series that names none.
std::string paletteColor(std::size_t index);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_SVGCHART_H
