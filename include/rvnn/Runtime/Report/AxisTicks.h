#ifndef RVNN_RUNTIME_REPORT_AXISTICKS_H
#define RVNN_RUNTIME_REPORT_AXISTICKS_H

#include <string>
#include <vector>

namespace rvnn::runtime::report {

struct Tick {
  double value;
  std::string label;
};

/// An axis' extent, widened to round values, and its labelled ticks.
struct TickRange {
  double lo = 0;
  double hi = 1;
  std::vector<Tick> ticks;
};

/// About `target` ticks at multiples of 1, 2 or 5 x 10^k covering [lo, hi];
/// an empty range is widened around its value.
TickRange linearTicks(double lo, double hi, int target = 6);

/// Ticks for a log axis covering [lo, hi] (both > 0): powers of ten over
/// many decades, 1-2-5 multiples over a few, and within one every integer
/// multiple and the halves below 3, so that a narrow range (a loss falling
/// from 2.5 to 1.8) still gets several labels.
TickRange logTicks(double lo, double hi);

/// Short text for an axis value: "0.25", "600", "20k", "1e-5".
std::string formatTick(double value);

} // namespace rvnn::runtime::report

#endif // RVNN_RUNTIME_REPORT_AXISTICKS_H
