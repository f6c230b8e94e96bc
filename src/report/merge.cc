#include "report/merge.h"
#include "report/slo.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "report/text_report.h"

namespace storebench {
namespace {

std::map<std::string, std::string> PropMap(const RunReport& r) {
  return std::map<std::string, std::string>(r.properties.begin(), r.properties.end());
}

std::string Quoted(const std::string& s) { return "'" + s + "'"; }

[[noreturn]] void Mismatch(const MergeInput& a, const MergeInput& b, const std::string& what) {
  throw ConfigError("merge: " + Quoted(b.name) + " does not belong with " + Quoted(a.name) + ": " + what);
}

std::string PhaseNames(const RunReport& r) {
  std::string s;
  for (const auto& p : r.phases) s += (s.empty() ? "" : ",") + p.phase;
  return s.empty() ? "(none)" : s;
}

void CheckTogether(const MergeInput& a, const MergeInput& b) {
  if (a.report.binding != b.report.binding) {
    Mismatch(a, b, "binding " + Quoted(b.report.binding) + " there, " + Quoted(a.report.binding) + " here");
  }
  if (a.report.command != b.report.command) {
    Mismatch(a, b, "command " + Quoted(b.report.command) + " there, " + Quoted(a.report.command) + " here");
  }
  if (PhaseNames(a.report) != PhaseNames(b.report)) {
    Mismatch(a, b, "phases " + PhaseNames(b.report) + " there, " + PhaseNames(a.report) + " here");
  }
  const auto pa = PropMap(a.report), pb = PropMap(b.report);
  std::set<std::string> keys;
  for (const auto& [k, v] : pa) keys.insert(k);
  for (const auto& [k, v] : pb) keys.insert(k);
  for (const auto& k : keys) {
    if (PerProcessProperty(k)) continue;
    auto ia = pa.find(k), ib = pb.find(k);
    const std::string va = ia == pa.end() ? "(not set)" : Quoted(ia->second);
    const std::string vb = ib == pb.end() ? "(not set)" : Quoted(ib->second);
    if (va != vb) Mismatch(a, b, "property '" + k + "' is " + vb + " there, " + va + " here");
  }
}

std::optional<std::int64_t> IntProp(const RunReport& r, const std::string& key, const std::string& file) {
  for (const auto& [k, v] : r.properties) {
    if (k != key) continue;
    try {
      std::size_t pos = 0;
      const long long x = std::stoll(v, &pos);
      if (pos == v.size()) return x;
    } catch (const std::exception&) {
    }
    throw ConfigError("merge: " + Quoted(file) + ": property '" + key + "' = '" + v + "' is not a whole number");
  }
  return std::nullopt;
}

double DoubleProp(const RunReport& r, const std::string& key, double def) {
  for (const auto& [k, v] : r.properties) {
    if (k == key) {
      try {
        return std::stod(v);
      } catch (const std::exception&) {
        return def;
      }
    }
  }
  return def;
}

OpResult& OpNamed(std::vector<OpResult>& ops, const std::string& name) {
  for (auto& o : ops) {
    if (o.name == name) return o;
  }
  ops.emplace_back();
  ops.back().name = name;
  return ops.back();
}

// Time series aligned by wall-clock time; see the header.
std::vector<IntervalPoint> MergeSeries(const std::vector<const PhaseResult*>& phases, std::int64_t start_ms,
                                       double granularity_ms) {
  struct OpAcc {
    IntervalPoint::Op op;  // mean_us holds the sum of latencies until the end
    std::map<std::uint32_t, std::uint64_t> buckets;
    bool exact = true;     // every contribution carried its histogram
  };
  struct Acc {
    std::uint64_t operations = 0;
    std::vector<OpAcc> ops;
  };
  std::map<std::int64_t, Acc> points;
  for (const PhaseResult* p : phases) {
    for (const IntervalPoint& pt : p->series) {
      const double abs_ms = static_cast<double>(p->start_unix_ms) + pt.t_s * 1000.0;
      const auto idx = std::max<std::int64_t>(
          1, std::llround((abs_ms - static_cast<double>(start_ms)) / granularity_ms));
      Acc& acc = points[idx];
      acc.operations += pt.operations;
      for (const auto& o : pt.ops) {
        OpAcc* m = nullptr;
        for (auto& x : acc.ops) {
          if (x.op.name == o.name) m = &x;
        }
        if (!m) {
          acc.ops.emplace_back();
          m = &acc.ops.back();
          m->op.name = o.name;
          m->op.min_ns = std::numeric_limits<std::uint64_t>::max();
        }
        m->op.count += o.count;
        m->op.errors += o.errors;
        m->op.mean_us += o.mean_us * static_cast<double>(o.count);
        m->op.p50_us = std::max(m->op.p50_us, o.p50_us);
        m->op.p99_us = std::max(m->op.p99_us, o.p99_us);
        m->op.max_us = std::max(m->op.max_us, o.max_us);
        if (o.count > 0 && o.buckets.empty()) m->exact = false;
        for (const auto& [index, n] : o.buckets) m->buckets[index] += n;
        m->op.min_ns = std::min(m->op.min_ns, o.min_ns);
        m->op.max_ns = std::max(m->op.max_ns, o.max_ns);
        m->op.sum_ns += o.sum_ns;
      }
    }
  }
  std::vector<IntervalPoint> out;
  for (auto& [idx, acc] : points) {
    IntervalPoint pt;
    pt.t_s = static_cast<double>(idx) * granularity_ms / 1000.0;
    pt.operations = acc.operations;
    pt.ops_per_s = static_cast<double>(acc.operations) * 1000.0 / granularity_ms;
    for (auto& a : acc.ops) {
      IntervalPoint::Op& o = a.op;
      o.mean_us = o.count ? o.mean_us / static_cast<double>(o.count) : 0;
      if (a.exact && !a.buckets.empty()) {
        // Every part's histogram is here: the union's percentiles, exactly.
        o.buckets.assign(a.buckets.begin(), a.buckets.end());
        o.p50_us = static_cast<double>(Histogram::PercentileOfBuckets(o.buckets, o.min_ns, o.max_ns, 50)) / 1e3;
        o.p99_us = static_cast<double>(Histogram::PercentileOfBuckets(o.buckets, o.min_ns, o.max_ns, 99)) / 1e3;
      } else {
        o.min_ns = o.max_ns = o.sum_ns = 0;
      }
      pt.ops.push_back(std::move(o));
    }
    out.push_back(std::move(pt));
  }
  return out;
}

PhaseResult MergePhase(const std::vector<const PhaseResult*>& phases, double granularity_ms) {
  PhaseResult m;
  const PhaseResult& first = *phases.front();
  m.phase = first.phase;
  m.binding = first.binding;
  m.threads = 0;
  m.measurement_interval = first.measurement_interval;
  m.percentiles = first.percentiles;
  m.start_unix_ms = first.start_unix_ms;
  std::int64_t end_ms = first.start_unix_ms + first.runtime_ms;
  bool all_disk = true;
  std::uint64_t disk = 0;
  std::set<std::string> reasons;
  for (const PhaseResult* p : phases) {
    m.threads += p->threads;
    m.target_ops_per_s += p->target_ops_per_s;
    m.start_unix_ms = std::min(m.start_unix_ms, p->start_unix_ms);
    end_ms = std::max(end_ms, p->start_unix_ms + p->runtime_ms);
    m.operations += p->operations;
    m.interrupted = m.interrupted || p->interrupted;
    m.errors_exceeded = m.errors_exceeded || p->errors_exceeded;
    reasons.insert(p->stop_reason);
    m.integrity_failures += p->integrity_failures;
    // A self-check: the merged result passes only if every part's did.
    if (p->validation && (!m.validation || (m.validation->passed && !p->validation->passed))) {
      m.validation = p->validation;
    }
    if (p->disk_bytes) {
      disk += *p->disk_bytes;
    } else {
      all_disk = false;
    }
    for (const auto& n : p->notes) {
      if (std::find(m.notes.begin(), m.notes.end(), n) == m.notes.end()) m.notes.push_back(n);
    }
    for (const OpResult& o : p->ops) {
      OpResult& t = OpNamed(m.ops, o.name);
      t.service.Merge(o.service);
      t.intended.Merge(o.intended);
      for (int c = 0; c < Status::kNumCodes; ++c) t.return_codes[c] += o.return_codes[c];
    }
  }
  for (const auto& r : reasons) m.stop_reason += (m.stop_reason.empty() ? "" : ",") + r;
  m.runtime_ms = end_ms - m.start_unix_ms;
  m.throughput_ops_per_s =
      m.runtime_ms > 0 ? static_cast<double>(m.operations) * 1000.0 / static_cast<double>(m.runtime_ms) : 0;
  if (all_disk) m.disk_bytes = disk;
  m.series = MergeSeries(phases, m.start_unix_ms, granularity_ms);
  return m;
}

std::string HostName(const RunReport& r) {
  for (const auto& [k, v] : r.host) {
    if (k == "hostname") return v;
  }
  return "";
}

}  // namespace

bool PerProcessProperty(const std::string& key) {
  static const std::set<std::string> kKeys = {
      "client.id", "client.runinsertstart", "insertstart", "insertcount", "operationcount", "target",
      "threadcount", "seed", "exportfile", "exporter", "label", "status", "status.interval"};
  if (kKeys.count(key)) return true;
  return key.size() > 4 && key.compare(key.size() - 4, 4, ".dir") == 0;
}

RunReport MergeResults(const std::vector<MergeInput>& inputs) {
  if (inputs.empty()) throw ConfigError("merge: no result files given: storebench merge PART.json... -o TOTAL.json");
  for (const auto& in : inputs) {
    if (!in.report.parts.empty()) {
      throw ConfigError("merge: " + Quoted(in.name) +
                        " is already a merged result (it has \"parts\"); merge the part files themselves");
    }
  }
  for (std::size_t i = 1; i < inputs.size(); ++i) CheckTogether(inputs[0], inputs[i]);

  // client.id: unique, and all of 0 .. client.count-1 present.
  std::vector<std::pair<std::int64_t, std::size_t>> order;  // (client.id, index)
  std::map<std::int64_t, std::size_t> seen;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto id = IntProp(inputs[i].report, "client.id", inputs[i].name);
    const std::int64_t k = id.value_or(-1);
    if (id) {
      auto [it, fresh] = seen.emplace(k, i);
      if (!fresh) {
        throw ConfigError("merge: " + Quoted(inputs[it->second].name) + " and " + Quoted(inputs[i].name) +
                          " are both client.id " + std::to_string(k) + " (run each part with its own --part K/N)");
      }
    }
    order.emplace_back(k, i);
  }
  if (const auto n = IntProp(inputs[0].report, "client.count", inputs[0].name)) {
    std::string missing;
    for (std::int64_t k = 0; k < *n; ++k) {
      if (!seen.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
    }
    for (const auto& [k, i] : seen) {
      if (k >= *n) {
        throw ConfigError("merge: " + Quoted(inputs[i].name) + " has client.id " + std::to_string(k) +
                          ", not below client.count " + std::to_string(*n));
      }
    }
    if (!missing.empty()) {
      throw ConfigError("merge: client.count is " + std::to_string(*n) + " but " + std::to_string(inputs.size()) +
                        " part(s) given: client.id " + missing + " missing");
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });

  const RunReport& first = inputs[order.front().second].report;
  RunReport m;
  m.tool_version = STOREBENCH_VERSION;
  m.command = first.command;
  m.binding = first.binding;
  const double granularity_ms = std::max(1.0, DoubleProp(first, "timeseries.granularity", 1000));
  for (std::size_t ph = 0; ph < first.phases.size(); ++ph) {
    std::vector<const PhaseResult*> phases;
    for (const auto& [k, i] : order) phases.push_back(&inputs[i].report.phases[ph]);
    m.phases.push_back(MergePhase(phases, granularity_ms));
  }

  std::string hosts;
  std::set<std::string> host_seen;
  for (const auto& [k, i] : order) {
    const RunReport& r = inputs[i].report;
    PartSummary s;
    s.file = inputs[i].name;
    s.hostname = HostName(r);
    s.client_id = k;
    for (const PhaseResult& p : r.phases) {
      s.phases.push_back({p.phase, p.threads, p.start_unix_ms, p.runtime_ms, p.operations, p.throughput_ops_per_s});
    }
    m.parts.push_back(std::move(s));
    if (host_seen.insert(HostName(r)).second) hosts += (hosts.empty() ? "" : ",") + HostName(r);
  }
  m.host = {{"hostname", hosts}};

  // Properties: the first part's, with the per-process shares replaced by totals.
  auto sum_int = [&](const std::string& key) -> std::optional<std::int64_t> {
    std::int64_t total = 0;
    for (const auto& [k, i] : order) {
      const auto v = IntProp(inputs[i].report, key, inputs[i].name);
      if (!v) return std::nullopt;
      total += *v;
    }
    return total;
  };
  const bool loads = std::any_of(first.phases.begin(), first.phases.end(),
                                 [](const PhaseResult& p) { return p.phase == "load"; });
  std::map<std::string, std::string> props = PropMap(first);
  props.erase("client.id");
  props.erase("client.runinsertstart");
  props.erase("exportfile");
  if (auto v = sum_int("threadcount")) props["threadcount"] = std::to_string(*v);
  const bool runs = std::any_of(first.phases.begin(), first.phases.end(),
                                [](const PhaseResult& p) { return p.phase == "run"; });
  if (runs) {
    if (auto v = sum_int("operationcount")) props["operationcount"] = std::to_string(*v);
  }
  if (props.count("target")) {
    double total = 0;
    for (const auto& [k, i] : order) total += DoubleProp(inputs[i].report, "target", 0);
    props["target"] = FormatDouble(total);
  }
  if (loads) {
    std::optional<std::int64_t> lowest;
    for (const auto& [k, i] : order) {
      if (auto v = IntProp(inputs[i].report, "insertstart", inputs[i].name)) {
        lowest = lowest ? std::min(*lowest, *v) : *v;
      }
    }
    if (lowest) props["insertstart"] = std::to_string(*lowest);
    if (auto v = sum_int("insertcount")) props["insertcount"] = std::to_string(*v);
  }
  m.properties.assign(props.begin(), props.end());
  // The parts' gates, held against the whole job's phase.
  for (PhaseResult& ph : m.phases) {
    for (const PhaseResult& part : inputs[order.front().second].report.phases) {
      if (part.phase != ph.phase || part.slo.empty()) continue;
      std::vector<SloGate> gates;
      for (const auto& g : part.slo) gates.push_back(ParseSloGate(g.expr));
      ph.slo = CheckSlos(gates, ph);
    }
  }
  return m;
}

}  // namespace storebench
