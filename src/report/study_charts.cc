#include "report/study_charts.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "report/compare.h"
#include "report/text_report.h"

namespace storebench {
namespace {

// A figure as people read it: 2.91M, 60.2k, 850, 12.5.
std::string Readable(double v) {
  char buf[64];
  if (v >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  } else if (v >= 1e4) {
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  } else if (v >= 100) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g", v);
  }
  return buf;
}

std::string IdPart(const std::string& s) {
  std::string id;
  for (char c : s) id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  return id;
}

std::string WorkloadOf(const LoadedRun& r) { return r.AxisValue("workload").value_or("core"); }

double Seconds(const PhaseResult& p) { return static_cast<double>(p.runtime_ms) / 1e3; }

// One panel's figure of a run: throughput, p99 or p99.9 (us), of the whole
// phase (op "") or of one operation type.
std::optional<double> Figure(const PhaseResult& ph, const std::string& op, int metric) {
  if (op.empty()) {
    if (metric == 0) return ph.throughput_ops_per_s;
    const Histogram h = CombinedLatency(ph);
    if (h.count() == 0) return std::nullopt;
    return static_cast<double>(h.ValueAtPercentile(metric == 1 ? 99 : 99.9)) / 1e3;
  }
  for (const OpResult& o : ph.ops) {
    if (o.name != op) continue;
    const Histogram& h = ReportedLatency(ph, o);
    if (h.count() == 0) return std::nullopt;
    if (metric == 0) return Seconds(ph) > 0 ? static_cast<double>(h.count()) / Seconds(ph) : 0;
    return static_cast<double>(h.ValueAtPercentile(metric == 1 ? 99 : 99.9)) / 1e3;
  }
  return std::nullopt;
}

struct Panel {
  std::string name;      // workload file name, or operation type
  bool per_op = false;   // the panel is an operation type of the one workload
  std::vector<const LoadedRun*> runs;
};

struct Line {
  std::string name;
  bool marked = false;
  std::map<double, std::pair<double, int>> points;  // x -> (sum, n): repetitions averaged
};

std::vector<Line> Lines(const Panel& panel, const std::string& axis, int metric) {
  std::vector<Line> lines;
  for (const LoadedRun* r : panel.runs) {
    const std::optional<std::string> v = r->AxisValue(axis);
    if (!v) continue;
    const double x = std::strtod(v->c_str(), nullptr);
    if (axis == "target" && x <= 0) continue;
    std::string key = CompareRowKey(r->label, axis, *v);
    if (!panel.per_op) key = CompareRowKey(key, "workload", panel.name);
    auto it = std::find_if(lines.begin(), lines.end(), [&](const Line& l) { return l.name == key; });
    if (it == lines.end()) {
      lines.push_back({key, false, {}});
      it = lines.end() - 1;
    }
    it->marked = it->marked || r->status != "ok";
    const std::optional<double> y = Figure(*r->MainPhase(), panel.per_op ? panel.name : "", metric);
    if (!y) continue;
    auto& cell = it->points[x];
    cell.first += *y;
    cell.second += 1;
  }
  return lines;
}

ChartSeries SeriesOfLine(const Line& l) {
  ChartSeries s;
  s.name = l.name;
  s.marked = l.marked;
  s.note = l.marked ? "has failed or interrupted runs" : "";
  for (const auto& [x, acc] : l.points) s.points.emplace_back(x, acc.first / acc.second);
  return s;
}

// "workloada at 8 threads: highest throughput memory (2.91M ops/s), lowest sqlite (60.2k ops/s); ..."
std::string PanelSummary(const Panel& panel, const std::string& axis, const std::string& axis_name) {
  double x_top = -1;
  const std::vector<Line> thr = Lines(panel, axis, 0), p99 = Lines(panel, axis, 1);
  for (const Line& l : thr) {
    if (!l.points.empty()) x_top = std::max(x_top, l.points.rbegin()->first);
  }
  if (x_top < 0) return "";
  auto at_top = [&](const std::vector<Line>& lines) {
    std::vector<std::pair<double, std::string>> v;
    for (const Line& l : lines) {
      auto it = l.points.find(x_top);
      if (it != l.points.end()) v.emplace_back(it->second.first / it->second.second, l.name);
    }
    std::sort(v.begin(), v.end());
    return v;
  };
  const auto t = at_top(thr), p = at_top(p99);
  const std::string where = axis == "threads" ? FormatDouble(x_top) + " threads"
                            : axis == "target" ? "a target of " + FormatDouble(x_top) + " ops/s"
                                               : axis_name + " = " + FormatDouble(x_top);
  std::string s = "<strong>" + HtmlEscape(panel.name) + "</strong> at " + HtmlEscape(where) + ": ";
  if (t.size() == 1) {
    s += HtmlEscape(t[0].second) + " alone, " + Readable(t[0].first) + " ops/s";
  } else if (!t.empty()) {
    s += "highest throughput <strong>" + HtmlEscape(t.back().second) + "</strong> (" + Readable(t.back().first) + " ops/s), lowest <strong>" +
         HtmlEscape(t.front().second) + "</strong> (" + Readable(t.front().first) + " ops/s)";
  }
  if (p.size() == 1) {
    s += ", p99 " + FormatLatency(1e3 * p[0].first);
  } else if (p.size() > 1 && FormatLatency(1e3 * p.front().first) == FormatLatency(1e3 * p.back().first)) {
    s += "; p99 " + FormatLatency(1e3 * p.front().first) + " for all";
  } else if (p.size() > 1) {
    s += "; lowest p99 <strong>" + HtmlEscape(p.front().second) + "</strong> (" + FormatLatency(1e3 * p.front().first) + "), highest <strong>" +
         HtmlEscape(p.back().second) + "</strong> (" + FormatLatency(1e3 * p.back().first) + ")";
  }
  return s + ".";
}

}  // namespace

std::optional<std::string> StudyAxis(const std::vector<const LoadedRun*>& runs) {
  std::vector<std::string> candidates = {"threads", "target"};
  for (const LoadedRun* r : runs) {
    for (const auto& [k, v] : r->axes) {
      if (k == "binding" || k == "workload" || k == "label" || k == "threadcount" || k == "target") continue;
      if (std::find(candidates.begin(), candidates.end(), k) == candidates.end()) candidates.push_back(k);
    }
  }
  for (const std::string& by : candidates) {
    std::set<double> values;
    for (const LoadedRun* r : runs) {
      const auto v = r->AxisValue(by);
      if (!v) continue;
      char* end = nullptr;
      const double x = std::strtod(v->c_str(), &end);
      if (end == v->c_str() || (by == "target" && x <= 0)) continue;  // numbers only: the x axis
      values.insert(x);
    }
    if (values.size() > 1) return by;
  }
  return std::nullopt;
}

std::vector<ChartSpec> SplitChart(ChartSpec chart) {
  std::size_t regular = 0;
  for (const ChartSeries& s : chart.series) regular += !s.companion;
  // With companions (p99.9 beside p99) a series takes two places.
  const std::size_t limit = chart.series.size() > regular ? kMaxSeriesPerChart / 2 : kMaxSeriesPerChart;
  if (regular <= limit) return {std::move(chart)};
  std::vector<std::vector<ChartSeries>> groups(1);
  std::size_t in_group = 0;
  for (ChartSeries& s : chart.series) {
    if (!s.companion && in_group == limit) {
      groups.emplace_back();
      in_group = 0;
    }
    in_group += !s.companion;
    groups.back().push_back(std::move(s));
  }
  std::vector<ChartSpec> out;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    ChartSpec c = chart;
    c.series = std::move(groups[i]);
    c.id = chart.id + "-" + std::to_string(i + 1);
    c.title = chart.title + " (" + std::to_string(i + 1) + "/" + std::to_string(groups.size()) + ")";
    out.push_back(std::move(c));
  }
  return out;
}

ChartSpec PercentileChart(const std::string& id, const std::string& title, const std::vector<const LoadedRun*>& runs,
                          const std::string& op) {
  ChartSpec c;
  c.id = id;
  c.title = title;
  c.x_label = "percentile";
  c.y_label = "latency (us)";
  c.x_axis = XAxis::kPercentile;
  c.y_log = true;
  for (const LoadedRun* r : runs) {
    const PhaseResult& ph = *r->MainPhase();
    for (const OpResult& o : ph.ops) {
      if (o.name != op) continue;
      const Histogram& h = ReportedLatency(ph, o);
      if (h.count() == 0) continue;
      ChartSeries s;
      s.name = r->label;
      s.marked = r->status != "ok";
      s.note = s.marked ? r->status : "";
      // 0, 90, 99, ... up to the resolution of the sample count, then the maximum.
      const double top = std::max(1.0, std::ceil(std::log10(static_cast<double>(h.count()))));
      for (int i = 0; i <= static_cast<int>(top * 10); ++i) {
        const double p = 100.0 * (1.0 - std::pow(10.0, -i / 10.0));
        s.points.emplace_back(p, static_cast<double>(h.ValueAtPercentile(p)) / 1000.0);
      }
      c.series.push_back(std::move(s));
    }
  }
  return c;
}

std::string AnswerSection(const std::vector<const LoadedRun*>& runs, const std::string& axis) {
  const std::string axis_name = axis == "target" ? "target rate" : axis;
  const std::string x_label = axis == "target" ? "target (ops/s)" : axis;
  // Panels: one per workload, or per operation type of the one workload.
  std::vector<Panel> panels;
  const std::vector<RunGroup> groups = GroupByWorkload(runs);
  if (groups.size() > 1) {
    for (const RunGroup& g : groups) panels.push_back({g.workload, false, g.runs});
  } else {
    for (const LoadedRun* r : runs) {
      for (const OpResult& o : r->MainPhase()->ops) {
        if (o.name.ends_with("-FAILED") || o.name == "CLEANUP") continue;
        if (std::none_of(panels.begin(), panels.end(), [&](const Panel& p) { return p.name == o.name; })) {
          panels.push_back({o.name, true, runs});
        }
      }
    }
  }
  std::string o = "<section id=\"answer\">\n<h2>Throughput and latency vs " + HtmlEscape(axis_name) + "</h2>\n<p class=\"summary\">";
  for (const Panel& p : panels) {
    const std::string s = PanelSummary(p, axis, axis_name);
    if (!s.empty()) o += s + " ";
  }
  o += "</p>\n";
  const char* const kMetrics[] = {"Throughput", "p99 latency", "p99.9 latency"};
  const char* const kIds[] = {"throughput", "p99", "p999"};
  const char* const kUnits[] = {"ops/s", "p99 (us)", "p99.9 (us)"};
  for (int m = 0; m < 3; ++m) {
    std::vector<ChartSpec> charts;
    double lo = 0, hi = 0;
    for (const Panel& p : panels) {
      ChartSpec c;
      c.id = std::string(kIds[m]) + "-vs-" + IdPart(axis) + "-" + IdPart(p.name);
      c.title = p.name;
      c.x_label = x_label;
      c.y_label = kUnits[m];
      c.y_log = m > 0;
      c.y_log_if_wide = m == 0;
      c.small = true;
      for (const Line& l : Lines(p, axis, m)) c.series.push_back(SeriesOfLine(l));
      const auto [clo, chi] = ChartYRange(c);
      if (clo > 0) lo = lo > 0 ? std::min(lo, clo) : clo;
      hi = std::max(hi, chi);
      for (ChartSpec& part : SplitChart(std::move(c))) charts.push_back(std::move(part));
    }
    // One y axis for the panels of a metric, so that they compare at a glance.
    for (ChartSpec& c : charts) {
      c.y_min = lo;
      c.y_max = hi;
    }
    const bool log = !charts.empty() && ChartUsesLogY(charts.front());
    o += "<h3>" + std::string(kMetrics[m]) + " vs " + HtmlEscape(axis_name) + "</h3>\n<p class=\"note\">" +
         (panels.front().per_op ? "One panel per operation type" : "One panel per workload") +
         ", one line per store or label; the panels share their y axis" +
         (m == 0 && log ? " (a log scale: the lines span more than 10x)" : "") +
         ". Click a legend entry to hide or show its line.</p>\n<div class=\"panels\">\n";
    for (const ChartSpec& c : charts) o += SvgChart(c);
    o += "</div>\n";
  }
  return o + "</section>\n";
}

std::vector<RunGroup> GroupByWorkload(const std::vector<const LoadedRun*>& runs) {
  std::vector<RunGroup> groups;
  for (const LoadedRun* r : runs) {
    const std::string w = WorkloadOf(*r);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const RunGroup& g) { return g.workload == w; });
    if (it == groups.end()) {
      groups.push_back({w, {}});
      it = groups.end() - 1;
    }
    it->runs.push_back(r);
  }
  if (groups.size() == 1) groups.front().workload.clear();
  return groups;
}

std::string RunDashboard(const LoadedRun& run) {
  const RunReport& report = *run.report;
  std::string o = "<section id=\"dashboard\">\n<h2>" + HtmlEscape(run.label) + "</h2>\n";
  // One timeline: seconds since the first phase started.
  const double t0 = report.phases.empty() ? 0 : static_cast<double>(report.phases.front().start_unix_ms) / 1e3;
  double warmup_s = 0;
  for (const auto& [k, v] : report.properties) {
    if (k == "warmup.seconds") warmup_s = std::strtod(v.c_str(), nullptr);
  }
  ChartSpec thr;
  thr.id = "dashboard-throughput";
  thr.title = "Throughput over time";
  thr.x_label = "time (s)";
  thr.y_label = "ops/s";
  std::vector<ChartSpec> lat;
  for (const PhaseResult& ph : report.phases) {
    const double start = static_cast<double>(ph.start_unix_ms) / 1e3 - t0;
    if (report.phases.size() > 1) thr.x_marks.emplace_back(start, ph.phase);
    if (ph.phase == "run" && warmup_s > 0) thr.bands.push_back({std::max(0.0, start - warmup_s), start, "warm-up"});
    ChartSeries s;
    s.name = ph.phase;
    for (const IntervalPoint& pt : ph.series) s.points.emplace_back(start + pt.t_s, pt.ops_per_s);
    thr.series.push_back(std::move(s));
  }
  ChartSpec p99;
  p99.id = "dashboard-p99";
  p99.title = "p99 latency over time, per operation";
  p99.x_label = "time (s)";
  p99.y_label = "p99 (us)";
  p99.y_log = true;
  p99.x_marks = thr.x_marks;
  p99.bands = thr.bands;
  for (const PhaseResult& ph : report.phases) {
    const double start = static_cast<double>(ph.start_unix_ms) / 1e3 - t0;
    std::map<std::string, ChartSeries> by_op;
    std::vector<std::string> order;
    for (const IntervalPoint& pt : ph.series) {
      for (const IntervalPoint::Op& op : pt.ops) {
        if (op.count == 0) continue;
        if (!by_op.count(op.name)) order.push_back(op.name);
        ChartSeries& s = by_op[op.name];
        s.name = (report.phases.size() > 1 ? ph.phase + " " : "") + op.name;
        s.points.emplace_back(start + pt.t_s, op.p99_us);
      }
    }
    for (const std::string& n : order) p99.series.push_back(std::move(by_op[n]));
  }
  o += "<div class=\"panels\">\n";
  for (ChartSpec& c : SplitChart(std::move(thr))) o += SvgChart(c);
  for (ChartSpec& c : SplitChart(std::move(p99))) o += SvgChart(c);
  const std::vector<const LoadedRun*> one = {&run};
  if (const PhaseResult* main = run.MainPhase()) {
    for (const OpResult& op : main->ops) {
      if (op.name.ends_with("-FAILED")) continue;
      o += SvgChart(PercentileChart("dashboard-percentiles-" + IdPart(op.name), "Latency by percentile: " + op.name, one, op.name));
    }
  }
  o += "</div>\n";
  // The store's own figures, per phase.
  bool any = false;
  for (const PhaseResult& ph : report.phases) any = any || !ph.store_stats.empty();
  if (any) {
    o += "<h3>The store's own figures</h3>\n<table id=\"store-stats\"><tr><th class=\"l\">phase</th><th class=\"l\">figure</th><th>value</th></tr>\n";
    for (const PhaseResult& ph : report.phases) {
      for (const auto& [k, v] : ph.store_stats) {
        o += "<tr><td class=\"l\">" + HtmlEscape(ph.phase) + "</td><td class=\"l\">" + HtmlEscape(k) + "</td><td>" + HtmlEscape(v) + "</td></tr>\n";
      }
    }
    o += "</table>\n";
  }
  return o + "</section>\n";
}

}  // namespace storebench
