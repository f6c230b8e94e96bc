#include "report/text_report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <string>

#include "core/status.h"
#include "report/slo.h"

namespace storebench {

namespace {

std::string NonFinite(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

// ns -> us, truncated (YCSB reports integral microseconds).
std::uint64_t Us(std::uint64_t ns) { return ns / 1000; }

void WriteLine(std::ostream& out, std::string_view section, std::string_view metric, std::string_view value) {
  out << '[' << section << "], " << metric << ", " << value << '\n';
}

void WriteLine(std::ostream& out, std::string_view section, std::string_view metric, std::uint64_t value) {
  WriteLine(out, section, metric, std::to_string(value));
}

void WriteBlock(std::ostream& out, const std::string& section, const Histogram& h,
                const std::vector<double>& percentiles, const OpResult* return_codes) {
  WriteLine(out, section, "Operations", h.count());
  WriteLine(out, section, "AverageLatency(us)", FormatDouble(h.mean() / 1000.0));
  WriteLine(out, section, "MinLatency(us)", Us(h.min()));
  WriteLine(out, section, "MaxLatency(us)", Us(h.max()));
  for (double p : percentiles) {
    WriteLine(out, section, PercentileOrdinal(p) + "PercentileLatency(us)", Us(h.ValueAtPercentile(p)));
  }
  if (return_codes != nullptr) {
    for (int c = 0; c < Status::kNumCodes; ++c) {
      const std::uint64_t n = return_codes->return_codes[c];
      if (n == 0) continue;
      WriteLine(out, section, "Return=" + std::string(Status::Name(static_cast<Status::Code>(c))), n);
    }
  }
}

}  // namespace

std::string FormatDouble(double v) {
  if (!std::isfinite(v)) return NonFinite(v);
  if (v == 0) return "0";  // also -0
  char buf[400];  // enough for the longest fixed form (~330 chars for 5e-324)
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  return std::string(buf, res.ptr);
}

std::string FormatDecimal2(double v) {
  if (!std::isfinite(v)) return NonFinite(v);
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, 2);
  std::string s(buf, res.ptr);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string PercentileOrdinal(double p) {
  if (std::isfinite(p) && p == std::floor(p) && std::fabs(p) < 1e18) {
    const auto j = static_cast<long long>(p);
    const long long a = j < 0 ? -j : j;
    const char* suffix = "th";
    if (a % 100 < 11 || a % 100 > 13) {
      switch (a % 10) {
        case 1: suffix = "st"; break;
        case 2: suffix = "nd"; break;
        case 3: suffix = "rd"; break;
        default: break;
      }
    }
    return std::to_string(j) + suffix;
  }
  return FormatDouble(p);
}

std::string FormatRemaining(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  struct Unit {
    std::int64_t size;
    const char* singular;
    const char* plural;
  };
  static constexpr Unit kUnits[] = {
      {86400, "day", "days"}, {3600, "hour", "hours"}, {60, "minute", "minutes"}, {1, "second", "seconds"}};
  std::string out;
  for (const Unit& u : kUnits) {
    const std::int64_t n = seconds / u.size;
    seconds %= u.size;
    if (n == 0) continue;
    if (!out.empty()) out += ' ';
    out += std::to_string(n) + ' ' + (n == 1 ? u.singular : u.plural);
  }
  return out.empty() ? "0 seconds" : out;
}

void WriteTextSummary(const PhaseResult& r, std::ostream& out) {
  WriteLine(out, "OVERALL", "RunTime(ms)", std::to_string(r.runtime_ms));
  WriteLine(out, "OVERALL", "Throughput(ops/sec)", FormatDouble(r.throughput_ops_per_s));
  if (r.interrupted) WriteLine(out, "OVERALL", "Interrupted", "true");
  if (r.errors_exceeded) WriteLine(out, "OVERALL", "StoppedOnErrors", "true");
  if (r.disk_bytes) WriteLine(out, "STORE", "DiskUsage(bytes)", *r.disk_bytes);
  if (r.integrity_failures > 0) WriteLine(out, "VERIFY", "IntegrityFailures", r.integrity_failures);
  if (r.validation) {
    WriteLine(out, "VALIDATE", "Passed", r.validation->passed ? "true" : "false");
    for (const auto& [k, v] : r.validation->figures) WriteLine(out, "VALIDATE", k, v);
  }

  const bool intended_only = r.measurement_interval == "intended";
  const bool both = r.measurement_interval == "both";
  for (const OpResult& op : r.ops) {
    if (!intended_only) WriteBlock(out, op.name, op.service, r.percentiles, &op);
    if (intended_only || both) {
      WriteBlock(out, "Intended-" + op.name, op.intended, r.percentiles, intended_only ? &op : nullptr);
    }
  }
  for (const auto& g : r.slo) out << FormatSloLine(g) << "\n";
}

std::string FormatStatusLine(std::chrono::system_clock::time_point now, double elapsed_s,
                             std::uint64_t total_ops, double interval_ops_per_s,
                             std::optional<std::int64_t> remaining_s, const std::vector<StatusOp>& ops,
                             StatusClock clock) {
  using namespace std::chrono;
  const auto ms = floor<milliseconds>(now).time_since_epoch().count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  long long millis = ms % 1000;
  if (millis < 0) millis += 1000, secs -= 1;
  std::tm tm{};
  if (clock == StatusClock::kUtc) {
    gmtime_r(&secs, &tm);
  } else {
    localtime_r(&secs, &tm);
  }
  char date[64];
  const std::size_t n = std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm);
  char millis_buf[8];
  std::snprintf(millis_buf, sizeof millis_buf, ":%03lld", millis);

  std::string s(date, n);
  s += millis_buf;
  const double whole = std::isfinite(elapsed_s) && elapsed_s > 0 ? std::floor(elapsed_s) : 0.0;
  s += ' ' + std::to_string(static_cast<long long>(whole)) + " sec: ";
  s += std::to_string(total_ops) + " operations; ";
  s += FormatDecimal2(interval_ops_per_s) + " current ops/sec;";
  if (remaining_s) s += " est completion in " + FormatRemaining(*remaining_s);
  for (const StatusOp& op : ops) {
    const Histogram& h = *op.histogram;
    s += " [";
    s += op.name;
    s += ": Count=" + std::to_string(h.count());
    s += ", Max=" + std::to_string(Us(h.max()));
    s += ", Min=" + std::to_string(Us(h.min()));
    s += ", Avg=" + FormatDecimal2(h.mean() / 1000.0);
    s += ", 90=" + std::to_string(Us(h.ValueAtPercentile(90)));
    s += ", 99=" + std::to_string(Us(h.ValueAtPercentile(99)));
    s += ", 99.9=" + std::to_string(Us(h.ValueAtPercentile(99.9)));
    s += ", 99.99=" + std::to_string(Us(h.ValueAtPercentile(99.99)));
    s += ']';
  }
  return s;
}

std::string FormatLatency(double ns) {
  char buf[32];
  if (ns < 1e6) {
    std::snprintf(buf, sizeof buf, "%.3g us", ns / 1e3);
  } else if (ns < 1e9) {
    std::snprintf(buf, sizeof buf, "%.2f ms", ns / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  }
  return buf;
}

std::string FormatProgressLine(std::string_view phase, double elapsed_s, std::uint64_t done,
                               std::uint64_t planned, double last_ops_per_s, const Histogram& last_latency,
                               std::uint64_t errors) {
  std::string s(phase);
  s += ": " + std::to_string(done);
  if (planned > 0) {
    const double share = static_cast<double>(done) / static_cast<double>(planned);
    s += "/" + std::to_string(planned) + " ops (" + std::to_string(static_cast<int>(100.0 * share)) + "%)";
    if (done > 0 && elapsed_s > 0 && done < planned) {
      const double eta_s = elapsed_s * static_cast<double>(planned - done) / static_cast<double>(done);
      s += ", ETA " + FormatRemaining(static_cast<std::int64_t>(std::ceil(eta_s)));
    }
  } else {
    s += " ops";
  }
  s += " | now " + std::to_string(static_cast<std::uint64_t>(std::max(0.0, last_ops_per_s))) + " ops/s";
  if (last_latency.count() > 0) s += ", p99 " + FormatLatency(static_cast<double>(last_latency.ValueAtPercentile(99)));
  s += " | " + std::to_string(errors) + (errors == 1 ? " error" : " errors");
  return s;
}

}  // namespace storebench
