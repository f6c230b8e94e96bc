// YCSB-compatible text output: the end-of-phase summary and the periodic
// status line. Scripts that parse YCSB's output must parse ours.
//
// Summary (WriteTextSummary), one figure per line, "[SECTION], Metric, value":
//   [OVERALL], RunTime(ms), 10110
//   [OVERALL], Throughput(ops/sec), 98.91196834817013
//   [OVERALL], Interrupted, true                 (only when interrupted)
//   [STORE], DiskUsage(bytes), 123456            (only when disk_bytes is set)
//   [VERIFY], IntegrityFailures, 2               (only when > 0)
//   [READ], Operations, 4962
//   [READ], AverageLatency(us), 345.612
//   [READ], MinLatency(us), 123
//   [READ], MaxLatency(us), 12345
//   [READ], 50thPercentileLatency(us), 301       (one per r.percentiles, in order)
//   [READ], 95thPercentileLatency(us), 567
//   [READ], 99thPercentileLatency(us), 890
//   [READ], Return=OK, 4962                      (non-zero codes, in Status::Code order)
//   [READ], Return=NOT_FOUND, 3
//   [Intended-READ], Operations, 4962            (measurement.interval=intended|both)
//   ...
// Latencies are microseconds: Min/Max/percentiles are integers (ns / 1000,
// truncated), AverageLatency is mean_ns / 1000 as a double. An operation with
// no samples prints Operations 0 and zeros (never NaN).
//
// Per OpResult, by r.measurement_interval:
//   "op"       [NAME] from `service`, with the Return= lines
//   "both"     [NAME] from `service` with the Return= lines, then
//              [Intended-NAME] from `intended` (no Return= lines)
//   "intended" only [Intended-NAME] from `intended`, with the Return= lines
// (any other value is treated as "op").
//
// Differences from YCSB, on purpose: op blocks in r.ops order (stable), and
// doubles never in exponent notation (see FormatDouble).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "measure/histogram.h"
#include "measure/result.h"

namespace storebench {

void WriteTextSummary(const PhaseResult& r, std::ostream& out);

// The shortest decimal string that reads back as exactly `v`, in fixed
// notation, never with an exponent (std::to_chars, chars_format::fixed,
// shortest): 98.91196834817013, 0.001, 10000000 (not 1.0E7), and integral
// values without a fraction: 2000 (not Java's 2000.0). -0 prints as 0.
// Non-finite values print as "NaN", "Infinity", "-Infinity" (Java's names).
std::string FormatDouble(double v);

// YCSB's "#.##" (DecimalFormat, half-even): at most 2 decimals, trailing
// zeros and a trailing point dropped: 1234.5, 0.33, 7. Unlike Java, a value
// below 1 keeps its leading zero (0.5, not .5). Non-finite as FormatDouble.
std::string FormatDecimal2(double v);

// YCSB's ordinal() for percentile labels: integral values get st/nd/rd/th
// (11, 12, 13 -> th): 1st, 2nd, 3rd, 11th, 50th, 101st; others print as
// FormatDouble: 99.9.
std::string PercentileOrdinal(double p);

// "N days N hours N minutes N seconds" (singular for 1), zero units left out
// ("1 hour 5 seconds"), "0 seconds" for 0; negative counts as 0. Unlike
// YCSB's RemainingFormatter, the smaller units are never dropped.
std::string FormatRemaining(std::int64_t seconds);

// One bracketed part of the status line: an operation's interval histogram.
struct StatusOp {
  std::string_view name;        // "READ", "Intended-READ", ...
  const Histogram* histogram;   // interval histogram (ns); must not be null
};

enum class StatusClock { kLocal, kUtc };

// YCSB's StatusThread line (no trailing newline):
//   2026-12-02 16:00:10:123 10 sec: 12345 operations; 1234.5 current ops/sec; est completion in 1 minute 5 seconds [READ: Count=100, Max=2047, Min=12, Avg=301.25, 90=500, 99=1000, 99.9=2047, 99.99=2047] [UPDATE: ...]
// - now: the wall-clock time, printed "yyyy-MM-dd HH:mm:ss:SSS" in local
//   time (or UTC with StatusClock::kUtc, for tests);
// - elapsed_s: seconds since the phase started, printed truncated to an integer;
// - total_ops: operations done so far;
// - interval_ops_per_s: throughput over the last interval, "#.##" (FormatDecimal2);
// - remaining_s: estimated seconds to completion; std::nullopt (unknown, e.g.
//   a time-bounded run) leaves out the "est completion in ..." part;
// - ops: one "[NAME: ...]" part each, in order. Values are microseconds:
//   Max, Min and the 90/99/99.9/99.99 percentiles as integers (ns / 1000,
//   truncated), Avg as "#.##"; an empty histogram prints zeros.
// Parts are separated by single spaces (YCSB leaves a trailing space; we do not).
std::string FormatStatusLine(std::chrono::system_clock::time_point now, double elapsed_s,
                             std::uint64_t total_ops, double interval_ops_per_s,
                             std::optional<std::int64_t> remaining_s, const std::vector<StatusOp>& ops,
                             StatusClock clock = StatusClock::kLocal);

// A latency in nanoseconds as people read it, 3 significant digits:
// "0.445 us", "850 us", "1.23 ms", "2.50 s".
std::string FormatLatency(double ns);

// The progress line shown on a terminal (rewritten in place, without the
// "\r"): "run: 120000/400000 ops (30%), ETA 7 seconds | now 41234 ops/s,
// p99 1.23 ms | 0 errors" ("now": the last series interval). planned 0 (a time-bounded run) leaves out the
// total, share and ETA; the ETA comes from the phase's average rate.
// `last_latency`: the last series interval's operations (empty: no p99).
std::string FormatProgressLine(std::string_view phase, double elapsed_s, std::uint64_t done,
                               std::uint64_t planned, double last_ops_per_s, const Histogram& last_latency,
                               std::uint64_t errors);

}  // namespace storebench
