// The live figures of a run (measure/live_metrics.h) in Prometheus's text
// exposition format, version 0.0.4: what `--metrics-listen` serves at
// /metrics, with the content type kPrometheusTextContentType.
//
// Every family has its # HELP and # TYPE lines, even when it has no series
// yet. Every series carries the labels binding, label, part and phase (each
// always present, possibly empty); label values are escaped as the format
// says (backslash, double quote, newline). The families:
//   storebench_operations_total{...,op,status}   counter: per operation type,
//       one series per status with a non-zero count, and always status="OK"
//   storebench_errors_total                      counter: failed operations, all types
//   storebench_latency_seconds{...,op,kind}      histogram of the operations'
//       latency (as LiveOp keeps it), kind="service" and, with a target rate,
//       kind="intended"; `le` bounds are kLiveLatencyBoundsNs in seconds
//       written as plain decimals ("0.00001", "0.025", "10")
//   storebench_target_ops_per_second, storebench_actual_ops_per_second,
//   storebench_threads, storebench_phase_running, storebench_phase_elapsed_seconds,
//   storebench_phase_operations, storebench_phase_operations_planned   gauges
// Before the first phase (phase "") only the counters' totals and the
// gauges appear, with running 0. Counters restart from zero with each phase
// under the new `phase` label, so each phase is its own set of series.
//
// A pure function of the snapshot: no clock, no I/O, thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "measure/live_metrics.h"

namespace storebench {

inline constexpr std::string_view kPrometheusTextContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string FormatPrometheusText(const LiveSnapshot& s);

// Pieces of the format, exposed for tests:
// A label value with backslash, double quote and newline escaped.
std::string EscapeLabelValue(std::string_view v);
// Nanoseconds as seconds in plain decimal, exact: 25000 -> "0.000025",
// 10'000'000'000 -> "10", 1'500'000'000 -> "1.5".
std::string NanosAsSeconds(std::uint64_t ns);
// A gauge's value: the shortest decimal that reads back the same double,
// never in exponent notation ("20000", "0.5"); NaN and infinities as the
// format spells them ("NaN", "+Inf", "-Inf").
std::string FormatSampleValue(double v);

}  // namespace storebench
