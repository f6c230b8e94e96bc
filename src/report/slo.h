// Service-level gates (`--slo EXPR`, issue 30): a bound on one figure of a
// phase, checked when the phase ends (and, with slo.abort=true, over every
// status interval while it runs), so that a CI pipeline can keep a store's
// performance from regressing.
//
// EXPR is FIGURE OP BOUND, without spaces or with:
//   FIGURE  p50, p90, p99, p99.9, ... (any pNN), avg, max: latency of every
//           operation type together (the latency the report shows: from the
//           intended start when the phase measured it), or of one type with
//           a prefix: READ.p99, UPDATE.max;
//           throughput: operations per second;
//           errors: failed operations, as a count, or with % as a share of
//           all completed operations.
//   OP      <=, <, >=, >
//   BOUND   a number with a unit: ns, us, ms, s for latency (required);
//           ops/s optional for throughput; % or nothing for errors.
// Examples: p99<=5ms, READ.p99.9<20ms, throughput>=40000, errors<=0.1%.
//
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "measure/histogram.h"
#include "measure/op_type.h"
#include "measure/result.h"

namespace storebench {

struct SloGate {
  enum class Figure { kPercentile, kAverage, kMax, kThroughput, kErrors };
  enum class Compare { kLe, kLt, kGe, kGt };
  std::string expr;          // as given
  Figure figure = Figure::kPercentile;
  double percentile = 99;    // kPercentile
  std::string op;            // "" = every operation type
  Compare compare = Compare::kLe;
  double bound = 0;          // in `unit`
  std::string unit;          // "ns", "us", "ms", "s", "ops/s", "%", "" (an error count)
};

// Parses one expression; throws ConfigError "--slo 'p99<5': ..." naming what
// is wrong.
SloGate ParseSloGate(const std::string& expr);

// The figures a gate reads, from a phase's result or from one interval.
struct SloFigures {
  // Latency (ns) per operation type, and of all types together (failures
  // excluded when they can be told apart).
  std::array<const Histogram*, kNumOpTypes> latency{};
  const Histogram* all = nullptr;
  double throughput_ops_per_s = 0;
  std::uint64_t completed = 0;  // operations, OK and failed
  std::uint64_t failed = 0;
};

// The gate's figure in its unit (NaN when there is nothing to measure, e.g.
// no operation of that type), and whether it passes (NaN never does).
struct SloCheck {
  double value = 0;
  bool pass = false;
};
SloCheck CheckSlo(const SloGate& gate, const SloFigures& figures);

// The figures of one status interval (slo.abort): its histograms and
// failures per type, its throughput. `all` receives every gated type's
// latency merged (the figures point into it and into `latency`).
SloFigures SloFiguresOfInterval(const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& latency,
                                const std::array<std::uint64_t, kNumOpTypes>& failed, double ops_per_s, Histogram& all);

// Every gate against a phase's result, in order.
std::vector<PhaseResult::Slo> CheckSlos(const std::vector<SloGate>& gates, const PhaseResult& phase);

// "[SLO], p99<=5ms, 4.61, PASS" (or FAIL; the value with 3 significant digits,
// one decimal from 100 on, "-" when there was nothing to measure).
std::string FormatSloLine(const PhaseResult::Slo& slo);

}  // namespace storebench
