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

TEST(SvgChartTest, ExactOutput) {
  ChartSpec c{"t", "T <1>", "x", "y", XAxis::kLinear, {{"a&b", {{0, 0}, {10, 5}}, false, ""}}, false};
  EXPECT_EQ(SvgChart(c),
            "<figure class=\"chart\" id=\"t\">\n"
            "<figcaption>T &lt;1&gt;</figcaption>\n"
            "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 720 380\" width=\"720\" height=\"380\" data-series=\"1\">\n"
            "<g class=\"grid\"><line x1=\"70.0\" y1=\"332.0\" x2=\"688.0\" y2=\"332.0\"/><text class=\"yt\" x=\"64.0\" y=\"336.0\">0</text><line x1=\"70.0\" y1=\"268.8\" x2=\"688.0\" y2=\"268.8\"/><text class=\"yt\" x=\"64.0\" y=\"272.8\">1</text><line x1=\"70.0\" y1=\"205.6\" x2=\"688.0\" y2=\"205.6\"/><text class=\"yt\" x=\"64.0\" y=\"209.6\">2</text><line x1=\"70.0\" y1=\"142.4\" x2=\"688.0\" y2=\"142.4\"/><text class=\"yt\" x=\"64.0\" y=\"146.4\">3</text><line x1=\"70.0\" y1=\"79.2\" x2=\"688.0\" y2=\"79.2\"/><text class=\"yt\" x=\"64.0\" y=\"83.2\">4</text><line x1=\"70.0\" y1=\"16.0\" x2=\"688.0\" y2=\"16.0\"/><text class=\"yt\" x=\"64.0\" y=\"20.0\">5</text><line x1=\"70.0\" y1=\"16.0\" x2=\"70.0\" y2=\"332.0\"/><text class=\"xt\" x=\"70.0\" y=\"348.0\">0</text><line x1=\"193.6\" y1=\"16.0\" x2=\"193.6\" y2=\"332.0\"/><text class=\"xt\" x=\"193.6\" y=\"348.0\">2</text><line x1=\"317.2\" y1=\"16.0\" x2=\"317.2\" y2=\"332.0\"/><text class=\"xt\" x=\"317.2\" y=\"348.0\">4</text><line x1=\"440.8\" y1=\"16.0\" x2=\"440.8\" y2=\"332.0\"/><text class=\"xt\" x=\"440.8\" y=\"348.0\">6</text><line x1=\"564.4\" y1=\"16.0\" x2=\"564.4\" y2=\"332.0\"/><text class=\"xt\" x=\"564.4\" y=\"348.0\">8</text><line x1=\"688.0\" y1=\"16.0\" x2=\"688.0\" y2=\"332.0\"/><text class=\"xt\" x=\"688.0\" y=\"348.0\">10</text></g>\n"
            "<text class=\"xl\" x=\"379.0\" y=\"372.0\">x</text><text class=\"yl\" transform=\"translate(14 174.0) rotate(-90)\">y</text>\n"
            "<g class=\"s\" fill=\"#0072B2\"><path class=\"series\" d=\"M70.0 332.0 L688.0 16.0\" stroke=\"#0072B2\"/><circle cx=\"70.0\" cy=\"332.0\" r=\"2.5\"><title>a&amp;b: x 0, y 0</title></circle><circle cx=\"688.0\" cy=\"16.0\" r=\"2.5\"><title>a&amp;b: x 10, y 5</title></circle></g>\n"
            "</svg>\n"
            "<ul class=\"legend\"><li><span class=\"key\" style=\"background:#0072B2\"></span>a&amp;b</li></ul>\n"
            "</figure>\n");
  EXPECT_EQ(NiceTicks(0, 4321, 5), (std::vector<double>{0, 1000, 2000, 3000, 4000, 5000}));
  EXPECT_EQ(NiceTicks(0, 0.7, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8}));
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(SvgChartTest, PercentileAxisAndMarkedSeries) {
  ChartSpec c{"p", "P", "percentile", "latency (us)", XAxis::kPercentile,
              {{"r", {{0, 1}, {90, 2}, {99, 3}, {99.9, 4}}, true, "interrupted"}}, false};
  const std::string svg = SvgChart(c);
  // 0%, 90%, 99%, 99.9% equally spaced: x = 70 + k * 618 / 3; y 1..4 of ticks 0..4.
  EXPECT_NE(svg.find("d=\"M70.0 253.0 L276.0 174.0 L482.0 95.0 L688.0 16.0\" stroke=\"#0072B2\" stroke-dasharray=\"6 4\""),
            std::string::npos) << svg;
  EXPECT_NE(svg.find(">99.9%</text>"), std::string::npos);
  EXPECT_NE(svg.find("r <em>(interrupted)</em>"), std::string::npos);
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

// Charts: throughput over time (4 series: runs with a result), p99 over time
// READ and UPDATE (4 each), percentiles READ and UPDATE (4 each), throughput
// and p99 vs threads (2 series each: "memory-workloada" and the <script> label).
constexpr int kCharts = 7;
constexpr int kSeries = 4 + 4 + 4 + 4 + 4 + 2 + 2;

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
  // The interrupted run in the 5 per-run charts, its row in the 2 sweep charts.
  EXPECT_EQ(Count(html, "stroke-dasharray"), 7u);
  EXPECT_NE(html.find("id=\"throughput-vs-threads\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"p99-vs-target\""), std::string::npos);  // no target sweep
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
  EXPECT_NE(html.find("id=\"p99-vs-target\""), std::string::npos);
  EXPECT_NE(html.find("id=\"throughput-vs-target\""), std::string::npos);
  EXPECT_EQ(html.find("id=\"throughput-vs-threads\""), std::string::npos);
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
