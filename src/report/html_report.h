// `storebench report`: one self-contained HTML file (no script or style
// from the network) from JSON results and plan result directories: a
// summary table per run, a per-operation latency table, and SVG charts
// (svg_chart.h) drawn from the results: throughput over time and p99 over
// time per operation type (one series per run), latency by percentile on a
// log axis (HdrHistogram style), and for sweeps throughput vs threads, p99
// and throughput vs target. Failed and interrupted runs are listed and
// marked (dashed in charts, with what they have). A plan's load steps get
// a table of their own (load time, throughput, size on disk after the load). Every string from a
// result (labels, properties, notes) is HTML-escaped.
//
// Time series CSV files (timeseries_csv.h) get a section each, titled with
// the file's base name: throughput and p99 latency (p99.9 dashed beside it)
// over elapsed time, one series per phase and operation type.
//
// A few lines of inline script write "N series drawn in M charts" into the
// page (#drawn), which the headless-Chromium test reads back.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "report/result_set.h"
#include "report/timeseries_csv.h"

namespace storebench {

// The whole document: the runs' sections when there are runs, then a section per time series.
std::string HtmlReport(const std::vector<LoadedRun>& runs, const std::vector<TimeseriesFile>& timeseries = {});

// storebench report RESULTS... -o FILE.html; returns the exit code. An input
// that IsTimeseriesInput is a time series, any other a JSON result or plan
// result directory.
int RunReportCommand(const std::vector<std::string>& inputs, const std::string& output, std::ostream& err);

}  // namespace storebench
