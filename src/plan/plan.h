// `storebench plan FILE.toml`: a study described in one TOML file, expanded
// into runs, checked as a whole before anything runs, then executed one run
// at a time, each as a child process of this same binary.
//
// Plan file (every key optional except at least one binding):
//
//   results = "results/threads"      # results directory (default results/<file stem>), relative to cwd
//   repetitions = 1                  # each run this many times (labels get -rep1, -rep2, ...)
//   warmup_s = 1                     # warm-up per run, s (property warmup.seconds)
//   duration_s = 5                   # measured time per run, s (maxexecutiontime, operationcount=0)
//   load_threads = 2                 # threads of each load step (default 1)
//   [properties]                     # common properties of every run (nested tables flatten to a.b)
//   recordcount = 10000
//   [axes]                           # a grid: every combination, first key outermost
//   binding = ["rocksdb", "lmdb"]    # bindings
//   workload = ["workloads/workloada", "workloads/workloadb"]   # property files (-P), relative to cwd
//   threads = [1, 2, 4, 8]           # threadcount
//   target = [500, 1000]             # or any property: a list of values
//   [[runs]]                         # more grids (a scalar is one value), added after [axes]
//   binding = "sqlite"
//   threads = [1, 2]
//
// Label of a run: BINDING-WORKLOAD-THREADS, then "-KEY=VALUE" for every
// other key given a list of values in its grid, then "-repN" when
// repetitions > 1 (what `compare` strips to make rows); or the grid's own
// `label` (a [[runs]] entry of one run). Run ids are the labels made
// file-safe; two runs with one label are an error. A common property
// BINDING.x applies to that binding's runs only.
//
// Load once: runs of a binding that keeps data (a directory, or a server)
// are grouped by binding and load-relevant properties (recordcount,
// field sizes, insert order, the binding's own properties); each group is
// loaded once (a `load` step into its own store directory under the results
// directory) and its runs then `run` on that store, one after another (the
// group takes the place of its first run in the plan's order). The
// store directory is removed when its group is done. In-process stores
// (memory) load inside each run, unmeasured.
//
// Results directory: one JSON result per run (ID.json) and its output
// (ID.log), load-GROUP.json per load step, and index.json (rewritten after
// every step): {"plan", "loads": [...], "runs": [{"id", "label", "file",
// "log", "status", "detail", "exit_code", "repetition", "axes": {...}}]},
// status ok | failed | interrupted | pending.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storebench {

using PropertyList = std::vector<std::pair<std::string, std::string>>;

struct PlannedRun {
  std::string id;                 // unique, file-safe (from the label)
  std::string label;
  std::string binding;
  std::string workload_file;      // -P file; "" for none
  int repetition = 1;             // 1-based
  PropertyList properties;        // -p overrides, in order (label included)
  PropertyList axes;              // the grid's values: "binding", "workload", "threadcount", "target", ...
  std::string origin;             // "plan.toml:12": the grid entry that made it
  int load_group = -1;            // index into Plan::loads; -1: the run loads by itself
};

struct LoadStep {
  std::string id;                 // "load-rocksdb-1"
  std::string binding;
  std::string workload_file;
  PropertyList properties;        // -p overrides of the load command
  std::string store_dir;          // BINDING.dir ("" for a server)
};

struct Plan {
  std::string file;
  std::string results_dir;
  std::vector<LoadStep> loads;
  std::vector<PlannedRun> runs;
};

// Parses and expands a plan and checks every run's properties as the run
// command would (binding, workload file, property names and values). Throws
// ConfigError "FILE:LINE: ..." for the first problem.
Plan ParsePlanText(std::string_view toml, const std::string& file_name);
Plan ParsePlanFile(const std::string& path);

// The arguments (after the program name) of the child process for a run / a load step.
std::vector<std::string> RunArgs(const Plan& plan, const PlannedRun& run);
std::vector<std::string> LoadArgs(const Plan& plan, const LoadStep& load);

// storebench plan FILE --dry-run: checks the plan and prints each step's
// command line, in execution order (a load step before its first run).
int PrintPlan(const std::vector<std::string>& inputs, std::ostream& out);

// storebench plan FILE [--resume]: returns the exit code (0 all ok, 1 some
// run failed, 2 bad plan, 130/143 interrupted).
int RunPlanCommand(const std::vector<std::string>& inputs, bool resume, std::ostream& out, std::ostream& err);

}  // namespace storebench
