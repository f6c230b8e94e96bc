// A Job: one `storebench load|run|bench`, from its properties to its
// result. The command line (cli/) and plans (plan/, whose runs are child
// processes of this binary) both run jobs through this one place.
//
// What a job owns, in order: its properties (the -P files, then the
// overrides, in the order given), its binding's store (opened once, closed
// at the end), its phases (run of a store that keeps its data in this
// process: an unmeasured load first; load; warm-up and run, then the
// workload's own check, e.g. closed economy's total), and its result: the
// YCSB text summary on `out`, the JSON result (--json or exportfile; bench:
// storebench-result.json), the HdrHistogram log (--hdr-log), and notes,
// progress and status lines on `err`. Under mpirun every rank runs the job
// on its part of the work and rank 0 reports the job's merged result
// (job/mpi_job.h).
//
// Promises: every error of input or setup throws ConfigError or SetupError
// before the first operation (the caller prints it; exit code 2). RunJob
// installs SIGINT/SIGTERM handlers that request a stop (a second signal
// ends the process at once): a stopped job still writes its partial
// result. Not reentrant: one job per process at a time.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace storebench {

class Properties;

struct JobSpec {
  std::string command;                                         // load | run | bench
  std::string binding;                                         // "" = the property "db"
  std::vector<std::string> property_files;                     // loaded in order
  std::vector<std::pair<std::string, std::string>> overrides;  // set in order, after the files
  std::string json_file;                                       // "" = exportfile, or none
  std::string hdr_log_file;                                    // "" = none
  std::string timeseries_file;                                 // --timeseries; "" = none
  std::string metrics_listen;                                  // --metrics-listen; "" = none
  std::vector<std::string> slo;                                // --slo gates (report/slo.h)
};

// Runs the job; returns its exit code: 0, 1 (a data integrity or workload
// check failed, or more than errors.max operations failed), 128+signal when
// stopped. Throws ConfigError / SetupError (see above).
int RunJob(const JobSpec& spec, std::ostream& out, std::ostream& err);

// Checks, without opening anything, the properties of one load/run/bench as
// RunJob would: the binding (property "db"), client and workload options,
// no property of another binding, no unknown property. Throws ConfigError
// naming the property and its origin (e.g. "plan.toml:12"). Used by
// `storebench plan` to reject a bad plan before anything runs.
void CheckRunProperties(Properties& props, const std::string& command);

// This host, for a result: hostname, cpus, os, kernel, machine, memory_bytes.
std::vector<std::pair<std::string, std::string>> HostInfo();

}  // namespace storebench
