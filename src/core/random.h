// Rng: a small, fast, seedable PRNG (xoshiro256**, seeded by splitmix64) for
// per-thread generator state. Not thread-safe: one per thread. Reproducible:
// the same seed gives the same sequence on every platform.
#pragma once

#include <chrono>
#include <cstdint>

namespace storebench {

// A run's seed: `seed` when given, else one from the clock (seed=0, the
// default, as YCSB: every run differs).
inline std::uint64_t SeedOrClock(std::uint64_t seed) {
  return seed != 0 ? seed : static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0x5eed) { Seed(seed); }
  void Seed(std::uint64_t seed) {
    for (auto& w : s_) {
      seed += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      w = z ^ (z >> 31);
    }
  }
  std::uint64_t NextU64() {
    const std::uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 bits.
  double NextDouble() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  // Uniform in [0, n) for n > 0 (Lemire's multiply-shift; bias < 2^-64 * n).
  std::uint64_t Below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(NextU64()) * n) >> 64);
  }
  // Uniform in [lo, hi], inclusive.
  std::uint64_t Between(std::uint64_t lo, std::uint64_t hi) { return lo + Below(hi - lo + 1); }

 private:
  static std::uint64_t Rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace storebench
