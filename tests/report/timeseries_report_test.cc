// `storebench report` of time series CSV files: the section, its two charts
// with one series (and point) per phase x operation (p99.9 dashed beside
// p99), and the command with only CSVs, with JSON results and CSVs mixed,
// and with CSVs it refuses (exit 2, one line naming FILE:LINE).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "report/html_report.h"
#include "report/json_report.h"
#include "report/timeseries_csv.h"
#include "test_util.h"

namespace storebench {
namespace {

std::size_t Count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// The <figure> of the chart with this id ("" when there is none).
std::string Figure(const std::string& html, const std::string& id) {
  const std::size_t start = html.find("<figure class=\"chart\" id=\"" + id + "\">");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</figure>", start) - start);
}

// bench's file: load INSERT in 3 intervals, then run READ in 3 and UPDATE in 2 of them.
TimeseriesFile BenchSeries() {
  TimeseriesFile f;
  f.path = "/tmp/out/bench-ts.csv";
  f.name = "bench-ts.csv";
  for (int t = 1; t <= 3; ++t) f.rows.push_back({1000.0 + t, 1.0 * t, "load", "INSERT", 100, 100.0, 5, 20, 40, 50, 0});
  for (int t = 1; t <= 3; ++t) {
    f.rows.push_back({1010.0 + t, 1.0 * t, "run", "READ", 90, 90.0, 3, 10.0 * t, 30, 60, 1});
    if (t != 2) f.rows.push_back({1010.0 + t, 1.0 * t, "run", "UPDATE", 10, 10.0, 4, 12, 14, 16, 0});
  }
  return f;
}

TEST(TimeseriesReportTest, SectionWithTwoChartsPerFile) {
  const std::string html = HtmlReport({}, {BenchSeries()});
  EXPECT_NE(html.find("<h2 id=\"ts1\">Time series: bench-ts.csv</h2>"), std::string::npos) << html;
  // Only the time series: no run sections.
  EXPECT_EQ(html.find("<h2>Runs</h2>"), std::string::npos);
  EXPECT_EQ(Count(html, "<svg class=\"chart\""), 2u);
  const std::string thr = Figure(html, "ts1-throughput"), lat = Figure(html, "ts1-p99");
  EXPECT_NE(thr.find("<figcaption>Throughput over time: bench-ts.csv</figcaption>"), std::string::npos) << thr;
  EXPECT_NE(lat.find("<figcaption>p99 latency over time (dashed: p99.9): bench-ts.csv</figcaption>"), std::string::npos) << lat;
  // Throughput: load INSERT, run READ, run UPDATE; 3 + 3 + 2 points.
  EXPECT_NE(thr.find("data-series=\"3\""), std::string::npos);
  EXPECT_EQ(Count(thr, "<path class=\"series\""), 3u);
  EXPECT_EQ(Count(thr, "<title>"), 8u);  // a hover marker per point
  EXPECT_NE(thr.find("<title>run UPDATE: elapsed (s) 3, ops/s 10</title>"), std::string::npos) << thr;
  // p99 and its dashed p99.9 companion, in the same colour, per phase x op.
  EXPECT_NE(lat.find("data-series=\"6\""), std::string::npos);
  EXPECT_EQ(Count(lat, "<path class=\"series"), 6u);
  EXPECT_EQ(Count(lat, "<title>"), 16u);
  EXPECT_EQ(Count(lat, " fine "), 3u);  // the p99.9 companions' fine dotted line
  EXPECT_EQ(Count(lat, "data-style=\"#0072B2 "), 2u);  // load INSERT p99 and p99.9
  EXPECT_NE(lat.find("<title>run READ p99: elapsed (s) 2, latency (us) 20</title>"), std::string::npos) << lat;
  EXPECT_NE(lat.find("run READ p99.9</li>"), std::string::npos);
  // The table: intervals, operations, errors, peak ops/s, peak p99 per phase x op.
  EXPECT_NE(html.find("<tr><td class=\"l\">run</td><td class=\"l\">READ</td><td>3</td><td>270</td><td>3</td><td>90.0</td>"
                      "<td>30.0</td></tr>"),
            std::string::npos);
}

TEST(TimeseriesReportTest, HeaderOnlyFileHasNoCharts) {
  TimeseriesFile f;
  f.path = f.name = "empty.csv";
  const std::string html = HtmlReport({}, {f});
  EXPECT_NE(html.find("<h2 id=\"ts1\">Time series: empty.csv</h2>\n<p>No intervals in empty.csv.</p>"), std::string::npos);
  EXPECT_EQ(Count(html, "<svg class=\"chart\""), 0u);
}

// A JSON result of one run phase with READ.
std::string JsonResult() {
  RunReport r;
  r.binding = "memory";
  r.label = "memory-a";
  PhaseResult p;
  p.phase = "run";
  p.binding = "memory";
  p.threads = 1;
  p.runtime_ms = 1000;
  p.operations = 10;
  p.throughput_ops_per_s = 10;
  OpResult op;
  op.name = "READ";
  for (int i = 1; i <= 10; ++i) op.service.Record(1000 * i);
  op.intended = op.service;
  op.return_codes[Status::kOk] = 10;
  p.ops.push_back(op);
  r.phases.push_back(p);
  std::ostringstream out;
  WriteJson(r, out);
  return out.str();
}

std::string CsvText(const TimeseriesFile& f) {
  std::ostringstream out;
  WriteTimeseriesHeader(out);
  for (const auto& row : f.rows) WriteTimeseriesRow(out, row);
  return out.str();
}

TEST(TimeseriesReportTest, CommandWithCsvOnlyMixedAndRefused) {
  test_util::TempDir dir("storebench-tsreport");
  test_util::ProcessOptions po;
  po.cwd = dir.path().string();
  std::ofstream(dir.path() / "bench-ts.csv") << CsvText(BenchSeries());
  std::ofstream(dir.path() / "series.log") << CsvText(BenchSeries());  // recognised by its header
  std::ofstream(dir.path() / "r.json") << JsonResult();
  std::ofstream(dir.path() / "other.csv") << "time,ops\n1,2\n";
  std::ofstream(dir.path() / "broken.csv") << CsvText(BenchSeries()) << "1.000,1.000,run,READ,x,1,1,1,1,1,0\n";

  const auto only = test_util::RunProcess(STOREBENCH_BINARY, {"report", "bench-ts.csv", "-o", "only.html"}, po);
  ASSERT_EQ(only.code, 0) << only.err;
  EXPECT_EQ(only.err, "storebench: wrote the report of 1 time series to only.html\n");
  const std::string html1 = test_util::Slurp((dir.path() / "only.html").string());
  EXPECT_NE(html1.find("Time series: bench-ts.csv"), std::string::npos);
  EXPECT_EQ(Count(html1, "<svg class=\"chart\""), 2u);

  const auto mixed =
      test_util::RunProcess(STOREBENCH_BINARY, {"report", "r.json", "bench-ts.csv", "series.log", "-o", "mixed.html"}, po);
  ASSERT_EQ(mixed.code, 0) << mixed.err;
  EXPECT_EQ(mixed.err, "storebench: wrote the report of 1 run(s) and 2 time series to mixed.html\n");
  const std::string html2 = test_util::Slurp((dir.path() / "mixed.html").string());
  EXPECT_NE(html2.find("<td class=\"l\">memory-a</td>"), std::string::npos);
  EXPECT_NE(html2.find("<section id=\"dashboard\">"), std::string::npos);  // one run: its dashboard
  EXPECT_NE(html2.find("<h2 id=\"ts1\">Time series: bench-ts.csv</h2>"), std::string::npos);
  EXPECT_NE(html2.find("<h2 id=\"ts2\">Time series: series.log</h2>"), std::string::npos);
  // The run's 3 charts (throughput, p99 READ, percentiles READ) and 2 per file.
  EXPECT_EQ(Count(html2, "<svg class=\"chart\""), 3u + 4u);

  const auto other = test_util::RunProcess(STOREBENCH_BINARY, {"report", "r.json", "other.csv", "-o", "x.html"}, po);
  EXPECT_EQ(other.code, 2);
  EXPECT_EQ(other.err, "storebench: other.csv:1: not a storebench time series: the first line must be the header " +
                           std::string(kTimeseriesCsvHeader) + "\n");
  const auto broken = test_util::RunProcess(STOREBENCH_BINARY, {"report", "broken.csv", "-o", "x.html"}, po);
  EXPECT_EQ(broken.code, 2);
  EXPECT_EQ(broken.err, "storebench: broken.csv:10: column operations: 'x' is not a count (a whole number >= 0)\n");
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.html"));
}

}  // namespace
}  // namespace storebench
