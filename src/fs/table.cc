// The bonnie++-shaped text table of a `storebench fs` run.
#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

#include "fs/suite.h"

namespace storebench::fs_suite {

namespace {

std::string Fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// bonnie++'s latency style: 123us, 4567us, 12ms, 9110ms, 12s.
std::string Latency(std::uint64_t ns) {
  const std::uint64_t us = (ns + 500) / 1000;
  if (us < 10000) return std::to_string(us) + "us";
  if (us < 10000000) return std::to_string((us + 500) / 1000) + "ms";
  return std::to_string((us + 500000) / 1000000) + "s";
}

// A size as bonnie++ prints it: 512M, 2G, 300k.
std::string Size(std::uint64_t bytes) {
  const char* units[] = {"", "k", "M", "G", "T"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

struct Cell {
  const PhaseResult* phase = nullptr;
  const PhaseExtra* extra = nullptr;
};

Cell Find(const FsResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    if (r.phases[i].phase == name) return {&r.phases[i], &r.extras[i]};
  }
  return {};
}

// A rate in at most 5 characters, so columns never run together: K/sec
// from 100000 up in MiB/s ("355m") or GiB/s ("12.5g"); operations per second
// from 100000 up in thousands ("294k") or millions ("1.2m").
std::string Compact(double v, bool kb, bool fraction) {
  if (kb && v >= 1e7) return Fmt("%.1fg", v / 1048576);
  if (kb && v >= 1e5) return Fmt("%.0fm", v / 1024);
  if (!kb && v >= 1e7) return Fmt("%.1fm", v / 1e6);
  if (!kb && v >= 1e5) return Fmt("%.0fk", v / 1e3);
  return Fmt(fraction && v < 1e4 ? "%.1f" : "%.0f", v);
}

// "  6966   3": the rate (K/sec, or /sec for `per_op`) and the CPU %; blank when not run.
std::string RateCell(const Cell& c, bool per_op, bool fraction = false) {
  if (c.phase == nullptr) return std::string(10, ' ');
  std::string rate = per_op ? Compact(c.phase->throughput_ops_per_s, false, fraction)
                            : Compact(c.extra->kb_per_s, true, false);
  char buf[32];
  std::snprintf(buf, sizeof buf, " %5s %3.0f", rate.c_str(), std::min(c.extra->cpu_percent, 999.0));
  return buf;
}

// Latency of the phase's main operation (its first): max or a percentile.
std::string LatencyCell(const Cell& c, double pct) {
  if (c.phase == nullptr || c.phase->ops.empty()) return std::string(10, ' ');
  const Histogram& h = c.phase->ops[0].service;
  std::string v = Latency(pct >= 100 ? h.max() : h.ValueAtPercentile(pct));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%10s", v.c_str());
  return buf;
}

// True when the result holds any of the named phases.
template <std::size_t N>
bool AnyPhase(const FsResult& r, const char* const (&names)[N]) {
  for (const char* n : names) {
    if (Find(r, n).phase != nullptr) return true;
  }
  return false;
}

}  // namespace

void WriteFsTable(const FsResult& r, const FsOptions& o, const std::string& machine, std::ostream& out) {
  const std::string version = "storebench " STOREBENCH_VERSION;
  const std::string m = machine.substr(0, 14);
  char line[256];
  const char* data[] = {"seq-write-chr", "seq-write-block", "rewrite", "seq-read-chr", "seq-read-block",
                        "random-seeks"};
  if (AnyPhase(r, data)) {
    std::snprintf(line, sizeof line, "%-19s ------Sequential Output------ --Sequential Input- --Random-\n",
                  version.c_str());
    out << line;
    out << "                    -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--\n";
    out << "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP\n";
    std::snprintf(line, sizeof line, "%-14s%5s", m.c_str(), Size(o.size / o.chunk * o.chunk).c_str());
    out << line;
    for (int i = 0; i < 5; ++i) out << RateCell(Find(r, data[i]), false);
    out << RateCell(Find(r, data[5]), true, true) << "\n";
    for (double pct : {99.0, 100.0}) {
      out << (pct >= 100 ? "Latency max        " : "Latency p99        ");
      for (const char* n : data) out << LatencyCell(Find(r, n), pct);
      out << "\n";
    }
  }
  const char* meta[] = {"seq-create", "seq-stat", "seq-delete", "rand-create", "rand-stat", "rand-delete"};
  if (AnyPhase(r, meta)) {
    std::snprintf(line, sizeof line, "%-19s ------Sequential Create------ --------Random Create--------\n",
                  version.c_str());
    out << line;
    std::snprintf(line, sizeof line, "%-19s -Create-- --Stat--- -Delete-- -Create-- --Stat--- -Delete--\n",
                  m.c_str());
    out << line;
    out << "              files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP\n";
    std::string files = std::to_string(o.files);
    if (o.file_size > 0) files += ":" + Size(o.file_size);
    std::snprintf(line, sizeof line, "%19s", files.c_str());
    out << line;
    for (const char* n : meta) out << RateCell(Find(r, n), true);
    out << "\n";
    for (double pct : {99.0, 100.0}) {
      out << (pct >= 100 ? "Latency max        " : "Latency p99        ");
      for (const char* n : meta) out << LatencyCell(Find(r, n), pct);
      out << "\n";
    }
  }
  for (const char* n : {"stream-write", "stream-read"}) {
    Cell c = Find(r, n);
    if (c.phase == nullptr) continue;
    out << n << ": " << c.extra->file_mb_per_s.size() << " x " << Size(o.stream_size) << ", "
        << Fmt("%.1f", c.extra->seconds > 0 ? static_cast<double>(c.extra->bytes) / 1e6 / c.extra->seconds : 0)
        << " MB/s overall, " << Fmt("%.0f", c.extra->cpu_percent) << "% CPU; per file MB/s:";
    for (double v : c.extra->file_mb_per_s) out << " " << Fmt("%.1f", v);
    out << "\n";
  }
  // Every phase and operation, with percentiles.
  out << "\nphase           op            count      ops/s      KB/s  %CPU    p50(us)    p99(us)  p99.9(us)    "
         "max(us) verify\n";
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    const PhaseResult& p = r.phases[i];
    const PhaseExtra& x = r.extras[i];
    for (const OpResult& op : p.ops) {
      const Histogram& h = op.service;
      if (h.count() == 0 && &op != &p.ops[0]) continue;
      const double secs = x.seconds > 0 ? x.seconds : 1;
      std::snprintf(line, sizeof line, "%-15s %-10s %8llu %10.1f %9.0f %5.0f %10.1f %10.1f %10.1f %10.1f %s\n",
                    p.phase.c_str(), op.name.c_str(), static_cast<unsigned long long>(h.count()),
                    static_cast<double>(h.count()) / secs, x.kb_per_s, x.cpu_percent,
                    h.ValueAtPercentile(50) / 1e3, h.ValueAtPercentile(99) / 1e3, h.ValueAtPercentile(99.9) / 1e3,
                    h.max() / 1e3,
                    p.integrity_failures ? ("FAILED " + std::to_string(p.integrity_failures)).c_str() : "ok");
      out << line;
    }
  }
  out << "verified " << r.verified_bytes << " bytes read back: "
      << (r.integrity_failures ? std::to_string(r.integrity_failures) + " mismatches" : std::string("all matched"))
      << "\n";
  if (!r.error.empty()) out << "stopped: " << r.error << " (partial results above)\n";
}

}  // namespace storebench::fs_suite
