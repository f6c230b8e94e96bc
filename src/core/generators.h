// Number generators with YCSB's semantics (site.ycsb.generator.*).
//
// Each generator instance belongs to one client thread and takes that
// thread's Rng; generators that YCSB shares across threads (the insert key
// sequence, the sequential chooser) are split into a shared, thread-safe
// counter and per-thread views. Values are 64-bit throughout.
//
// Nothing here allocates after construction; Next() is a few dozen ns at most.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/random.h"

namespace storebench {

// YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 bytes of `value`, least
// significant byte first, then Java's Math.abs of the result as a signed
// 64-bit integer (Long.MIN_VALUE stays negative, as in Java).
// Inline: it runs twice per operation (key choice and key name).
inline std::int64_t FnvHash64(std::int64_t value) {
  constexpr std::uint64_t kOffsetBasis = 0xCBF29CE484222325ull;
  constexpr std::uint64_t kPrime = 1099511628211ull;
  std::uint64_t v = static_cast<std::uint64_t>(value);
  std::uint64_t h = kOffsetBasis;
  for (int i = 0; i < 8; ++i) {
    h ^= v & 0xff;
    h *= kPrime;
    v >>= 8;
  }
  // Java's Math.abs on a signed long: Long.MIN_VALUE stays negative.
  // Negate in unsigned arithmetic so that case is not UB.
  const auto s = static_cast<std::int64_t>(h);
  return s < 0 ? static_cast<std::int64_t>(0 - h) : s;
}

// Interface of an integer generator used for key choice, field length and
// scan length. Thread-compatible: one instance per thread.
class NumberGenerator {
 public:
  virtual ~NumberGenerator() = default;
  virtual std::int64_t Next(Rng& rng) = 0;
  // The mean of the distribution where YCSB defines it (used for reports only).
  virtual double Mean() const { return 0; }
};

class ConstantGenerator final : public NumberGenerator {
 public:
  explicit ConstantGenerator(std::int64_t v) : v_(v) {}
  std::int64_t Next(Rng&) override { return v_; }
  double Mean() const override { return static_cast<double>(v_); }
 private:
  std::int64_t v_;
};

// Uniform over [lo, hi] inclusive (UniformLongGenerator).
class UniformGenerator final : public NumberGenerator {
 public:
  UniformGenerator(std::int64_t lo, std::int64_t hi);
  std::int64_t Next(Rng& rng) override;
  double Mean() const override;
 private:
  std::int64_t lo_;
  std::uint64_t span_;  // hi - lo + 1
};

// ZipfianGenerator (Gray et al.), constant 0.99 by default, over
// [min, max]. Next(rng) draws over the construction-time item count;
// NextWithCount(rng, n) over [min, min+n) and grows zeta incrementally when
// n exceeds the count it was computed for (as YCSB's nextLong(itemcount)).
class ZipfianGenerator final : public NumberGenerator {
 public:
  static constexpr double kZipfianConstant = 0.99;
  ZipfianGenerator(std::int64_t min, std::int64_t max, double constant = kZipfianConstant);
  // With a precomputed zeta(n) for the item count (ScrambledZipfian uses this).
  ZipfianGenerator(std::int64_t min, std::int64_t max, double constant, double zetan);
  std::int64_t Next(Rng& rng) override { return NextWithCount(rng, items_); }
  std::int64_t NextWithCount(Rng& rng, std::int64_t item_count);
  double zetan() const { return zetan_; }
  // zeta(n, theta) = sum_{i=1..n} 1/i^theta, and the incremental form
  // zeta from st (exclusive count) to n starting from initial_sum.
  static double Zeta(std::int64_t n, double theta);
  static double ZetaFrom(std::int64_t st, std::int64_t n, double theta, double initial_sum);

 private:
  void Recompute(std::int64_t item_count);
  std::int64_t items_, base_;
  double theta_, zeta2theta_, alpha_, zetan_, eta_;
  std::int64_t count_for_zeta_;
  double half_pow_theta_;  // 1 + 0.5^theta
  // alpha_ rounded when it is an integer up to rounding (theta 0.99 gives
  // 100.00000000000009): x^alpha by squaring, ~3x faster than pow. 0 = pow.
  std::uint32_t int_alpha_ = 0;
};

// ScrambledZipfianGenerator: zipfian over a fixed 10^10 items (zeta
// precomputed as 26.46902820178302 for theta 0.99), then
// min + FnvHash64(v) % itemcount. Popular items are scattered.
class ScrambledZipfianGenerator final : public NumberGenerator {
 public:
  static constexpr std::int64_t kItemCount = 10000000000LL;
  static constexpr double kZetan = 26.46902820178302;
  ScrambledZipfianGenerator(std::int64_t min, std::int64_t max,
                            double constant = ZipfianGenerator::kZipfianConstant);
  std::int64_t Next(Rng& rng) override;
 private:
  std::int64_t min_, item_count_;
  std::uint64_t mod_magic_;  // UINT64_MAX / item_count_: % without a division
  ZipfianGenerator gen_;
};

// HotspotIntegerGenerator: hot_op_fraction of draws fall in the first
// hot_set_fraction of [lo, hi], the rest in the remainder, uniform within each.
class HotspotGenerator final : public NumberGenerator {
 public:
  HotspotGenerator(std::int64_t lo, std::int64_t hi, double hot_set_fraction, double hot_op_fraction);
  std::int64_t Next(Rng& rng) override;
 private:
  std::int64_t lo_, hot_interval_, cold_interval_;
  double hot_op_fraction_;
};

// ExponentialGenerator: (long)(-ln(U) / gamma), gamma = -ln(1 - percentile/100) / range.
class ExponentialGenerator final : public NumberGenerator {
 public:
  ExponentialGenerator(double percentile, double range);
  std::int64_t Next(Rng& rng) override;
  double Mean() const override { return 1.0 / gamma_; }
 private:
  double gamma_;
  double inv_gamma_;  // 1 / gamma_, so Next() multiplies instead of dividing
};

// HistogramGenerator: YCSB's histogram file ("BlockSize\t<n>" then
// "<bucket>\t<count>" lines). Throws ConfigError (file:line) on a bad file.
class HistogramGenerator final : public NumberGenerator {
 public:
  static HistogramGenerator FromFile(const std::string& path);
  HistogramGenerator(std::int64_t block_size, std::vector<std::int64_t> buckets);
  std::int64_t Next(Rng& rng) override;
  double Mean() const override;
 private:
  std::int64_t block_size_, area_;
  std::vector<std::int64_t> buckets_;
};

// A shared counter (CounterGenerator) for load key sequences and the
// sequential chooser. Thread-safe.
class SharedCounter {
 public:
  explicit SharedCounter(std::int64_t start) : next_(start) {}
  std::int64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // Takes n consecutive values at once; returns the first.
  std::int64_t NextN(std::int64_t n) { return next_.fetch_add(n, std::memory_order_relaxed); }
  std::int64_t Peek() const { return next_.load(std::memory_order_relaxed); }
 private:
  alignas(64) std::atomic<std::int64_t> next_;
};

// AcknowledgedCounterGenerator: hands out insert key numbers; Limit() is
// the highest number such that it and every number below it (from start)
// have been acknowledged. Readers choose keys <= Limit(), so no read ever
// targets a record whose insert is still in flight. Thread-safe. More than
// kWindow values outstanding (handed out, not yet acknowledged) is a
// programming error and aborts, as YCSB throws.
class AcknowledgedCounter {
 public:
  static constexpr std::int64_t kWindow = 1 << 20;
  explicit AcknowledgedCounter(std::int64_t start);
  std::int64_t Next() { return next_.fetch_add(1, std::memory_order_relaxed); }
  // Hands out n consecutive values at once (a batch); returns the first.
  // Each is acknowledged on its own.
  std::int64_t NextN(std::int64_t n) { return next_.fetch_add(n, std::memory_order_relaxed); }
  void Acknowledge(std::int64_t value);
  // YCSB's lastValue(): start-1 before any acknowledgement.
  std::int64_t Limit() const { return limit_.load(std::memory_order_acquire); }
 private:
  alignas(64) std::atomic<std::int64_t> next_;
  alignas(64) std::atomic<std::int64_t> limit_;
  // Lock-free: window_[v & (kWindow-1)] holds the parity of v >> 20 once v is
  // acknowledged (see generators.cc); no mutex, no slot clearing.
  std::unique_ptr<std::atomic<bool>[]> window_;
};

// SkewedLatestGenerator: Limit() - zipfian(Limit()), favouring the most
// recently acknowledged inserts.
class SkewedLatestGenerator final : public NumberGenerator {
 public:
  explicit SkewedLatestGenerator(const AcknowledgedCounter& basis,
                                 double constant = ZipfianGenerator::kZipfianConstant);
  std::int64_t Next(Rng& rng) override;
 private:
  const AcknowledgedCounter& basis_;
  ZipfianGenerator zipfian_;
};

// SequentialGenerator over [lo, hi]: lo + (shared counter % interval),
// shared by all threads like YCSB's.
class SequentialGenerator final : public NumberGenerator {
 public:
  SequentialGenerator(std::int64_t lo, std::int64_t hi, SharedCounter& counter);
  std::int64_t Next(Rng& rng) override;
 private:
  std::int64_t lo_, interval_;
  SharedCounter& counter_;
};

// DiscreteGenerator: picks one of several values by weight (the operation
// chooser). Weights need not sum to 1; zero weights are skipped.
class DiscreteGenerator {
 public:
  void Add(int value, double weight);
  bool empty() const { return values_.empty(); }
  double total_weight() const { return total_; }
  // Inline: it runs once per operation. Empty generators are rejected by
  // the callers (CoreWorkload checks the proportions sum to > 0).
  int Next(Rng& rng) const {
    const double u = rng.NextDouble();
    const std::size_t n = values_.size();
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (u < cumulative_[i]) return values_[i];
    }
    return values_[n - 1];
  }
 private:
  std::vector<int> values_;
  std::vector<double> cumulative_;  // normalised cumulative weights
  double total_ = 0;
};

}  // namespace storebench
