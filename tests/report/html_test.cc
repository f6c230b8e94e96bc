// The HTML report: an exact small SVG chart, the charts and series a report
// of fixed runs holds, escaping of labels, and (as a user would see it) the
// report rendered by headless Chromium: every series drawn, no console
// errors, a <script> label shown as text.
#include "report/html_report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "report/svg_chart.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

std::size_t Count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// The data-style of every series of every chart in `html`, chart by chart.
std::vector<std::vector<std::string>> StylesPerChart(const std::string& html) {
  std::vector<std::vector<std::string>> out;
  for (std::size_t p = html.find("<svg class=\"chart\""); p != std::string::npos; p = html.find("<svg class=\"chart\"", p + 1)) {
    const std::size_t end = html.find("</svg>\n<ul class=\"legend\">", p);
    out.emplace_back();
    for (std::size_t q = html.find("data-style=\"", p); q < end; q = html.find("data-style=\"", q + 1)) {
      const std::size_t v = q + 12;
      out.back().push_back(html.substr(v, html.find('"', v) - v));
    }
  }
  return out;
}

// Every chart: at most 12 series, no two alike, and none told apart by colour alone.
void ExpectEverySeriesTellableApart(const std::string& html) {
  for (const auto& styles : StylesPerChart(html)) {
    EXPECT_LE(styles.size(), 12u);
    std::set<std::string> whole, without_colour;
    for (const std::string& st : styles) {
      whole.insert(st);
      without_colour.insert(st.substr(st.find(' ') + 1));
    }
    EXPECT_EQ(whole.size(), styles.size());
    EXPECT_EQ(without_colour.size(), styles.size());
  }
}

TEST(SvgChartTest, OneSeriesDrawnWhereItsValuesSay) {
  ChartSpec c;
  c.id = "t";
  c.title = "T <1>";
  c.x_label = "x";
  c.y_label = "y";
  c.series = {{"a&b", {{0, 0}, {10, 5}}, false, ""}};
  const std::string svg = SvgChart(c);
  EXPECT_EQ(svg.rfind("<figure class=\"chart\" id=\"t\">\n<figcaption>T &lt;1&gt;</figcaption>\n", 0), 0u) << svg;
  EXPECT_NE(svg.find("viewBox=\"0 0 720 380\" width=\"720\" height=\"380\" data-series=\"1\" data-ylog=\"0\""), std::string::npos);
  // Plot area x 70..688, y 16..332; y ticks 0..5: (0, 0) at (70, 332), (10, 5) at (688, 16).
  EXPECT_NE(svg.find("<g class=\"s\" data-i=\"0\" data-style=\"#0072B2 solid circle\" fill=\"#0072B2\" stroke=\"#0072B2\">"
                     "<path class=\"series\" d=\"M70.0 332.0 L688.0 16.0\"/>"
                     "<circle cx=\"70.0\" cy=\"332.0\" r=\"3\"><title>a&amp;b: x 0, y 0</title></circle>"
                     "<circle cx=\"688.0\" cy=\"16.0\" r=\"3\"><title>a&amp;b: x 10, y 5</title></circle></g>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("<li data-i=\"0\"><svg class=\"key\""), std::string::npos);
  EXPECT_NE(svg.find("</svg>a&amp;b</li></ul>\n</figure>\n"), std::string::npos);
  EXPECT_EQ(NiceTicks(0, 4321, 5), (std::vector<double>{0, 1000, 2000, 3000, 4000, 5000}));
  EXPECT_EQ(NiceTicks(0, 0.7, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8}));
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(SvgChartTest, TwelveSeriesEachWithItsOwnStyleAndCompanionsFollowTheirSeries) {
  ChartSpec c;
  c.id = "many";
  for (int i = 0; i < 12; ++i) c.series.push_back({"s" + std::to_string(i), {{0, 1.0 + i}, {1, 2.0 + i}}, false, ""});
  ExpectEverySeriesTellableApart(SvgChart(c));
  const auto styles = StylesPerChart(SvgChart(c)).at(0);
  EXPECT_EQ(styles[0], "#0072B2 solid circle");
  EXPECT_EQ(styles[5], "#56B4E9 dash square");  // the sixth: colour 5, dash 1, marker 1
  EXPECT_EQ(styles[11], "#CC79A7 dot diamond");  // colours repeat after 8, with another line style
  ChartSpec p;
  p.series = {{"p99", {{0, 1}}, false, ""}, {"p99.9", {{0, 2}}, false, "", true}, {"b p99", {{0, 1}}, false, ""}};
  const auto ps = StylesPerChart(SvgChart(p)).at(0);
  EXPECT_EQ(ps, (std::vector<std::string>{"#0072B2 solid circle", "#0072B2 fine circle", "#D55E00 solid square"}));
}

TEST(SvgChartTest, PercentileAxisAndMarkedSeries) {
  ChartSpec c{"p", "P", "percentile", "latency (us)", XAxis::kPercentile,
              {{"r", {{0, 1}, {90, 2}, {99, 3}, {99.9, 4}}, true, "interrupted"}}, false};
  const std::string svg = SvgChart(c);
  // 0%, 90%, 99%, 99.9% equally spaced: x = 70 + k * 618 / 3; y 1..4 of ticks 0..4.
  EXPECT_NE(svg.find("d=\"M70.0 253.0 L276.0 174.0 L482.0 95.0 L688.0 16.0\""), std::string::npos) << svg;
  EXPECT_NE(svg.find(">99.9%</text>"), std::string::npos);
  // A failed or interrupted run: hollow markers, and said in the legend.
  EXPECT_NE(svg.find("<circle cx=\"70.0\" cy=\"253.0\" r=\"3\" fill=\"#fff\">"), std::string::npos) << svg;
  EXPECT_NE(svg.find("r <em>(interrupted)</em>"), std::string::npos);
}

TEST(SvgChartTest, ThroughputGoesLogWhenItSpansMoreThanTenTimes) {
  ChartSpec c;
  c.y_label = "ops/s";
  c.y_log_if_wide = true;
  c.series = {{"a", {{1, 100}, {2, 900}}, false, ""}};
  EXPECT_FALSE(ChartUsesLogY(c));
  EXPECT_NE(SvgChart(c).find("data-ylog=\"0\""), std::string::npos);
  c.series.push_back({"b", {{1, 5000}, {2, 9000}}, false, ""});
  EXPECT_TRUE(ChartUsesLogY(c));
  const std::string svg = SvgChart(c);
  EXPECT_NE(svg.find("data-ylog=\"1\""), std::string::npos);
  EXPECT_NE(svg.find(">ops/s (log scale)</text>"), std::string::npos);
  // A fixed range (shared panels) decides instead of the series.
  c.y_min = 1000;
  c.y_max = 9000;
  EXPECT_FALSE(ChartUsesLogY(c));
}

// A run of `threads` threads (and `target`): READ and UPDATE, three series points.
LoadedRun MakeRun(const std::string& label, int threads, double target, const std::string& status = "ok") {
  RunReport r;
  r.binding = "memory";
  r.label = label;
  r.properties = {{"threadcount", std::to_string(threads)}, {"note", "<b>bold?</b>"}};
  PhaseResult p;
  p.phase = "run";
  p.binding = "memory";
  p.threads = threads;
  p.target_ops_per_s = target;
  p.runtime_ms = 3000;
  p.operations = 300;
  p.throughput_ops_per_s = 100.0 * threads;
  p.interrupted = status == "interrupted";
  for (const char* name : {"READ", "UPDATE"}) {
    OpResult op;
    op.name = name;
    for (int i = 1; i <= 150; ++i) op.service.Record(static_cast<std::uint64_t>(1000 * i * threads));
    op.intended = op.service;
    op.return_codes[Status::kOk] = 150;
    p.ops.push_back(op);
  }
  for (int t = 1; t <= 3; ++t) {
    IntervalPoint pt;
    pt.t_s = t;
    pt.operations = 100;
    pt.ops_per_s = 100.0 * threads + t;
    pt.ops.push_back({"READ", 50, 80, 70, 140.0 * threads, 150, {}, 0, 0, 0});
    pt.ops.push_back({"UPDATE", 50, 80, 70, 145.0 * threads, 150, {}, 0, 0, 0});
    p.series.push_back(pt);
  }
  r.phases.push_back(p);
  LoadedRun run;
  run.id = label;
  run.label = label;
  run.status = status;
  run.report = r;
  return run;
}

std::vector<LoadedRun> SweepRuns() {
  std::vector<LoadedRun> runs = {MakeRun("memory-workloada-1", 1, 0), MakeRun("memory-workloada-2", 2, 0),
                                 MakeRun("memory-workloada-4", 4, 0, "interrupted"), MakeRun("<script>alert(1)</script>", 1, 0)};
  LoadedRun failed;
  failed.id = failed.label = "lmdb-workloada-1";
  failed.status = "failed";
  failed.detail = "exit code 2: storebench: cannot open <dir>";
  failed.axes = {{"binding", "lmdb"}};
  runs.push_back(failed);
  return runs;
}

// Charts: the answer, throughput, p99 and p99.9 vs threads, one panel per
// operation type (one workload: READ, UPDATE), 2 lines each
// ("memory-workloada" and the <script> label); then each run over time:
// throughput (4 series: runs with a result), p99 over time READ and UPDATE
// (4 each), percentiles READ and UPDATE (4 each).
constexpr int kCharts = 6 + 5;
constexpr int kSeries = 6 * 2 + 4 + 4 + 4 + 4 + 4;

TEST(SvgChartTest, LogYAxisHasDecades) {
  ChartSpec c{"l", "L", "x", "us", XAxis::kLinear, {{"r", {{0, 0.5}, {1, 20}, {2, 3000}}, false, ""}}, true};
  const std::string svg = SvgChart(c);
  // Decades 0.1 .. 10000 (6 ticks, 5 steps of 63.2 px): y = 332 - (log10(v) + 1) * 63.2.
  EXPECT_NE(svg.find(">0.1</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">10k</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find("d=\"M70.0 287.8 L379.0 186.6 L688.0 49.0\""), std::string::npos) << svg;
}

TEST(HtmlReportTest, ChartsSeriesTablesAndEscaping) {
  const std::string html = HtmlReport(SweepRuns());
  EXPECT_EQ(Count(html, "<svg class=\"chart\""), static_cast<std::size_t>(kCharts));
  EXPECT_EQ(Count(html, "<path class=\"series\""), static_cast<std::size_t>(kSeries));
  // The answer comes first: its charts before the first table.
  ASSERT_NE(html.find("<section id=\"answer\">"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"answer\">"), html.find("<table"));
  EXPECT_LT(html.find("<table"), html.find("id=\"throughput-over-time\""));
  EXPECT_NE(html.find("id=\"throughput-vs-threads-read\""), std::string::npos);
  EXPECT_NE(html.find("id=\"p999-vs-threads-update\""), std::string::npos);
  EXPECT_EQ(html.find("-vs-target"), std::string::npos);  // no target sweep
  ExpectEverySeriesTellableApart(html);
  // The one script is ours; labels, details and properties are text.
  EXPECT_EQ(Count(html, "<script"), 1u);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">&lt;script&gt;alert(1)&lt;/script&gt;</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"failed\"><td class=\"l\">lmdb-workloada-1</td><td class=\"l status\">failed</td>"
                      "<td class=\"l\">lmdb</td><td colspan=\"7\">no result</td><td class=\"l\">exit code 2: storebench: "
                      "cannot open &lt;dir&gt;</td></tr>"),
            std::string::npos);
  // Summary row: threads, target, runtime, operations, throughput, errors, disk.
  EXPECT_NE(html.find("<td class=\"l\">memory</td><td>2</td><td>-</td><td>3.0</td><td>300</td><td>200.0</td><td>0</td><td>-</td>"),
            std::string::npos);
  // READ of the 2-thread run: 2..300 us step 2: avg 151; p50 150, p95 286, p99 298 (bucket
  // upper ends, 3 significant digits); p99.9 and max the exact max 300.
  EXPECT_NE(html.find("<td class=\"l\">memory-workloada-2</td><td class=\"l\">READ</td><td>150</td><td>151.0</td><td>150.0</td>"
                      "<td>286.2</td><td>298.2</td><td>300.0</td><td>300.0</td>"),
            std::string::npos)
      << html.substr(html.find("memory-workloada-2</td><td class=\"l\">READ"), 200);
  EXPECT_EQ(html.find("http://") == std::string::npos || html.find("http://www.w3.org/2000/svg") != std::string::npos, true);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(HtmlReportTest, TargetSweepCharts) {
  std::vector<LoadedRun> runs = {MakeRun("a-1-target=500", 1, 500), MakeRun("a-1-target=1000", 1, 1000)};
  const std::string html = HtmlReport(runs);
  EXPECT_NE(html.find("id=\"p99-vs-target-read\""), std::string::npos);
  EXPECT_NE(html.find("id=\"throughput-vs-target-update\""), std::string::npos);
  EXPECT_EQ(html.find("-vs-threads"), std::string::npos);
}

// A study of 5 stores x 3 workloads x 2 thread counts: a panel per workload,
// a line per store, the summary naming the best and worst at 8 threads, and
// the throughputs (100 .. 8000 ops/s) on a shared log axis.
TEST(HtmlReportTest, AStudyOpensWithItsAnswer) {
  std::vector<LoadedRun> runs;
  const std::vector<std::pair<std::string, double>> stores = {{"rocksdb", 3}, {"leveldb", 2}, {"lmdb", 4}, {"sqlite", 0.1}, {"memory", 10}};
  for (const char* w : {"workloada", "workloadb", "workloadc"}) {
    for (const auto& [store, speed] : stores) {
      for (int threads : {1, 8}) {
        LoadedRun r = MakeRun(store + "-" + w + "-" + std::to_string(threads), threads, 0);
        r.axes = {{"binding", store}, {"workload", std::string("workloads/") + w}, {"threadcount", std::to_string(threads)}};
        r.report->phases[0].throughput_ops_per_s *= speed;
        runs.push_back(r);
      }
    }
  }
  const std::string html = HtmlReport(runs);
  EXPECT_LT(html.find("<section id=\"answer\">"), html.find("<table"));
  EXPECT_NE(html.find("<strong>workloadb</strong> at 8 threads: highest throughput <strong>memory</strong> (8000 ops/s), lowest "
                      "<strong>sqlite</strong> (80 ops/s); p99 1.19 ms for all"),
            std::string::npos)
      << html.substr(html.find("<p class=\"summary\">"), 600);
  for (const char* w : {"workloada", "workloadb", "workloadc"}) {
    const std::size_t at = html.find(std::string("id=\"throughput-vs-threads-") + w + "\"");
    ASSERT_NE(at, std::string::npos) << w;
    EXPECT_NE(html.find("data-series=\"5\" data-ylog=\"1\"", at), std::string::npos);
  }
  EXPECT_NE(html.find("the panels share their y axis (a log scale"), std::string::npos);
  // Each run over time: per workload, 10 runs a chart.
  EXPECT_NE(html.find("id=\"throughput-over-time-workloadc\""), std::string::npos);
  ExpectEverySeriesTellableApart(html);
}

TEST(HtmlReportTest, MoreThanTwelveLinesAreSplitIntoPanels) {
  std::vector<LoadedRun> runs;
  for (int i = 0; i < 26; ++i) {
    for (int threads : {1, 2}) runs.push_back(MakeRun("store" + std::to_string(i) + "-workloada-" + std::to_string(threads), threads, 0));
  }
  const std::string html = HtmlReport(runs);
  EXPECT_NE(html.find("id=\"throughput-vs-threads-read-3\""), std::string::npos);
  EXPECT_NE(html.find("<figcaption>READ (3/3)</figcaption>"), std::string::npos);
  EXPECT_EQ(html.find("id=\"throughput-vs-threads-read-4\""), std::string::npos);
  ExpectEverySeriesTellableApart(html);
}

TEST(HtmlReportTest, OneRunIsADashboard) {
  LoadedRun r = MakeRun("rocksdb-workloada-2", 2, 0);
  PhaseResult load = r.report->phases[0];
  load.phase = "load";
  load.start_unix_ms = 1'000'000;
  r.report->phases[0].start_unix_ms = 1'000'000 + 5'000;  // 3 s of load, then 2 s of warm-up
  r.report->phases[0].store_stats = {{"rocksdb.block-cache-hit", "1234"}};
  r.report->phases.insert(r.report->phases.begin(), load);
  r.report->properties.emplace_back("warmup.seconds", "2");
  const std::string html = HtmlReport({r});
  ASSERT_NE(html.find("<section id=\"dashboard\">"), std::string::npos);
  EXPECT_EQ(html.find("<section id=\"answer\">"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"dashboard\">"), html.find("<table"));
  // Phases marked where they start (0 and 5 s), the warm-up (3..5 s) shaded.
  EXPECT_NE(html.find("<g class=\"band\">"), std::string::npos);
  EXPECT_NE(html.find(">warm-up</text>"), std::string::npos);
  EXPECT_NE(html.find(">load</text></g>"), std::string::npos);
  EXPECT_NE(html.find(">run</text></g>"), std::string::npos);
  EXPECT_NE(html.find("id=\"dashboard-percentiles-read\""), std::string::npos);
  EXPECT_NE(html.find("<td class=\"l\">run</td><td class=\"l\">rocksdb.block-cache-hit</td><td>1234</td>"), std::string::npos);
  EXPECT_EQ(html.find("id=\"throughput-over-time\""), std::string::npos) << "the dashboard replaces the detail charts";
}

// Headless Chromium (Debian's chromium; scripts/setup.sh installs it) renders
// the report: the inline script counts the drawn series, the console stays
// clean, the <script> label is text in the DOM.
TEST(HtmlReportTest, RendersInHeadlessChromium) {
  if (std::system("command -v chromium >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): the report is not rendered";
  }
  std::string dir = "/tmp/storebench_html_XXXXXX";
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  {
    std::ofstream f(dir + "/report.html");
    f << HtmlReport(SweepRuns());
  }
  test_util::ProcessOptions po;
  po.cwd = dir;
  po.env = {{"HOME", dir}};
  const auto r = test_util::RunProcess(
      "/usr/bin/timeout", {"60", "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--user-data-dir=" + dir + "/profile", "--enable-logging=stderr", "--v=0", "--dump-dom",
                           "file://" + dir + "/report.html"},
      po);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("<span id=\"drawn\">" + std::to_string(kSeries) + " series drawn in " + std::to_string(kCharts) +
                       " charts.</span>"),
            std::string::npos)
      << r.out.substr(0, 2000);
  EXPECT_EQ(r.err.find("Uncaught"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(":CONSOLE"), std::string::npos) << r.err;
  EXPECT_EQ(Count(r.out, "<script"), 1u);
  EXPECT_NE(r.out.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace storebench
