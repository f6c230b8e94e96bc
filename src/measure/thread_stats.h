// ThreadStats: everything one client thread measures, and the hand-off of
// per-interval data to the collector thread.
//
// The owning client thread records into its histograms without locks
// (Record is a few ns). Once per interval (default 1 s, on the first
// operation that ends past the boundary) it publishes its interval
// histograms under its own mutex; the collector (status lines, time series)
// takes them under that mutex. Total histograms are read only after the
// thread has finished. Histograms for an operation type are allocated when
// the thread is set up (Prepare) or, for an unexpected type, on first use.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "core/status.h"
#include "measure/histogram.h"
#include "measure/op_type.h"

namespace storebench {

struct OpStats {
  // Totals of OK operations: complete once the owner has called Finish
  // (the kind the series uses is folded in from `interval` at each hand-off).
  Histogram service;          // from actual start (ns)
  Histogram intended;         // from intended start (ns)
  // Non-OK operations; allocated at the first failure (a histogram is
  // 270 KB, and most runs have no failures).
  std::unique_ptr<Histogram> failed_service;
  std::unique_ptr<Histogram> failed_intended;
  // This interval's OK operations, in the latency kind the series reports.
  Histogram interval;
  std::unique_ptr<Histogram> interval_failed;  // this interval's failures, same kind
  // With both kinds published (ThreadStats::PublishBothKinds): this
  // interval's operations in the other latency kind, OK and failed.
  std::unique_ptr<Histogram> interval_other;
  std::unique_ptr<Histogram> interval_failed_other;
  std::array<std::uint64_t, Status::kNumCodes> return_codes{};
};

class ThreadStats {
 public:
  // `interval_ns`: time-series granularity; `phase_start_ns`: boundary origin;
  // `series_uses_intended`: which latency the interval histograms hold.
  // `track_intended`: keep separate intended-start histograms; without a
  // target rate they would equal the service ones, and the caller copies.
  ThreadStats(std::int64_t interval_ns, bool series_uses_intended, bool track_intended = true)
      : interval_ns_(interval_ns), series_uses_intended_(series_uses_intended), track_intended_(track_intended) {}
  bool tracks_intended() const { return track_intended_; }

  // Allocates the histograms of `op` up front (keeps Record allocation-free).
  void Prepare(OpType op) { Get(op); }

  // With intended-start tracking, also hand off each interval's operations
  // in the other latency kind (for live metrics that show both). Call
  // before Prepare. Costs one histogram per operation type, no extra
  // recording: the other kind goes to the interval, then to the total.
  void PublishBothKinds() { both_kinds_ = track_intended_; }

  // What the collector takes from a thread: every member accumulates over
  // the threads taken into it (entries allocated as needed).
  struct Taken {
    // The series kind: every completed operation, OK and failed.
    std::array<std::unique_ptr<Histogram>, kNumOpTypes> all;
    // The failures among them.
    std::array<std::uint64_t, kNumOpTypes> failed{};
    // With PublishBothKinds: the same operations in the other kind.
    std::array<std::unique_ptr<Histogram>, kNumOpTypes> other;
    // Return codes of the phase so far, as of each thread's last hand-off:
    // the sum over the threads taken of their cumulative counts (so clear
    // it before each round of takes).
    std::array<std::array<std::uint64_t, Status::kNumCodes>, kNumOpTypes> codes{};
    // Clears the interval figures (all, failed, other), keeping allocations.
    void ResetInterval();
  };

  // Sets the time origin for intervals; discards everything recorded so far
  // (used after warm-up).
  void StartMeasuring(std::int64_t phase_start_ns);

  // Records one operation. `end_ns` drives the interval hand-off.
  void Record(OpType op, Status st, std::int64_t intended_start_ns, std::int64_t start_ns,
              std::int64_t end_ns) {
    if (end_ns >= next_boundary_ns_) PublishInterval(end_ns);
    OpStats& s = Get(op);
    const std::uint64_t service = static_cast<std::uint64_t>(end_ns - start_ns);
    const std::uint64_t intended = static_cast<std::uint64_t>(end_ns - intended_start_ns);
    const std::uint64_t series = series_uses_intended_ ? intended : service;
    s.return_codes[st.code()]++;
    if (st.ok()) [[likely]] {
      // One histogram per operation without a target: the interval one,
      // added to its total at the hand-off.
      s.interval.Record(series);
      if (track_intended_) {
        const std::uint64_t other = series_uses_intended_ ? service : intended;
        if (s.interval_other) [[unlikely]] {
          s.interval_other->Record(other);
        } else {
          (series_uses_intended_ ? s.service : s.intended).Record(other);
        }
      }
    } else {
      RecordFailure(s, service, intended, series, 1);
    }
  }

  // Records one operation that did `n` units of work (a batch of n records)
  // as n operations of latency (end - start) / n each (rounded down): the
  // per-record view of a batch. Return codes are counted n times. n = 0
  // records nothing.
  void RecordEach(OpType op, Status st, std::int64_t intended_start_ns, std::int64_t start_ns,
                  std::int64_t end_ns, std::uint64_t n) {
    if (n == 0) return;
    if (end_ns >= next_boundary_ns_) PublishInterval(end_ns);
    OpStats& s = Get(op);
    const std::uint64_t service = static_cast<std::uint64_t>(end_ns - start_ns) / n;
    const std::uint64_t intended = static_cast<std::uint64_t>(end_ns - intended_start_ns) / n;
    const std::uint64_t series = series_uses_intended_ ? intended : service;
    s.return_codes[st.code()] += n;
    if (st.ok()) {
      s.interval.RecordN(series, n);
      if (track_intended_) {
        const std::uint64_t other = series_uses_intended_ ? service : intended;
        if (s.interval_other) {
          s.interval_other->RecordN(other, n);
        } else {
          (series_uses_intended_ ? s.service : s.intended).RecordN(other, n);
        }
      }
    } else {
      RecordFailure(s, service, intended, series, n);
    }
  }

  // Called by the owner at the end: publishes what is left.
  void Finish(std::int64_t end_ns) { PublishInterval(end_ns, /*force=*/true); }

  // Collector side: adds the published interval data into `into` and
  // clears it here. Thread-safe.
  void TakeInterval(Taken& into);

  // After the owning thread has finished: the totals.
  const OpStats* op(OpType t) const { return ops_[static_cast<int>(t)].get(); }

  std::uint64_t integrity_failures = 0;  // owner-thread only

 private:
  OpStats& Get(OpType op) {
    auto& p = ops_[static_cast<int>(op)];
    if (!p) {
      p = std::make_unique<OpStats>();
      if (both_kinds_) p->interval_other = std::make_unique<Histogram>();
    }
    return *p;
  }
  // The cold path of Record: failures' histograms are made at the first one.
  void RecordFailure(OpStats& s, std::uint64_t service, std::uint64_t intended, std::uint64_t series,
                     std::uint64_t n);
  void PublishInterval(std::int64_t now_ns, bool force = false);

  const std::int64_t interval_ns_;
  const bool series_uses_intended_;
  const bool track_intended_;
  bool both_kinds_ = false;
  std::int64_t origin_ns_ = 0;
  std::int64_t next_boundary_ns_ = INT64_MAX;  // no publishing before StartMeasuring
  std::array<std::unique_ptr<OpStats>, kNumOpTypes> ops_;

  std::mutex mu_;
  // Guarded by mu_: what PublishInterval handed off (see Taken).
  std::array<std::unique_ptr<Histogram>, kNumOpTypes> published_;
  std::array<std::uint64_t, kNumOpTypes> published_failed_{};
  std::array<std::unique_ptr<Histogram>, kNumOpTypes> published_other_;
  std::array<std::array<std::uint64_t, Status::kNumCodes>, kNumOpTypes> published_codes_{};
};

}  // namespace storebench
