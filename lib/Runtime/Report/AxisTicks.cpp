#include "rvnn/Runtime/Report/AxisTicks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <tuple>

namespace rvnn::runtime::report {

std::string formatTick(double value) {
  const double magnitude = std::abs(value);
  // Tick values are k * step and carry rounding noise far below the step:
  // a near-zero is zero, and ten significant digits hide the rest.
  if (magnitude < 1e-12)
    return "0";
  // "20k" from 10k on ("1500" reads better than "1.5k"), millions always.
  for (const auto &[unit, from, suffix] :
       {std::tuple{1e6, 1e6, "M"}, std::tuple{1e3, 1e4, "k"}}) {
    const double scaled = value / unit;
    if (magnitude >= from &&
        std::abs(scaled - std::round(scaled)) < 1e-6 * std::abs(scaled)) {
      std::ostringstream text;
      text << std::round(scaled) << suffix;
      return text.str();
    }
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", value);
  std::string result = text;
  // "5e-05" -> "5e-5": shorter labels crowd the axis less.
  const std::size_t e = result.find('e');
  if (e != std::string::npos) {
    std::size_t digits = e + 2;
    while (digits + 1 < result.size() && result[digits] == '0')
      result.erase(digits, 1);
    if (result[e + 1] == '+')
      result.erase(e + 1, 1);
  }
  return result;
}

TickRange linearTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi))
    return linearTicks(0, 1, target);
  if (!(hi > lo)) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  const double ratio = raw / magnitude;
  const double step = magnitude * (ratio <= 1   ? 1
                                   : ratio <= 2 ? 2
                                   : ratio <= 5 ? 5
                                                : 10);
  const auto first = static_cast<long long>(std::floor(lo / step + 1e-9));
  const auto last = static_cast<long long>(std::ceil(hi / step - 1e-9));
  TickRange range;
  range.lo = static_cast<double>(first) * step;
  range.hi = static_cast<double>(last) * step;
  for (long long k = first; k <= last; ++k) {
    const double value = static_cast<double>(k) * step;
    range.ticks.push_back({value, formatTick(value)});
  }
  return range;
}

TickRange logTicks(double lo, double hi) {
  if (!(lo > 0) || !std::isfinite(hi) || hi < lo)
    return logTicks(1, 10);
  if (hi == lo) {
    lo /= 2;
    hi *= 2;
  }
  const double decades = std::log10(hi / lo);
  std::vector<double> multiples = {1};
  if (decades <= 1)
    multiples = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9};
  else if (decades <= 3)
    multiples = {1, 2, 5};
  std::vector<double> candidates;
  const auto low = static_cast<int>(std::floor(std::log10(lo))) - 1;
  const auto high = static_cast<int>(std::ceil(std::log10(hi))) + 1;
  for (int power = low; power <= high; ++power)
    for (double multiple : multiples)
      candidates.push_back(multiple * std::pow(10.0, power));
  TickRange range;
  range.lo = candidates.front();
  range.hi = candidates.back();
  for (double value : candidates) {
    if (value <= lo * (1 + 1e-9))
      range.lo = value;
    if (value >= hi * (1 - 1e-9)) {
      range.hi = value;
      break;
    }
  }
  for (double value : candidates)
    if (value >= range.lo && value <= range.hi)
      range.ticks.push_back({value, formatTick(value)});
  return range;
}

} // namespace rvnn::runtime::report
