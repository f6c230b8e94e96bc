// The Prometheus text exposition of the live figures (report/openmetrics.h),
// from LiveSnapshots built by hand; and, where promtool is installed, that
// Prometheus's own checker accepts it.
#include "report/openmetrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace storebench {
namespace {

// A latency distribution of `values_ns`, as LiveLatency::Add would make it
// (computed here from the values, so the test needs no histogram).
LiveLatency LatencyOf(const std::vector<std::uint64_t>& values_ns) {
  LiveLatency l;
  for (std::uint64_t v : values_ns) {
    for (std::size_t i = 0; i < kLiveLatencyBoundsNs.size(); ++i) {
      if (v <= kLiveLatencyBoundsNs[i]) ++l.at_or_below[i];
    }
    ++l.count;
    l.sum_ns += v;
  }
  return l;
}

LiveOp OpOf(const std::string& name, std::map<Status::Code, std::uint64_t> by_status,
            const std::vector<std::uint64_t>& service_ns) {
  LiveOp op;
  op.name = name;
  for (const auto& [code, n] : by_status) op.by_status[code] = n;
  op.service = LatencyOf(service_ns);
  return op;
}

LiveSnapshot SmallRun() {
  LiveSnapshot s;
  s.binding = "null";
  s.label = "lab";
  s.part = "";
  s.phase = "run";
  s.running = true;
  s.threads = 2;
  s.target_ops_per_s = 100;
  s.actual_ops_per_s = 99.5;
  s.elapsed_s = 3.25;
  s.operations = 7;
  s.operations_planned = 10;
  s.errors = 2;
  s.ops.push_back(OpOf("READ", {{Status::kOk, 5}, {Status::kNotFound, 1}},
                       {5'000, 10'000, 30'000, 2'000'000, 20'000'000'000}));
  s.ops.push_back(OpOf("UPDATE", {{Status::kError, 1}}, {}));
  return s;
}

// The sample lines of an exposition, "name{labels}" -> value, in order.
std::vector<std::pair<std::string, std::string>> Samples(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.rfind(' ');
    out.emplace_back(line.substr(0, sp), line.substr(sp + 1));
  }
  return out;
}

std::string ValueOf(const std::string& text, const std::string& series) {
  for (const auto& [k, v] : Samples(text)) {
    if (k == series) return v;
  }
  return "<absent: " + series + ">";
}

const std::string kBase = R"(binding="null",label="lab",part="",phase="run")";

TEST(OpenMetricsTest, SmallRunGivesTheExpectedSeries) {
  const LiveSnapshot s = SmallRun();
  const std::string text = FormatPrometheusText(s);
  // Counters: each status with a count, and OK even when it is zero.
  const auto count = [&](const std::string& op, Status::Code c) {
    for (const LiveOp& o : s.ops) {
      if (o.name == op) return std::to_string(o.by_status[c]);
    }
    return std::string("?");
  };
  EXPECT_NE(text.find("storebench_operations_total{" + kBase + R"(,op="READ",status="OK"} )" +
                      count("READ", Status::kOk) + "\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(ValueOf(text, "storebench_operations_total{" + kBase + R"(,op="READ",status="NOT_FOUND"})"),
            count("READ", Status::kNotFound));
  EXPECT_EQ(ValueOf(text, "storebench_operations_total{" + kBase + R"(,op="UPDATE",status="OK"})"), "0");
  EXPECT_EQ(ValueOf(text, "storebench_operations_total{" + kBase + R"(,op="UPDATE",status="ERROR"})"),
            count("UPDATE", Status::kError));
  EXPECT_EQ(text.find(R"(status="ABORTED")"), std::string::npos) << "zero counts other than OK are left out";
  EXPECT_EQ(ValueOf(text, "storebench_errors_total{" + kBase + "}"), std::to_string(s.errors));

  // The READ histogram: every bound, in seconds, counting the values at or below it.
  const std::vector<std::uint64_t> reads = {5'000, 10'000, 30'000, 2'000'000, 20'000'000'000};
  const std::string read = kBase + R"(,op="READ",kind="service")";
  for (std::uint64_t bound : kLiveLatencyBoundsNs) {
    std::uint64_t n = 0;
    for (std::uint64_t v : reads) n += v <= bound ? 1 : 0;
    EXPECT_EQ(ValueOf(text, "storebench_latency_seconds_bucket{" + read + ",le=\"" + NanosAsSeconds(bound) + "\"}"),
              std::to_string(n))
        << bound;
  }
  // The bounds read as plain decimals of the nanosecond bounds.
  EXPECT_NE(text.find(read + R"(,le="0.00001"} 2)" "\n"), std::string::npos) << text;
  EXPECT_NE(text.find(read + R"(,le="0.000025"} 2)" "\n"), std::string::npos);
  EXPECT_NE(text.find(read + R"(,le="0.0025"} 4)" "\n"), std::string::npos);
  EXPECT_NE(text.find(read + R"(,le="10"} 4)" "\n"), std::string::npos);
  EXPECT_EQ(ValueOf(text, "storebench_latency_seconds_bucket{" + read + R"(,le="+Inf"})"),
            std::to_string(reads.size()));
  std::uint64_t sum = 0;
  for (std::uint64_t v : reads) sum += v;
  EXPECT_EQ(ValueOf(text, "storebench_latency_seconds_sum{" + read + "}"), NanosAsSeconds(sum));
  EXPECT_EQ(NanosAsSeconds(sum), "20.002045");
  EXPECT_EQ(ValueOf(text, "storebench_latency_seconds_count{" + read + "}"), std::to_string(reads.size()));
  EXPECT_EQ(text.find(R"(,kind="intended")"), std::string::npos) << "no target histogram without has_intended";

  // Gauges.
  EXPECT_EQ(ValueOf(text, "storebench_target_ops_per_second{" + kBase + "}"), "100");
  EXPECT_EQ(ValueOf(text, "storebench_actual_ops_per_second{" + kBase + "}"), "99.5");
  EXPECT_EQ(ValueOf(text, "storebench_threads{" + kBase + "}"), std::to_string(s.threads));
  EXPECT_EQ(ValueOf(text, "storebench_phase_running{" + kBase + "}"), "1");
  EXPECT_EQ(ValueOf(text, "storebench_phase_elapsed_seconds{" + kBase + "}"), "3.25");
  EXPECT_EQ(ValueOf(text, "storebench_phase_operations{" + kBase + "}"), std::to_string(s.operations));
  EXPECT_EQ(ValueOf(text, "storebench_phase_operations_planned{" + kBase + "}"),
            std::to_string(s.operations_planned));

  // Every family announced once, before its samples, with HELP then TYPE.
  for (const char* family : {"storebench_operations_total", "storebench_errors_total", "storebench_latency_seconds",
                             "storebench_target_ops_per_second", "storebench_actual_ops_per_second",
                             "storebench_threads", "storebench_phase_running", "storebench_phase_elapsed_seconds",
                             "storebench_phase_operations", "storebench_phase_operations_planned"}) {
    const std::string help = std::string("# HELP ") + family + " ";
    const std::string type = std::string("# TYPE ") + family + " ";
    const auto h = text.find(help);
    ASSERT_NE(h, std::string::npos) << family;
    EXPECT_EQ(text.find(help, h + 1), std::string::npos) << family;
    const auto t = text.find(type);
    EXPECT_EQ(text.find('\n', h) + 1, t) << family;
    EXPECT_LT(t, text.find(std::string("\n") + family + "{")) << family;
  }
  // Every line ends with a newline, the last one too.
  EXPECT_EQ(text.back(), '\n');
}

TEST(OpenMetricsTest, LabelValuesAreEscaped) {
  EXPECT_EQ(EscapeLabelValue("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  LiveSnapshot s = SmallRun();
  s.label = "x\\y \"quoted\"\nnext";
  s.part = "rank 3/6";
  const std::string text = FormatPrometheusText(s);
  EXPECT_NE(text.find(R"(label="x\\y \"quoted\"\nnext",part="rank 3/6")"), std::string::npos) << text;
  // No raw newline inside a sample line: every line is a comment or a sample.
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    EXPECT_TRUE(line.rfind("# ", 0) == 0 || line.rfind("storebench_", 0) == 0) << line;
  }
}

TEST(OpenMetricsTest, BucketsRiseToTheCountAtInf) {
  LiveSnapshot s = SmallRun();
  std::vector<std::uint64_t> values;
  for (std::uint64_t v = 1'000; v < 30'000'000'000; v = v * 13 / 10 + 7) values.push_back(v);
  s.ops[0].service = LatencyOf(values);
  s.ops[0].intended = LatencyOf(std::vector<std::uint64_t>(values.begin() + 5, values.end()));
  s.ops[0].has_intended = true;
  const std::string text = FormatPrometheusText(s);
  for (const char* kind : {"service", "intended"}) {
    const std::string prefix =
        "storebench_latency_seconds_bucket{" + kBase + R"(,op="READ",kind=")" + kind + "\",le=";
    std::vector<std::uint64_t> buckets;
    for (const auto& [k, v] : Samples(text)) {
      if (k.rfind(prefix, 0) == 0) buckets.push_back(std::stoull(v));
    }
    ASSERT_EQ(buckets.size(), kLiveLatencyBoundsNs.size() + 1) << kind;
    for (std::size_t i = 1; i < buckets.size(); ++i) EXPECT_LE(buckets[i - 1], buckets[i]) << kind << " " << i;
    EXPECT_EQ(ValueOf(text, prefix + "\"+Inf\"}"), std::to_string(buckets.back()));
    EXPECT_EQ(ValueOf(text, "storebench_latency_seconds_count{" + kBase + R"(,op="READ",kind=")" + kind + "\"}"),
              std::to_string(buckets.back()))
        << kind;
  }
  EXPECT_EQ(ValueOf(text, "storebench_latency_seconds_count{" + kBase + R"(,op="READ",kind="intended"})"),
            std::to_string(values.size() - 5));
  // A distribution whose cumulative counts dip is exposed rising anyway.
  s.ops[0].service.at_or_below[3] = 0;
  const std::string dipped = FormatPrometheusText(s);
  const std::string fourth = R"(,op="READ",kind="service",le="0.0001"})";  // at_or_below[3]
  EXPECT_EQ(ValueOf(dipped, "storebench_latency_seconds_bucket{" + kBase + fourth),
            std::to_string(s.ops[0].service.at_or_below[2]));
}

TEST(OpenMetricsTest, BeforeTheFirstPhaseOnlyTheGaugesAndTotals) {
  LiveSnapshot s;
  s.binding = "null";
  const std::string text = FormatPrometheusText(s);
  const std::string base = R"({binding="null",label="",part="",phase=""})";
  EXPECT_EQ(ValueOf(text, "storebench_phase_running" + base), "0");
  EXPECT_EQ(ValueOf(text, "storebench_phase_operations" + base), "0");
  EXPECT_EQ(ValueOf(text, "storebench_target_ops_per_second" + base), "0");
  EXPECT_EQ(ValueOf(text, "storebench_errors_total" + base), "0");
  EXPECT_EQ(text.find("op="), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE storebench_latency_seconds histogram\n"), std::string::npos);
}

TEST(OpenMetricsTest, NumbersInTheFormatsSpelling) {
  EXPECT_EQ(NanosAsSeconds(0), "0");
  EXPECT_EQ(NanosAsSeconds(10'000), "0.00001");
  EXPECT_EQ(NanosAsSeconds(1'500'000'000), "1.5");
  EXPECT_EQ(NanosAsSeconds(10'000'000'000), "10");
  EXPECT_EQ(NanosAsSeconds(1), "0.000000001");
  EXPECT_EQ(FormatSampleValue(0), "0");
  EXPECT_EQ(FormatSampleValue(20000), "20000");
  EXPECT_EQ(FormatSampleValue(0.1), "0.1");
  EXPECT_EQ(FormatSampleValue(1e20), "100000000000000000000");
  EXPECT_EQ(FormatSampleValue(std::nan("")), "NaN");
  EXPECT_EQ(FormatSampleValue(-std::numeric_limits<double>::infinity()), "-Inf");
}

// promtool's path on PATH, or "".
std::string Promtool() {
  const char* path = std::getenv("PATH");
  std::istringstream in(path ? path : "");
  std::string dir;
  while (std::getline(in, dir, ':')) {
    const std::string p = (dir.empty() ? "." : dir) + "/promtool";
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

TEST(OpenMetricsTest, PromtoolAcceptsIt) {
  const std::string promtool = Promtool();
  if (promtool.empty()) GTEST_SKIP() << "promtool is not on PATH (Debian: apt-get install prometheus)";
  LiveSnapshot s = SmallRun();
  s.label = "odd \"label\"\\\n";
  s.ops[0].intended = s.ops[0].service;
  s.ops[0].has_intended = true;
  test_util::TempDir tmp{"storebench-openmetrics"};
  for (const LiveSnapshot& snapshot : {s, LiveSnapshot{}}) {
    const std::string file = (tmp.path() / "metrics.txt").string();
    std::ofstream(file) << FormatPrometheusText(snapshot);
    test_util::ProcessOptions o;
    o.cwd = tmp.path().string();
    const test_util::ProcessResult r =
        test_util::RunProcess("/bin/sh", {"-c", "\"$0\" check metrics < metrics.txt", promtool}, o);
    EXPECT_EQ(r.code, 0) << r.out << r.err;
    EXPECT_EQ(r.out + r.err, "") << FormatPrometheusText(snapshot);
  }
}

}  // namespace
}  // namespace storebench
