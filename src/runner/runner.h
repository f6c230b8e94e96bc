// Runner: runs one phase (load or run) of a workload against a store with N
// client threads and turns what they measured into a PhaseResult.
//
// Each client thread has its own ThreadStats and one or more clients, each
// with its own Session and workload state (several clients per thread run as
// fibers: `connections`, pipelining).
// With a target rate each thread follows an open-loop schedule (operation i
// due at t0 + i * threads / target) and latency is measured from the due
// time. Warm-up operations run first, through the same path, and are then
// discarded. The calling thread is the collector: it builds the per-second
// time series, prints status lines, and stops the phase at
// maxexecutiontime or on a stop request (SIGINT/SIGTERM). After its last
// operation each client calls its session's Flush once, before its
// thread's end time is taken, so writes a binding buffers are sent inside
// the phase's runtime (recorded as CLEANUP; see Session::Flush).
#pragma once

#include <signal.h>

#include <atomic>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "db/binding.h"
#include "measure/histogram.h"
#include "measure/live_metrics.h"
#include "measure/op_type.h"
#include "measure/result.h"
#include "measure/clock.h"
#include "workload/core_workload.h"
#include "workload/workload.h"

namespace storebench {

// Combines the status lines of the processes of one job (MPI ranks), so
// that the line printed shows the whole job. Every process calls Combine
// once per status line, in step (it is a collective): at each status
// interval while its phase runs, once at once when its phase ends
// (finished), and then at each interval until every process has finished.
// Used from the collector thread only.
class StatusCombiner {
 public:
  struct Figures {
    std::uint64_t done = 0;     // operations completed in this phase so far
    std::uint64_t planned = 0;  // operations planned (0 = until a time limit or a stop)
    bool finished = false;      // this process's phase has ended
    // Latency per operation type since the previous line (entries may be null).
    std::array<std::unique_ptr<Histogram>, kNumOpTypes>* latency = nullptr;
  };
  virtual ~StatusCombiner() = default;
  // Replaces `f` with the job's figures: done and planned summed, latency
  // merged exactly (bucket counts added), finished when every process has.
  // Returns true in the process that prints the line.
  virtual bool Combine(Figures& f) = 0;
};

struct RunnerOptions {
  bool loading = false;
  int threads = 1;
  // Clients per thread that keep requests in flight at once (memtier's -c):
  // with the binding's pipeline depth P the runner hosts connections x P
  // clients per thread as fibers (net/fiber_scheduler.h). Needs a binding
  // whose capabilities() say waits_through_io; 1 = the thread is the client.
  int connections = 1;
  // Stop the phase once more than this many operations failed (0 = never).
  std::uint64_t max_errors = 0;
  double target_ops_per_s = 0;          // whole process; 0 = unthrottled
  std::uint64_t operation_count = 0;    // whole process; 0 = until max_execution_s / stop
  double max_execution_s = 0;           // 0 = no limit
  std::uint64_t warmup_operations = 0;  // whole process, executed and not counted
  double warmup_s = 0;
  bool status = false;                  // -s: status lines on status_out
  double status_interval_s = 10;
  StatusCombiner* status_combiner = nullptr;  // with status: the job's lines, not this process's (MPI)
  // One progress line that rewrites itself (a terminal): phase, done/total
  // with ETA, the last interval's ops/s and p99, errors. Status lines, when
  // on, are printed above it.
  bool progress = false;
  std::string measurement_interval = "op";  // op | intended | both
  std::vector<double> percentiles = {50, 95, 99};
  double series_interval_s = 1;
  // Keep each series point's histograms (IntervalPoint::Op::buckets), for
  // results that will be merged with others'.
  bool series_histograms = false;
  std::string binding;                  // for the result
  // If set, called on the collector thread once per series interval (also
  // the last, partial one) with that interval's histograms: each type's OK
  // and failed operations, in the latency kind of the series; entries may be
  // null or empty. start/end are wall-clock seconds since the epoch. The
  // intervals of a phase tile it, so their counts add up to its totals.
  std::function<void(double start_unix_s, double end_unix_s,
                     const std::array<std::unique_ptr<Histogram>, kNumOpTypes>&)>
      on_interval;
  // If set, called on the collector thread once per status interval (also
  // the last, partial one), whether or not status lines are printed, with
  // that interval's histograms (as on_interval) and its failures per type.
  // elapsed_s: seconds since the phase's measured start, at the end.
  std::function<void(double start_unix_s, double end_unix_s, double elapsed_s,
                     const std::array<std::unique_ptr<Histogram>, kNumOpTypes>&,
                     const std::array<std::uint64_t, kNumOpTypes>& failed)>
      on_status;
  // If set, called on the collector thread after each status interval of
  // the phase (not the last, partial one) with that interval's figures (as
  // on_status) and its throughput; returning true stops the phase early
  // (stop_reason "slo.abort": an --slo gate failed with slo.abort=true).
  std::function<bool(const std::array<std::unique_ptr<Histogram>, kNumOpTypes>&,
                     const std::array<std::uint64_t, kNumOpTypes>& failed, double ops_per_s)>
      stop_check;
  // If set, the collector publishes the phase's figures there once per
  // series interval (BeginPhase/EndPhase around the phase). Not owned.
  LiveMetrics* live = nullptr;
};

// Process-wide stop request, set from a signal handler (async-signal-safe).
void RequestStop(int signal_number);
// The signal that requested a stop, or 0.
int StopSignal();
// Clears the stop request (tests).
void ClearStop();
// The signals that request a stop: SIGINT and SIGTERM (for sigprocmask).
sigset_t StopSignalSet();

class Runner {
 public:
  Runner(Store& store, Workload& workload, RunnerOptions opts, Clock& clock, std::ostream* status_out);
  // Runs the phase. Throws SetupError when a session cannot be created, and
  // ConfigError when several clients per thread are asked of a binding that
  // blocks its thread.
  PhaseResult Run();

 private:
  PhaseResult RunPhase();
  bool lines_started_ = false;  // the collector has begun its status lines
  Store& store_;
  Workload& workload_;
  RunnerOptions opts_;
  Clock& clock_;
  std::ostream* status_out_;
};

}  // namespace storebench
