// MeasuredSession: the one wrapper around every binding session that times
// each call, counts its return code and checks data integrity. Bindings
// never time themselves.
//
// The runner sets the intended start of each operation (its due time under
// -target, else its actual start); latency "from intended start" is
// end - intended, service time is end - actual start. A read whose record
// fails the integrity check is counted as a failed read with
// UNEXPECTED_STATE (checked after the end time is taken, so checking costs
// nothing in the latency). One per client thread; not thread-safe.
#pragma once

#include <atomic>
#include <cstdint>

#include "db/binding.h"
#include "measure/thread_stats.h"
#include "measure/clock.h"

namespace storebench {

// Checks the fields of a record read for `key` (dataintegrity=true): the
// only record of `rec`, or (a batch) its record `r`.
class RecordVerifier {
 public:
  virtual ~RecordVerifier() = default;
  virtual bool Verify(std::string_view key, const RecordSet& rec, std::size_t r, bool only) = 0;
  bool Verify(std::string_view key, const RecordSet& rec) { return Verify(key, rec, 0, true); }
};

class MeasuredSession {
 public:
  MeasuredSession(Session* session, ThreadStats* stats, Clock* clock, bool real_clock)
      : session_(session), stats_(stats), clock_(clock), real_clock_(real_clock) {}

  std::int64_t Now() const { return real_clock_ ? SteadyClock::Now() : clock_->NowNs(); }
  // Intended start of the next operation(s); kNone = each call's own start.
  static constexpr std::int64_t kNone = -1;
  void set_intended_start(std::int64_t t_ns) { intended_ns_ = t_ns; }
  std::int64_t intended_start() const { return intended_ns_; }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out,
              RecordVerifier* verifier) {
    const std::int64_t start = Now();
    Status st = session_->Read(table, key, fields, out);
    const std::int64_t end = Now();
    if (verifier != nullptr && st.ok() && !verifier->Verify(key, *out)) {
      st = Status::UnexpectedState();
      stats_->integrity_failures++;
    }
    Record(OpType::kRead, st, start, end);
    return st;
  }
  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
              const FieldSelector& fields, RecordSet* out) {
    const std::int64_t start = Now();
    Status st = session_->Scan(table, start_key, count, fields, out);
    Record(OpType::kScan, st, start, Now());
    return st;
  }
  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) {
    const std::int64_t start = Now();
    Status st = session_->Update(table, key, values);
    Record(OpType::kUpdate, st, start, Now());
    return st;
  }
  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) {
    const std::int64_t start = Now();
    Status st = session_->Insert(table, key, values);
    Record(OpType::kInsert, st, start, Now());
    return st;
  }
  Status Delete(std::string_view table, std::string_view key) {
    const std::int64_t start = Now();
    Status st = session_->Delete(table, key);
    Record(OpType::kDelete, st, start, Now());
    return st;
  }

  // One BATCH-INSERT of the whole batch, and the same call per record as
  // BATCH-INSERT-PER-RECORD (see op_type.h). Counted as one operation (one
  // failure) in the failure counter.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) {
    const std::int64_t start = Now();
    Status st = session_->BatchInsert(table, batch);
    const std::int64_t end = Now();
    Record(OpType::kBatchInsert, st, start, end);
    stats_->RecordEach(OpType::kBatchInsertPerRecord, st, intended_ns_ == kNone ? start : intended_ns_, start, end,
                       batch.size());
    return st;
  }
  // One BATCH-READ of `keys`; with a verifier, every record read is checked.
  Status BatchRead(std::string_view table, std::span<const std::string_view> keys, const FieldSelector& fields,
                   RecordSet* out, RecordVerifier* verifier) {
    const std::int64_t start = Now();
    Status st = session_->BatchRead(table, keys, fields, out);
    const std::int64_t end = Now();
    if (verifier != nullptr && (st.ok() || st.code() == Status::kNotFound)) {
      for (std::size_t r = 0; r < out->record_count(); ++r) {
        if (verifier->Verify(out->key(r), *out, r, false)) continue;
        st = Status::UnexpectedState();
        stats_->integrity_failures++;
        break;
      }
    }
    Record(OpType::kBatchRead, st, start, end);
    return st;
  }
  // The session's end-of-operations Session::Flush, timed: recorded as
  // CLEANUP when `record_ok` (a binding that buffers writes) or when it
  // failed. Counted in the failure counter when it failed.
  Status Flush(bool record_ok) {
    const std::int64_t start = Now();
    const Status st = session_->Flush();
    const std::int64_t end = Now();
    if (record_ok || !st.ok()) {
      intended_ns_ = kNone;  // a flush has no due time: it follows the last operation
      Record(OpType::kCleanup, st, start, end);
    }
    return st;
  }
  // The wrapped session, for workloads that time a composite operation
  // themselves (a transaction) and Record it as one.
  Session* session() const { return session_; }

  // Counts every failed operation here too (the runner's errors.max check
  // reads it from another thread); null = not counted.
  void set_failure_counter(std::atomic<std::uint64_t>* failures) { failures_ = failures; }

  // Records a composite operation (read-modify-write) timed by the caller.
  // A read the caller made through session() failed its data-integrity check.
  void CountIntegrityFailure() { stats_->integrity_failures++; }
  void Record(OpType op, Status st, std::int64_t start_ns, std::int64_t end_ns) {
    stats_->Record(op, st, intended_ns_ == kNone ? start_ns : intended_ns_, start_ns, end_ns);
    if (!st.ok() && failures_ != nullptr) [[unlikely]] {
      failures_->fetch_add(1, std::memory_order_relaxed);
    }
  }

 private:
  Session* session_;
  ThreadStats* stats_;
  Clock* clock_;
  bool real_clock_;
  std::int64_t intended_ns_ = kNone;
  std::atomic<std::uint64_t>* failures_ = nullptr;
};

}  // namespace storebench
