#include "report/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace storebench {
namespace {

constexpr double kLeft = 70, kRight = 32, kTop = 16, kBottom = 48;

// Colour-blind-safe palette: Okabe-Ito without its yellow, and Tol's wine.
const char* const kColors[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#882255"};
constexpr std::size_t kNumColors = sizeof kColors / sizeof kColors[0];
// Line styles (name, stroke-dasharray) and markers: series k has dash k/4 % 3
// and marker k % 4, so the first 12 differ without colour.
const char* const kDashNames[] = {"solid", "dash", "dot"};
const char* const kDashArrays[] = {"", "7 4", "2 3"};
const char* const kMarkers[] = {"circle", "square", "triangle", "diamond"};

struct Style {
  const char* color;
  const char* dash_name;
  const char* dash_array;
  const char* marker;
};

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

std::pair<double, double> ChartYRange(const ChartSpec& c) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      hi = std::max(hi, y);
      if (y > 0) lo = std::min(lo, y);
    }
  }
  return {std::isfinite(lo) ? lo : 0, hi};
}

bool ChartUsesLogY(const ChartSpec& c) {
  if (c.y_log) return true;
  if (!c.y_log_if_wide) return false;
  const auto [lo, hi] = c.y_max > 0 ? std::pair<double, double>{c.y_min, c.y_max} : ChartYRange(c);
  return lo > 0 && hi / lo > 10;
}

namespace {

// One marker of `style` at (x, y), holding the hover text.
std::string Marker(const char* marker, double x, double y, bool hollow, const std::string& title) {
  const std::string fill = hollow ? " fill=\"#fff\"" : "";
  std::string m;
  if (std::string_view(marker) == "circle") {
    m = "<circle cx=\"" + Num(x) + "\" cy=\"" + Num(y) + "\" r=\"3\"" + fill + ">";
  } else if (std::string_view(marker) == "square") {
    m = "<rect x=\"" + Num(x - 2.7) + "\" y=\"" + Num(y - 2.7) + "\" width=\"5.4\" height=\"5.4\"" + fill + ">";
  } else if (std::string_view(marker) == "triangle") {
    m = "<path d=\"M" + Num(x) + " " + Num(y - 3.6) + " L" + Num(x + 3.4) + " " + Num(y + 2.4) + " L" + Num(x - 3.4) +
        " " + Num(y + 2.4) + " Z\"" + fill + ">";
  } else {
    m = "<path d=\"M" + Num(x) + " " + Num(y - 3.8) + " L" + Num(x + 3.8) + " " + Num(y) + " L" + Num(x) + " " +
        Num(y + 3.8) + " L" + Num(x - 3.8) + " " + Num(y) + " Z\"" + fill + ">";
  }
  const std::string tag = std::string_view(marker) == "circle" ? "circle" : std::string_view(marker) == "square" ? "rect" : "path";
  return title.empty() ? m + "</" + tag + ">" : m + "<title>" + title + "</title></" + tag + ">";
}

}  // namespace

std::string SvgChart(const ChartSpec& c) {
  const double width = c.small ? 420 : 720, height = c.small ? 290 : 380;
  const bool y_log = ChartUsesLogY(c);
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin;
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      const double tx = Transform(x, c.x_axis);
      xmin = std::min(xmin, tx);
      xmax = std::max(xmax, tx);
    }
  }
  for (const auto& b : c.bands) xmin = std::min(xmin, b.x0), xmax = std::max(xmax, b.x1);
  for (const auto& [x, label] : c.x_marks) xmin = std::min(xmin, x), xmax = std::max(xmax, x);
  auto [ymin_pos, ymax] = c.y_max > 0 ? std::pair<double, double>{c.y_min, c.y_max} : ChartYRange(c);
  if (!std::isfinite(xmin)) xmin = 0, xmax = 1;
  std::vector<double> xt;
  if (c.x_axis == XAxis::kPercentile) {
    xmin = 0;
    xmax = std::max(1.0, std::ceil(xmax - 1e-9));
    for (int k = 0; k <= static_cast<int>(xmax); ++k) xt.push_back(k);
  } else {
    if (xmin > 0 && xmin <= (xmax - xmin)) xmin = 0;  // time and thread axes start at 0
    xt = NiceTicks(xmin, xmax, c.small ? 4 : 6);
    xmin = xt.front();
    xmax = xt.back();
  }
  std::vector<double> yt;
  double ylo = 0, yhi = 1;  // the y range, in drawn units (log10 of y on a log axis)
  if (y_log) {
    ylo = ymin_pos > 0 ? std::floor(std::log10(ymin_pos)) : 0;
    yhi = std::max(ylo + 1, ymax > 0 ? std::ceil(std::log10(ymax) - 1e-9) : ylo + 1);
    for (double k = ylo; k <= yhi; ++k) yt.push_back(std::pow(10.0, k));
  } else {
    yt = NiceTicks(0, ymax > 0 ? ymax : 1, 5);
    yhi = yt.back();
  }
  const double pw = width - kLeft - kRight, ph = height - kTop - kBottom;
  auto px = [&](double x) { return kLeft + (Transform(x, c.x_axis) - xmin) / (xmax - xmin) * pw; };
  auto pxt = [&](double t) { return kLeft + (t - xmin) / (xmax - xmin) * pw; };
  auto py = [&](double y) {
    const double v = y_log ? (y > 0 ? std::max(ylo, std::log10(y)) : ylo) : y;
    return kTop + ph - (v - ylo) / (yhi - ylo) * ph;
  };
  const std::string w = std::to_string(static_cast<int>(width)), h = std::to_string(static_cast<int>(height));
  const std::string y_label = c.y_label + (y_log ? " (log scale)" : "");

  std::string o;
  o += "<figure class=\"chart\" id=\"" + HtmlEscape(c.id) + "\">\n<figcaption>" + HtmlEscape(c.title) + "</figcaption>\n";
  o += "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + w + " " + h + "\" width=\"" + w +
       "\" height=\"" + h + "\" data-series=\"" + std::to_string(c.series.size()) + "\" data-ylog=\"" + (y_log ? "1" : "0") + "\">\n";
  for (const auto& b : c.bands) {
    o += "<g class=\"band\"><rect x=\"" + Num(px(b.x0)) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(std::max(0.0, px(b.x1) - px(b.x0))) +
         "\" height=\"" + Num(ph) + "\"/><text x=\"" + Num((px(b.x0) + px(b.x1)) / 2) + "\" y=\"" + Num(kTop + 12) + "\">" +
         HtmlEscape(b.label) + "</text></g>";
  }
  o += "<g class=\"grid\">";
  for (double t : yt) {
    o += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py(t)) + "\" x2=\"" + Num(width - kRight) + "\" y2=\"" + Num(py(t)) + "\"/>";
    o += "<text class=\"yt\" x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(py(t) + 4) + "\">" + Short(t) + "</text>";
  }
  for (double t : xt) {
    o += "<line x1=\"" + Num(pxt(t)) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(pxt(t)) + "\" y2=\"" + Num(kTop + ph) + "\"/>";
    o += "<text class=\"xt\" x=\"" + Num(pxt(t)) + "\" y=\"" + Num(kTop + ph + 16) + "\">" +
         (c.x_axis == XAxis::kPercentile ? PercentileLabel(t) : Short(t)) + "</text>";
  }
  o += "</g>\n";
  for (const auto& [x, label] : c.x_marks) {
    o += "<g class=\"mark\"><line x1=\"" + Num(px(x)) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(px(x)) + "\" y2=\"" +
         Num(kTop + ph) + "\"/><text x=\"" + Num(px(x) + 4) + "\" y=\"" + Num(kTop + 24) + "\">" + HtmlEscape(label) + "</text></g>";
  }
  o += "<text class=\"xl\" x=\"" + Num(kLeft + pw / 2) + "\" y=\"" + Num(height - 8) + "\">" + HtmlEscape(c.x_label) + "</text>";
  o += "<text class=\"yl\" transform=\"translate(14 " + Num(kTop + ph / 2) + ") rotate(-90)\">" + HtmlEscape(y_label) + "</text>\n";
  // Styles: the k-th series that is not a companion gets colour k % 8, dash
  // k / 4 % 3 and marker k % 4; a companion its predecessor's colour and marker.
  std::vector<Style> styles;
  for (std::size_t i = 0, k = 0; i < c.series.size(); ++i) {
    if (c.series[i].companion && i > 0) {
      styles.push_back({styles.back().color, "fine", "1 3", styles.back().marker});
    } else {
      styles.push_back({kColors[k % kNumColors], kDashNames[k / 4 % 3], kDashArrays[k / 4 % 3], kMarkers[k % 4]});
      ++k;
    }
  }
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const Style& st = styles[i];
    std::size_t finite = 0;
    for (const auto& [x, y] : s.points) finite += std::isfinite(x) && std::isfinite(y);
    const std::size_t every = std::max<std::size_t>(1, (finite + 39) / 40);  // about 40 markers at most
    std::string d, marks;
    std::size_t n = 0;
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      d += (d.empty() ? "M" : " L") + Num(px(x)) + " " + Num(py(y));
      if (n++ % every == 0 || n == finite) {
        marks += Marker(st.marker, px(x), py(y), s.marked,
                        HtmlEscape(s.name) + ": " + HtmlEscape(c.x_label) + " " + Short(x) + ", " + HtmlEscape(c.y_label) + " " + Short(y));
      }
    }
    o += "<g class=\"s\" data-i=\"" + std::to_string(i) + "\" data-style=\"" + st.color + " " + st.dash_name + " " + st.marker +
         "\" fill=\"" + st.color + "\" stroke=\"" + st.color + "\">";
    o += "<path class=\"series" + std::string(s.companion ? " fine" : "") + "\" d=\"" + d + "\"" +
         (*st.dash_array ? " stroke-dasharray=\"" + std::string(st.dash_array) + "\"" : "") + "/>";
    o += marks + "</g>\n";
  }
  o += "</svg>\n<ul class=\"legend\">";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const ChartSeries& s = c.series[i];
    const Style& st = styles[i];
    o += "<li data-i=\"" + std::to_string(i) + "\"><svg class=\"key\" width=\"30\" height=\"12\" viewBox=\"0 0 30 12\" stroke=\"" +
         st.color + "\" fill=\"" + st.color + "\"><line x1=\"1\" y1=\"6\" x2=\"29\" y2=\"6\"" +
         (*st.dash_array ? " stroke-dasharray=\"" + std::string(st.dash_array) + "\"" : "") + "/>" +
         Marker(st.marker, 15, 6, s.marked, "") + "</svg>" + HtmlEscape(s.name) +
         (s.note.empty() ? "" : " <em>(" + HtmlEscape(s.note) + ")</em>") + "</li>";
  }
  o += "</ul>\n</figure>\n";
  return o;
}

}  // namespace storebench
