#include "db/sql/reconnect.h"

#include <algorithm>

#include "measure/clock.h"
#include "net/io.h"

namespace storebench::sql {
namespace {

constexpr std::int64_t kFirstBackoffNs = 10'000'000;
constexpr std::int64_t kMaxBackoffNs = 1'000'000'000;

}  // namespace

bool ReconnectBackoff::AwaitAttempt(std::int64_t deadline_ns, Late late) const {
  if (next_attempt_ns_ <= SteadyClock::Now()) return true;
  const bool at_once = late == Late::kReturnAtOnce;
  if (at_once ? next_attempt_ns_ >= deadline_ns : next_attempt_ns_ > deadline_ns) {
    if (!at_once && deadline_ns != io::kNoDeadline) io::SleepUntil(deadline_ns);
    return false;
  }
  io::SleepUntil(next_attempt_ns_);
  return true;
}

void ReconnectBackoff::Failed() {
  ++failures_;
  backoff_ns_ = backoff_ns_ == 0 ? kFirstBackoffNs : std::min(backoff_ns_ * 2, kMaxBackoffNs);
  next_attempt_ns_ = SteadyClock::Now() + backoff_ns_;
}

}  // namespace storebench::sql
