#include "report/html_report.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "core/output_file.h"
#include "report/compare.h"
#include "report/report_script.h"
#include "report/study_charts.h"
#include "report/svg_chart.h"
#include "report/text_report.h"
#include "report/timeseries_csv.h"

namespace storebench {
namespace {

std::string Fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string Us(std::uint64_t ns) { return Fixed(static_cast<double>(ns) / 1000.0, 1); }

bool Marked(const LoadedRun& r) { return r.status != "ok"; }

std::string Note(const LoadedRun& r) { return r.status == "ok" ? "" : r.status; }

const char* const kStyle = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1500px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 8px;border:1px solid #ddd;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}tr.failed td{background:#fde8e8}tr.interrupted td{background:#fff4e0}
tr.pending td{background:#eee}
.status{font-weight:bold}figure.chart{display:inline-block;margin:8px 16px 16px 0;vertical-align:top}
figcaption{font-weight:bold;margin-bottom:4px}svg.chart{background:#fff;border:1px solid #ddd}
svg .grid line{stroke:#e4e4e4}svg text{font-size:11px;fill:#444}svg .yt{text-anchor:end}svg .xt,svg .xl{text-anchor:middle}
svg .yl{text-anchor:middle}svg path.series{fill:none;stroke-width:1.8}svg path.series.fine{stroke-width:1.2}
svg g.s{stroke-width:1}svg g.s>:not(.series){opacity:.9}svg .band rect{fill:#efefef}svg .band text{text-anchor:middle;fill:#777}
svg .mark line{stroke:#777;stroke-dasharray:4 3}svg .mark text{fill:#555}
ul.legend{list-style:none;padding:0;margin:4px 0;max-width:720px;columns:2}
ul.legend li{font-size:12px;cursor:pointer;user-select:none}ul.legend li.off{opacity:.4;text-decoration:line-through}
svg.key{vertical-align:middle;margin-right:6px;overflow:visible}svg.key path.series{stroke-width:1.8}
div.panels{display:flex;flex-wrap:wrap;gap:0 8px}div.panels figure.chart{margin-right:0}div.panels figure.chart ul.legend{max-width:420px}
section#answer p.summary{background:#f6f8fb;border-left:4px solid #0072B2;padding:8px 12px;max-width:1460px}
p.note{color:#555;font-size:13px;margin:2px 0 6px}h3{font-size:15px;margin:18px 0 4px}
details{margin:4px 0}details pre{background:#f7f7f7;padding:6px;white-space:pre-wrap}
)css";

struct Context {
  std::vector<const LoadedRun*> with_result;  // runs with a main phase
  std::vector<std::string> op_names;          // successful op types, first appearance
};

ChartSeries SeriesOf(const LoadedRun& r) {
  ChartSeries s;
  s.name = r.label;
  s.marked = Marked(r);
  s.note = Note(r);
  return s;
}

std::string SummaryTable(const std::vector<LoadedRun>& runs, const std::string& id) {
  std::string o = "<table id=\"" + id + "\"><tr><th class=\"l\">label</th><th class=\"l\">status</th><th class=\"l\">binding</th>"
                  "<th>threads</th><th>target (ops/s)</th><th>runtime (s)</th><th>operations</th><th>throughput (ops/s)</th>"
                  "<th>errors</th><th>on disk (MiB)</th><th class=\"l\">detail</th></tr>\n";
  for (const LoadedRun& r : runs) {
    const PhaseResult* ph = r.MainPhase();
    o += "<tr class=\"" + HtmlEscape(r.status) + "\"><td class=\"l\">" + HtmlEscape(r.label) + "</td><td class=\"l status\">" +
         HtmlEscape(r.status) + "</td>";
    if (ph == nullptr) {
      o += "<td class=\"l\">" + HtmlEscape(r.axes.empty() ? std::string("-") : r.axes.front().second) +
           "</td><td colspan=\"7\">no result</td>";
    } else {
      std::uint64_t errors = 0;
      for (const auto& op : ph->ops) {
        for (int c = 0; c < Status::kNumCodes; ++c) {
          if (c != Status::kOk) errors += op.return_codes[c];
        }
      }
      o += "<td class=\"l\">" + HtmlEscape(ph->binding) + "</td><td>" + std::to_string(ph->threads) + "</td><td>" +
           (ph->target_ops_per_s > 0 ? FormatDouble(ph->target_ops_per_s) : std::string("-")) + "</td><td>" +
           Fixed(static_cast<double>(ph->runtime_ms) / 1000.0, 1) + "</td><td>" + std::to_string(ph->operations) + "</td><td>" +
           Fixed(ph->throughput_ops_per_s, 1) + "</td><td>" + std::to_string(errors) + "</td><td>" +
           (ph->disk_bytes ? Fixed(static_cast<double>(*ph->disk_bytes) / 1048576.0, 1) : std::string("-")) + "</td>";
    }
    o += "<td class=\"l\">" + HtmlEscape(r.detail) + "</td></tr>\n";
  }
  return o + "</table>\n";
}

std::string OpsTable(const std::vector<LoadedRun>& runs) {
  std::string o = "<table id=\"ops\"><tr><th class=\"l\">label</th><th class=\"l\">operation</th><th>count</th><th>avg (us)</th>"
                  "<th>p50</th><th>p95</th><th>p99</th><th>p99.9</th><th>max (us)</th></tr>\n";
  for (const LoadedRun& r : runs) {
    const PhaseResult* ph = r.MainPhase();
    if (ph == nullptr) continue;
    for (const OpResult& op : ph->ops) {
      const Histogram& h = ReportedLatency(*ph, op);
      o += "<tr class=\"" + HtmlEscape(r.status) + "\"><td class=\"l\">" + HtmlEscape(r.label) + "</td><td class=\"l\">" +
           HtmlEscape(op.name) + "</td><td>" + std::to_string(h.count()) + "</td><td>" + Fixed(h.mean() / 1000.0, 1) +
           "</td><td>" + Us(h.ValueAtPercentile(50)) + "</td><td>" + Us(h.ValueAtPercentile(95)) + "</td><td>" +
           Us(h.ValueAtPercentile(99)) + "</td><td>" + Us(h.ValueAtPercentile(99.9)) + "</td><td>" + Us(h.max()) + "</td></tr>\n";
    }
  }
  return o + "</table>\n";
}

std::string ChartId(const std::string& prefix, const std::string& op) {
  std::string id = prefix;
  for (char c : op) id += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  return id;
}

// The sections of the runs after the answer: summary tables, latency
// table, the per-run detail charts (`detail`: html), properties.
std::string RunSections(const std::vector<LoadedRun>& runs, const std::vector<LoadedRun>& loads, const std::string& detail) {
  std::string o;
  o += "<h2>Runs</h2>\n" + SummaryTable(runs, "summary");
  if (!loads.empty()) {
    o += "<h2>Load steps</h2>\n<p>Each loads the store that the runs after it share (storebench plan).</p>\n" +
         SummaryTable(loads, "loads");
  }
  o += "<h2>Latency by operation</h2>\n" + OpsTable(runs);
  if (!detail.empty()) {
    o += "<h2>Each run over time</h2>\n<p>Hover a point for its values; click a legend entry to hide or show its line. "
         "Hollow markers: a failed or interrupted run.</p>\n" + detail;
  }
  o += "<h2>Properties</h2>\n";
  for (const LoadedRun& r : runs) {
    o += "<details><summary>" + HtmlEscape(r.label) + "</summary><pre>";
    if (r.report) {
      for (const auto& [k, v] : r.report->properties) o += HtmlEscape(k) + "=" + HtmlEscape(v) + "\n";
    }
    o += "</pre></details>\n";
  }
  return o;
}

// The per-run charts (throughput and each operation's p99 over time, latency
// by percentile), per group of runs (a workload of several), each chart of
// at most 12 series.
std::string DetailCharts(const Context& ctx) {
  std::string o;
  for (const RunGroup& group : GroupByWorkload(ctx.with_result)) {
    const std::string& g = group.workload;
    const std::vector<const LoadedRun*>& runs = group.runs;
    const std::string suffix = g.empty() ? "" : ": " + g;
    const std::string id_suffix = g.empty() ? "" : ChartId("-", g);
    std::vector<ChartSpec> charts;
    ChartSpec thr;
    thr.id = "throughput-over-time" + id_suffix;
    thr.title = "Throughput over time" + suffix;
    thr.x_label = "time (s)";
    thr.y_label = "ops/s";
    thr.y_log_if_wide = true;
    for (const LoadedRun* r : runs) {
      ChartSeries s = SeriesOf(*r);
      for (const auto& pt : r->MainPhase()->series) s.points.emplace_back(pt.t_s, pt.ops_per_s);
      thr.series.push_back(std::move(s));
    }
    charts.push_back(std::move(thr));
    for (const std::string& op : ctx.op_names) {
      ChartSpec c;
      c.id = ChartId("p99-over-time-", op) + id_suffix;
      c.title = "p99 latency over time: " + op + suffix;
      c.x_label = "time (s)";
      c.y_label = "p99 (us)";
      c.y_log = true;
      for (const LoadedRun* r : runs) {
        ChartSeries s = SeriesOf(*r);
        for (const auto& pt : r->MainPhase()->series) {
          for (const auto& o2 : pt.ops) {
            if (o2.name == op && o2.count > 0) s.points.emplace_back(pt.t_s, o2.p99_us);
          }
        }
        if (!s.points.empty()) c.series.push_back(std::move(s));
      }
      if (!c.series.empty()) charts.push_back(std::move(c));
    }
    for (const std::string& op : ctx.op_names) {
      ChartSpec c = PercentileChart(ChartId("percentiles-", op) + id_suffix, "Latency by percentile: " + op + suffix, runs, op);
      if (!c.series.empty()) charts.push_back(std::move(c));
    }
    if (!g.empty()) o += "<h3>" + HtmlEscape(g) + "</h3>\n";
    o += "<div class=\"panels\">\n";
    for (ChartSpec& c : charts) {
      for (const ChartSpec& part : SplitChart(std::move(c))) o += SvgChart(part);
    }
    o += "</div>\n";
  }
  return o;
}

// A time series file's section: a table per phase and operation, throughput
// and p99 (p99.9 dashed) over elapsed time, one series per phase x operation.
std::string TimeseriesSection(const TimeseriesFile& ts, std::size_t index) {
  const std::string id = "ts" + std::to_string(index + 1);
  std::string o = "<h2 id=\"" + id + "\">Time series: " + HtmlEscape(ts.name) + "</h2>\n";
  if (ts.rows.empty()) return o + "<p>No intervals in " + HtmlEscape(ts.path) + ".</p>\n";
  struct Group {
    std::string phase, op;
    std::size_t intervals = 0;
    std::uint64_t operations = 0, errors = 0;
    double peak_ops_per_s = 0, peak_p99_us = 0;
    ChartSeries ops, p99, p999;
  };
  std::vector<Group> groups;  // phase x op, in order of first appearance
  for (const TimeseriesRow& r : ts.rows) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.phase == r.phase && x.op == r.op; });
    if (g == groups.end()) {
      Group n;
      n.phase = r.phase;
      n.op = r.op;
      n.ops.name = r.phase + " " + r.op;
      n.p99.name = n.ops.name + " p99";
      n.p999.name = n.ops.name + " p99.9";
      n.p999.companion = true;
      groups.push_back(std::move(n));
      g = groups.end() - 1;
    }
    ++g->intervals;
    g->operations += r.operations;
    g->errors += r.errors;
    if (std::isfinite(r.ops_per_s)) g->peak_ops_per_s = std::max(g->peak_ops_per_s, r.ops_per_s);
    if (std::isfinite(r.p99_us)) g->peak_p99_us = std::max(g->peak_p99_us, r.p99_us);
    g->ops.points.emplace_back(r.elapsed_s, r.ops_per_s);
    g->p99.points.emplace_back(r.elapsed_s, r.p99_us);
    g->p999.points.emplace_back(r.elapsed_s, r.p999_us);
  }
  o += "<p>" + std::to_string(ts.rows.size()) + " row(s) of " + HtmlEscape(ts.path) +
       ": one per status interval and operation type; time is seconds since the phase's measured start.</p>\n";
  o += "<table id=\"" + id + "-summary\"><tr><th class=\"l\">phase</th><th class=\"l\">operation</th><th>intervals</th>"
       "<th>operations</th><th>errors</th><th>peak ops/s</th><th>peak p99 (us)</th></tr>\n";
  ChartSpec thr{id + "-throughput", "Throughput over time: " + ts.name, "elapsed (s)", "ops/s", XAxis::kLinear, {}, false};
  ChartSpec lat{id + "-p99", "p99 latency over time (dashed: p99.9): " + ts.name, "elapsed (s)", "latency (us)", XAxis::kLinear, {}, true};
  for (Group& g : groups) {
    o += "<tr><td class=\"l\">" + HtmlEscape(g.phase) + "</td><td class=\"l\">" + HtmlEscape(g.op) + "</td><td>" +
         std::to_string(g.intervals) + "</td><td>" + std::to_string(g.operations) + "</td><td>" + std::to_string(g.errors) +
         "</td><td>" + Fixed(g.peak_ops_per_s, 1) + "</td><td>" + Fixed(g.peak_p99_us, 1) + "</td></tr>\n";
    thr.series.push_back(std::move(g.ops));
    lat.series.push_back(std::move(g.p99));
    lat.series.push_back(std::move(g.p999));
  }
  return o + "</table>\n" + SvgChart(thr) + SvgChart(lat);
}

}  // namespace

std::string HtmlReport(const std::vector<LoadedRun>& all, const std::vector<TimeseriesFile>& timeseries) {
  std::vector<LoadedRun> runs, loads;
  for (const LoadedRun& r : all) (r.is_load ? loads : runs).push_back(r);
  Context ctx;
  std::size_t failed = 0;
  for (const LoadedRun& r : runs) {
    if (r.status != "ok") ++failed;
    const PhaseResult* ph = r.MainPhase();
    if (ph == nullptr) continue;
    ctx.with_result.push_back(&r);
    for (const auto& op : ph->ops) {
      if (op.name.ends_with("-FAILED")) continue;
      if (std::find(ctx.op_names.begin(), ctx.op_names.end(), op.name) == ctx.op_names.end()) ctx.op_names.push_back(op.name);
    }
  }
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>storebench report</title>\n<style>";
  o += kStyle;
  o += "</style></head><body>\n<h1>storebench report</h1>\n";
  o += "<p>";
  if (!all.empty()) {
    o += std::to_string(runs.size()) + " run(s)" + (failed ? ", " + std::to_string(failed) + " failed or interrupted (marked)" : "") +
         ". Figures are of each run's measured phase; latencies are from the intended start when the run measured it "
         "(target set, measurement.interval intended or both), else service time. ";
  }
  if (!timeseries.empty()) o += std::to_string(timeseries.size()) + " time series file(s) (--timeseries), each in a section of its own. ";
  o += "<span id=\"drawn\"></span></p>\n";
  if (!all.empty()) {
    // The answer first: a study's figures against its axis, or one run's dashboard.
    const std::optional<std::string> axis = StudyAxis(ctx.with_result);
    const bool dashboard = !axis && ctx.with_result.size() == 1;
    if (axis) o += AnswerSection(ctx.with_result, *axis);
    if (dashboard) o += RunDashboard(*ctx.with_result.front());
    o += RunSections(runs, loads, dashboard ? "" : DetailCharts(ctx));
  }
  for (std::size_t i = 0; i < timeseries.size(); ++i) o += TimeseriesSection(timeseries[i], i);
  o += "<script>\n" + std::string(ReportScript()) + "</script>\n";
  o += "</body></html>\n";
  return o;
}

int RunReportCommand(const std::vector<std::string>& inputs, const std::string& output, std::ostream& err) {
  if (inputs.empty()) throw ConfigError("report: no results given: storebench report RESULTS... -o report.html");
  if (output.empty()) throw ConfigError("report: no output file: storebench report RESULTS... -o report.html");
  CheckOutputPath(output, "the report");
  std::vector<std::string> results;
  std::vector<TimeseriesFile> timeseries;
  for (const std::string& p : inputs) {
    if (IsTimeseriesInput(p)) {
      timeseries.push_back(ReadTimeseriesFile(p));
    } else {
      results.push_back(p);
    }
  }
  const std::vector<LoadedRun> runs = results.empty() ? std::vector<LoadedRun>{} : LoadResults(results);
  WriteOutputFile(output, HtmlReport(runs, timeseries), "the report");
  const auto loads = static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [](const LoadedRun& r) { return r.is_load; }));
  std::vector<std::string> parts;
  if (!results.empty()) parts.push_back(std::to_string(runs.size() - loads) + " run(s)");
  if (loads > 0) parts.push_back(std::to_string(loads) + " load step(s)");
  if (!timeseries.empty()) parts.push_back(std::to_string(timeseries.size()) + " time series");
  err << "storebench: wrote the report of " << parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) err << " and " << parts[i];
  err << " to " << output << "\n";
  return 0;
}

}  // namespace storebench
