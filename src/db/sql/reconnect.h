// When a SQL binding's dropped connection may be opened again: at once the
// first time, then 10 ms after a failed attempt, doubling up to 1 s, so a
// server that is down is not hammered by every operation. Shared by the
// postgresql and mariadb connections. Waits go through net/io.h (a fiber
// sleeps, its thread runs others). One per connection; not thread-safe.
// Times are SteadyClock nanoseconds.
#pragma once

#include <cstdint>

namespace storebench::sql {

class ReconnectBackoff {
 public:
  // What AwaitAttempt does when the next attempt falls after the deadline.
  enum class Late {
    kReturnAtOnce,     // returns false at once (also when it falls at the deadline)
    kSleepToDeadline,  // sleeps until the deadline, then returns false
  };

  // Sleeps until the next attempt is due; true when it is due by the
  // deadline (then the caller tries), false when not (see Late).
  bool AwaitAttempt(std::int64_t deadline_ns, Late late) const;
  // After a successful connect: the next failure waits 10 ms.
  void Succeeded() {
    backoff_ns_ = 0;
    next_attempt_ns_ = 0;
  }
  // After a failed connect: the next attempt waits twice as long as the last (10 ms to 1 s).
  void Failed();
  // Failed attempts so far.
  std::uint64_t failures() const { return failures_; }

 private:
  std::int64_t backoff_ns_ = 0;
  std::int64_t next_attempt_ns_ = 0;
  std::uint64_t failures_ = 0;
};

}  // namespace storebench::sql
