// Merging the results of N client processes (storebench --part K/N, one
// JSON result each) into one result, exactly.
//
// What MergeResults promises, per phase (phases are matched by position and
// must have the same names in every part):
// - histograms (service and intended, per operation name) are added bucket
//   by bucket, with count, min, max and sum exact: a merged percentile is the
//   percentile of the union of all parts' samples, never an average;
// - return codes, operations and integrity_failures are added;
// - start_unix_ms is the earliest start, runtime_ms the span from the
//   earliest start to the latest end (start_unix_ms + runtime_ms), and
//   throughput_ops_per_s = total operations / that span;
// - threads and target_ops_per_s are added; interrupted if any part was;
// - the time series is aligned by wall-clock time (start_unix_ms + t_s,
//   rounded to the nearest multiple of timeseries.granularity from the
//   merged start) and added: operations, ops_per_s and counts are sums,
//   mean_us is count-weighted and max_us the largest (both exact);
//   p50_us/p99_us are exact (those of the union) when every part kept its
//   points' histograms (MPI ranks and --part results do; the merged point
//   keeps the merged histogram), else the largest of the parts' (an upper
//   bound);
// - disk_bytes is the sum when every part has it, else absent (null);
// - notes are the union; store_stats are dropped (they are per store).
// The merged report keeps one PartSummary per part (in client.id order), the
// first part's properties with the per-process ones replaced by totals
// (operationcount and target summed; for a load, insertstart the lowest and
// insertcount summed; client.id and client.runinsertstart removed), and
// host.hostname listing the parts' hosts.
//
// It refuses (ConfigError, one line naming the two files) parts that do not
// belong together: another binding or command, other phases, a property in
// force that differs outside the per-process ones (PerProcessProperty), a
// duplicate client.id, a client.count other than the number of parts (a
// missing part is an error, not a warning: a silent partial total would
// under-report), or a part that is itself a merged result.
#pragma once

#include <string>
#include <vector>

#include "measure/result.h"

namespace storebench {

struct MergeInput {
  std::string name;  // file name, for messages and PartSummary::file
  RunReport report;
};

// True for properties that may differ between the parts of one job:
// client.id, client.runinsertstart, insertstart, insertcount,
// operationcount, target, threadcount, seed, exportfile, exporter, label,
// status, status.interval, and every binding's NAME.dir.
bool PerProcessProperty(const std::string& key);

// Throws ConfigError when the parts do not belong together (see above) or
// when there are none.
RunReport MergeResults(const std::vector<MergeInput>& parts);

}  // namespace storebench
