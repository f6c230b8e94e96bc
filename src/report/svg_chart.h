// Line charts as inline SVG, for the HTML report: no JavaScript library, no
// network, the same picture everywhere, and output that tests can check
// exactly. Each series is a <g class="s" data-i="K" data-style="COLOR DASH
// MARKER"> holding one <path class="series"> and a marker per point (thinned
// to about 40 on long series) whose <title> is the hover text ("label: x 4,
// y 1234.5"); the legend has one <li data-i="K"> per series (the page's script
// toggles a series when its entry is clicked).
//
// Every series of a chart has its own colour (a colour-blind-safe palette of
// 8) and its own pair of line style and marker (3 x 4: the first 12 series
// are told apart without colour), so a chart should hold at most 12 series
// (callers split more into small multiples). A companion series (p99.9 beside
// its p99) takes its predecessor's colour and marker with a fine dotted line.
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
  bool marked = false;                            // a failed or interrupted run: hollow markers, note in the legend
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
  // ticks; values <= 0 are drawn at the bottom. Said on the axis.
  bool y_log = false;
  // y on a log scale when the positive values span more than 10x (stores
  // whose throughputs differ by orders of magnitude).
  bool y_log_if_wide = false;
  // A fixed y range (panels that share their y axis); y_max 0 = from the data.
  double y_min = 0, y_max = 0;
  // A panel of small multiples: 420 x 290 instead of 720 x 380, three to a row.
  bool small = false;
  // Shaded x ranges (a warm-up) and marked x positions (where a phase starts).
  struct Band {
    double x0 = 0, x1 = 0;
    std::string label;
  };
  std::vector<Band> bands = {};
  std::vector<std::pair<double, std::string>> x_marks = {};
};

// Whether SvgChart draws `chart`'s y axis on a log scale (y_log, or
// y_log_if_wide and a wide range).
bool ChartUsesLogY(const ChartSpec& chart);
// The smallest positive and the largest y of the chart's finite points (0, 0 if none).
std::pair<double, double> ChartYRange(const ChartSpec& chart);

// A <figure> holding the chart's SVG (720 x 380 user units, or 420 x 290
// small) and its legend.
std::string SvgChart(const ChartSpec& chart);

// Ticks for [lo, hi]: about `n` round values (1, 2, 5 x 10^k) covering the range.
std::vector<double> NiceTicks(double lo, double hi, int n);

}  // namespace storebench
