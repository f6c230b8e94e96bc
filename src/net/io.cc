#include "net/io.h"

#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>

#include "runner/clock.h"

namespace storebench::io {
namespace {

int PollTimeoutMs(std::int64_t deadline_ns) {
  if (deadline_ns == kNoDeadline) return -1;
  const std::int64_t left = deadline_ns - SteadyClock::Now();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<std::int64_t>((left + 999'999) / 1'000'000, 1 << 30));
}

}  // namespace

WaitResult WaitFd(int fd, bool for_write, std::int64_t deadline_ns) {
  pollfd p{fd, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
  for (;;) {
    int rc = ::poll(&p, 1, PollTimeoutMs(deadline_ns));
    if (rc > 0) return (p.revents & (POLLIN | POLLOUT)) ? WaitResult::kReady : WaitResult::kError;
    if (rc == 0) return WaitResult::kTimeout;
    if (errno != EINTR) return WaitResult::kError;
  }
}

void Close(int fd) { ::close(fd); }

void SleepUntil(std::int64_t t_ns) {
  SteadyClock clock;
  clock.SleepUntilNs(t_ns);
}

Fiber* Current() { return nullptr; }
void Suspend() {}
void Wake(Fiber*) {}
void Yield() {}
bool InFiber() { return false; }

}  // namespace storebench::io
