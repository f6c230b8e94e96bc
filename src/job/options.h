// The options of a job's phases, read from its properties: the client's
// (threads, rate, warm-up, measurement: RunnerOptions as the runner takes
// them, plus where the result goes), the workload's, this process's part of
// the work (--part K/N, MPI ranks), and the check that every property is
// known to storebench or to the job's binding.
//
// Pure functions over Properties, called once at setup: they throw
// ConfigError naming the property and its origin (e.g. "plan.toml:12"),
// and read each property they take so that Properties::CheckUnknown knows it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/properties.h"
#include "db/registry.h"
#include "runner/runner.h"
#include "workload/closed_economy.h"
#include "workload/core_workload.h"
#include "workload/sql_query.h"

namespace storebench {

// Passwords never reach the JSON result (nor anything else we print).
bool IsSecretProperty(std::string_view key);

struct ClientOptions {
  // threadcount, connections, errors.max, target, status, status.interval,
  // maxexecutiontime, warmup.*, measurement.interval, hdrhistogram.percentiles,
  // timeseries.granularity (as seconds); the other fields keep their defaults.
  RunnerOptions runner;
  std::string measurementtype = "hdrhistogram";
  std::string exporter;
  std::string exportfile;
  std::string label;
  bool slo_abort = false;  // slo.abort: stop a phase once a status interval fails an --slo gate
};
ClientOptions ReadClientOptions(const Properties& p);

// A note for each property set that storebench accepts but that changes
// nothing (YCSB's histogram.buckets, measurement.raw.*, columnfamily, ...;
// a measurementtype reported as hdrhistogram). Marks all of those known.
std::vector<std::string> IneffectivePropertyNotes(const Properties& props, const ClientOptions& co);

// Where a job's result goes ("" for nowhere): --json (json_flag), else
// exportfile: the YCSB text summary when `exporter` is set to YCSB's
// TextMeasurementsExporter, the JSON result otherwise; bench writes its
// JSON result to storebench-result.json by default.
struct ResultFiles {
  std::string json;
  std::string text;
};
ResultFiles ChooseResultFiles(const ClientOptions& co, const Properties& props, const std::string& json_flag,
                              bool is_bench);

// A run's default label: BINDING-WORKLOAD-THREADS, WORKLOAD being the name
// of the last -P file ("core" without one), e.g. "rocksdb-workloada-4".
std::string DefaultLabel(const std::string& binding, const std::vector<std::string>& property_files, int threads);

// The workload kind named by `workload`: core (YCSB's CoreWorkload, also by
// its class names), closedeconomy (YCSB+T's ClosedEconomyWorkload) or
// sqlquery (Yardstick's SQL query benchmarks).
std::string WorkloadKind(const Properties& props);

// A workload's options. `core` always holds the figures the phases use (how
// many records to load, operations to run); closed economy and SQL query
// workloads also have their own.
struct WorkloadOptions {
  CoreWorkloadOptions core;
  std::optional<ClosedEconomyOptions> closed_economy;
  std::optional<SqlQueryOptions> sql_query;
};
WorkloadOptions ReadWorkloadOptions(const Properties& props, const std::string& kind);

// client.id=K / client.count=N (--part K/N): rewrites this process's share
// of the work into the properties, so that they (and the JSON result) show
// what it did. Load: slice K of [insertstart, insertstart+insertcount).
// Run: slice K of operationcount, target/N, and run-phase inserts from key
// number recordcount + (start of the operationcount slice), so that the
// N processes insert into disjoint ranges that together cover the same key
// numbers as one process would; reads cover the whole insertstart/insertcount
// range (every process sees all records). bench: both, and its run reads
// only the part's own slice, with its run-phase inserts following that
// slice (bench has no barrier between its phases and usually a store of its
// own). Returns the stderr line ("" for one process).
// own_store (MPI ranks with a store directory of their own): the run phase
// too reads only slice K, as bench does.
std::string ApplyPart(Properties& props, const std::string& command, bool own_store);

// A property of another binding is a mistake, not a silent no-op; so is a
// property nobody knows (Properties::CheckUnknown, with `binding`'s own).
void CheckBindingProperties(Properties& props, const BindingInfo& binding);

}  // namespace storebench
