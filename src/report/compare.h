// `storebench compare`: one table from many runs, ready to paste into a
// document. Rows are the runs' labels without the axis (so "rocksdb-workloada-1",
// "-2", "-4" become one row "rocksdb-workloada"), columns are the axis values
// (threads, target or any property), cells one metric of the run phase.
//
// Row key of a run: its label with the axis part removed: for threads the
// "-N" token equal to the run's thread count (the default label
// BINDING-WORKLOAD-THREADS ends with it), for workload the "-NAME" token of
// the workload file's name, for another axis the "-KEY=VALUE"
// token a plan adds for it; a trailing "-repN" (plan repetitions) is removed
// too, and repetitions in one cell are averaged. A label without such a
// token is its own row key.
//
// Cells: throughput = run-phase ops/s; p99 and avg = microseconds over all
// successful operation types merged (CombinedLatency). Values print with one
// decimal; "failed" when the cell has only failed runs, "-" when empty, a
// trailing "*" when a run in it was interrupted (partial result).
#pragma once

#include <string>
#include <vector>

#include "report/result_set.h"

namespace storebench {

struct CompareOptions {
  std::string by = "threads";        // threads | target | a property name
  std::string metric = "throughput"; // throughput | p99 | avg
  std::string format = "text";       // text | markdown | csv
};

// Throws ConfigError for an unknown metric or format.
std::string CompareTable(const std::vector<LoadedRun>& runs, const CompareOptions& options);

// The row key of `label` for axis `by` with value `value` (see above).
std::string CompareRowKey(const std::string& label, const std::string& by, const std::string& value);

}  // namespace storebench
