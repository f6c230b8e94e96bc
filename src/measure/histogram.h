// Histogram: a log-linear latency histogram (HdrHistogram's layout) in
// nanoseconds with 3 significant decimal digits of precision: any recorded
// value is reported within 0.1% (relative). Values from 1 ns up to
// kMaxTrackable ns are bucketed; larger values are clamped into the top
// bucket while min/max/sum stay exact.
//
// Recording is a few instructions and never allocates (the bucket array is
// allocated once, at construction). Merging adds bucket counts, so merged
// percentiles are exact with respect to the union of samples (to bucket
// precision), never averages of percentiles.
//
// Not thread-safe: one per thread per operation type, merged afterwards.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace storebench {

class Histogram {
 public:
  static constexpr std::uint64_t kMaxTrackable = 1ull << 42;  // ~73 minutes in ns

  Histogram();
  Histogram(const Histogram& other);
  Histogram& operator=(const Histogram& other);
  Histogram(Histogram&&) noexcept = default;
  Histogram& operator=(Histogram&&) noexcept = default;

  void Record(std::uint64_t value_ns) { RecordN(value_ns, 1); }
  // Records n samples of value_ns (n == 0 is a no-op). Defined inline below:
  // branch-free apart from the n == 0 test, which folds away for Record.
  void RecordN(std::uint64_t value_ns, std::uint64_t n);
  void Merge(const Histogram& other);
  void Reset();

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const { return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0; }
  // Sum of all recorded values (exact; wraps only beyond 2^64 ns total).
  std::uint64_t sum() const { return sum_; }
  // The value at percentile p (0..100]: the smallest bucket value such that
  // at least p% of samples are <= it, reported as the bucket's highest
  // equivalent value (clamped to max()). 0 for an empty histogram.
  std::uint64_t ValueAtPercentile(double p) const;

  // Non-empty buckets as (bucket index, count), ascending; with
  // FromBuckets this is an exact, compact serialization.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> NonEmptyBuckets() const;
  static Histogram FromBuckets(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& buckets,
                               std::uint64_t min, std::uint64_t max, std::uint64_t sum);
  // ValueAtPercentile of the histogram those sorted non-empty buckets (and
  // min/max) describe, without building it (no full bucket array).
  static std::uint64_t PercentileOfBuckets(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& buckets,
                                           std::uint64_t min, std::uint64_t max, double p);

  // Bucket geometry (exposed for tests and serialization). Index i holds the
  // values BucketLowest(i) ..= BucketHighest(i); indexes run 0 .. BucketCount()-1
  // and are stable (part of the JSON format): value v < 2048 has index v;
  // otherwise, with e = bit_width(v) - 11, index = e * 1024 + (v >> e).
  // Values above kMaxTrackable map to BucketIndex(kMaxTrackable).
  static std::uint32_t BucketIndex(std::uint64_t value);
  static std::uint64_t BucketLowest(std::uint32_t index);
  static std::uint64_t BucketHighest(std::uint32_t index);
  static std::uint32_t BucketCount();

 private:
  static constexpr int kSubBucketHalfMagnitude = 10;  // 1024 = half of 2048 sub-buckets
  static constexpr std::uint64_t kSubBucketMask = (1u << (kSubBucketHalfMagnitude + 1)) - 1;  // 2047

  // A moved-from Histogram has no bucket array: only assignment, Reset and
  // destruction are valid on it.
  std::unique_ptr<std::uint64_t[]> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = UINT64_MAX;
  std::uint64_t max_ = 0;
  std::uint64_t sum_ = 0;
};

inline std::uint32_t Histogram::BucketIndex(std::uint64_t value) {
  value = std::min(value, kMaxTrackable);
  // e = 0 for values < 2048, else bit_width(value) - 11; e <= 32.
  const int e = 64 - (kSubBucketHalfMagnitude + 1) - std::countl_zero(value | kSubBucketMask);
  return static_cast<std::uint32_t>((static_cast<std::uint64_t>(e) << kSubBucketHalfMagnitude) +
                                    (value >> e));
}

inline void Histogram::RecordN(std::uint64_t value_ns, std::uint64_t n) {
  if (n == 0) return;
  counts_[BucketIndex(value_ns)] += n;
  count_ += n;
  sum_ += value_ns * n;
  min_ = std::min(min_, value_ns);
  max_ = std::max(max_, value_ns);
}

}  // namespace storebench
