#ifndef RVNN_RUNTIME_REPORT_SVGTEXT_H
#define RVNN_RUNTIME_REPORT_SVGTEXT_H

#include <string>

namespace rvnn::runtime::report {

/// `text` with the XML special characters (& < > ") escaped, for SVG text
/// and attribute values.
std::string escapeXml(const std::string &text);

/// A coordinate in pixels with one decimal, as the SVG writers print them.
std::string pixels(double value);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_SVGTEXT_H
