#include "core/generators.h"

#include <gtest/gtest.h>

#include "test_util.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "core/error.h"
#include "core/random.h"

namespace storebench {
namespace {

// Pearson chi-square statistic of observed counts against expected counts.
// A bucket with expected count 0 must stay empty (else the result is huge).
double ChiSquare(const std::vector<std::int64_t>& observed, const std::vector<double>& expected) {
  double chi = 0;
  for (std::size_t i = 0; i < observed.size(); ++i) {
    if (expected[i] == 0) {
      if (observed[i] != 0) chi += 1e9;
      continue;
    }
    const double d = static_cast<double>(observed[i]) - expected[i];
    chi += d * d / expected[i];
  }
  return chi;
}

double NaiveZeta(std::int64_t n, double theta) {
  double s = 0;
  for (std::int64_t i = 1; i <= n; ++i) s += 1 / std::pow(static_cast<double>(i), theta);
  return s;
}

// The exact probabilities of Gray et al.'s method as YCSB implements it:
// rank 0 with u*zetan < 1, rank 1 with u*zetan < 1 + 0.5^theta, else rank
// floor(count * (eta*u - eta + 1)^alpha), eta computed with `eta_items`.
std::vector<double> GrayPmf(std::int64_t count, std::int64_t eta_items, double theta, double zetan) {
  const double zeta2 = 1 + std::pow(0.5, theta);
  const double eta = (1 - std::pow(2.0 / static_cast<double>(eta_items), 1 - theta)) / (1 - zeta2 / zetan);
  const double n = static_cast<double>(count);
  // The u at which count*(eta*u - eta + 1)^alpha reaches x.
  auto u_at = [&](double x) { return (std::pow(x / n, 1 - theta) - 1 + eta) / eta; };
  std::vector<double> p(static_cast<std::size_t>(count), 0.0);
  p[0] = std::min(1.0, 1 / zetan);
  if (count > 1) p[1] = std::min(1.0, zeta2 / zetan) - p[0];
  const double u2 = std::min(1.0, zeta2 / zetan);
  for (std::int64_t k = 0; k < count; ++k) {
    const double lo = std::clamp(u_at(static_cast<double>(k)), u2, 1.0);
    const double hi = std::clamp(u_at(static_cast<double>(k + 1)), u2, 1.0);
    p[static_cast<std::size_t>(k)] += std::max(0.0, hi - lo);
  }
  return p;
}

std::vector<std::int64_t> Histogram(NumberGenerator& g, Rng& rng, std::int64_t lo, std::int64_t n,
                                    int draws) {
  std::vector<std::int64_t> h(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < draws; ++i) {
    const std::int64_t v = g.Next(rng);
    EXPECT_GE(v, lo);
    EXPECT_LT(v, lo + n);
    if (v < lo || v >= lo + n) return h;
    ++h[static_cast<std::size_t>(v - lo)];
  }
  return h;
}

// ---------------------------------------------------------------------------

TEST(ConstantGeneratorTest, AlwaysTheValue) {
  ConstantGenerator g(42);
  Rng rng(1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(g.Next(rng), 42);
  EXPECT_EQ(g.Mean(), 42.0);
}

TEST(UniformGeneratorTest, ChiSquareOverBuckets) {
  constexpr int kBuckets = 100, kDraws = 200000;
  UniformGenerator g(5, 5 + kBuckets - 1);
  Rng rng(12345);
  auto h = Histogram(g, rng, 5, kBuckets, kDraws);
  std::vector<double> expected(kBuckets, static_cast<double>(kDraws) / kBuckets);
  // 99 degrees of freedom: P(chi2 > 148.2) = 0.001.
  EXPECT_LT(ChiSquare(h, expected), 148.2);
  // Both ends are reachable.
  EXPECT_GT(h.front(), 0);
  EXPECT_GT(h.back(), 0);
  EXPECT_DOUBLE_EQ(g.Mean(), 5 + (kBuckets - 1) / 2.0);
}

TEST(UniformGeneratorTest, SingleValueAndFullRange) {
  Rng rng(3);
  UniformGenerator one(7, 7);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(one.Next(rng), 7);
  UniformGenerator full(INT64_MIN, INT64_MAX);
  int negative = 0;
  for (int i = 0; i < 10000; ++i) negative += full.Next(rng) < 0;
  EXPECT_GT(negative, 4500);
  EXPECT_LT(negative, 5500);
  EXPECT_THROW(UniformGenerator(5, 4), ConfigError);
}

// ---------------------------------------------------------------------------

TEST(ZetaTest, MatchesNaiveSum) {
  for (double theta : {0.99, 0.5, 0.0}) {
    for (std::int64_t n : {1, 2, 3, 1000, 70000, 2000000}) {
      const double naive = NaiveZeta(n, theta);
      EXPECT_NEAR(ZipfianGenerator::Zeta(n, theta), naive, 1e-12 * naive) << n << " " << theta;
    }
  }
  EXPECT_EQ(ZipfianGenerator::Zeta(0, 0.99), 0.0);
  EXPECT_DOUBLE_EQ(ZipfianGenerator::Zeta(2, 0.99), 1 + std::pow(0.5, 0.99));
}

TEST(ZetaTest, IncrementalEqualsDirect) {
  const double theta = 0.99;
  // Short ranges are the same additions in the same order: bit-for-bit equal.
  EXPECT_EQ(ZipfianGenerator::ZetaFrom(100, 1000, theta, ZipfianGenerator::Zeta(100, theta)),
            ZipfianGenerator::Zeta(1000, theta));
  EXPECT_EQ(ZipfianGenerator::ZetaFrom(0, 1000, theta, 0.0), ZipfianGenerator::Zeta(1000, theta));
  EXPECT_EQ(ZipfianGenerator::ZetaFrom(1000, 1000, theta, 5.0), 5.0);
  // Long ranges (Euler-Maclaurin tail) agree to rounding.
  const double direct = ZipfianGenerator::Zeta(50000000, theta);
  const double incr =
      ZipfianGenerator::ZetaFrom(3000000, 50000000, theta, ZipfianGenerator::Zeta(3000000, theta));
  EXPECT_NEAR(incr, direct, 1e-13 * direct);
  const double twice = ZipfianGenerator::ZetaFrom(
      1000, 50000000, theta, ZipfianGenerator::ZetaFrom(10, 1000, theta, ZipfianGenerator::Zeta(10, theta)));
  EXPECT_NEAR(twice, direct, 1e-13 * direct);
}

TEST(ZetaTest, ReproducesYcsbScrambledConstant) {
  // YCSB's ZETAN = zetastatic(10^10, 0.99), a naive double sum; ours agrees
  // to its rounding error (~1e-12) and takes microseconds.
  const auto t0 = std::chrono::steady_clock::now();
  const double z = ZipfianGenerator::Zeta(ScrambledZipfianGenerator::kItemCount, 0.99);
  const auto dt = std::chrono::steady_clock::now() - t0;
  EXPECT_NEAR(z, ScrambledZipfianGenerator::kZetan, 1e-11 * z);
  EXPECT_LT(std::chrono::duration<double>(dt).count(), 0.5);
}

// ---------------------------------------------------------------------------

TEST(ZipfianGeneratorTest, TopRanksMatchZipfPmf) {
  constexpr std::int64_t kN = 1000;
  constexpr int kDraws = 1000000;
  const double theta = 0.99;
  ZipfianGenerator g(0, kN - 1);
  Rng rng(2024);
  auto h = Histogram(g, rng, 0, kN, kDraws);
  const double zetan = NaiveZeta(kN, theta);
  EXPECT_NEAR(g.zetan(), zetan, 1e-12 * zetan);
  auto freq = [&](std::int64_t i) { return static_cast<double>(h[static_cast<std::size_t>(i)]) / kDraws; };
  auto pmf = [&](std::int64_t i) { return std::pow(static_cast<double>(i + 1), -theta) / zetan; };
  // Ranks 0 and 1 are exact in Gray's method.
  EXPECT_NEAR(freq(0) / pmf(0), 1.0, 0.01);
  EXPECT_NEAR(freq(1) / pmf(1), 1.0, 0.015);
  // Ranks 2.. are approximations; Gray's method overweights rank 2 by ~17%
  // at n = 1000, and the error shrinks with the rank.
  const double max_rel_err[] = {0, 0, 0.20, 0.13, 0.10, 0.08, 0.07, 0.06, 0.05, 0.05};
  for (std::int64_t i = 2; i < 10; ++i) {
    const double r = freq(i) / pmf(i);
    EXPECT_GE(r, 0.98) << "rank " << i;
    EXPECT_LE(r, 1 + max_rel_err[i]) << "rank " << i;
  }
  // The tail: mass in ranks >= 100 and >= 500 against the analytic pmf.
  double tail100 = 0, tail500 = 0, exp100 = 0, exp500 = 0;
  for (std::int64_t i = 100; i < kN; ++i) {
    tail100 += freq(i);
    exp100 += pmf(i);
    if (i >= 500) {
      tail500 += freq(i);
      exp500 += pmf(i);
    }
  }
  // Gray's method moves ~3.5% of the tail's mass to ranks 2..10 at n = 1000.
  EXPECT_GT(tail100 / exp100, 0.95);
  EXPECT_LT(tail100 / exp100, 1.01);
  EXPECT_GT(tail500 / exp500, 0.95);
  EXPECT_LT(tail500 / exp500, 1.01);
}

class ZipfianThetaTest : public ::testing::TestWithParam<double> {};

TEST_P(ZipfianThetaTest, MatchesGrayMethodExactly) {
  // Frequencies against the exact probabilities of YCSB's algorithm: a
  // chi-square over the first 50 ranks plus the rest lumped together.
  // theta 0.99, 0.5 take the integral-alpha path (alpha 100, 2), 0.7 pow.
  const double theta = GetParam();
  constexpr std::int64_t kN = 1000;
  constexpr int kDraws = 500000;
  ZipfianGenerator g(10, 10 + kN - 1, theta);
  Rng rng(99);
  auto h = Histogram(g, rng, 10, kN, kDraws);
  auto p = GrayPmf(kN, kN, theta, g.zetan());
  std::vector<std::int64_t> obs(51, 0);
  std::vector<double> exp(51, 0.0);
  for (std::int64_t i = 0; i < kN; ++i) {
    const std::size_t b = static_cast<std::size_t>(std::min<std::int64_t>(i, 50));
    obs[b] += h[static_cast<std::size_t>(i)];
    exp[b] += p[static_cast<std::size_t>(i)] * kDraws;
  }
  // 50 degrees of freedom: P(chi2 > 86.7) = 0.001.
  EXPECT_LT(ChiSquare(obs, exp), 86.7);
}

INSTANTIATE_TEST_SUITE_P(Thetas, ZipfianThetaTest, ::testing::Values(0.99, 0.7, 0.5));

TEST(ZipfianGeneratorTest, DrawByDrawAgainstYcsbFormula) {
  // YCSB's nextLong with Math.pow, recomputed here from the same uniform
  // stream. The generator may take x^alpha by squaring when alpha is
  // integral (theta 0.99 -> 100): equal up to double rounding, so a draw
  // may differ by one rank, rarely.
  for (auto [count, theta] : {std::pair<std::int64_t, double>{1000, 0.99},
                              {ScrambledZipfianGenerator::kItemCount + 1, 0.99},
                              {1000000, 0.5},
                              {1000000, 0.7}}) {
    const double zetan = count > 1000000 ? ScrambledZipfianGenerator::kZetan : ZipfianGenerator::Zeta(count, theta);
    ZipfianGenerator g(0, count - 1, theta, zetan);
    const double zeta2 = ZipfianGenerator::Zeta(2, theta);
    const double alpha = 1.0 / (1.0 - theta);
    const double eta = (1 - std::pow(2.0 / static_cast<double>(count), 1 - theta)) / (1 - zeta2 / zetan);
    Rng rg(7), ru(7);
    int off_by_one = 0;
    constexpr int kDraws = 200000;
    for (int i = 0; i < kDraws; ++i) {
      const double u = ru.NextDouble();
      const double uz = u * zetan;
      std::int64_t want;
      if (uz < 1.0) {
        want = 0;
      } else if (uz < 1.0 + std::pow(0.5, theta)) {
        want = 1;
      } else {
        want = static_cast<std::int64_t>(static_cast<double>(count) * std::pow(eta * u - eta + 1, alpha));
      }
      const std::int64_t got = g.Next(rg);
      ASSERT_LE(std::abs(got - want), 1) << "count=" << count << " theta=" << theta << " draw " << i;
      off_by_one += got != want;
    }
    EXPECT_LE(off_by_one, kDraws / 50000) << "count=" << count << " theta=" << theta;
  }
}

TEST(ZipfianGeneratorTest, GrowingCountKeepsConstructionTimeEta) {
  // YCSB quirk: after nextLong(itemcount) grows zeta, eta still uses the
  // construction-time item count.
  ZipfianGenerator g(0, 99);
  Rng rng(5);
  constexpr std::int64_t kCount = 1000;
  constexpr int kDraws = 500000;
  std::vector<std::int64_t> h(kCount, 0);
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = g.NextWithCount(rng, kCount);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, kCount);
    ++h[static_cast<std::size_t>(v)];
  }
  EXPECT_EQ(g.zetan(), ZipfianGenerator::Zeta(kCount, 0.99));
  auto quirky = GrayPmf(kCount, /*eta_items=*/100, 0.99, g.zetan());
  auto fresh = GrayPmf(kCount, /*eta_items=*/kCount, 0.99, g.zetan());
  auto chi = [&](const std::vector<double>& p) {
    std::vector<std::int64_t> obs(31, 0);
    std::vector<double> exp(31, 0.0);
    for (std::int64_t i = 0; i < kCount; ++i) {
      const std::size_t b = static_cast<std::size_t>(std::min<std::int64_t>(i, 30));
      obs[b] += h[static_cast<std::size_t>(i)];
      exp[b] += p[static_cast<std::size_t>(i)] * kDraws;
    }
    return ChiSquare(obs, exp);
  };
  // With eta from 100 items, ranks 2..~20 are unreachable: the quirk is
  // visible, and the chi-square demands those buckets stay empty.
  EXPECT_EQ(h[2], 0);
  EXPECT_LT(chi(quirky), 59.7);  // <= 30 dof, p = 0.001
  EXPECT_GT(chi(fresh), 1000);   // and it is distinguishable from the unquirked form
  // A smaller count afterwards does not recompute (allowitemcountdecrease=false).
  const double z = g.zetan();
  for (int i = 0; i < 1000; ++i) EXPECT_LT(g.NextWithCount(rng, 50), 50);
  EXPECT_EQ(g.zetan(), z);
}

TEST(ZipfianGeneratorTest, TinyRangesAndValidation) {
  Rng rng(8);
  ZipfianGenerator one(5, 5);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(one.Next(rng), 5);
  ZipfianGenerator two(0, 1);
  int zeros = 0;
  for (int i = 0; i < 10000; ++i) {
    const auto v = two.Next(rng);
    ASSERT_TRUE(v == 0 || v == 1);
    zeros += v == 0;
  }
  // P(0) = 1/zeta(2) = 1/(1 + 0.5^0.99) ~ 0.6677.
  EXPECT_NEAR(zeros / 10000.0, 1 / (1 + std::pow(0.5, 0.99)), 0.015);
  ZipfianGenerator three(0, 2);
  for (int i = 0; i < 10000; ++i) ASSERT_LE(three.Next(rng), 2);
  EXPECT_THROW(ZipfianGenerator(3, 2), ConfigError);
  EXPECT_THROW(ZipfianGenerator(0, 10, 1.0), ConfigError);
  EXPECT_THROW(ZipfianGenerator(0, 10, -0.5), ConfigError);
}

TEST(ZipfianGeneratorTest, OtherConstantShiftsMass) {
  // theta = 0.5 puts far less mass on rank 0 than 0.99.
  Rng rng(4);
  ZipfianGenerator g(0, 999, 0.5);
  int zeros = 0;
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) zeros += g.Next(rng) == 0;
  EXPECT_NEAR(static_cast<double>(zeros) / kDraws, 1 / NaiveZeta(1000, 0.5), 0.002);
}

TEST(ZipfianGeneratorTest, LargeCountConstructsQuickly) {
  const auto t0 = std::chrono::steady_clock::now();
  ZipfianGenerator g(0, 999999999);  // 10^9 items: YCSB sums 10^9 powers here
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  Rng rng(1);
  for (int i = 0; i < 10000; ++i) {
    const auto v = g.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 1000000000);
  }
}

// ---------------------------------------------------------------------------

TEST(ScrambledZipfianGeneratorTest, InRangeDeterministicAndScattered) {
  constexpr std::int64_t kLo = 1000, kN = 1000;
  constexpr int kDraws = 300000;
  ScrambledZipfianGenerator a(kLo, kLo + kN - 1), b(kLo, kLo + kN - 1);
  Rng ra(77), rb(77);
  std::vector<std::int64_t> h(kN, 0);
  for (int i = 0; i < kDraws; ++i) {
    const std::int64_t v = a.Next(ra);
    ASSERT_EQ(v, b.Next(rb)) << "draw " << i;
    ASSERT_GE(v, kLo);
    ASSERT_LT(v, kLo + kN);
    ++h[static_cast<std::size_t>(v - kLo)];
  }
  // The most popular values are the hashes of zipfian ranks 0 and 1:
  // min + FnvHash64(0) % n = 1211, min + FnvHash64(1) % n = 1620.
  std::vector<std::int64_t> order(kN);
  for (std::int64_t i = 0; i < kN; ++i) order[static_cast<std::size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](auto x, auto y) { return h[x] > h[y]; });
  EXPECT_EQ(kLo + order[0], kLo + FnvHash64(0) % kN);
  EXPECT_EQ(kLo + order[0], 1211);
  EXPECT_EQ(kLo + order[1], 1620);
  // Rank 0 of 10^10 items has probability 1/ZETAN (plus ~1/n from collisions).
  EXPECT_NEAR(static_cast<double>(h[static_cast<std::size_t>(order[0])]) / kDraws,
              1 / ScrambledZipfianGenerator::kZetan + 1.0 / kN, 0.004);
  // The top 10 are scattered, not clustered at the start of the range.
  int in_first_10 = 0;
  std::int64_t spread_lo = kN, spread_hi = 0;
  for (int i = 0; i < 10; ++i) {
    in_first_10 += order[static_cast<std::size_t>(i)] < 10;
    spread_lo = std::min(spread_lo, order[static_cast<std::size_t>(i)]);
    spread_hi = std::max(spread_hi, order[static_cast<std::size_t>(i)]);
  }
  EXPECT_LE(in_first_10, 1);
  EXPECT_GT(spread_hi - spread_lo, kN / 2);
}

TEST(ScrambledZipfianGeneratorTest, IsMinPlusHashOfZipfianModCount) {
  // YCSB: min + fnvhash64(zipfian over [0, 10^10]) % itemcount, checked draw
  // by draw against a zipfian fed the same random stream (this also checks
  // the division-free remainder, for small, odd and huge counts).
  for (std::int64_t n : {std::int64_t{1}, std::int64_t{3}, std::int64_t{1000}, std::int64_t{999999937},
                         std::int64_t{10000000007}, std::int64_t{4611686018427387903},
                         std::int64_t{9223372036854775807}}) {
    const std::int64_t min = n == INT64_MAX ? 0 : -17;
    ScrambledZipfianGenerator s(min, min + (n - 1));
    ZipfianGenerator z(0, ScrambledZipfianGenerator::kItemCount, 0.99, ScrambledZipfianGenerator::kZetan);
    Rng rs(n), rz(n);
    for (int i = 0; i < 20000; ++i) {
      const std::int64_t want = min + FnvHash64(z.Next(rz)) % n;
      ASSERT_EQ(s.Next(rs), want) << "n=" << n << " draw " << i;
    }
  }
}

TEST(GeneratorRangeTest, OverlongRangesAreRejectedNotOverflowed) {
  SharedCounter counter(0);
  EXPECT_THROW(ScrambledZipfianGenerator(INT64_MIN, INT64_MAX), ConfigError);
  EXPECT_THROW(ZipfianGenerator(INT64_MIN, 0), ConfigError);
  EXPECT_THROW(HotspotGenerator(INT64_MIN, INT64_MAX, 0.2, 0.8), ConfigError);
  EXPECT_THROW(SequentialGenerator(-1, INT64_MAX, counter), ConfigError);
  EXPECT_NO_THROW(SequentialGenerator(0, INT64_MAX - 1, counter));
}

TEST(ScrambledZipfianGeneratorTest, DifferentSeedsDiffer) {
  ScrambledZipfianGenerator a(0, 999999), b(0, 999999);
  Rng ra(1), rb(2);
  int same = 0;
  for (int i = 0; i < 1000; ++i) same += a.Next(ra) == b.Next(rb);
  EXPECT_LT(same, 100);
}

TEST(ScrambledZipfianGeneratorTest, OtherConstantAndBigRange) {
  const auto t0 = std::chrono::steady_clock::now();
  ScrambledZipfianGenerator g(5, 5 + 999999999, 0.8);  // computes zeta over 10^10 + 1 items
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 0.5);
  Rng rng(6);
  for (int i = 0; i < 10000; ++i) {
    const auto v = g.Next(rng);
    ASSERT_GE(v, 5);
    ASSERT_LE(v, 5 + 999999999);
  }
  ScrambledZipfianGenerator single(3, 3);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(single.Next(rng), 3);
  EXPECT_THROW(ScrambledZipfianGenerator(3, 2), ConfigError);
}

// ---------------------------------------------------------------------------

TEST(HotspotGeneratorTest, HotFractionOfOperations) {
  HotspotGenerator g(0, 999, 0.2, 0.8);
  Rng rng(31);
  constexpr int kDraws = 200000;
  int hot = 0;
  std::vector<std::int64_t> h(1000, 0);
  for (int i = 0; i < kDraws; ++i) {
    const auto v = g.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 999);
    hot += v < 200;
    ++h[static_cast<std::size_t>(v)];
  }
  EXPECT_NEAR(static_cast<double>(hot) / kDraws, 0.8, 0.005);
  // Uniform within each set: every hot item ~ 0.8/200, every cold ~ 0.2/800.
  EXPECT_GT(*std::min_element(h.begin(), h.begin() + 200), 0.8 * kDraws / 200 * 0.8);
  EXPECT_LT(*std::max_element(h.begin() + 200, h.end()), 0.2 * kDraws / 800 * 1.6);
}

TEST(HotspotGeneratorTest, HotIntervalTruncatesAndEdges) {
  Rng rng(2);
  // interval 10 * 0.25 = 2.5 -> hot set {100, 101}.
  HotspotGenerator g(100, 109, 0.25, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const auto v = g.Next(rng);
    ASSERT_TRUE(v == 100 || v == 101) << v;
  }
  HotspotGenerator no_hot(0, 9, 0.0, 0.9);  // YCSB would divide by zero
  for (int i = 0; i < 1000; ++i) ASSERT_LE(no_hot.Next(rng), 9);
  HotspotGenerator all_hot(0, 9, 1.0, 0.1);
  for (int i = 0; i < 1000; ++i) ASSERT_LE(all_hot.Next(rng), 9);
  HotspotGenerator swapped(9, 0, 0.5, 0.5);  // YCSB swaps the bounds
  for (int i = 0; i < 1000; ++i) {
    const auto v = swapped.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 9);
  }
  EXPECT_THROW(HotspotGenerator(0, 9, 1.5, 0.5), ConfigError);
  EXPECT_THROW(HotspotGenerator(0, 9, 0.5, -0.1), ConfigError);
}

// ---------------------------------------------------------------------------

TEST(AcknowledgedCounterTest, LimitAdvancesOnlyOverContiguousAcks) {
  AcknowledgedCounter c(100);
  EXPECT_EQ(c.Limit(), 99);
  std::vector<std::int64_t> v;
  for (int i = 0; i < 5; ++i) v.push_back(c.Next());
  EXPECT_EQ(v, (std::vector<std::int64_t>{100, 101, 102, 103, 104}));
  EXPECT_EQ(c.Limit(), 99);  // handed out is not acknowledged
  c.Acknowledge(102);
  EXPECT_EQ(c.Limit(), 99);
  c.Acknowledge(104);
  EXPECT_EQ(c.Limit(), 99);
  c.Acknowledge(100);
  EXPECT_EQ(c.Limit(), 100);
  c.Acknowledge(101);
  EXPECT_EQ(c.Limit(), 102);
  c.Acknowledge(103);
  EXPECT_EQ(c.Limit(), 104);
}

TEST(AcknowledgedCounterTest, WrapsTheWindowManyTimes) {
  constexpr std::int64_t kW = AcknowledgedCounter::kWindow;
  for (std::int64_t start : {std::int64_t{0}, std::int64_t{-5}, kW - 3}) {
    AcknowledgedCounter c(start);
    // In order over three windows, then out of order in pairs across a
    // window boundary.
    for (std::int64_t i = 0; i < 3 * kW; ++i) c.Acknowledge(c.Next());
    ASSERT_EQ(c.Limit(), start + 3 * kW - 1);
    for (int i = 0; i < 1000; ++i) {
      const auto a = c.Next(), b = c.Next();
      c.Acknowledge(b);
      ASSERT_EQ(c.Limit(), a - 1);
      c.Acknowledge(a);
      ASSERT_EQ(c.Limit(), b);
    }
    // A full window outstanding is allowed.
    const std::int64_t first = c.Next();
    for (std::int64_t i = 1; i < kW; ++i) c.Next();
    for (std::int64_t i = kW - 1; i >= 1; --i) c.Acknowledge(first + i);
    ASSERT_EQ(c.Limit(), first - 1);
    c.Acknowledge(first);
    ASSERT_EQ(c.Limit(), first + kW - 1);
  }
}

TEST(AcknowledgedCounterTest, ConcurrentOutOfOrderAcks) {
  constexpr int kThreads = 4;
  constexpr std::int64_t kPerThread = 50000;
  constexpr std::int64_t kStart = 1000;
  constexpr std::int64_t kTotal = kThreads * kPerThread;
  AcknowledgedCounter c(kStart);
  std::vector<std::atomic<bool>> acked(kTotal);
  for (auto& a : acked) a.store(false);
  std::atomic<bool> done{false};
  std::atomic<bool> violated{false};
  // Checker: Limit() never decreases and never passes an unacknowledged value.
  std::thread checker([&] {
    std::int64_t prev = c.Limit();
    while (!done.load()) {
      const std::int64_t lim = c.Limit();
      if (lim < prev) violated = true;
      for (std::int64_t v = prev + 1; v <= lim; ++v) {
        if (!acked[static_cast<std::size_t>(v - kStart)].load()) violated = true;
      }
      prev = lim;
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      Rng rng(static_cast<std::uint64_t>(t) + 1);
      std::vector<std::int64_t> pending;
      for (std::int64_t i = 0; i < kPerThread; ++i) {
        pending.push_back(c.Next());
        // Acknowledge a random pending value now and then: out of order
        // within the thread and interleaved with the others.
        while (!pending.empty() && (pending.size() > 64 || rng.Below(3) == 0)) {
          const std::size_t k = rng.Below(pending.size());
          const std::int64_t v = pending[k];
          pending[k] = pending.back();
          pending.pop_back();
          acked[static_cast<std::size_t>(v - kStart)].store(true);
          c.Acknowledge(v);
        }
      }
      for (auto v : pending) {
        acked[static_cast<std::size_t>(v - kStart)].store(true);
        c.Acknowledge(v);
      }
    });
  }
  for (auto& w : workers) w.join();
  done = true;
  checker.join();
  EXPECT_FALSE(violated.load());
  EXPECT_EQ(c.Limit(), kStart + kTotal - 1);  // ends at the last value
}

TEST(AcknowledgedCounterDeathTest, TooManyOutstandingAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        AcknowledgedCounter c(0);
        c.Acknowledge(AcknowledgedCounter::kWindow + 1);
      },
      "too many unacknowledged");
}

// ---------------------------------------------------------------------------

TEST(SkewedLatestGeneratorTest, NeverPastLimitAndFavoursRecent) {
  AcknowledgedCounter c(1000);  // records 0..999 loaded: Limit() = 999
  SkewedLatestGenerator g(c);
  Rng rng(41);
  constexpr int kDraws = 200000;
  int at_max = 0, top100 = 0;
  for (int i = 0; i < kDraws; ++i) {
    const auto v = g.Next(rng);
    ASSERT_LE(v, 999);
    ASSERT_GE(v, 1);  // YCSB: max - zipfian over [0, max-1]
    at_max += v == 999;
    top100 += v > 899;
  }
  // P(max) = 1/zeta(999), P(v > max-100) ~ zeta(100)/zeta(999).
  const double z = ZipfianGenerator::Zeta(999, 0.99);
  EXPECT_NEAR(static_cast<double>(at_max) / kDraws, 1 / z, 0.004);
  EXPECT_NEAR(static_cast<double>(top100) / kDraws, ZipfianGenerator::Zeta(100, 0.99) / z, 0.03);
  EXPECT_GT(static_cast<double>(top100) / kDraws, 0.6);

  // New inserts: handed out but unacknowledged values are never drawn; once
  // acknowledged, the newest is the favourite.
  std::vector<std::int64_t> ins;
  for (int i = 0; i < 500; ++i) ins.push_back(c.Next());  // 1000..1499
  for (int i = 0; i < 250; ++i) c.Acknowledge(ins[static_cast<std::size_t>(i)]);
  for (int i = 251; i < 500; ++i) c.Acknowledge(ins[static_cast<std::size_t>(i)]);  // 1250 missing
  ASSERT_EQ(c.Limit(), 1249);
  std::map<std::int64_t, int> counts;
  for (int i = 0; i < 50000; ++i) {
    const auto v = g.Next(rng);
    ASSERT_LE(v, 1249);
    ++counts[v];
  }
  EXPECT_GT(counts[1249], 50000 / 10);
  c.Acknowledge(1250);
  EXPECT_EQ(c.Limit(), 1499);
  std::int64_t mx = 0;
  for (int i = 0; i < 50000; ++i) mx = std::max(mx, g.Next(rng));
  EXPECT_EQ(mx, 1499);
}

// ---------------------------------------------------------------------------

TEST(ExponentialGeneratorTest, MeanAndPercentile) {
  ExponentialGenerator g(95, 1000);
  Rng rng(17);
  constexpr int kDraws = 200000;
  double sum = 0;
  int below_range = 0;
  for (int i = 0; i < kDraws; ++i) {
    const auto v = g.Next(rng);
    ASSERT_GE(v, 0);
    sum += static_cast<double>(v);
    below_range += v < 1000;
  }
  EXPECT_NEAR(g.Mean(), 1000 / std::log(20.0), 1e-9);
  // (long) truncation lowers the mean by ~0.5.
  EXPECT_NEAR(sum / kDraws, g.Mean() - 0.5, 0.01 * g.Mean());
  EXPECT_NEAR(static_cast<double>(below_range) / kDraws, 0.95, 0.003);
  EXPECT_THROW(ExponentialGenerator(100, 10), ConfigError);
  EXPECT_THROW(ExponentialGenerator(95, 0), ConfigError);
}

// ---------------------------------------------------------------------------

using storebench::test_util::TempFile;

TEST(HistogramGeneratorTest, FromFileFollowsYcsb) {
  TempFile f("BlockSize\t10\n0\t0\n1\t50\n2\t30\n3\t20\n");
  HistogramGenerator g = HistogramGenerator::FromFile(f.path());
  // YCSB: number in [0, 100); bucket 0 (count 0) still takes number 0 ->
  // 1*10; numbers 1..50 -> 20; 51..80 -> 30; and the loop stops before the
  // last bucket, so 81..99 -> 3*10 = 30.
  Rng rng(3);
  constexpr int kDraws = 100000;
  std::map<std::int64_t, int> counts;
  for (int i = 0; i < kDraws; ++i) ++counts[g.Next(rng)];
  ASSERT_EQ(counts.size(), 3u);
  EXPECT_NEAR(counts[10] / static_cast<double>(kDraws), 0.01, 0.002);
  EXPECT_NEAR(counts[20] / static_cast<double>(kDraws), 0.50, 0.006);
  EXPECT_NEAR(counts[30] / static_cast<double>(kDraws), 0.49, 0.006);
  // YCSB's mean: blockSize * sum(i * count_i) / area = 10 * 170 / 100.
  EXPECT_DOUBLE_EQ(g.Mean(), 17.0);
}

TEST(HistogramGeneratorTest, DirectConstructionAndGaps) {
  Rng rng(1);
  HistogramGenerator one(4, {5});  // a single bucket: YCSB returns 0 * blockSize
  for (int i = 0; i < 100; ++i) EXPECT_EQ(one.Next(rng), 0);
  // Missing buckets count zero; CRLF and blank lines are tolerated.
  TempFile f("BlockSize\t1\r\n0\t1\r\n\r\n3\t1\r\n");
  HistogramGenerator g = HistogramGenerator::FromFile(f.path());
  // Buckets {1, 0, 0, 1}, area 2: numbers 0 and 1 both satisfy
  // number - 1 <= 0 at i = 0, so every draw is 1 * blockSize.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(g.Next(rng), 1);
  EXPECT_THROW(HistogramGenerator(0, {1}), ConfigError);
  EXPECT_THROW(HistogramGenerator(1, {}), ConfigError);
  EXPECT_THROW(HistogramGenerator(1, {0, 0}), ConfigError);
}

std::string ErrorOf(const std::string& content, std::string* path_out) {
  TempFile f(content);
  *path_out = f.path();
  try {
    HistogramGenerator::FromFile(f.path());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(HistogramGeneratorTest, MalformedFileNamesFileAndLine) {
  std::string path;
  std::string err = ErrorOf("BlockSize\t10\n0\t5\n1\tabc\n", &path);
  EXPECT_NE(err.find(path + ":3"), std::string::npos) << err;
  err = ErrorOf("Blocksize\t10\n0\t5\n", &path);
  EXPECT_NE(err.find(path + ":1"), std::string::npos) << err;
  err = ErrorOf("BlockSize\t-2\n0\t5\n", &path);
  EXPECT_NE(err.find(path + ":1"), std::string::npos) << err;
  err = ErrorOf("BlockSize\t1\n0\t5\n2\t1\n1\t1\n", &path);
  EXPECT_NE(err.find(path + ":4"), std::string::npos) << err;
  err = ErrorOf("BlockSize\t1\n0\t-5\n", &path);
  EXPECT_NE(err.find(path + ":2"), std::string::npos) << err;
  err = ErrorOf("", &path);
  EXPECT_NE(err.find(path + ":1"), std::string::npos) << err;
  err = ErrorOf("BlockSize\t1\n", &path);
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_THROW(HistogramGenerator::FromFile("/nonexistent/storebench/hist.txt"), ConfigError);
}

// ---------------------------------------------------------------------------

TEST(DiscreteGeneratorTest, FrequenciesFollowWeights) {
  DiscreteGenerator d;
  EXPECT_TRUE(d.empty());
  d.Add(0, 0.5);
  d.Add(1, 0.3);
  d.Add(2, 0.0);  // skipped
  d.Add(3, 0.2);
  EXPECT_FALSE(d.empty());
  EXPECT_DOUBLE_EQ(d.total_weight(), 1.0);
  Rng rng(11);
  constexpr int kDraws = 200000;
  int counts[4] = {0, 0, 0, 0};
  for (int i = 0; i < kDraws; ++i) {
    const int v = d.Next(rng);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 3);
    ++counts[v];
  }
  EXPECT_EQ(counts[2], 0);
  EXPECT_NEAR(counts[0] / static_cast<double>(kDraws), 0.5, 0.005);
  EXPECT_NEAR(counts[1] / static_cast<double>(kDraws), 0.3, 0.005);
  EXPECT_NEAR(counts[3] / static_cast<double>(kDraws), 0.2, 0.005);
}

TEST(DiscreteGeneratorTest, UnnormalisedWeightsAndErrors) {
  DiscreteGenerator d;
  d.Add(7, 3);
  d.Add(8, 1);
  EXPECT_DOUBLE_EQ(d.total_weight(), 4.0);
  Rng rng(12);
  int sevens = 0;
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) sevens += d.Next(rng) == 7;
  EXPECT_NEAR(sevens / static_cast<double>(kDraws), 0.75, 0.006);
  DiscreteGenerator single;
  single.Add(5, 0.01);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(single.Next(rng), 5);
  EXPECT_THROW(d.Add(9, -1), ConfigError);
  EXPECT_THROW(d.Add(9, std::nan("")), ConfigError);
}

// ---------------------------------------------------------------------------

TEST(SequentialGeneratorTest, WrapsAndSharesTheCounter) {
  SharedCounter counter(0);
  SequentialGenerator a(10, 14, counter), b(10, 14, counter);
  Rng rng(1);
  std::vector<std::int64_t> got;
  for (int i = 0; i < 6; ++i) got.push_back(a.Next(rng));
  EXPECT_EQ(got, (std::vector<std::int64_t>{10, 11, 12, 13, 14, 10}));
  EXPECT_EQ(b.Next(rng), 11);  // continues the shared sequence
  EXPECT_EQ(a.Next(rng), 12);
  EXPECT_EQ(counter.Peek(), 8);
  EXPECT_THROW(SequentialGenerator(5, 4, counter), ConfigError);
}

TEST(SharedCounterTest, ConcurrentNextIsUnique) {
  SharedCounter c(5);
  constexpr int kThreads = 4, kEach = 20000;
  std::vector<std::vector<std::int64_t>> got(kThreads);
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) {
    ts.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) got[static_cast<std::size_t>(t)].push_back(c.Next());
    });
  }
  for (auto& t : ts) t.join();
  std::vector<std::int64_t> all;
  for (auto& g : got) all.insert(all.end(), g.begin(), g.end());
  std::sort(all.begin(), all.end());
  for (std::size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], 5 + static_cast<std::int64_t>(i));
}

}  // namespace
}  // namespace storebench
