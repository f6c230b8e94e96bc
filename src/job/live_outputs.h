// LiveOutputs: what a job shows while it runs, beside its final results:
// the Prometheus endpoint (`--metrics-listen`) and the CSV time series
// (`--timeseries`).
//
// The job makes one before it opens the store (a port in use or a path that
// cannot be written fails at once, exit 2), attaches it to each phase's
// runner options, and commits it at the end. The endpoint serves from its
// own thread for the life of this object; the CSV rows are written by the
// runner's collector thread as each status interval ends (a FIFO or
// /dev/stdout gets them as they come; a regular file appears whole at the
// end, like every output: core/output_file.h). Under MPI only rank 0
// writes the CSV, from the ranks' merged series (WriteMerged), and each
// rank serves its own endpoint on PORT + rank. Not thread-safe otherwise:
// used by the job's thread.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "measure/live_metrics.h"
#include "measure/result.h"
#include "runner/runner.h"

namespace storebench {

class OutputFile;
namespace net {
class HttpServer;
}

struct LiveOutputOptions {
  std::string metrics_listen;   // "[HOST:]PORT"; "" = no endpoint
  std::string timeseries_file;  // "" = no CSV
  int rank = 0;                 // MPI rank (0 alone)
  bool write_timeseries = true;  // false: this process leaves the CSV to another (MPI ranks > 0)
  bool merged_timeseries = false;  // the CSV is written at the end from merged series (MPI)
  // Labels of every metric.
  std::string binding, label, part;
};

class LiveOutputs {
 public:
  // Listens and opens the CSV. Throws ConfigError naming the flag.
  LiveOutputs(const LiveOutputOptions& o, std::ostream& err);
  ~LiveOutputs();
  LiveOutputs(const LiveOutputs&) = delete;
  LiveOutputs& operator=(const LiveOutputs&) = delete;

  // Hooks a phase's runner into the endpoint and, unless merged, the CSV.
  void Attach(RunnerOptions& o, const std::string& phase);
  // After a phase: what was written so far reaches a FIFO or stream.
  void Flush();
  // Under MPI, rank 0: the CSV from the job's merged phases.
  void WriteMerged(const RunReport& merged, double status_interval_s);
  // Makes the CSV visible; says where it went on `err`.
  void Commit(std::ostream& err);

 private:
  LiveOutputOptions o_;
  LiveMetrics metrics_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<OutputFile> csv_file_;
};

// Parses --metrics-listen's "[HOST:]PORT" (HOST defaults to 127.0.0.1).
// Throws ConfigError naming the flag.
struct ListenAddress {
  std::string host;
  int port = 0;
};
ListenAddress ParseListenAddress(const std::string& text);

}  // namespace storebench
