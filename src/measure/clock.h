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

// The real clock, in nanoseconds on CLOCK_MONOTONIC's time line.
//
// Where the CPU's time-stamp counter is invariant (constant_tsc and
// nonstop_tsc, and the kernel itself uses it as its clocksource), Now() reads
// the TSC (~10 ns) and scales it with a factor calibrated against
// CLOCK_MONOTONIC when the process starts; otherwise it calls clock_gettime
// (~25 ns through the vDSO). Both are monotonic; two readings per operation
// are most of the harness's own cost, hence the fast path.
// STOREBENCH_CLOCK=monotonic in the environment forces clock_gettime.
//
// SleepUntilNs sleeps with clock_nanosleep(TIMER_ABSTIME) up to a short spin
// window before the deadline, then spins, so an operation starts within a
// few microseconds of its due time rather than a scheduler tick late.
class SteadyClock final : public Clock {
 public:
  static constexpr std::int64_t kSpinNs = 50'000;  // initial guess of the wake-up delay
  static std::int64_t Now() {
#if defined(__x86_64__)
    if (tsc_.enabled) [[likely]] {
      const std::uint64_t ticks = __builtin_ia32_rdtsc() - tsc_.base_ticks;
      return tsc_.base_ns + static_cast<std::int64_t>((static_cast<unsigned __int128>(ticks) * tsc_.mult) >> 32);
    }
#endif
    return MonotonicNs();
  }
  static std::int64_t MonotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }
  // "tsc" or "clock_gettime": which source Now() uses.
  static const char* Source() { return tsc_.enabled ? "tsc" : "clock_gettime"; }
  std::int64_t NowNs() override { return Now(); }
  void SleepUntilNs(std::int64_t t_ns) override;

 private:
  struct Tsc {
    bool enabled = false;
    std::uint64_t base_ticks = 0;
    std::int64_t base_ns = 0;
    std::uint64_t mult = 0;  // ns per tick, 32.32 fixed point
  };
  static Tsc Calibrate();
  static const Tsc tsc_;
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
