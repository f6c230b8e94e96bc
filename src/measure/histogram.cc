// Histogram: see histogram.h. Layout (HdrHistogram's, unit 1 ns, 3
// significant digits): 2048 sub-buckets in the first bucket (values 0..2047,
// exact), then for each magnitude e = 1..32 the upper half (1024 linear
// sub-buckets of width 2^e) covering [2^(e+10), 2^(e+11)). Flattened index:
// e * 1024 + (v >> e). The highest index is BucketIndex(kMaxTrackable).
#include "measure/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace storebench {

std::uint32_t Histogram::BucketCount() { return BucketIndex(kMaxTrackable) + 1; }

std::uint64_t Histogram::BucketLowest(std::uint32_t index) {
  // e = max(0, index / 1024 - 1); sub-bucket = index - e * 1024 (in 1024..2047 when e > 0).
  const std::uint32_t hi = index >> kSubBucketHalfMagnitude;
  const std::uint32_t e = hi > 0 ? hi - 1 : 0;
  const std::uint64_t sub = index - (static_cast<std::uint64_t>(e) << kSubBucketHalfMagnitude);
  return sub << e;
}

std::uint64_t Histogram::BucketHighest(std::uint32_t index) {
  const std::uint32_t hi = index >> kSubBucketHalfMagnitude;
  const std::uint32_t e = hi > 0 ? hi - 1 : 0;
  return BucketLowest(index) + ((std::uint64_t{1} << e) - 1);
}

Histogram::Histogram() : counts_(std::make_unique<std::uint64_t[]>(BucketCount())) {}

Histogram::Histogram(const Histogram& other)
    : counts_(std::make_unique<std::uint64_t[]>(BucketCount())),
      count_(other.count_),
      min_(other.min_),
      max_(other.max_),
      sum_(other.sum_) {
  if (other.counts_ && other.count_ != 0) {
    const std::uint32_t lo = BucketIndex(other.min_), hi = BucketIndex(other.max_);
    std::memcpy(counts_.get() + lo, other.counts_.get() + lo, (hi - lo + 1) * sizeof(std::uint64_t));
  } else {
    count_ = 0, min_ = UINT64_MAX, max_ = 0, sum_ = 0;
  }
}

Histogram& Histogram::operator=(const Histogram& other) {
  if (this == &other) return *this;
  Reset();  // reuses (or re-creates) the bucket array
  if (other.counts_ && other.count_ != 0) {
    const std::uint32_t lo = BucketIndex(other.min_), hi = BucketIndex(other.max_);
    std::memcpy(counts_.get() + lo, other.counts_.get() + lo, (hi - lo + 1) * sizeof(std::uint64_t));
    count_ = other.count_;
    min_ = other.min_;
    max_ = other.max_;
    sum_ = other.sum_;
  }
  return *this;
}

void Histogram::Merge(const Histogram& other) {
  if (other.count_ == 0) return;
  const std::uint32_t lo = BucketIndex(other.min_), hi = BucketIndex(other.max_);
  std::uint64_t* dst = counts_.get();
  const std::uint64_t* src = other.counts_.get();
  for (std::uint32_t i = lo; i <= hi; ++i) dst[i] += src[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

void Histogram::Reset() {
  if (!counts_) {
    counts_ = std::make_unique<std::uint64_t[]>(BucketCount());
  } else if (count_ != 0) {
    // Only buckets between min and max can be non-zero.
    const std::uint32_t lo = BucketIndex(min_), hi = BucketIndex(max_);
    std::memset(counts_.get() + lo, 0, (hi - lo + 1) * sizeof(std::uint64_t));
  }
  count_ = 0;
  min_ = UINT64_MAX;
  max_ = 0;
  sum_ = 0;
}

namespace {
// rank = ceil(p/100 * count), at least 1, at most count. p is taken to 6
// decimal places (as an integer number of 1e-6 percent) so that decimal
// inputs like 99.9 are exact: 99.9% of 1000 samples is rank 999, not 1000.
std::uint64_t RankOf(double p, std::uint64_t count) {
  if (!(p > 0)) p = 0;  // also catches NaN
  if (p > 100) p = 100;
  const auto micro = static_cast<unsigned __int128>(std::llround(p * 1e6));  // 0 .. 1e8
  constexpr unsigned __int128 kScale = 100'000'000;
  unsigned __int128 rank = (micro * count + kScale - 1) / kScale;
  if (rank < 1) rank = 1;
  if (rank > count) rank = count;
  return static_cast<std::uint64_t>(rank);
}
}  // namespace

std::uint64_t Histogram::PercentileOfBuckets(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& buckets,
                                             std::uint64_t min, std::uint64_t max, double p) {
  std::uint64_t count = 0;
  for (const auto& b : buckets) count += b.second;
  if (count == 0) return 0;
  const std::uint64_t rank = RankOf(p, count);
  std::uint64_t cumulative = 0;
  std::uint32_t i = buckets.back().first;
  for (const auto& [index, n] : buckets) {
    cumulative += n;
    if (cumulative >= rank) {
      i = index;
      break;
    }
  }
  return std::max(std::min(BucketHighest(i), max), min);
}

std::uint64_t Histogram::ValueAtPercentile(double p) const {
  if (count_ == 0) return 0;
  const std::uint64_t rank = RankOf(p, count_);
  const std::uint32_t lo = BucketIndex(min_), hi = BucketIndex(max_);
  std::uint64_t cumulative = 0;
  std::uint32_t i = lo;
  for (; i < hi; ++i) {
    cumulative += counts_[i];
    if (cumulative >= rank) break;
  }
  return std::max(std::min(BucketHighest(i), max_), min_);
}

std::vector<std::pair<std::uint32_t, std::uint64_t>> Histogram::NonEmptyBuckets() const {
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  if (count_ == 0) return out;
  const std::uint32_t lo = BucketIndex(min_), hi = BucketIndex(max_);
  for (std::uint32_t i = lo; i <= hi; ++i) {
    if (counts_[i] != 0) out.emplace_back(i, counts_[i]);
  }
  return out;
}

// Throws std::invalid_argument unless the input is what NonEmptyBuckets()
// (plus min(), max(), sum()) of some histogram could have produced:
// ascending unique indexes below BucketCount(), non-zero counts, min in the
// first bucket and max in the last, min*count <= sum <= max*count (for an
// empty list: min == max == sum == 0). The sum bounds are checked only
// where the sum cannot have wrapped past 2^64.
Histogram Histogram::FromBuckets(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& buckets,
                                 std::uint64_t min, std::uint64_t max, std::uint64_t sum) {
  Histogram h;
  if (buckets.empty()) {
    if (min != 0 || max != 0 || sum != 0) {
      throw std::invalid_argument("histogram without samples must have min, max and sum 0");
    }
    return h;
  }
  const std::uint32_t n = BucketCount();
  std::uint64_t total = 0;
  std::int64_t previous = -1;
  for (const auto& [index, count] : buckets) {
    if (index >= n) {
      throw std::invalid_argument("bucket index " + std::to_string(index) + " out of range (0.." +
                                  std::to_string(n - 1) + ")");
    }
    if (static_cast<std::int64_t>(index) <= previous) {
      throw std::invalid_argument("bucket indexes not strictly ascending at " + std::to_string(index));
    }
    if (count == 0) throw std::invalid_argument("bucket " + std::to_string(index) + " has count 0");
    if (total + count < total) throw std::invalid_argument("bucket counts overflow 64 bits");
    previous = index;
    total += count;
    h.counts_[index] = count;
  }
  if (min > max) throw std::invalid_argument("histogram min " + std::to_string(min) + " > max " + std::to_string(max));
  if (BucketIndex(min) != buckets.front().first) {
    throw std::invalid_argument("histogram min " + std::to_string(min) + " is not in the first bucket (" +
                                std::to_string(buckets.front().first) + ")");
  }
  if (BucketIndex(max) != buckets.back().first) {
    throw std::invalid_argument("histogram max " + std::to_string(max) + " is not in the last bucket (" +
                                std::to_string(buckets.back().first) + ")");
  }
  const unsigned __int128 s = sum, low = static_cast<unsigned __int128>(min) * total,
                          high = static_cast<unsigned __int128>(max) * total;
  if (high <= UINT64_MAX && (s < low || s > high)) {
    throw std::invalid_argument("histogram sum " + std::to_string(sum) + " inconsistent with " +
                                std::to_string(total) + " samples in [" + std::to_string(min) + ", " +
                                std::to_string(max) + "]");
  }
  h.count_ = total;
  h.min_ = min;
  h.max_ = max;
  h.sum_ = sum;
  return h;
}

}  // namespace storebench
