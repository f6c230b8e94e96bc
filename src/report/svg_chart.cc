#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace storebench {
namespace {

constexpr double kWidth = 720, kHeight = 380;
constexpr double kLeft = 70, kRight = 32, kTop = 16, kBottom = 48;

// Colour-blind-safe palette (Okabe-Ito, then darker variants).
const char* const kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9",
                               "#000000", "#8C564B", "#7F7F7F", "#BCBD22", "#17BECF", "#9467BD"};
constexpr std::size_t kNumColors = sizeof kColors / sizeof kColors[0];

std::string Num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Tick and hover values, short: 1234, 12.3, 0.123, 45.6k, 1.23M.
std::string Short(double v) {
  char buf[64];
  const double a = std::fabs(v);
  if (a >= 1e6) {
    std::snprintf(buf, sizeof buf, "%gM", std::round(v / 1e4) / 100);
  } else if (a >= 1e4) {
    std::snprintf(buf, sizeof buf, "%gk", std::round(v / 10) / 100);
  } else if (a >= 1000 || a == std::floor(a)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else if (a >= 10) {
    std::snprintf(buf, sizeof buf, "%.1f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

double Transform(double x, XAxis axis) {
  if (axis == XAxis::kPercentile) return -std::log10(std::max(1e-9, 1.0 - x / 100.0));
  return x;
}

std::string PercentileLabel(double t) {
  // t = -log10(1 - p/100): 0 -> 0%, 1 -> 90%, 2 -> 99%, 3 -> 99.9% ...
  if (t == 0) return "0%";
  const int k = static_cast<int>(std::lround(t));
  if (k == 1) return "90%";
  std::string out = "99";
  if (k > 2) out += "." + std::string(static_cast<std::size_t>(k - 2), '9');
  return out + "%";
}

}  // namespace

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int n) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / std::max(1, n);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::floor(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push_back(std::fabs(t) < step * 1e-9 ? 0 : t);
  if (ticks.back() < hi) ticks.push_back(ticks.back() + step);
  return ticks;
}

std::string SvgChart(const ChartSpec& c) {
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymax = 0;
  double ymin_pos = std::numeric_limits<double>::infinity();
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      const double tx = Transform(x, c.x_axis);
      xmin = std::min(xmin, tx);
      xmax = std::max(xmax, tx);
      ymax = std::max(ymax, y);
      if (y > 0) ymin_pos = std::min(ymin_pos, y);
    }
  }
  if (!std::isfinite(xmin)) xmin = 0, xmax = 1;
  std::vector<double> xt;
  if (c.x_axis == XAxis::kPercentile) {
    xmin = 0;
    xmax = std::max(1.0, std::ceil(xmax - 1e-9));
    for (int k = 0; k <= static_cast<int>(xmax); ++k) xt.push_back(k);
  } else {
    if (xmin > 0 && xmin <= (xmax - xmin)) xmin = 0;  // time and thread axes start at 0
    xt = NiceTicks(xmin, xmax, 6);
    xmin = xt.front();
    xmax = xt.back();
  }
  std::vector<double> yt;
  double ylo = 0, yhi = 1;  // the y range, in drawn units (log10 of y on a log axis)
  if (c.y_log) {
    ylo = std::isfinite(ymin_pos) ? std::floor(std::log10(ymin_pos)) : 0;
    yhi = std::max(ylo + 1, ymax > 0 ? std::ceil(std::log10(ymax) - 1e-9) : ylo + 1);
    for (double k = ylo; k <= yhi; ++k) yt.push_back(std::pow(10.0, k));
  } else {
    yt = NiceTicks(0, ymax > 0 ? ymax : 1, 5);
    yhi = yt.back();
  }
  const double pw = kWidth - kLeft - kRight, ph = kHeight - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (Transform(x, c.x_axis) - xmin) / (xmax - xmin) * pw; };
  auto pxt = [&](double t) { return kLeft + (t - xmin) / (xmax - xmin) * pw; };
  auto py = [&](double y) {
    const double v = c.y_log ? (y > 0 ? std::max(ylo, std::log10(y)) : ylo) : y;
    return kTop + ph - (v - ylo) / (yhi - ylo) * ph;
  };

  std::string o;
  o += "<figure class=\"chart\" id=\"" + HtmlEscape(c.id) + "\">\n<figcaption>" + HtmlEscape(c.title) + "</figcaption>\n";
  o += "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 720 380\" width=\"720\" height=\"380\" data-series=\"" +
       std::to_string(c.series.size()) + "\">\n";
  o += "<g class=\"grid\">";
  for (double t : yt) {
    o += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py(t)) + "\" x2=\"" + Num(kWidth - kRight) + "\" y2=\"" + Num(py(t)) + "\"/>";
    o += "<text class=\"yt\" x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(py(t) + 4) + "\">" + Short(t) + "</text>";
  }
  for (double t : xt) {
    o += "<line x1=\"" + Num(pxt(t)) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(pxt(t)) + "\" y2=\"" + Num(kTop + ph) + "\"/>";
    o += "<text class=\"xt\" x=\"" + Num(pxt(t)) + "\" y=\"" + Num(kTop + ph + 16) + "\">" +
         (c.x_axis == XAxis::kPercentile ? PercentileLabel(t) : Short(t)) + "</text>";
  }
  o += "</g>\n";
  o += "<text class=\"xl\" x=\"" + Num(kLeft + pw / 2) + "\" y=\"" + Num(kHeight - 8) + "\">" + HtmlEscape(c.x_label) + "</text>";
  o += "<text class=\"yl\" transform=\"translate(14 " + Num(kTop + ph / 2) + ") rotate(-90)\">" + HtmlEscape(c.y_label) + "</text>\n";
  // A series' colour: the next of the palette, or its predecessor's for a companion.
  std::vector<const char*> colors;
  for (std::size_t i = 0, next = 0; i < c.series.size(); ++i) {
    colors.push_back(c.series[i].companion && i > 0 ? colors.back() : kColors[next++ % kNumColors]);
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const char* color = colors[i];
    std::string d;
    std::string dots;
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      d += (d.empty() ? "M" : " L") + Num(px(x)) + " " + Num(py(y));
      dots += "<circle cx=\"" + Num(px(x)) + "\" cy=\"" + Num(py(y)) + "\" r=\"2.5\"><title>" + HtmlEscape(s.name) + ": " +
              HtmlEscape(c.x_label) + " " + Short(x) + ", " + HtmlEscape(c.y_label) + " " + Short(y) + "</title></circle>";
    }
    o += "<g class=\"s\" fill=\"" + std::string(color) + "\">";
    o += "<path class=\"series\" d=\"" + d + "\" stroke=\"" + color + "\"" + (s.marked ? " stroke-dasharray=\"6 4\"" : s.companion ? " stroke-dasharray=\"2 3\"" : "") + "/>";
    o += dots + "</g>\n";
  }
  o += "</svg>\n<ul class=\"legend\">";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    o += "<li><span class=\"key\" style=\"background:" + std::string(colors[i]) + (s.companion ? ";opacity:.5" : "") + "\"></span>" +
         HtmlEscape(s.name) +
         (s.note.empty() ? "" : " <em>(" + HtmlEscape(s.note) + ")</em>") + "</li>";
  }
  o += "</ul>\n</figure>\n";
  return o;
}

}  // namespace storebench
