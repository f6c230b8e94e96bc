// This file replaces the global operator new/delete (malloc/free) to count
// allocations; GCC's mismatch warning does not know they pair up.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include "measure/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <random>
#include <stdexcept>
#include <vector>

// Counts heap allocations so that tests can check that Record never allocates.
namespace {
std::atomic<std::uint64_t> g_allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
// The nothrow forms too: every form a library in the test binary may use
// must pair on malloc/free, or ASan reports alloc-dealloc-mismatch (libgroonga
// allocates with new(std::nothrow) and frees with the replaced delete).
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(size ? size : 1);
}
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace storebench {
namespace {

using Buckets = std::vector<std::pair<std::uint32_t, std::uint64_t>>;

const std::vector<double> kPercentiles = {0,  0.1, 1,  10, 25,   33.3, 50,     75,
                                          90, 95,  99, 99.9, 99.99, 99.999, 100};

// The rank (1-based) of percentile p among n samples: ceil(p/100 * n), at
// least 1, computed exactly from p in units of 1/1000 percent.
std::uint64_t Rank(double p, std::uint64_t n) {
  const auto milli = static_cast<unsigned __int128>(std::llround(p * 1000));
  auto r = static_cast<std::uint64_t>((milli * n + 100000 - 1) / 100000);
  return std::clamp<std::uint64_t>(r, 1, n);
}

// Checks every percentile of h against the sorted samples: the answer must be
// exactly the highest value of the bucket holding the rank-th sample (clamped
// to [min, max]), and within 0.1% above that sample.
void ExpectPercentiles(const Histogram& h, std::vector<std::uint64_t> samples) {
  std::sort(samples.begin(), samples.end());
  ASSERT_EQ(h.count(), samples.size());
  ASSERT_EQ(h.min(), samples.front());
  ASSERT_EQ(h.max(), samples.back());
  for (double p : kPercentiles) {
    const std::uint64_t ref = samples[Rank(p, samples.size()) - 1];
    const std::uint64_t got = h.ValueAtPercentile(p);
    const std::uint64_t expect =
        std::max(std::min(Histogram::BucketHighest(Histogram::BucketIndex(ref)), samples.back()), samples.front());
    EXPECT_EQ(got, expect) << "p=" << p << " ref=" << ref;
    if (ref <= Histogram::kMaxTrackable) {
      EXPECT_GE(got, ref) << "p=" << p;
      EXPECT_LE(static_cast<double>(got - ref), 0.001 * static_cast<double>(ref)) << "p=" << p << " ref=" << ref;
    } else {
      EXPECT_GE(got, Histogram::kMaxTrackable) << "p=" << p;
      EXPECT_LE(got, samples.back()) << "p=" << p;
    }
  }
}

Histogram FromSamples(const std::vector<std::uint64_t>& samples) {
  Histogram h;
  for (auto v : samples) h.Record(v);
  return h;
}

void ExpectSameHistogram(const Histogram& a, const Histogram& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.sum(), b.sum());
  EXPECT_EQ(a.NonEmptyBuckets(), b.NonEmptyBuckets());
  for (double p : kPercentiles) EXPECT_EQ(a.ValueAtPercentile(p), b.ValueAtPercentile(p)) << "p=" << p;
}

std::vector<std::uint64_t> LogUniform(std::mt19937_64& rng, std::size_t n, std::uint64_t max) {
  std::uniform_real_distribution<double> u(0, std::log2(static_cast<double>(max)));
  std::vector<std::uint64_t> out(n);
  for (auto& v : out) v = static_cast<std::uint64_t>(std::exp2(u(rng)));
  return out;
}

TEST(HistogramGeometry, LayoutConstants) {
  EXPECT_EQ(Histogram::BucketCount(), 33u * 1024 + 1);
  EXPECT_EQ(Histogram::BucketIndex(Histogram::kMaxTrackable), Histogram::BucketCount() - 1);
  EXPECT_EQ(Histogram::BucketLowest(Histogram::BucketCount() - 1), Histogram::kMaxTrackable);
  EXPECT_EQ(Histogram::BucketIndex(2047), 2047u);
  EXPECT_EQ(Histogram::BucketIndex(2048), 2048u);
  EXPECT_EQ(Histogram::BucketIndex(2049), 2048u);
  EXPECT_EQ(Histogram::BucketIndex(4095), 3071u);
  EXPECT_EQ(Histogram::BucketIndex(4096), 3072u);
  EXPECT_EQ(Histogram::BucketHighest(2048), 2049u);
  // Beyond kMaxTrackable: clamped into the top bucket.
  EXPECT_EQ(Histogram::BucketIndex(Histogram::kMaxTrackable + 1), Histogram::BucketCount() - 1);
  EXPECT_EQ(Histogram::BucketIndex(UINT64_MAX), Histogram::BucketCount() - 1);
}

TEST(HistogramGeometry, SmallValuesAreExact) {
  for (std::uint64_t v = 0; v < 2048; ++v) {
    ASSERT_EQ(Histogram::BucketIndex(v), v);
    ASSERT_EQ(Histogram::BucketLowest(static_cast<std::uint32_t>(v)), v);
    ASSERT_EQ(Histogram::BucketHighest(static_cast<std::uint32_t>(v)), v);
  }
}

TEST(HistogramGeometry, BucketsAreContiguousAndConsistent) {
  const std::uint32_t n = Histogram::BucketCount();
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t lo = Histogram::BucketLowest(i), hi = Histogram::BucketHighest(i);
    ASSERT_LE(lo, hi) << i;
    ASSERT_EQ(Histogram::BucketIndex(lo), i) << i;
    if (i + 1 < n) {
      ASSERT_EQ(Histogram::BucketIndex(hi), i) << i;
      ASSERT_EQ(Histogram::BucketLowest(i + 1), hi + 1) << i;
    }
  }
}

TEST(HistogramGeometry, RelativeErrorAtMostOneThousandth) {
  std::vector<std::uint64_t> values;
  for (int b = 0; b <= 42; ++b) {
    const std::uint64_t p = std::uint64_t{1} << b;
    for (std::uint64_t d : {p - 1, p, p + 1, p + p / 2, 2 * p - 1}) values.push_back(d);
  }
  std::mt19937_64 rng(1);
  for (auto v : LogUniform(rng, 100000, Histogram::kMaxTrackable)) values.push_back(v);
  Histogram h;
  for (std::uint64_t v : values) {
    if (v == 0 || v > Histogram::kMaxTrackable) continue;
    const std::uint32_t i = Histogram::BucketIndex(v);
    const std::uint64_t lo = Histogram::BucketLowest(i), hi = Histogram::BucketHighest(i);
    ASSERT_LE(lo, v);
    ASSERT_GE(hi, v);
    ASSERT_LE(static_cast<double>(hi - lo), 0.001 * static_cast<double>(v)) << v;
    // The reported value, seen through a histogram (max is larger, so no clamping).
    h.Reset();
    h.Record(v);
    h.Record(Histogram::kMaxTrackable * 2);
    const std::uint64_t got = h.ValueAtPercentile(50);
    ASSERT_GE(got, v);
    ASSERT_LE(static_cast<double>(got - v), 0.001 * static_cast<double>(v)) << v;
  }
}

TEST(Histogram, EmptyIsAllZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.sum(), 0u);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.ValueAtPercentile(50), 0u);
  EXPECT_EQ(h.ValueAtPercentile(100), 0u);
  EXPECT_TRUE(h.NonEmptyBuckets().empty());
}

TEST(Histogram, CountsMinMaxSumMean) {
  Histogram h;
  for (std::uint64_t v : {5000, 3, 123456789, 42}) h.Record(v);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), 3u);
  EXPECT_EQ(h.max(), 123456789u);
  EXPECT_EQ(h.sum(), 123461834u);
  EXPECT_DOUBLE_EQ(h.mean(), 123461834.0 / 4);
}

TEST(Histogram, RecordNEqualsRepeatedRecord) {
  Histogram a, b;
  a.RecordN(777777, 5);
  a.RecordN(12, 0);  // no-op: does not touch min
  for (int i = 0; i < 5; ++i) b.Record(777777);
  ExpectSameHistogram(a, b);
  EXPECT_EQ(a.min(), 777777u);
}

TEST(Histogram, RecordDoesNotAllocate) {
  Histogram h;
  std::mt19937_64 rng(7);
  const auto values = LogUniform(rng, 10000, Histogram::kMaxTrackable * 4);
  const std::uint64_t before = g_allocations.load();
  for (auto v : values) h.Record(v);
  h.RecordN(99, 3);
  EXPECT_EQ(g_allocations.load(), before);
  EXPECT_EQ(h.count(), 10003u);
}

TEST(HistogramPercentiles, OneSample) {
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2047}, std::uint64_t{2049},
                          std::uint64_t{123456789}, Histogram::kMaxTrackable, std::uint64_t{1} << 60}) {
    Histogram h;
    h.Record(v);
    for (double p : kPercentiles) EXPECT_EQ(h.ValueAtPercentile(p), v) << v << " p=" << p;
    ExpectPercentiles(h, {v});
  }
}

TEST(HistogramPercentiles, AllEqual) {
  std::vector<std::uint64_t> s(1000, 987654);
  Histogram h = FromSamples(s);
  for (double p : kPercentiles) EXPECT_EQ(h.ValueAtPercentile(p), 987654u);
  ExpectPercentiles(h, s);
}

TEST(HistogramPercentiles, SmallExactValues) {
  // 1..100 once each: exact buckets, so p-th percentile is exactly p.
  std::vector<std::uint64_t> s;
  for (std::uint64_t v = 1; v <= 100; ++v) s.push_back(v);
  Histogram h = FromSamples(s);
  EXPECT_EQ(h.ValueAtPercentile(50), 50u);
  EXPECT_EQ(h.ValueAtPercentile(95), 95u);
  EXPECT_EQ(h.ValueAtPercentile(99), 99u);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 100u);
  EXPECT_EQ(h.ValueAtPercentile(0), 1u);
  EXPECT_EQ(h.ValueAtPercentile(0.5), 1u);
  EXPECT_EQ(h.ValueAtPercentile(1.5), 2u);
  EXPECT_EQ(h.ValueAtPercentile(150), 100u);  // clamped to 100
  ExpectPercentiles(h, s);
}

TEST(HistogramPercentiles, DecimalPercentilesAreNotRoundedUp) {
  // 99.9% of 1000 samples is rank 999 exactly (no floating-point creep to 1000).
  std::vector<std::uint64_t> s;
  for (std::uint64_t v = 1; v <= 1000; ++v) s.push_back(v);
  Histogram h = FromSamples(s);
  EXPECT_EQ(h.ValueAtPercentile(99.9), 999u);
  EXPECT_EQ(h.ValueAtPercentile(95), 950u);
  EXPECT_EQ(h.ValueAtPercentile(50), 500u);
  EXPECT_EQ(h.ValueAtPercentile(0.1), 1u);
  EXPECT_EQ(h.ValueAtPercentile(0.2), 2u);
}

TEST(HistogramPercentiles, RandomDistributionsAgainstSortedReference) {
  std::mt19937_64 rng(42);
  std::vector<std::vector<std::uint64_t>> cases;
  {
    std::uniform_int_distribution<std::uint64_t> u(0, 1'000'000);
    std::vector<std::uint64_t> s(20000);
    for (auto& v : s) v = u(rng);
    cases.push_back(s);
  }
  cases.push_back(LogUniform(rng, 20000, Histogram::kMaxTrackable));
  {
    std::exponential_distribution<double> e(1.0 / 50000);
    std::vector<std::uint64_t> s(20000);
    for (auto& v : s) v = static_cast<std::uint64_t>(e(rng));
    cases.push_back(s);
  }
  {  // bimodal: cache hits and disk reads
    std::normal_distribution<double> fast(2000, 100), slow(5'000'000, 500'000);
    std::bernoulli_distribution pick(0.97);
    std::vector<std::uint64_t> s(20000);
    for (auto& v : s) v = static_cast<std::uint64_t>(std::max(0.0, pick(rng) ? fast(rng) : slow(rng)));
    cases.push_back(s);
  }
  {  // huge values, many beyond kMaxTrackable
    std::uniform_int_distribution<std::uint64_t> u(Histogram::kMaxTrackable / 2, Histogram::kMaxTrackable * 64);
    std::vector<std::uint64_t> s(5000);
    for (auto& v : s) v = u(rng);
    cases.push_back(s);
  }
  {  // few samples
    cases.push_back({7, 3});
    cases.push_back({10, 20, 30});
  }
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    ExpectPercentiles(FromSamples(cases[c]), cases[c]);
  }
}

TEST(HistogramPercentiles, HugeValuesKeepExactMinMaxSum) {
  Histogram h;
  const std::uint64_t big = std::uint64_t{1} << 50;
  h.Record(big);
  h.Record(big + 1);
  h.Record(1000);
  EXPECT_EQ(h.max(), big + 1);
  EXPECT_EQ(h.min(), 1000u);
  EXPECT_EQ(h.sum(), 2 * big + 1001);
  Buckets expect = {{1000, 1}, {Histogram::BucketCount() - 1, 2}};
  EXPECT_EQ(h.NonEmptyBuckets(), expect);
  // The top bucket answers with its highest value (clamped to max).
  EXPECT_EQ(h.ValueAtPercentile(99), Histogram::BucketHighest(Histogram::BucketCount() - 1));
  EXPECT_EQ(h.ValueAtPercentile(10), 1000u);
}

TEST(HistogramMerge, PerThreadMergeEqualsOneHistogram) {
  std::mt19937_64 rng(3);
  Histogram all;
  std::vector<std::uint64_t> samples;
  std::vector<Histogram> threads(4);
  for (int t = 0; t < 4; ++t) {
    auto s = LogUniform(rng, 5000, std::uint64_t{1} << (20 + 6 * t));  // different ranges per thread
    for (auto v : s) {
      threads[t].Record(v);
      all.Record(v);
      samples.push_back(v);
    }
  }
  Histogram merged;
  for (const auto& t : threads) merged.Merge(t);
  ExpectSameHistogram(merged, all);
  ExpectPercentiles(merged, samples);
  // Merge order does not matter.
  Histogram reversed;
  for (int t = 3; t >= 0; --t) reversed.Merge(threads[t]);
  ExpectSameHistogram(reversed, all);
}

TEST(HistogramMerge, EmptyAndSelf) {
  Histogram a = FromSamples({100, 200, 300000});
  Histogram empty;
  Histogram a2 = a;
  a2.Merge(empty);
  ExpectSameHistogram(a2, a);
  empty.Merge(a);
  ExpectSameHistogram(empty, a);
  Histogram twice = FromSamples({100, 200, 300000, 100, 200, 300000});
  a.Merge(a);
  ExpectSameHistogram(a, twice);
}

TEST(HistogramSerialization, NonEmptyBucketsFromBucketsRoundTrip) {
  std::mt19937_64 rng(5);
  auto s = LogUniform(rng, 10000, Histogram::kMaxTrackable * 8);
  Histogram h = FromSamples(s);
  const Buckets b = h.NonEmptyBuckets();
  ASSERT_FALSE(b.empty());
  for (std::size_t i = 1; i < b.size(); ++i) ASSERT_LT(b[i - 1].first, b[i].first);
  for (const auto& [i, c] : b) ASSERT_GT(c, 0u);
  Histogram back = Histogram::FromBuckets(b, h.min(), h.max(), h.sum());
  ExpectSameHistogram(back, h);
  EXPECT_EQ(back.mean(), h.mean());
  // The restored histogram keeps working: merge and record.
  back.Merge(h);
  back.Record(1);
  EXPECT_EQ(back.count(), 2 * h.count() + 1);
  EXPECT_EQ(back.min(), 1u);

  Histogram empty = Histogram::FromBuckets({}, 0, 0, 0);
  EXPECT_EQ(empty.count(), 0u);
  EXPECT_EQ(empty.min(), 0u);
}

TEST(HistogramSerialization, KnownBuckets) {
  Histogram h = FromSamples({1, 1, 2048, 2049, 5000});
  Buckets expect = {{1, 2}, {2048, 2}, {Histogram::BucketIndex(5000), 1}};
  EXPECT_EQ(h.NonEmptyBuckets(), expect);
  EXPECT_EQ(Histogram::BucketIndex(5000), 2048u + 1024 + (5000 >> 2) - 1024);
}

TEST(HistogramSerialization, FromBucketsRejectsInconsistentInput) {
  const std::uint32_t n = Histogram::BucketCount();
  EXPECT_THROW(Histogram::FromBuckets({{n, 1}}, 0, 0, 0), std::invalid_argument);           // index range
  EXPECT_THROW(Histogram::FromBuckets({{5, 1}, {5, 1}}, 5, 5, 10), std::invalid_argument);   // duplicate
  EXPECT_THROW(Histogram::FromBuckets({{6, 1}, {5, 1}}, 5, 6, 11), std::invalid_argument);   // descending
  EXPECT_THROW(Histogram::FromBuckets({{5, 0}}, 5, 5, 0), std::invalid_argument);            // zero count
  EXPECT_THROW(Histogram::FromBuckets({{5, 1}}, 4, 5, 5), std::invalid_argument);            // min elsewhere
  EXPECT_THROW(Histogram::FromBuckets({{5, 1}, {9, 1}}, 5, 10, 15), std::invalid_argument);  // max elsewhere
  EXPECT_THROW(Histogram::FromBuckets({{5, 2}, {9, 1}}, 5, 9, 100), std::invalid_argument);  // sum > max*count
  EXPECT_THROW(Histogram::FromBuckets({{5, 2}, {9, 1}}, 5, 9, 14), std::invalid_argument);   // sum < min*count
  EXPECT_THROW(Histogram::FromBuckets({}, 0, 3, 0), std::invalid_argument);                  // empty with max
  EXPECT_NO_THROW(Histogram::FromBuckets({{5, 2}, {9, 1}}, 5, 9, 19));
}

TEST(Histogram, ResetClearsEverything) {
  Histogram h = FromSamples({10, 5'000'000, 123});
  h.Reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.min(), 0u);
  EXPECT_EQ(h.max(), 0u);
  EXPECT_EQ(h.sum(), 0u);
  EXPECT_TRUE(h.NonEmptyBuckets().empty());
  EXPECT_EQ(h.ValueAtPercentile(99), 0u);
  h.Record(77);
  Buckets expect = {{77, 1}};
  EXPECT_EQ(h.NonEmptyBuckets(), expect);
  // A range wider than before the reset: no stale bucket survives.
  h.Record(1);
  h.Record(9'000'000);
  expect = {{1, 1}, {77, 1}, {Histogram::BucketIndex(9'000'000), 1}};
  EXPECT_EQ(h.NonEmptyBuckets(), expect);
  EXPECT_EQ(h.ValueAtPercentile(50), 77u);
  EXPECT_EQ(h.ValueAtPercentile(67), 9'000'000u);  // rank 3: the max (its bucket clamped to max)
  Histogram big = FromSamples({10, 5'000'000, 123});
  big.Merge(h);
  EXPECT_EQ(big.count(), 6u);
  EXPECT_EQ(big.ValueAtPercentile(50), 77u);
}

TEST(Histogram, CopyIsDeepAndIndependent) {
  Histogram a = FromSamples({1, 2, 3, 40000});
  Histogram b(a);
  ExpectSameHistogram(a, b);
  b.Record(999999);
  EXPECT_EQ(a.count(), 4u);
  EXPECT_EQ(b.count(), 5u);
  EXPECT_EQ(a.max(), 40000u);

  Histogram c = FromSamples({7'000'000'000, 8});  // different range: assignment leaves no stale buckets
  c = a;
  ExpectSameHistogram(c, a);
  const Histogram& self = c;  // through a reference: clang's -Wself-assign-overloaded refuses "c = c"
  c = self;                    // self-assignment
  ExpectSameHistogram(c, a);
  Histogram empty;
  c = empty;
  ExpectSameHistogram(c, empty);
}

TEST(Histogram, MoveAndReuseMovedFrom) {
  Histogram a = FromSamples({5, 6});
  Histogram b(std::move(a));
  EXPECT_EQ(b.count(), 2u);
  a = FromSamples({9});  // a moved-from histogram may be assigned to
  EXPECT_EQ(a.count(), 1u);
  a.Record(10);
  EXPECT_EQ(a.max(), 10u);
  Histogram c(std::move(a));
  a.Reset();  // ... or reset
  a.Record(3);
  EXPECT_EQ(a.count(), 1u);
  EXPECT_EQ(a.min(), 3u);
  Histogram d;
  d = b;
  Histogram e(std::move(d));
  d = b;  // copy-assign into moved-from
  ExpectSameHistogram(d, b);
}


// The sparse form (a merged series point keeps only its non-empty buckets)
// answers every percentile exactly as the histogram does.
TEST(Histogram, PercentileOfBucketsAgreesWithValueAtPercentile) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::lognormal_distribution<double> lat(6.0 + trial % 7, 0.3 + 0.2 * (trial % 5));
    Histogram h;
    const int n = 1 + trial * 37;
    for (int i = 0; i < n; ++i) h.Record(static_cast<std::uint64_t>(lat(rng)));
    const auto buckets = h.NonEmptyBuckets();
    for (double p : {0.0, 1.0, 25.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
      EXPECT_EQ(Histogram::PercentileOfBuckets(buckets, h.min(), h.max(), p), h.ValueAtPercentile(p))
          << "trial " << trial << " p" << p;
    }
  }
  EXPECT_EQ(Histogram::PercentileOfBuckets({}, 0, 0, 50), 0u);
}

}  // namespace
}  // namespace storebench
