#include "report/slo.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string_view>

#include "core/error.h"
#include "report/result_set.h"

namespace storebench {
namespace {

[[noreturn]] void Bad(const std::string& expr, const std::string& why) {
  throw ConfigError("--slo '" + expr + "': " + why +
                    " (expected FIGURE OP BOUND, e.g. p99<=5ms, READ.p99.9<20ms, throughput>=40000, errors<=0.1%)");
}

bool IsLatency(SloGate::Figure f) {
  return f == SloGate::Figure::kPercentile || f == SloGate::Figure::kAverage || f == SloGate::Figure::kMax;
}

double NsPerUnit(const std::string& unit) {
  if (unit == "ns") return 1;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  return 1e9;  // s
}

}  // namespace

SloGate ParseSloGate(const std::string& expr) {
  SloGate g;
  g.expr = expr;
  std::string s;
  for (char c : expr) {
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  }
  const std::size_t at = s.find_first_of("<>");
  if (at == std::string::npos) Bad(expr, "no comparison (<=, <, >=, >)");
  const bool or_equal = at + 1 < s.size() && s[at + 1] == '=';
  g.compare = s[at] == '<' ? (or_equal ? SloGate::Compare::kLe : SloGate::Compare::kLt)
                           : (or_equal ? SloGate::Compare::kGe : SloGate::Compare::kGt);
  std::string figure = s.substr(0, at);
  const std::string bound = s.substr(at + (or_equal ? 2 : 1));
  // An operation type's prefix: READ.p99.
  const std::size_t dot = figure.find('.');
  if (dot != std::string::npos) {
    const std::string prefix = figure.substr(0, dot);
    for (int i = 0; i < kNumOpTypes; ++i) {
      if (prefix == OpName(static_cast<OpType>(i))) {
        g.op = prefix;
        figure = figure.substr(dot + 1);
        break;
      }
    }
    if (g.op.empty() && !prefix.empty() && std::isupper(static_cast<unsigned char>(prefix[0]))) {
      Bad(expr, "unknown operation type '" + prefix + "'");
    }
  }
  if (figure == "avg" || figure == "mean") {
    g.figure = SloGate::Figure::kAverage;
  } else if (figure == "max") {
    g.figure = SloGate::Figure::kMax;
  } else if (figure == "throughput") {
    g.figure = SloGate::Figure::kThroughput;
  } else if (figure == "errors") {
    g.figure = SloGate::Figure::kErrors;
  } else if (figure.size() > 1 && figure[0] == 'p') {
    g.figure = SloGate::Figure::kPercentile;
    const char* b = figure.data() + 1;
    const auto [end, ec] = std::from_chars(b, figure.data() + figure.size(), g.percentile);
    if (ec != std::errc() || end != figure.data() + figure.size() || !(g.percentile > 0 && g.percentile <= 100)) {
      Bad(expr, "'" + figure + "' is not a percentile (p50, p99, p99.9, ...)");
    }
  } else {
    Bad(expr, figure.empty() ? "no figure before the comparison" : "unknown figure '" + figure + "'");
  }
  // The bound: a number, then its unit.
  std::size_t n = 0;
  while (n < bound.size() && (std::isdigit(static_cast<unsigned char>(bound[n])) || bound[n] == '.' ||
                              ((bound[n] == 'e' || bound[n] == 'E') && n > 0))) {
    ++n;
  }
  const auto [end, ec] = std::from_chars(bound.data(), bound.data() + n, g.bound);
  if (n == 0 || ec != std::errc() || end != bound.data() + n || !std::isfinite(g.bound)) {
    Bad(expr, "'" + bound + "' is not a number with a unit");
  }
  g.unit = bound.substr(n);
  if (IsLatency(g.figure)) {
    if (g.unit != "ns" && g.unit != "us" && g.unit != "ms" && g.unit != "s") {
      Bad(expr, g.unit.empty() ? "a latency bound needs its unit (ns, us, ms, s)" : "unknown latency unit '" + g.unit + "'");
    }
  } else if (g.figure == SloGate::Figure::kThroughput) {
    if (!g.unit.empty() && g.unit != "ops/s") Bad(expr, "unknown throughput unit '" + g.unit + "' (ops/s)");
    g.unit = "ops/s";
  } else if (!g.unit.empty() && g.unit != "%") {
    Bad(expr, "unknown unit '" + g.unit + "' for errors (a count, or % of the operations)");
  }
  return g;
}

SloCheck CheckSlo(const SloGate& g, const SloFigures& f) {
  const Histogram* h = f.all;
  if (!g.op.empty()) {
    h = nullptr;
    for (int i = 0; i < kNumOpTypes; ++i) {
      if (g.op == OpName(static_cast<OpType>(i))) h = f.latency[static_cast<std::size_t>(i)];
    }
  }
  double value = std::numeric_limits<double>::quiet_NaN();
  switch (g.figure) {
    case SloGate::Figure::kPercentile:
      if (h && h->count() > 0) value = static_cast<double>(h->ValueAtPercentile(g.percentile)) / NsPerUnit(g.unit);
      break;
    case SloGate::Figure::kAverage:
      if (h && h->count() > 0) value = h->mean() / NsPerUnit(g.unit);
      break;
    case SloGate::Figure::kMax:
      if (h && h->count() > 0) value = static_cast<double>(h->max()) / NsPerUnit(g.unit);
      break;
    case SloGate::Figure::kThroughput:
      value = f.throughput_ops_per_s;
      break;
    case SloGate::Figure::kErrors:
      if (g.unit == "%") {
        if (f.completed > 0) value = 100.0 * static_cast<double>(f.failed) / static_cast<double>(f.completed);
      } else {
        value = static_cast<double>(f.failed);
      }
      break;
  }
  SloCheck c{value, false};
  if (std::isnan(value)) return c;
  switch (g.compare) {
    case SloGate::Compare::kLe: c.pass = value <= g.bound; break;
    case SloGate::Compare::kLt: c.pass = value < g.bound; break;
    case SloGate::Compare::kGe: c.pass = value >= g.bound; break;
    case SloGate::Compare::kGt: c.pass = value > g.bound; break;
  }
  return c;
}

namespace {
// Neither a composite (read-modify-write: its read and update are counted)
// nor the end-of-phase flush counts among a phase's operations.
bool GatedType(std::string_view type) { return type != "READ-MODIFY-WRITE" && type != "CLEANUP"; }
}  // namespace

SloFigures SloFiguresOfInterval(const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& latency,
                                const std::array<std::uint64_t, kNumOpTypes>& failed, double ops_per_s, Histogram& all) {
  SloFigures f;
  for (int i = 0; i < kNumOpTypes; ++i) {
    if (!latency[i] || !GatedType(OpName(static_cast<OpType>(i)))) continue;
    f.latency[static_cast<std::size_t>(i)] = latency[i].get();
    all.Merge(*latency[i]);
    f.completed += latency[i]->count();
    f.failed += failed[i];
  }
  f.all = &all;
  f.throughput_ops_per_s = ops_per_s;
  return f;
}

std::vector<PhaseResult::Slo> CheckSlos(const std::vector<SloGate>& gates, const PhaseResult& ph) {
  std::vector<PhaseResult::Slo> out;
  if (gates.empty()) return out;
  // The phase's figures, once; a gate on one type narrows them to it.
  const Histogram all = CombinedLatency(ph);
  SloFigures phase;
  phase.all = &all;
  phase.throughput_ops_per_s = ph.throughput_ops_per_s;
  phase.completed = ph.operations;
  for (const OpResult& op : ph.ops) {
    const bool failed = op.name.ends_with("-FAILED");
    const std::string type = failed ? op.name.substr(0, op.name.size() - 7) : op.name;
    if (failed && GatedType(type)) phase.failed += op.service.count();
    if (failed) continue;
    for (int i = 0; i < kNumOpTypes; ++i) {
      if (op.name == OpName(static_cast<OpType>(i))) phase.latency[static_cast<std::size_t>(i)] = &ReportedLatency(ph, op);
    }
  }
  const double runtime_s = static_cast<double>(ph.runtime_ms) / 1e3;
  for (const SloGate& g : gates) {
    SloFigures f = phase;
    if (!g.op.empty()) {
      // One type's own operations, failures and rate.
      std::uint64_t ok = 0;
      f.failed = 0;
      for (const OpResult& op : ph.ops) {
        if (op.name == g.op) ok = op.service.count();
        if (op.name == g.op + "-FAILED" && GatedType(g.op)) f.failed = op.service.count();
      }
      f.completed = ok + f.failed;
      f.throughput_ops_per_s = runtime_s > 0 ? static_cast<double>(f.completed) / runtime_s : 0;
    }
    const SloCheck c = CheckSlo(g, f);
    out.push_back({g.expr, c.value, c.pass});
  }
  return out;
}

std::string FormatSloLine(const PhaseResult::Slo& s) {
  char value[64] = "-";
  if (!std::isnan(s.value)) std::snprintf(value, sizeof value, std::fabs(s.value) >= 100 ? "%.1f" : "%.3g", s.value);
  return "[SLO], " + s.expr + ", " + value + ", " + (s.pass ? "PASS" : "FAIL");
}

}  // namespace storebench
