// The result of one phase (load or run): what the reporters print and the
// JSON file holds. Filled by the runner after the phase; plain data.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "measure/histogram.h"

namespace storebench {

// One operation type's figures, e.g. "READ", "READ-FAILED", "UPDATE".
struct OpResult {
  std::string name;        // YCSB's measurement name
  Histogram service;       // latency from the actual start of the call (ns)
  Histogram intended;      // latency from the operation's intended start (ns); == service without -target
  // Return-code counts for the base operation (YCSB prints them in the
  // base block: [READ], Return=NOT_FOUND, 3); index = Status::Code.
  std::array<std::uint64_t, Status::kNumCodes> return_codes{};
};

// One second (interval) of the run, merged over all threads.
struct IntervalPoint {
  double t_s = 0;          // seconds since the phase started, at the end of the interval
  std::uint64_t operations = 0;
  double ops_per_s = 0;
  struct Op {
    std::string name;
    std::uint64_t count = 0;    // completed operations, OK and failed
    double mean_us = 0;
    double p50_us = 0;
    double p99_us = 0;
    double max_us = 0;
    // The interval's latency histogram (non-empty buckets as (index, count),
    // min/max/sum in ns), kept only in results meant to be merged (MPI ranks,
    // --part; RunnerOptions::series_histograms): with it a merged point's
    // percentiles are exact, and its HdrHistogram log can be written.
    std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets;
    std::uint64_t min_ns = 0, max_ns = 0, sum_ns = 0;
    std::uint64_t errors = 0;  // the failed among `count`
  };
  std::vector<Op> ops;
};

// A check of what a run left in the store, made after the run phase by
// workloads that can (closed economy: the sum of all balances).
struct ValidationResult {
  std::string workload;  // e.g. "closedeconomy"
  bool passed = false;
  std::string summary;   // one line for the user
  // The figures behind it, e.g. ("expected_total", "1000000").
  std::vector<std::pair<std::string, std::string>> figures;
};

struct PhaseResult {
  std::string phase;                // "load" or "run"
  std::string binding;
  int threads = 1;
  double target_ops_per_s = 0;      // 0 = unthrottled
  std::string measurement_interval = "op";  // op | intended | both
  std::vector<double> percentiles = {50, 95, 99};  // hdrhistogram.percentiles
  std::int64_t start_unix_ms = 0;
  std::int64_t runtime_ms = 0;
  std::uint64_t operations = 0;     // all operations done (ok or not)
  double throughput_ops_per_s = 0;
  bool interrupted = false;         // stopped by SIGINT/SIGTERM: partial results
  bool errors_exceeded = false;     // stopped because more than errors.max operations failed
  std::string stop_reason;          // "operationcount", "maxexecutiontime", "signal", ...
  std::vector<OpResult> ops;        // stable order (see runner)
  std::vector<IntervalPoint> series;
  std::optional<std::uint64_t> disk_bytes;  // store size on disk after the phase
  std::vector<std::pair<std::string, std::string>> store_stats;
  std::uint64_t integrity_failures = 0;     // dataintegrity mismatches
  std::vector<std::string> notes;           // e.g. accepted-but-ignored properties
  std::optional<ValidationResult> validation;  // run phase of a workload that checks itself
  // The gates (`--slo`) this phase was held to, with what it measured.
  struct Slo {
    std::string expr;   // as given: "p99<=5ms"
    double value = 0;   // the phase's figure, in the expression's unit (ms here)
    bool pass = false;
  };
  std::vector<Slo> slo;
};

// One client process's figures, kept in a merged result (storebench merge).
struct PartSummary {
  std::string file;              // the part's JSON file, as given to merge
  std::string hostname;          // its host.hostname
  std::int64_t client_id = -1;   // its client.id; -1 when the file has none
  struct Phase {
    std::string phase;
    int threads = 0;
    std::int64_t start_unix_ms = 0;
    std::int64_t runtime_ms = 0;
    std::uint64_t operations = 0;
    double throughput_ops_per_s = 0;
  };
  std::vector<Phase> phases;
};

// Everything written to the JSON result file.
struct RunReport {
  std::string tool_version;
  std::string command;                       // load | run | bench
  std::string binding;
  // Names the run in reports and comparisons (property `label`; by default
  // BINDING-WORKLOAD-THREADS, e.g. "rocksdb-workloada-4"). "" in results
  // written before labels existed.
  std::string label;
  std::vector<std::pair<std::string, std::string>> properties;  // every property in force
  std::vector<std::pair<std::string, std::string>> host;        // hostname, cpus, kernel, ...
  std::vector<PhaseResult> phases;
  std::vector<PartSummary> parts;            // merged results only: one per part, by client.id
};

}  // namespace storebench
