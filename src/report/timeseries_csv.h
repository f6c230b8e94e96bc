// The CSV time series (`--timeseries FILE.csv`, `merge --timeseries`): one
// row per status interval and operation type, with a header, readable by
// pandas or gnuplot as it is. The format lives here, for the writers (the
// job, live; merge and MPI, from merged series) and the reader (`report`).
//
// Columns: time_unix_s (wall-clock end of the interval, s since the epoch),
// elapsed_s (since the phase's measured start, at the end), phase (load |
// run), op (READ, UPDATE, ...), operations (completed, OK and failed),
// ops_per_s, p50_us, p99_us, p999_us, max_us (latency over the interval, in
// the series' kind: intended with a target rate and measurement.interval
// intended|both, else service), errors (the failed among the operations).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "measure/histogram.h"
#include "measure/result.h"

namespace storebench {

struct TimeseriesRow {
  double time_unix_s = 0;
  double elapsed_s = 0;
  std::string phase;
  std::string op;
  std::uint64_t operations = 0;
  double ops_per_s = 0;
  double p50_us = 0, p99_us = 0, p999_us = 0, max_us = 0;
  std::uint64_t errors = 0;
};

void WriteTimeseriesHeader(std::ostream& out);
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

}  // namespace storebench
