#include "rvnn/Runtime/Report/SvgChart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

#include "rvnn/Runtime/Report/AxisTicks.h"
#include "rvnn/Runtime/Report/SvgText.h"

namespace rvnn::runtime::report {

namespace {

// Layout in pixels. Text widths are estimated, since an SVG writer cannot
// measure fonts: about 7 px per character at the 12 px sans-serif used.
constexpr double kCharWidth = 7;
constexpr double kLeft = 72;
constexpr double kTitleBand = 38;
constexpr double kBottomBand = 52;
constexpr double kRightPad = 16;
constexpr std::size_t kLegendChars = 40;

/// Long names (run paths) keep their informative end.
std::string legendText(const std::string &name) {
  if (name.size() <= kLegendChars)
    return name;
  std::size_t start = name.size() - (kLegendChars - 1);
  // Do not start inside a UTF-8 sequence.
  while (start < name.size() &&
         (static_cast<unsigned char>(name[start]) & 0xC0) == 0x80)
    ++start;
  return "\u2026" + name.substr(start);
}

/// Maps data values on an axis to pixels.
struct Scale {
  double lo, hi;
  double from, to; ///< pixels of lo and hi
  bool log = false;

  bool valid(double value) const {
    return std::isfinite(value) && (!log || value > 0);
  }
  double operator()(double value) const {
    const double t = log ? (std::log10(value) - std::log10(lo)) /
                               (std::log10(hi) - std::log10(lo))
                         : (value - lo) / (hi - lo);
    return from + t * (to - from);
  }
};

/// The axis' extent and ticks for `values` (the data along it).
TickRange axisRange(const Axis &axis, const std::vector<double> &values) {
  if (!axis.categories.empty()) {
    TickRange range;
    range.lo = -0.5;
    range.hi = static_cast<double>(axis.categories.size()) - 0.5;
    for (std::size_t i = 0; i < axis.categories.size(); ++i)
      range.ticks.push_back({static_cast<double>(i), axis.categories[i]});
    return range;
  }
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (double value : values)
    if (std::isfinite(value) && (!axis.log || value > 0)) {
      lo = std::min(lo, value);
      hi = std::max(hi, value);
    }
  lo = axis.min.value_or(lo);
  hi = axis.max.value_or(hi);
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    lo = axis.log ? 1 : 0;
    hi = axis.log ? 10 : 1;
  }
  return axis.log ? logTicks(lo, hi) : linearTicks(lo, hi);
}

/// Room for the widest legend of all charts, so that stacked plots line up.
double legendWidth(const std::vector<LineChart> &charts) {
  std::size_t longest = 0;
  for (const LineChart &chart : charts) {
    longest = std::max(longest, chart.markerLegend.size());
    for (const Series &series : chart.series)
      longest = std::max(longest, legendText(series.name).size());
  }
  return std::clamp(static_cast<double>(longest) * kCharWidth + 44, 120.0,
                    330.0);
}

void renderChart(std::ostringstream &svg, const LineChart &chart, int index,
                 double width, double legendWidth, double top, double height) {
  const double left = kLeft;
  const double right = width - legendWidth - kRightPad;
  const double plotTop = top + kTitleBand;
  const double bottom = top + height - kBottomBand;

  std::vector<double> xs, ys;
  for (const Series &series : chart.series)
    for (const Point &point : series.points) {
      xs.push_back(point.x);
      ys.push_back(point.y);
    }
  for (const VerticalMarker &marker : chart.markers)
    xs.push_back(marker.x);
  const TickRange xRange = axisRange(chart.x, xs);
  const TickRange yRange = axisRange(chart.y, ys);
  const Scale xScale{xRange.lo, xRange.hi, left, right, false};
  const Scale yScale{yRange.lo, yRange.hi, bottom, plotTop, chart.y.log};

  svg << "<g class=\"chart\">\n";
  svg << "<text x=\"" << pixels(left) << "\" y=\"" << pixels(top + 22)
      << "\" font-size=\"15\" font-weight=\"bold\">" << escapeXml(chart.title)
      << "</text>\n";

  // Grid and tick labels; a label closer than a line's height to the one
  // below it is left out (log axes bunch up).
  double lastYLabel = std::numeric_limits<double>::infinity();
  for (const Tick &tick : yRange.ticks) {
    const double y = yScale(tick.value);
    svg << "<line x1=\"" << pixels(left) << "\" x2=\"" << pixels(right)
        << "\" y1=\"" << pixels(y) << "\" y2=\"" << pixels(y)
        << "\" stroke=\"#e4e4e4\"/>\n";
    if (lastYLabel - y < 14)
      continue;
    svg << "<text x=\"" << pixels(left - 7) << "\" y=\"" << pixels(y + 4)
        << "\" text-anchor=\"end\">" << escapeXml(tick.label) << "</text>\n";
    lastYLabel = y;
  }
  // Category labels that would collide are thinned to every n-th.
  double widest = 0;
  for (const Tick &tick : xRange.ticks)
    widest = std::max(widest, static_cast<double>(tick.label.size()));
  const double spacing =
      xRange.ticks.size() > 1
          ? (right - left) / static_cast<double>(xRange.ticks.size() - 1)
          : right - left;
  const auto every = static_cast<std::size_t>(
      std::ceil((widest * kCharWidth + 10) / std::max(spacing, 1.0)));
  for (std::size_t i = 0; i < xRange.ticks.size(); ++i) {
    const double x = xScale(xRange.ticks[i].value);
    svg << "<line x1=\"" << pixels(x) << "\" x2=\"" << pixels(x) << "\" y1=\""
        << pixels(plotTop) << "\" y2=\"" << pixels(bottom)
        << "\" stroke=\"#e4e4e4\"/>\n";
    if (i % std::max<std::size_t>(every, 1) == 0)
      svg << "<text x=\"" << pixels(x) << "\" y=\"" << pixels(bottom + 17)
          << "\" text-anchor=\"middle\">" << escapeXml(xRange.ticks[i].label)
          << "</text>\n";
  }
  svg << "<text x=\"" << pixels((left + right) / 2) << "\" y=\""
      << pixels(bottom + 40) << "\" text-anchor=\"middle\">"
      << escapeXml(chart.x.title) << "</text>\n";
  const double yMid = (plotTop + bottom) / 2;
  svg << "<text x=\"18\" y=\"" << pixels(yMid) << "\" text-anchor=\"middle\" "
      << "transform=\"rotate(-90 18 " << pixels(yMid) << ")\">"
      << escapeXml(chart.y.title) << "</text>\n";

  // Data, clipped to the plot (a little beyond, so edge dots stay round).
  const std::string clip = "plot" + std::to_string(index);
  svg << "<clipPath id=\"" << clip << "\"><rect x=\"" << pixels(left - 4)
      << "\" y=\"" << pixels(plotTop - 4) << "\" width=\""
      << pixels(right - left + 8) << "\" height=\""
      << pixels(bottom - plotTop + 8) << "\"/></clipPath>\n";
  svg << "<g clip-path=\"url(#" << clip << ")\">\n";
  double lastLabel = -std::numeric_limits<double>::infinity();
  for (const VerticalMarker &marker : chart.markers) {
    if (!std::isfinite(marker.x))
      continue;
    const std::string color = marker.color.empty() ? "#888" : marker.color;
    const double x = xScale(marker.x);
    svg << "<line class=\"marker\" x1=\"" << pixels(x) << "\" x2=\""
        << pixels(x) << "\" y1=\"" << pixels(plotTop) << "\" y2=\""
        << pixels(bottom) << "\" stroke=\"" << color
        << "\" stroke-width=\"1.2\" stroke-dasharray=\"5 4\"/>\n";
    // Labels read upwards along their line; close lines leave theirs out.
    if (!marker.label.empty() && x - lastLabel >= 14) {
      svg << "<text x=\"" << pixels(x - 3) << "\" y=\"" << pixels(plotTop + 4)
          << "\" font-size=\"10\" fill=\"" << color
          << "\" text-anchor=\"end\" transform=\"rotate(-90 " << pixels(x - 3)
          << " " << pixels(plotTop + 4) << ")\">" << escapeXml(marker.label)
          << "</text>\n";
      lastLabel = x;
    }
  }
  std::size_t paletteIndex = 0;
  std::vector<std::string> colors;
  bool anyPoint = false;
  for (const Series &series : chart.series) {
    const std::string color =
        series.color.empty() ? paletteColor(paletteIndex++) : series.color;
    colors.push_back(color);
    svg << "<g class=\"series\" data-name=\"" << escapeXml(series.name)
        << "\">\n";
    std::vector<Point> run;
    auto flush = [&] {
      if (run.size() > 1) {
        svg << "<polyline fill=\"none\" stroke=\"" << color
            << "\" stroke-width=\"1.8\" stroke-linejoin=\"round\" points=\"";
        for (std::size_t i = 0; i < run.size(); ++i)
          svg << (i ? " " : "") << pixels(run[i].x) << ',' << pixels(run[i].y);
        svg << "\"/>\n";
      }
      if (series.dots || run.size() == 1)
        for (const Point &point : run)
          svg << "<circle cx=\"" << pixels(point.x) << "\" cy=\""
              << pixels(point.y) << "\" r=\"3\" fill=\"" << color << "\"/>\n";
      run.clear();
    };
    for (const Point &point : series.points) {
      if (xScale.valid(point.x) && yScale.valid(point.y)) {
        run.push_back({xScale(point.x), yScale(point.y)});
        anyPoint = true;
      } else {
        flush();
      }
    }
    flush();
    svg << "</g>\n";
  }
  svg << "</g>\n";
  if (!anyPoint)
    svg << "<text x=\"" << pixels((left + right) / 2) << "\" y=\""
        << pixels(yMid)
        << "\" text-anchor=\"middle\" fill=\"#999\">no data yet</text>\n";
  svg << "<rect x=\"" << pixels(left) << "\" y=\"" << pixels(plotTop)
      << "\" width=\"" << pixels(right - left) << "\" height=\""
      << pixels(bottom - plotTop) << "\" fill=\"none\" stroke=\"#444\"/>\n";

  // Legend, beside the plot.
  const double legendX = right + 16;
  double legendY = plotTop + 8;
  auto entry = [&](const std::string &text, const std::string &color,
                   const char *dash) {
    svg << "<line x1=\"" << pixels(legendX) << "\" x2=\""
        << pixels(legendX + 22) << "\" y1=\"" << pixels(legendY) << "\" y2=\""
        << pixels(legendY) << "\" stroke=\"" << color << "\" stroke-width=\"2\""
        << dash << "/>\n"
        << "<text class=\"legend\" x=\"" << pixels(legendX + 28) << "\" y=\""
        << pixels(legendY + 4) << "\">" << escapeXml(legendText(text))
        << "</text>\n";
    legendY += 18;
  };
  for (std::size_t i = 0; i < chart.series.size(); ++i)
    entry(chart.series[i].name, colors[i], "");
  if (!chart.markerLegend.empty() && !chart.markers.empty())
    entry(chart.markerLegend, "#888", " stroke-dasharray=\"5 4\"");
  svg << "</g>\n";
}

} // namespace

std::string paletteColor(std::size_t index) {
  // Matplotlib's "tab10": distinct hues that stay apart in print.
  static const std::array<const char *, 10> palette = {
      "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
  return palette[index % palette.size()];
}

std::string renderSvg(const std::vector<LineChart> &charts, int width,
                      int chartHeight) {
  const double height =
      static_cast<double>(chartHeight) *
      static_cast<double>(std::max<std::size_t>(charts.size(), 1));
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width
      << "\" height=\"" << pixels(height) << "\" viewBox=\"0 0 " << width << ' '
      << pixels(height) << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  const double legend = legendWidth(charts);
  for (std::size_t i = 0; i < charts.size(); ++i)
    renderChart(svg, charts[i], static_cast<int>(i), width, legend,
                static_cast<double>(i) * chartHeight, chartHeight);
  svg << "</svg>\n";
  return svg.str();
}

} // namespace rvnn::runtime::report
