#include "rvnn/Runtime/Report/SvgChart.h"

#include <cmath>

#include <gtest/gtest.h>

#include "Occurrences.h"

namespace rvnn::runtime::report {
namespace {

using testing::count;

LineChart twoLines() {
  LineChart chart;
  chart.title = "Loss";
  chart.x.title = "step";
  chart.y.title = "loss";
  chart.series.push_back({"first", {{0, 1}, {1, 2}, {2, 3}}, "", false});
  chart.series.push_back({"a<b & \"c\"", {{0, 3}, {2, 1}}, "#123456", false});
  return chart;
}

TEST(SvgChart, DrawsEverySeriesWithItsLegend) {
  const std::string svg = renderSvg({twoLines()});
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(svg, "<polyline"), 2u);
  EXPECT_EQ(count(svg, "<circle"), 0u);
  EXPECT_NE(svg.find(">first</text>"), std::string::npos);
  // Names are escaped, colours used as given or from the palette.
  EXPECT_NE(svg.find(">a&lt;b &amp; &quot;c&quot;</text>"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#123456\""), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"" + paletteColor(0) + "\""), std::string::npos);
  EXPECT_NE(svg.find(">Loss</text>"), std::string::npos);
  EXPECT_EQ(svg.find("no data yet"), std::string::npos);
}

TEST(SvgChart, GapsBreakLinesAndLonePointsAreDots) {
  LineChart chart;
  chart.y.log = true;
  chart.series.push_back(
      {"loss", {{0, 1}, {1, std::nan("")}, {2, 3}, {3, 4}, {4, 0}}, "", false});
  const std::string svg = renderSvg({chart});
  // (0, 1) alone, then (2, 3)-(3, 4); 0 has no place on a log axis.
  EXPECT_EQ(count(svg, "<polyline"), 1u);
  EXPECT_EQ(count(svg, "<circle"), 1u);
  chart.series[0].dots = true;
  EXPECT_EQ(count(renderSvg({chart}), "<circle"), 3u);
}

TEST(SvgChart, MarkersAndCategories) {
  LineChart chart = twoLines();
  chart.markers = {{1, "lr 0.0005", ""}, {1.001, "lr 0.00025", "#ff0000"}};
  chart.markerLegend = "LR change";
  chart.x.categories = {"0-99", "100-199", ">=200"};
  const std::string svg = renderSvg({chart, twoLines()});
  EXPECT_EQ(count(svg, "class=\"marker\""), 2u);
  // The second line is too close to the first for its label.
  EXPECT_NE(svg.find(">lr 0.0005</text>"), std::string::npos);
  EXPECT_EQ(svg.find(">lr 0.00025</text>"), std::string::npos);
  EXPECT_NE(svg.find(">LR change</text>"), std::string::npos);
  EXPECT_NE(svg.find(">&gt;=200</text>"), std::string::npos);
  // Two charts, each with its own clip region, stacked.
  EXPECT_EQ(count(svg, "<clipPath"), 2u);
  EXPECT_NE(svg.find("height=\"660.0\""), std::string::npos);
}

TEST(SvgChart, EmptyChartSaysSo) {
  LineChart chart;
  chart.series.push_back({"dev", {}, "", true});
  EXPECT_NE(renderSvg({chart}).find("no data yet"), std::string::npos);
}

TEST(SvgChart, LongLegendNamesKeepTheirEnd) {
  LineChart chart;
  const std::string name =
      "/a/very/long/path/to/some/experiment/directory/run-lr-0.001";
  chart.series.push_back({name, {{0, 1}, {1, 2}}, "", false});
  const std::string svg = renderSvg({chart});
  EXPECT_EQ(svg.find(">" + name + "</text>"), std::string::npos);
  EXPECT_NE(svg.find("\u2026" + name.substr(name.size() - 39) + "</text>"),
            std::string::npos);
}

} // namespace
} // namespace rvnn::runtime::report
