// LiveMetrics: what the current phase has measured so far, for readers
// outside the run (the Prometheus endpoint, `--metrics-listen`).
//
// The runner's collector thread publishes into it once per series interval
// (default 1 s), so a reader sees figures at most one interval old. Any
// thread may take a Snapshot at any time. Thread-safe (one mutex, held for
// a copy of a few KB; never touched by the client threads' hot path).
//
// Units: latencies in nanoseconds, rates in operations per second, times in
// seconds. Counters are cumulative over the phase; a new phase (load, then
// run) starts them again from zero under a new `phase` label.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/status.h"
#include "measure/histogram.h"
#include "measure/op_type.h"

namespace storebench {

// The upper bounds (ns) of the latency buckets exposed per operation type,
// Prometheus's `le` (the last, +Inf, is implied): 1-2.5-5 steps from 10 us
// to 10 s.
inline constexpr std::array<std::uint64_t, 19> kLiveLatencyBoundsNs = {
    10'000,      25'000,      50'000,      100'000,       250'000,       500'000,       1'000'000,
    2'500'000,   5'000'000,   10'000'000,  25'000'000,    50'000'000,    100'000'000,   250'000'000,
    500'000'000, 1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

// A latency distribution as the exposition needs it: cumulative counts at
// each bound of kLiveLatencyBoundsNs (values at or below it, to the
// histogram's 0.1% precision: a value in the bound's own bucket counts as
// under it), the total count and the sum.
struct LiveLatency {
  std::array<std::uint64_t, kLiveLatencyBoundsNs.size()> at_or_below{};
  std::uint64_t count = 0;
  std::uint64_t sum_ns = 0;
  // Adds a histogram's values.
  void Add(const Histogram& h);
};

// One operation type's figures for the phase so far.
struct LiveOp {
  std::string name;  // "READ", "UPDATE", ... (OpName)
  // Completed operations per result status (Status::Code order).
  std::array<std::uint64_t, Status::kNumCodes> by_status{};
  // Latency of every completed operation (OK and failed, as in the status
  // lines): from the actual start (service) and, with a target rate, from
  // the intended start.
  LiveLatency service;
  LiveLatency intended;
  bool has_intended = false;
};

struct LiveSnapshot {
  // Labels of every series.
  std::string binding;   // "rocksdb"
  std::string label;     // the run's label (-p label / --label)
  std::string part;      // "2/6" under --part, or the MPI rank "rank 3/6"; empty alone
  std::string phase;     // "load" | "run"; empty before the first phase
  bool running = false;  // a phase is under way (false between and after phases)
  int threads = 0;
  double target_ops_per_s = 0;  // 0 = unthrottled
  double actual_ops_per_s = 0;  // over the last series interval
  double elapsed_s = 0;         // since the phase's measured start
  std::uint64_t operations = 0;          // operations done in the phase (the unit of its count)
  std::uint64_t operations_planned = 0;  // 0 = until a time limit or a stop
  std::uint64_t errors = 0;              // failed operations in the phase, all types
  std::vector<LiveOp> ops;               // the types seen so far, in OpType order
};

class LiveMetrics {
 public:
  // Labels that hold for the whole process.
  void SetLabels(std::string binding, std::string label, std::string part);

  // A phase starts: its counters are cleared.
  void BeginPhase(const std::string& phase, int threads, double target_ops_per_s,
                  std::uint64_t operations_planned);

  // The collector's figures at the end of a series interval. `service` and
  // `intended`: that interval's completed operations per type, each kind
  // (entries may be null; `intended` null throughout without a target
  // rate). `by_status`: the phase's cumulative counts per type and status.
  void Publish(double elapsed_s, std::uint64_t operations, double interval_ops_per_s,
               const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& service,
               const std::array<std::unique_ptr<Histogram>, kNumOpTypes>* intended,
               const std::array<std::array<std::uint64_t, Status::kNumCodes>, kNumOpTypes>& by_status);

  // The phase has ended (its last interval published).
  void EndPhase();

  LiveSnapshot Snapshot() const;

 private:
  mutable std::mutex mu_;
  LiveSnapshot s_;                                  // guarded by mu_ (its ops are built by Snapshot)
  std::array<LiveOp, kNumOpTypes> ops_;             // guarded by mu_
  std::array<bool, kNumOpTypes> seen_{};            // guarded by mu_
};

}  // namespace storebench
