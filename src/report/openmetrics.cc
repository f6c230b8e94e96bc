#include "report/openmetrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

namespace storebench {
namespace {

void Family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void Label(std::string& out, std::string_view name, std::string_view value) {
  if (out.back() != '{') out += ',';
  out += name;
  out += "=\"";
  out += EscapeLabelValue(value);
  out += '"';
}

// `{binding="...",label="...",part="...",phase="..."`, left open for more labels.
std::string BaseLabels(const LiveSnapshot& s) {
  std::string out = "{";
  Label(out, "binding", s.binding);
  Label(out, "label", s.label);
  Label(out, "part", s.part);
  Label(out, "phase", s.phase);
  return out;
}

void Sample(std::string& out, std::string_view name, const std::string& labels, std::string_view value) {
  out += name;
  out += labels;
  out += "} ";
  out += value;
  out += '\n';
}

void HistogramSeries(std::string& out, const std::string& labels, const LiveLatency& l) {
  // Cumulative counts must not fall from one bound to the next nor exceed
  // the total (the exposition's promise); the source promises it too, this
  // only keeps a scraper's quantiles sane should it ever not hold.
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < kLiveLatencyBoundsNs.size(); ++i) {
    cumulative = std::min(std::max(cumulative, l.at_or_below[i]), l.count);
    std::string bucket = labels;
    Label(bucket, "le", NanosAsSeconds(kLiveLatencyBoundsNs[i]));
    Sample(out, "storebench_latency_seconds_bucket", bucket, std::to_string(cumulative));
  }
  std::string inf = labels;
  Label(inf, "le", "+Inf");
  Sample(out, "storebench_latency_seconds_bucket", inf, std::to_string(l.count));
  Sample(out, "storebench_latency_seconds_sum", labels, NanosAsSeconds(l.sum_ns));
  Sample(out, "storebench_latency_seconds_count", labels, std::to_string(l.count));
}

}  // namespace

std::string EscapeLabelValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out += c;
    }
  }
  return out;
}

std::string NanosAsSeconds(std::uint64_t ns) {
  std::string out = std::to_string(ns / 1'000'000'000);
  std::uint64_t frac = ns % 1'000'000'000;
  if (frac == 0) return out;
  std::string digits = std::to_string(frac);
  digits.insert(0, 9 - digits.size(), '0');
  digits.erase(digits.find_last_not_of('0') + 1);
  return out + "." + digits;
}

std::string FormatSampleValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[400];  // fixed notation of the largest double fits in 310 characters
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, r.ptr);
}

std::string FormatPrometheusText(const LiveSnapshot& s) {
  const std::string base = BaseLabels(s);
  // Before the first phase there is nothing per operation to show.
  const std::vector<LiveOp> none;
  const std::vector<LiveOp>& ops = s.phase.empty() ? none : s.ops;
  std::string out;
  out.reserve(4096 + ops.size() * 6144);

  Family(out, "storebench_operations_total", "counter",
         "Operations completed in the phase, per operation type and result status (YCSB's Return= names).");
  for (const LiveOp& op : ops) {
    for (int code = 0; code < Status::kNumCodes; ++code) {
      const std::uint64_t n = op.by_status[static_cast<std::size_t>(code)];
      if (n == 0 && code != Status::kOk) continue;
      std::string labels = base;
      Label(labels, "op", op.name);
      Label(labels, "status", Status::Name(static_cast<Status::Code>(code)));
      Sample(out, "storebench_operations_total", labels, std::to_string(n));
    }
  }

  Family(out, "storebench_errors_total", "counter", "Failed operations in the phase, all types.");
  Sample(out, "storebench_errors_total", base, std::to_string(s.errors));

  Family(out, "storebench_latency_seconds", "histogram",
         "Latency of the phase's operations: kind=\"service\" from the actual start, "
         "kind=\"intended\" from the start the target rate scheduled.");
  for (const LiveOp& op : ops) {
    std::string labels = base;
    Label(labels, "op", op.name);
    std::string service = labels;
    Label(service, "kind", "service");
    HistogramSeries(out, service, op.service);
    if (op.has_intended) {
      std::string intended = labels;
      Label(intended, "kind", "intended");
      HistogramSeries(out, intended, op.intended);
    }
  }

  struct Gauge {
    std::string_view name, help;
    std::string value;
  };
  const Gauge gauges[] = {
      {"storebench_target_ops_per_second", "The target rate of the phase in operations per second (0: unthrottled).",
       FormatSampleValue(s.target_ops_per_s)},
      {"storebench_actual_ops_per_second", "Operations per second over the last series interval.",
       FormatSampleValue(s.actual_ops_per_s)},
      {"storebench_threads", "Client threads of the phase.", std::to_string(s.threads)},
      {"storebench_phase_running", "1 while the phase runs, 0 before, between and after phases.",
       s.running ? "1" : "0"},
      {"storebench_phase_elapsed_seconds", "Seconds since the phase's measured start.",
       FormatSampleValue(s.elapsed_s)},
      {"storebench_phase_operations", "Operations done in the phase so far.", std::to_string(s.operations)},
      {"storebench_phase_operations_planned", "Operations the phase will do (0: until a time limit or a stop).",
       std::to_string(s.operations_planned)},
  };
  for (const Gauge& g : gauges) {
    Family(out, g.name, "gauge", g.help);
    Sample(out, g.name, base, g.value);
  }
  return out;
}

}  // namespace storebench
