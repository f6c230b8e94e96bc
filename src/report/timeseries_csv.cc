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

}  // namespace storebench
