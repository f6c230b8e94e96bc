// Line charts as inline SVG, for the HTML report: no JavaScript library, no
// network, the same picture everywhere, and output that tests can check
// exactly. Each series is one <path class="series"> plus a <circle> per point
// whose <title> is the hover text ("label: x = 4, y = 1234.5").
//
// Pure functions of their input; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storebench {

// Escapes & < > " ' for HTML text and attribute values.
std::string HtmlEscape(std::string_view s);

struct ChartSeries {
  std::string name;                               // legend and hover text (escaped when drawn)
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in this order; non-finite points skipped
  bool marked = false;                            // a failed or interrupted run: dashed, "(interrupted)" in legend
  std::string note;                               // appended to the legend name, e.g. "interrupted"
  bool companion = false;                         // dashed, in the colour of the series before it (p99.9 beside p99)
};

enum class XAxis {
  kLinear,      // x as given
  kPercentile,  // x is a percentile (0..100), drawn at -log10(1 - x/100): 90, 99, 99.9 equally spaced
};

struct ChartSpec {
  std::string id;       // element id (letters, digits, '-')
  std::string title;
  std::string x_label;  // with unit, e.g. "time (s)"
  std::string y_label;  // e.g. "ops/s"
  XAxis x_axis = XAxis::kLinear;
  std::vector<ChartSeries> series;
  // y on a log10 scale (latencies that span orders of magnitude): decades as
  // ticks; values <= 0 are drawn at the bottom.
  bool y_log = false;
};

// A <figure> holding the chart's SVG (720 x 380 user units) and its legend.
std::string SvgChart(const ChartSpec& chart);

// Ticks for [lo, hi]: about `n` round values (1, 2, 5 x 10^k) covering the range.
std::vector<double> NiceTicks(double lo, double hi, int n);

}  // namespace storebench
