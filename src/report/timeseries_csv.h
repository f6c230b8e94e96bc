// The time series CSV (`--timeseries FILE.csv` of run, load, bench and
// merge; docs/outputs.md "Time series CSV"): one row per status interval and
// operation type, under exactly this header:
//
//   time_unix_s,elapsed_s,phase,op,operations,ops_per_s,p50_us,p99_us,p999_us,max_us,errors
//
// Both sides of the format live here: the writer the runs call, and the
// reader `storebench report` draws from. Seconds and microseconds are written
// with 3 decimals; no field is quoted (phase and op hold no comma).
//
// Pure functions of their input; thread-safe.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "measure/histogram.h"
#include "measure/result.h"

namespace storebench {

// The header line, without its line break.
inline constexpr std::string_view kTimeseriesCsvHeader =
    "time_unix_s,elapsed_s,phase,op,operations,ops_per_s,p50_us,p99_us,p999_us,max_us,errors";

struct TimeseriesRow {
  double time_unix_s = 0;        // wall-clock end of the interval, seconds since the epoch
  double elapsed_s = 0;          // seconds since the phase's measured start, at the interval's end
  std::string phase;             // load | run
  std::string op;                // READ, UPDATE, INSERT, SCAN, ...
  std::uint64_t operations = 0;  // completed in the interval, successful and failed
  double ops_per_s = 0;          // operations / interval length
  double p50_us = 0;             // latency over the interval, microseconds
  double p99_us = 0;
  double p999_us = 0;
  double max_us = 0;
  std::uint64_t errors = 0;  // failed operations among `operations`
};

// Writes kTimeseriesCsvHeader and a line break.
void WriteTimeseriesHeader(std::ostream& out);
// Writes one row and a line break: doubles with 3 decimals ("%.3f"), a
// non-finite one as "nan". phase and op must hold no comma or line break.
void WriteTimeseriesRow(std::ostream& out, const TimeseriesRow& row);

// The row of one operation type over one interval of `interval_s` seconds
// ending at end_unix_s / elapsed_s, from its latency histogram (ns).
TimeseriesRow TimeseriesRowOf(double end_unix_s, double elapsed_s, double interval_s, std::string_view phase,
                              std::string_view op, const Histogram& latency_ns, std::uint64_t errors);

// The rows of a phase from its series (a merged result's), grouped into
// status intervals of status_interval_s: the series' points must carry
// their histograms (results written with --part or under mpirun do), or
// ConfigError says so.
void WriteTimeseriesOfSeries(const PhaseResult& phase, double status_interval_s, std::ostream& out);

// Reads a whole file: the header line, then rows. `name` (the file's path)
// starts every error: ConfigError "NAME:LINE: ..." for a first line that is
// not the header, and for a row with the wrong number of fields or a field
// that does not read ("NAME:7: column p99_us: 'x' is not a number"). Numbers
// are non-negative decimals (or "nan" for the doubles); a "\r\n" line end is
// accepted.
std::vector<TimeseriesRow> ReadTimeseriesCsv(std::istream& in, const std::string& name);

// A time series file given to `storebench report`.
struct TimeseriesFile {
  std::string path;  // as given
  std::string name;  // its base name, the report section's title
  std::vector<TimeseriesRow> rows;
};

// Whether `path` is read as a time series: a file whose first line is the
// header, or any file named *.csv (which ReadTimeseriesFile then refuses
// when its header is not that one). False for folders and other files.
bool IsTimeseriesInput(const std::string& path);
// Reads `path` with ReadTimeseriesCsv; throws ConfigError when it cannot be read.
TimeseriesFile ReadTimeseriesFile(const std::string& path);

}  // namespace storebench
