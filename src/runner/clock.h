// Clock: the monotonic time source of the runner, passed in so that the rate
// schedule and the runner can be tested against a fake clock.
//
// NowNs() is monotonic nanoseconds (CLOCK_MONOTONIC for the real clock);
// SleepUntilNs() returns at or after the given time. Implementations are
// thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>

namespace storebench {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::int64_t NowNs() = 0;
  virtual void SleepUntilNs(std::int64_t t_ns) = 0;
};

// The real clock: CLOCK_MONOTONIC (vDSO, ~20 ns a reading). SleepUntilNs
// sleeps with clock_nanosleep(TIMER_ABSTIME) up to a short spin window
// before the deadline, then spins, so an operation starts within a few
// microseconds of its due time rather than a scheduler tick late.
class SteadyClock final : public Clock {
 public:
  static constexpr std::int64_t kSpinNs = 50'000;
  static std::int64_t Now() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
  std::int64_t NowNs() override { return Now(); }
  void SleepUntilNs(std::int64_t t_ns) override {
    std::int64_t now = Now();
    if (t_ns - now > kSpinNs) {
      std::int64_t wake = t_ns - kSpinNs;
      timespec ts{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
      while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
      }
    }
    while (Now() < t_ns) {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
};

// A clock that only moves when told to (tests). SleepUntilNs jumps forward.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(std::int64_t start_ns = 1'000'000'000) : now_(start_ns) {}
  std::int64_t NowNs() override { return now_.load(); }
  void SleepUntilNs(std::int64_t t_ns) override {
    std::int64_t cur = now_.load();
    while (cur < t_ns && !now_.compare_exchange_weak(cur, t_ns)) {
    }
  }
  void Advance(std::int64_t d_ns) { now_.fetch_add(d_ns); }

 private:
  std::atomic<std::int64_t> now_;
};

// Open-loop schedule of one client thread: operation i is due at
// start + i * interval, whatever happened to earlier operations, so a
// stall shows up as latency of the operations that were due during it
// (no coordinated omission). rate 0 = unthrottled.
class RateSchedule {
 public:
  RateSchedule(std::int64_t start_ns, double ops_per_s)
      : start_ns_(start_ns), interval_ns_(ops_per_s > 0 ? 1e9 / ops_per_s : 0) {}
  bool throttled() const { return interval_ns_ > 0; }
  std::int64_t DueNs(std::uint64_t i) const {
    return start_ns_ + static_cast<std::int64_t>(static_cast<double>(i) * interval_ns_);
  }

 private:
  std::int64_t start_ns_;
  double interval_ns_;
};

}  // namespace storebench
