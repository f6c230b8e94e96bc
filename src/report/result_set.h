// A set of runs read back for `storebench report` and `storebench compare`:
// JSON result files, and result directories written by `storebench plan`
// (an index.json naming one JSON result per run, with each run's status and
// axis values). A run that failed without a result is still listed, with
// its status, so that reports can show it marked.
//
// Plain data; loading reads files and throws ConfigError naming the file.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "measure/histogram.h"
#include "measure/result.h"

namespace storebench {

struct LoadedRun {
  std::string id;      // plan run id, or the JSON file's name
  std::string label;   // the run's name: JSON "label", else the index's, else the binding
  std::string file;    // path of its JSON result; "" when there is none
  std::string status;  // ok | interrupted | failed | pending (planned, never run)
  std::string detail;  // why it failed ("exit code 2"), "" when ok
  std::vector<std::pair<std::string, std::string>> axes;  // plan axis values ("threadcount" -> "4")
  std::optional<RunReport> report;                        // absent when no readable result
  bool is_load = false;  // a plan's load step (index "loads"): reports list it apart; compare skips it

  // The phase a report shows: "run" when there is one, else the last; null without a result.
  const PhaseResult* MainPhase() const;
  // Axis value for `by`: threads (phase threads), target (phase target, ops/s), or
  // the plan's grid value (workload: the file's name), else the result's property
  // of that name; nullopt when unknown.
  std::optional<std::string> AxisValue(const std::string& by) const;
};

// Reads each path: a JSON result file, or a directory holding index.json
// (its load steps first, is_load set, then its runs).
// Throws ConfigError ("report: 'x.json': result JSON: ...") for unreadable input.
std::vector<LoadedRun> LoadResults(const std::vector<std::string>& paths);

// The latency histogram a report summarises for a phase: every operation
// type except *-FAILED merged; intended-start latency when the phase measured
// it (measurement_interval intended or both), else service time.
Histogram CombinedLatency(const PhaseResult& phase);
// The histogram of one op a report shows (same choice of intended/service).
const Histogram& ReportedLatency(const PhaseResult& phase, const OpResult& op);

}  // namespace storebench
