#include "measure/clock.h"

#include <sched.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace storebench {
namespace {

bool CpuHasInvariantTsc() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line);
      std::string w;
      bool constant = false, nonstop = false;
      while (words >> w) {
        constant = constant || w == "constant_tsc";
        nonstop = nonstop || w == "nonstop_tsc";
      }
      return constant && nonstop;
    }
  }
  return false;
}

bool KernelUsesTsc() {
  std::ifstream f("/sys/devices/system/clocksource/clocksource0/current_clocksource");
  std::string s;
  return (f >> s) && s == "tsc";
}

}  // namespace

SteadyClock::Tsc SteadyClock::Calibrate() {
  Tsc t;
#if defined(__x86_64__)
  const char* force = std::getenv("STOREBENCH_CLOCK");
  if (force != nullptr && std::strcmp(force, "monotonic") == 0) return t;
  if (!CpuHasInvariantTsc() || !KernelUsesTsc()) return t;
  // Pair a TSC reading with CLOCK_MONOTONIC twice, 20 ms apart; each pair
  // is the tightest of a few tries, so a preemption cannot skew it.
  auto pair = [](std::uint64_t* ticks, std::int64_t* ns) {
    std::int64_t best = INT64_MAX;
    for (int i = 0; i < 16; ++i) {
      const std::uint64_t a = __builtin_ia32_rdtsc();
      const std::int64_t m = MonotonicNs();
      const std::uint64_t b = __builtin_ia32_rdtsc();
      if (static_cast<std::int64_t>(b - a) < best) {
        best = static_cast<std::int64_t>(b - a);
        *ticks = a + (b - a) / 2;
        *ns = m;
      }
    }
  };
  std::uint64_t c0 = 0, c1 = 0;
  std::int64_t n0 = 0, n1 = 0;
  pair(&c0, &n0);
  timespec pause{0, 20'000'000};
  nanosleep(&pause, nullptr);
  pair(&c1, &n1);
  if (c1 <= c0 || n1 <= n0) return t;
  t.mult = static_cast<std::uint64_t>((static_cast<unsigned __int128>(n1 - n0) << 32) / (c1 - c0));
  t.base_ticks = c1;
  t.base_ns = n1;
  t.enabled = t.mult > 0;
#endif
  return t;
}

const SteadyClock::Tsc SteadyClock::tsc_ = SteadyClock::Calibrate();

void SteadyClock::SleepUntilNs(std::int64_t t_ns) {
  // How late clock_nanosleep wakes up here (a VM: often 30-60 us), learnt
  // per thread: sleep until that much before the deadline, then spin, so
  // that the harness adds no latency of its own to a scheduled operation.
  thread_local std::int64_t oversleep_ns = kSpinNs;
  std::int64_t now = Now();
  const std::int64_t margin = 2 * oversleep_ns;
  if (t_ns - now > margin) {
    // Sleep on CLOCK_MONOTONIC; Now() is on its time line.
    const std::int64_t wake_in = t_ns - now - margin;
    const std::int64_t wake = MonotonicNs() + wake_in;
    timespec ts{static_cast<time_t>(wake / 1'000'000'000), static_cast<long>(wake % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) != 0) {
    }
    const std::int64_t late = Now() - (now + wake_in);
    // Rise at once to a worse wake-up, decay slowly to a better one.
    oversleep_ns = late > oversleep_ns ? std::min<std::int64_t>(late, 2'000'000)
                                       : std::max<std::int64_t>(10'000, oversleep_ns - (oversleep_ns - late) / 16);
  }
  // Spin, yielding the CPU while more than a few microseconds remain, so a
  // store's own threads (flushes, compactions) still run on a small machine.
  for (std::int64_t left = t_ns - Now(); left > 0; left = t_ns - Now()) {
    if (left > 5'000) {
      sched_yield();
    } else {
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
}

}  // namespace storebench
