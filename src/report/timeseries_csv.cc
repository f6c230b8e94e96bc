#include "report/timeseries_csv.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>

#include "core/error.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kColumns = 11;
constexpr std::array<const char*, kColumns> kNames = {"time_unix_s", "elapsed_s", "phase",  "op",     "operations", "ops_per_s",
                                                      "p50_us",      "p99_us",    "p999_us", "max_us", "errors"};

void PutDouble(std::ostream& out, double v) {
  if (!std::isfinite(v)) {
    out << "nan";
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  out << buf;
}

// Splits one line at commas (no quoting in this format).
std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

struct RowReader {
  const std::string& name;
  std::size_t line_no;

  [[noreturn]] void Fail(std::size_t column, std::string_view field, const std::string& what) const {
    throw ConfigError(name + ":" + std::to_string(line_no) + ": column " + kNames[column] + ": '" + std::string(field) + "' " + what);
  }

  double Double(std::size_t column, std::string_view f) const {
    if (f == "nan") return std::numeric_limits<double>::quiet_NaN();
    double v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v, std::chars_format::fixed);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size() || !std::isfinite(v)) Fail(column, f, "is not a number");
    if (v < 0) Fail(column, f, "is negative");
    return v;
  }

  std::uint64_t Count(std::size_t column, std::string_view f) const {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
    if (f.empty() || ec != std::errc() || end != f.data() + f.size()) Fail(column, f, "is not a count (a whole number >= 0)");
    return v;
  }

  std::string Word(std::size_t column, std::string_view f) const {
    if (f.empty()) Fail(column, f, "is empty");
    return std::string(f);
  }
};

}  // namespace

void WriteTimeseriesHeader(std::ostream& out) { out << kTimeseriesCsvHeader << '\n'; }

void WriteTimeseriesRow(std::ostream& out, const TimeseriesRow& r) {
  PutDouble(out, r.time_unix_s);
  out << ',';
  PutDouble(out, r.elapsed_s);
  out << ',' << r.phase << ',' << r.op << ',' << r.operations << ',';
  for (double v : {r.ops_per_s, r.p50_us, r.p99_us, r.p999_us, r.max_us}) {
    PutDouble(out, v);
    out << ',';
  }
  out << r.errors << '\n';
}

std::vector<TimeseriesRow> ReadTimeseriesCsv(std::istream& in, const std::string& name) {
  std::vector<TimeseriesRow> rows;
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line_no == 1) {
      if (line != kTimeseriesCsvHeader) {
        throw ConfigError(name + ":1: not a storebench time series: the first line must be the header " +
                          std::string(kTimeseriesCsvHeader));
      }
      continue;
    }
    const std::vector<std::string_view> f = Fields(line);
    if (f.size() != kColumns) {
      throw ConfigError(name + ":" + std::to_string(line_no) + ": " + std::to_string(f.size()) + " field(s), expected " +
                        std::to_string(kColumns) + " (" + std::string(kTimeseriesCsvHeader) + ")");
    }
    const RowReader rd{name, line_no};
    TimeseriesRow r;
    r.time_unix_s = rd.Double(0, f[0]);
    r.elapsed_s = rd.Double(1, f[1]);
    r.phase = rd.Word(2, f[2]);
    r.op = rd.Word(3, f[3]);
    r.operations = rd.Count(4, f[4]);
    r.ops_per_s = rd.Double(5, f[5]);
    r.p50_us = rd.Double(6, f[6]);
    r.p99_us = rd.Double(7, f[7]);
    r.p999_us = rd.Double(8, f[8]);
    r.max_us = rd.Double(9, f[9]);
    r.errors = rd.Count(10, f[10]);
    if (r.errors > r.operations) rd.Fail(10, f[10], "is more than the operations (" + std::string(f[4]) + ")");
    rows.push_back(std::move(r));
  }
  if (line_no == 0) {
    throw ConfigError(name + ":1: not a storebench time series: the file is empty, the first line must be the header " +
                      std::string(kTimeseriesCsvHeader));
  }
  return rows;
}

bool IsTimeseriesInput(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return false;
  std::string ext = fs::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".csv") return true;
  // Only the first bytes: a JSON result may be one long line.
  std::ifstream f(path, std::ios::binary);
  std::string head(kTimeseriesCsvHeader.size() + 2, '\0');
  if (!f.read(head.data(), static_cast<std::streamsize>(head.size())) && f.gcount() <= 0) return false;
  head.resize(static_cast<std::size_t>(f.gcount()));
  if (!head.starts_with(kTimeseriesCsvHeader)) return false;
  const std::string_view rest = std::string_view(head).substr(kTimeseriesCsvHeader.size());
  return rest.empty() || rest[0] == '\n' || rest.starts_with("\r\n") || rest == "\r";
}

TimeseriesFile ReadTimeseriesFile(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw ConfigError("cannot read '" + path + "': " + std::strerror(errno));
  TimeseriesFile out;
  out.path = path;
  out.name = fs::path(path).filename().string();
  out.rows = ReadTimeseriesCsv(f, path);
  return out;
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
