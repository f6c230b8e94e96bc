#include "report/timeseries_csv.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

#include "core/error.h"

namespace storebench {

void WriteTimeseriesHeader(std::ostream& out) {
  out << "time_unix_s,elapsed_s,phase,op,operations,ops_per_s,p50_us,p99_us,p999_us,max_us,errors\n";
}

void WriteTimeseriesRow(std::ostream& out, const TimeseriesRow& r) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.3f,%.3f,%s,%s,%llu,%.3f,%.3f,%.3f,%.3f,%.3f,%llu\n", r.time_unix_s, r.elapsed_s,
                r.phase.c_str(), r.op.c_str(), static_cast<unsigned long long>(r.operations), r.ops_per_s, r.p50_us,
                r.p99_us, r.p999_us, r.max_us, static_cast<unsigned long long>(r.errors));
  out << buf;
}

TimeseriesRow TimeseriesRowOf(double end_unix_s, double elapsed_s, double interval_s, std::string_view phase,
                              std::string_view op, const Histogram& h, std::uint64_t errors) {
  TimeseriesRow r;
  r.time_unix_s = end_unix_s;
  r.elapsed_s = elapsed_s;
  r.phase = std::string(phase);
  r.op = std::string(op);
  r.operations = h.count();
  r.ops_per_s = interval_s > 0 ? static_cast<double>(h.count()) / interval_s : 0;
  r.p50_us = static_cast<double>(h.ValueAtPercentile(50)) / 1e3;
  r.p99_us = static_cast<double>(h.ValueAtPercentile(99)) / 1e3;
  r.p999_us = static_cast<double>(h.ValueAtPercentile(99.9)) / 1e3;
  r.max_us = static_cast<double>(h.max()) / 1e3;
  r.errors = errors;
  return r;
}

void WriteTimeseriesOfSeries(const PhaseResult& phase, double status_interval_s, std::ostream& out) {
  if (status_interval_s <= 0) status_interval_s = 10;
  struct OpAcc {
    std::map<std::uint32_t, std::uint64_t> buckets;
    std::uint64_t min_ns = UINT64_MAX, max_ns = 0, sum_ns = 0, errors = 0;
  };
  struct Window {
    double end_s = 0;
    std::map<std::string, OpAcc> ops;  // by name; rows come out in OpType order below
    std::vector<std::string> order;
  };
  std::map<std::int64_t, Window> windows;
  for (const IntervalPoint& pt : phase.series) {
    const auto k = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(pt.t_s / status_interval_s - 1e-9)));
    Window& w = windows[k];
    w.end_s = std::max(w.end_s, pt.t_s);
    for (const IntervalPoint::Op& o : pt.ops) {
      if (o.count == 0) continue;
      if (o.buckets.empty()) {
        throw ConfigError("the " + phase.phase + " phase's series has no per-interval histograms, so its time series "
                          "cannot be rebuilt exactly (results written with --part or under mpirun have them)");
      }
      auto [it, fresh] = w.ops.try_emplace(o.name);
      if (fresh) w.order.push_back(o.name);
      OpAcc& a = it->second;
      for (const auto& [index, n] : o.buckets) a.buckets[index] += n;
      a.min_ns = std::min(a.min_ns, o.min_ns);
      a.max_ns = std::max(a.max_ns, o.max_ns);
      a.sum_ns += o.sum_ns;
      a.errors += o.errors;
    }
  }
  const double start_unix_s = static_cast<double>(phase.start_unix_ms) / 1e3;
  double previous_end_s = 0;
  for (const auto& [k, w] : windows) {
    const double end_s = w.end_s;
    for (const std::string& name : w.order) {
      const OpAcc& a = w.ops.at(name);
      const Histogram h = Histogram::FromBuckets({a.buckets.begin(), a.buckets.end()}, a.min_ns, a.max_ns, a.sum_ns);
      WriteTimeseriesRow(out, TimeseriesRowOf(start_unix_s + end_s, end_s, end_s - previous_end_s, phase.phase, name, h,
                                              a.errors));
    }
    previous_end_s = end_s;
  }
}

}  // namespace storebench
