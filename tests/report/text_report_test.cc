// Exact-output tests for the YCSB text summary and status line.
#include "report/text_report.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <string>

namespace storebench {
namespace {

using namespace std::chrono;

Histogram FromSamples(std::initializer_list<std::uint64_t> samples) {
  Histogram h;
  for (auto v : samples) h.Record(v);
  return h;
}

// READ samples, ns. Sorted: p50 = rank 3 -> 345678 (bucket highest 345855 ->
// 345 us); p95/p99 = rank 6 -> max 12345678 (the bucket's highest, 12353535,
// clamped to max). Mean = 14573825 / 6 ns = 2428.9708333333333 us.
OpResult ReadOp() {
  OpResult op;
  op.name = "READ";
  op.service = FromSamples({123456, 301000, 345678, 567890, 890123, 12345678});
  // Intended latency: the same plus queueing on two of them.
  op.intended = FromSamples({123456, 301000, 345678, 567890, 3000000, 20000000});
  op.return_codes[Status::kOk] = 5;
  op.return_codes[Status::kNotFound] = 1;
  return op;
}

OpResult EmptyOp(const std::string& name) {
  OpResult op;
  op.name = name;
  return op;
}

PhaseResult BasePhase() {
  PhaseResult r;
  r.phase = "run";
  r.runtime_ms = 10110;
  r.throughput_ops_per_s = 98.91196834817013;
  r.ops.push_back(ReadOp());
  r.ops.push_back(EmptyOp("UPDATE"));
  return r;
}

std::string Summary(const PhaseResult& r) {
  std::ostringstream out;
  WriteTextSummary(r, out);
  return out.str();
}

TEST(TextSummary, OpMode) {
  EXPECT_EQ(Summary(BasePhase()),
            "[OVERALL], RunTime(ms), 10110\n"
            "[OVERALL], Throughput(ops/sec), 98.91196834817013\n"
            "[READ], Operations, 6\n"
            "[READ], AverageLatency(us), 2428.9708333333333\n"
            "[READ], MinLatency(us), 123\n"
            "[READ], MaxLatency(us), 12345\n"
            "[READ], 50thPercentileLatency(us), 345\n"
            "[READ], 95thPercentileLatency(us), 12345\n"
            "[READ], 99thPercentileLatency(us), 12345\n"
            "[READ], Return=OK, 5\n"
            "[READ], Return=NOT_FOUND, 1\n"
            "[UPDATE], Operations, 0\n"
            "[UPDATE], AverageLatency(us), 0\n"
            "[UPDATE], MinLatency(us), 0\n"
            "[UPDATE], MaxLatency(us), 0\n"
            "[UPDATE], 50thPercentileLatency(us), 0\n"
            "[UPDATE], 95thPercentileLatency(us), 0\n"
            "[UPDATE], 99thPercentileLatency(us), 0\n");
}

TEST(TextSummary, ReturnCodesInCodeOrderAndOpsInGivenOrder) {
  PhaseResult r;
  r.runtime_ms = 1000;
  r.throughput_ops_per_s = 2000;
  r.percentiles = {};
  OpResult ins = EmptyOp("INSERT");
  ins.service.Record(1999);  // 1.999 us: truncated to 1
  ins.return_codes[Status::kAborted] = 2;
  ins.return_codes[Status::kError] = 7;
  ins.return_codes[Status::kOk] = 1;
  r.ops.push_back(ins);
  r.ops.push_back(EmptyOp("DELETE"));
  EXPECT_EQ(Summary(r),
            "[OVERALL], RunTime(ms), 1000\n"
            "[OVERALL], Throughput(ops/sec), 2000\n"
            "[INSERT], Operations, 1\n"
            "[INSERT], AverageLatency(us), 1.999\n"
            "[INSERT], MinLatency(us), 1\n"
            "[INSERT], MaxLatency(us), 1\n"
            "[INSERT], Return=OK, 1\n"
            "[INSERT], Return=ERROR, 7\n"
            "[INSERT], Return=ABORTED, 2\n"
            "[DELETE], Operations, 0\n"
            "[DELETE], AverageLatency(us), 0\n"
            "[DELETE], MinLatency(us), 0\n"
            "[DELETE], MaxLatency(us), 0\n");
}

TEST(TextSummary, ExtraOverallLinesOnlyWhenTheyApply) {
  PhaseResult r;
  r.runtime_ms = 5;
  r.throughput_ops_per_s = 10000000;  // never 1.0E7
  r.interrupted = true;
  r.disk_bytes = 123456789;
  r.integrity_failures = 4;
  EXPECT_EQ(Summary(r),
            "[OVERALL], RunTime(ms), 5\n"
            "[OVERALL], Throughput(ops/sec), 10000000\n"
            "[OVERALL], Interrupted, true\n"
            "[STORE], DiskUsage(bytes), 123456789\n"
            "[VERIFY], IntegrityFailures, 4\n");
  r.interrupted = false;
  r.disk_bytes = 0;  // set, even if zero
  r.integrity_failures = 0;
  EXPECT_EQ(Summary(r),
            "[OVERALL], RunTime(ms), 5\n"
            "[OVERALL], Throughput(ops/sec), 10000000\n"
            "[STORE], DiskUsage(bytes), 0\n");
}

TEST(TextSummary, BothMode) {
  PhaseResult r = BasePhase();
  r.measurement_interval = "both";
  r.ops.pop_back();
  r.percentiles = {50, 99.9};
  // Intended sorted: 123456 301000 345678 567890 3000000 20000000. p50 -> rank 3
  // (345855 -> 345); p99.9 -> rank 6 = max 20000000.
  EXPECT_EQ(Summary(r),
            "[OVERALL], RunTime(ms), 10110\n"
            "[OVERALL], Throughput(ops/sec), 98.91196834817013\n"
            "[READ], Operations, 6\n"
            "[READ], AverageLatency(us), 2428.9708333333333\n"
            "[READ], MinLatency(us), 123\n"
            "[READ], MaxLatency(us), 12345\n"
            "[READ], 50thPercentileLatency(us), 345\n"
            "[READ], 99.9PercentileLatency(us), 12345\n"
            "[READ], Return=OK, 5\n"
            "[READ], Return=NOT_FOUND, 1\n"
            "[Intended-READ], Operations, 6\n"
            "[Intended-READ], AverageLatency(us), 4056.3373333333334\n"
            "[Intended-READ], MinLatency(us), 123\n"
            "[Intended-READ], MaxLatency(us), 20000\n"
            "[Intended-READ], 50thPercentileLatency(us), 345\n"
            "[Intended-READ], 99.9PercentileLatency(us), 20000\n");
}

TEST(TextSummary, IntendedMode) {
  PhaseResult r = BasePhase();
  r.measurement_interval = "intended";
  r.ops.pop_back();
  r.percentiles = {1};
  EXPECT_EQ(Summary(r),
            "[OVERALL], RunTime(ms), 10110\n"
            "[OVERALL], Throughput(ops/sec), 98.91196834817013\n"
            "[Intended-READ], Operations, 6\n"
            "[Intended-READ], AverageLatency(us), 4056.3373333333334\n"
            "[Intended-READ], MinLatency(us), 123\n"
            "[Intended-READ], MaxLatency(us), 20000\n"
            "[Intended-READ], 1stPercentileLatency(us), 123\n"
            "[Intended-READ], Return=OK, 5\n"
            "[Intended-READ], Return=NOT_FOUND, 1\n");
}

TEST(TextSummary, PercentileOrdinals) {
  EXPECT_EQ(PercentileOrdinal(0), "0th");
  EXPECT_EQ(PercentileOrdinal(1), "1st");
  EXPECT_EQ(PercentileOrdinal(2), "2nd");
  EXPECT_EQ(PercentileOrdinal(3), "3rd");
  EXPECT_EQ(PercentileOrdinal(4), "4th");
  EXPECT_EQ(PercentileOrdinal(11), "11th");
  EXPECT_EQ(PercentileOrdinal(12), "12th");
  EXPECT_EQ(PercentileOrdinal(13), "13th");
  EXPECT_EQ(PercentileOrdinal(21), "21st");
  EXPECT_EQ(PercentileOrdinal(22), "22nd");
  EXPECT_EQ(PercentileOrdinal(23), "23rd");
  EXPECT_EQ(PercentileOrdinal(50), "50th");
  EXPECT_EQ(PercentileOrdinal(95), "95th");
  EXPECT_EQ(PercentileOrdinal(100), "100th");
  EXPECT_EQ(PercentileOrdinal(101), "101st");
  EXPECT_EQ(PercentileOrdinal(111), "111th");
  EXPECT_EQ(PercentileOrdinal(112), "112th");
  EXPECT_EQ(PercentileOrdinal(99.9), "99.9");
  EXPECT_EQ(PercentileOrdinal(99.99), "99.99");
  EXPECT_EQ(PercentileOrdinal(0.5), "0.5");

  PhaseResult r;
  r.percentiles = {1, 2, 3, 12, 99.99};
  OpResult op = EmptyOp("SCAN");
  r.ops.push_back(op);
  const std::string s = Summary(r);
  EXPECT_NE(s.find("[SCAN], 1stPercentileLatency(us), 0\n[SCAN], 2ndPercentileLatency(us), 0\n"
                   "[SCAN], 3rdPercentileLatency(us), 0\n[SCAN], 12thPercentileLatency(us), 0\n"
                   "[SCAN], 99.99PercentileLatency(us), 0\n"),
            std::string::npos)
      << s;
}

TEST(TextFormat, FormatDouble) {
  EXPECT_EQ(FormatDouble(98.91196834817013), "98.91196834817013");
  EXPECT_EQ(FormatDouble(1e7), "10000000");
  EXPECT_EQ(FormatDouble(2000), "2000");
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatDouble(345.612), "345.612");
  EXPECT_EQ(FormatDouble(1e-5), "0.00001");
  EXPECT_EQ(FormatDouble(1e21), "1000000000000000000000");
  EXPECT_EQ(FormatDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatDouble(0.0), "0");
  EXPECT_EQ(FormatDouble(-0.0), "0");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatDouble(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(FormatDouble(-std::numeric_limits<double>::infinity()), "-Infinity");
  // Extremes fit and read back.
  const std::string big = FormatDouble(std::numeric_limits<double>::max());
  EXPECT_EQ(big.size(), 309u);
  EXPECT_EQ(std::strtod(big.c_str(), nullptr), std::numeric_limits<double>::max());
  const std::string tiny = FormatDouble(std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(tiny.substr(0, 4), "0.00");
  EXPECT_EQ(std::strtod(tiny.c_str(), nullptr), std::numeric_limits<double>::denorm_min());
}

TEST(TextFormat, FormatDecimal2) {
  EXPECT_EQ(FormatDecimal2(1234.5), "1234.5");
  EXPECT_EQ(FormatDecimal2(1234.567), "1234.57");
  EXPECT_EQ(FormatDecimal2(7), "7");
  EXPECT_EQ(FormatDecimal2(2.10), "2.1");
  EXPECT_EQ(FormatDecimal2(0.5), "0.5");
  EXPECT_EQ(FormatDecimal2(0.125), "0.12");  // exact tie: half-even, like DecimalFormat
  EXPECT_EQ(FormatDecimal2(0.375), "0.38");
  EXPECT_EQ(FormatDecimal2(99.999), "100");
  EXPECT_EQ(FormatDecimal2(0.001), "0");
  EXPECT_EQ(FormatDecimal2(-0.001), "0");
  EXPECT_EQ(FormatDecimal2(0), "0");
  EXPECT_EQ(FormatDecimal2(1e7), "10000000");
  EXPECT_EQ(FormatDecimal2(std::numeric_limits<double>::quiet_NaN()), "NaN");
}

TEST(TextFormat, FormatRemaining) {
  EXPECT_EQ(FormatRemaining(0), "0 seconds");
  EXPECT_EQ(FormatRemaining(-5), "0 seconds");
  EXPECT_EQ(FormatRemaining(1), "1 second");
  EXPECT_EQ(FormatRemaining(59), "59 seconds");
  EXPECT_EQ(FormatRemaining(60), "1 minute");
  EXPECT_EQ(FormatRemaining(65), "1 minute 5 seconds");
  EXPECT_EQ(FormatRemaining(120), "2 minutes");
  EXPECT_EQ(FormatRemaining(3600), "1 hour");
  EXPECT_EQ(FormatRemaining(3605), "1 hour 5 seconds");
  EXPECT_EQ(FormatRemaining(86400 + 3600 + 60 + 1), "1 day 1 hour 1 minute 1 second");
  EXPECT_EQ(FormatRemaining(2 * 86400 + 2 * 3600 + 2 * 60 + 2), "2 days 2 hours 2 minutes 2 seconds");
  EXPECT_EQ(FormatRemaining(3 * 86400 + 59), "3 days 59 seconds");
}

sys_time<milliseconds> At(int y, unsigned mo, unsigned d, int h, int mi, int s, int ms) {
  return sys_days{year{y} / month{mo} / day{d}} + hours{h} + minutes{mi} + seconds{s} + milliseconds{ms};
}

TEST(StatusLine, FullLine) {
  // READ: 1..10 ms. p90 = rank 9 -> 9 ms, bucket highest 9003007 ns -> 9003 us;
  // p99 and above = rank 10 -> max (10002431 clamped to 10000000) -> 10000.
  Histogram read;
  for (int i = 1; i <= 10; ++i) read.Record(1000000ull * i);
  Histogram update = FromSamples({1500, 2500, 2501});  // Avg 2.167 us -> 2.17
  const std::string line =
      FormatStatusLine(At(2026, 12, 2, 16, 0, 10, 123), 10.9, 12345, 1234.5, 65,
                       {{"READ", &read}, {"UPDATE", &update}}, StatusClock::kUtc);
  EXPECT_EQ(line,
            "2026-12-02 16:00:10:123 10 sec: 12345 operations; 1234.5 current ops/sec; "
            "est completion in 1 minute 5 seconds "
            "[READ: Count=10, Max=10000, Min=1000, Avg=5500, 90=9003, 99=10000, 99.9=10000, 99.99=10000] "
            "[UPDATE: Count=3, Max=2, Min=1, Avg=2.17, 90=2, 99=2, 99.9=2, 99.99=2]");
}

TEST(StatusLine, NoEstimateNoOpsAndEmptyHistogram) {
  EXPECT_EQ(FormatStatusLine(At(2026, 1, 5, 7, 8, 9, 4), 0, 0, 0, std::nullopt, {}, StatusClock::kUtc),
            "2026-01-05 07:08:09:004 0 sec: 0 operations; 0 current ops/sec;");
  Histogram empty;
  EXPECT_EQ(FormatStatusLine(At(2026, 1, 5, 7, 8, 9, 4), 3.999, 7, 1.0 / 3, 0, {{"Intended-READ", &empty}},
                             StatusClock::kUtc),
            "2026-01-05 07:08:09:004 3 sec: 7 operations; 0.33 current ops/sec; est completion in 0 seconds "
            "[Intended-READ: Count=0, Max=0, Min=0, Avg=0, 90=0, 99=0, 99.9=0, 99.99=0]");
}

TEST(StatusLine, BeforeTheEpochAndLocalTime) {
  EXPECT_EQ(FormatStatusLine(At(1969, 12, 31, 23, 59, 59, 500), 1, 1, 1, std::nullopt, {}, StatusClock::kUtc),
            "1969-12-31 23:59:59:500 1 sec: 1 operations; 1 current ops/sec;");
  // Local time follows TZ (a POSIX rule, so no time-zone database is needed).
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", "XYZ-5:30", 1);
  tzset();
  const std::string local =
      FormatStatusLine(At(2026, 12, 2, 16, 0, 10, 123), 1, 1, 1, std::nullopt, {}, StatusClock::kLocal);
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  EXPECT_EQ(local, "2026-12-02 21:30:10:123 1 sec: 1 operations; 1 current ops/sec;");
}

TEST(ProgressLine, PlannedRunWithLatencyAndErrors) {
  Histogram h;
  for (int i = 0; i < 100; ++i) h.Record(i < 98 ? 500'000 : 1'230'000);  // p99 = 1.23 ms
  // 120000 of 400000 done in 3 s: 280000 more at 40000/s = 7 s.
  EXPECT_EQ(FormatProgressLine("run", 3.0, 120000, 400000, 41234.9, h, 2),
            "run: 120000/400000 ops (30%), ETA 7 seconds | now 41234 ops/s, p99 1.23 ms | 2 errors");
}

TEST(ProgressLine, TimeBoundedRunNoLatencyOneError) {
  Histogram empty;
  EXPECT_EQ(FormatProgressLine("load", 0.5, 10, 0, 0, empty, 1), "load: 10 ops | now 0 ops/s | 1 error");
  Histogram slow;
  slow.Record(2'500'000'000);
  EXPECT_EQ(FormatProgressLine("run", 1, 5, 5, 5, slow, 0), "run: 5/5 ops (100%) | now 5 ops/s, p99 2.50 s | 0 errors");
  Histogram fast;
  fast.Record(850'000);
  EXPECT_EQ(FormatProgressLine("run", 1, 5, 10, 5, fast, 0),
            "run: 5/10 ops (50%), ETA 1 second | now 5 ops/s, p99 850 us | 0 errors");
}

}  // namespace
}  // namespace storebench
