// The charts of a report, grouped so that each can be read: a study's answer
// (its figures against the axis it varies, as small multiples), the per-run
// detail split into charts of at most 12 series, and a single run's
// dashboard. Used by html_report.cc; pure functions of the runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/result_set.h"
#include "report/svg_chart.h"

namespace storebench {

// At most this many series on one chart (the styles that stay apart without colour).
inline constexpr std::size_t kMaxSeriesPerChart = 12;

// The axis a study varies: "threads", "target", or a plan axis (a property
// name) with at least two values among `runs` (binding and workload are what
// the lines and panels are made of, never the axis); nullopt when none.
std::optional<std::string> StudyAxis(const std::vector<const LoadedRun*>& runs);

// The section a study's report opens with (`<section id="answer">`):
// throughput, p99 and p99.9 against `axis`, one panel per workload (per
// operation type when there is one workload), one line per store or label,
// panels of a metric sharing their y axis; above them a summary naming, per
// panel, the best and worst line at the largest axis value.
std::string AnswerSection(const std::vector<const LoadedRun*>& runs, const std::string& axis);

// Splits a chart of more than kMaxSeriesPerChart series into several ("(1/2)"
// in the title, "-1", "-2" in the id), keeping companions with their series.
std::vector<ChartSpec> SplitChart(ChartSpec chart);

// The latency of `op` by percentile (0, 90, 99, 99.9, ... on a log axis),
// one series per run.
ChartSpec PercentileChart(const std::string& id, const std::string& title, const std::vector<const LoadedRun*>& runs,
                          const std::string& op);

// A single run's dashboard: throughput and p99 per operation over time on
// one timeline of its phases (each phase's start marked, the warm-up before
// the run phase shaded), its latency by percentile, and the store's own
// figures when the binding reported them.
std::string RunDashboard(const LoadedRun& run);

// The runs grouped by workload, in order of first appearance, when they
// have several workloads; else one group named "" holding them all.
struct RunGroup {
  std::string workload;  // the workload file's name; "" for the one group
  std::vector<const LoadedRun*> runs;
};
std::vector<RunGroup> GroupByWorkload(const std::vector<const LoadedRun*>& runs);

}  // namespace storebench
