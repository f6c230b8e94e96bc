// Number generators with YCSB's semantics; see generators.h.
//
// Differences from Java YCSB, all deliberate and documented at the spot:
//  - Randomness comes from the caller's Rng (xoshiro256**), not
//    ThreadLocalRandom, so sequences are reproducible from a seed.
//  - Zeta over many items is computed by direct summation of the first
//    terms plus an Euler-Maclaurin tail (see SumInversePowers): the same
//    value to ~1e-15 relative (closer to the true sum than YCSB's naive
//    loop, whose rounding error is ~1e-12 at 10^10 terms), in microseconds
//    instead of minutes. Constructing a zipfian over 10^9 items, or a
//    scrambled zipfian with a constant other than 0.99 (10^10 + 1 items),
//    is therefore instant.
//  - Setup errors (empty or > 2^63-1 ranges, fractions outside [0, 1], a
//    theta outside [0, 1), bad histogram files) throw ConfigError instead of
//    being printed and patched over.
//  - Hot path: x^alpha by squaring when alpha is integral (theta 0.99 gives
//    alpha = 100), and the scrambled zipfian's % itemcount by a precomputed
//    reciprocal; both give YCSB's values up to double rounding (tested draw
//    by draw against the Math.pow formula).
#include "core/generators.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string_view>

#include "core/error.h"

namespace storebench {

// ---------------------------------------------------------------------------
// FNV-1a 64 (YCSB Utils.fnvhash64)


namespace {

// sum_{i=first}^{last} i^-theta for 1 <= first.
//
// Short ranges are summed directly, in increasing i, exactly like YCSB's
// zetastatic loop (so an incremental zeta over a short range is bit-for-bit
// the direct sum). Long ranges: direct summation up to i = kEmStart, then
// Euler-Maclaurin for the rest:
//   sum_{a..b} f(i) = int_a^b f + (f(a)+f(b))/2
//                     + sum_k B_2k/(2k)! (f^(2k-1)(b) - f^(2k-1)(a)) + R
// with f(x) = x^-theta and three correction terms; for a >= 1024 the
// remainder is below 1e-25, far under double rounding.
constexpr std::int64_t kEmStart = 1024;
constexpr std::int64_t kDirectMax = 1 << 16;  // ranges up to this are summed directly

double DirectSum(std::int64_t first, std::int64_t last, double theta, double initial) {
  double sum = initial;
  for (std::int64_t i = first; i <= last; ++i) sum += 1 / std::pow(static_cast<double>(i), theta);
  return sum;
}

double EulerMaclaurin(std::int64_t a_i, std::int64_t b_i, double t) {
  const double a = static_cast<double>(a_i), b = static_cast<double>(b_i);
  const double log_ratio = std::log(b / a);
  // int_a^b x^-t dx, stable for t close to 1: a^(1-t) * expm1((1-t) ln(b/a)) / (1-t).
  const double one_t = 1 - t;
  const double integral =
      one_t == 0 ? log_ratio : std::pow(a, one_t) * std::expm1(one_t * log_ratio) / one_t;
  const double fa = std::pow(a, -t), fb = std::pow(b, -t);
  // Derivatives: f'(x) = -t x^(-t-1), f'''(x) = -t(t+1)(t+2) x^(-t-3),
  // f^(5)(x) = -t(t+1)(t+2)(t+3)(t+4) x^(-t-5).
  const double c1 = -t, c3 = -t * (t + 1) * (t + 2), c5 = c3 * (t + 3) * (t + 4);
  const double d1 = c1 * (fb / b - fa / a);
  const double d3 = c3 * (fb / (b * b * b) - fa / (a * a * a));
  const double d5 = c5 * (fb / (b * b * b * b * b) - fa / (a * a * a * a * a));
  return integral + (fa + fb) / 2 + d1 / 12 - d3 / 720 + d5 / 30240;
}

double SumInversePowers(std::int64_t first, std::int64_t last, double theta, double initial) {
  if (last < first) return initial;
  if (last - first < kDirectMax) return DirectSum(first, last, theta, initial);
  double sum = initial;
  std::int64_t a = first;
  if (a < kEmStart) {
    sum = DirectSum(a, kEmStart - 1, theta, sum);
    a = kEmStart;
  }
  return sum + EulerMaclaurin(a, last, theta);
}

inline double IntPow(double x, std::uint32_t k) {
  double r = 1;
  while (k != 0) {
    if (k & 1) r *= x;
    x *= x;
    k >>= 1;
  }
  return r;
}

// The number of values in [lo, hi], computed without signed overflow;
// throws ConfigError when the range is empty or holds more than 2^63 - 1.
std::int64_t CountOf(std::int64_t lo, std::int64_t hi, const char* what) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (hi < lo || span >= static_cast<std::uint64_t>(INT64_MAX)) {
    throw ConfigError(std::string(what) + ": range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                      "] is empty or too large");
  }
  return static_cast<std::int64_t>(span + 1);
}

[[noreturn]] void Die(const char* msg) {
  std::fprintf(stderr, "storebench: fatal: %s\n", msg);
  std::abort();
}

}  // namespace

// ---------------------------------------------------------------------------
// UniformGenerator

UniformGenerator::UniformGenerator(std::int64_t lo, std::int64_t hi) : lo_(lo) {
  if (hi < lo) {
    throw ConfigError("uniform generator: empty range [" + std::to_string(lo) + ", " +
                      std::to_string(hi) + "]");
  }
  // span_ == 0 encodes the full 2^64 range.
  span_ = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
}

std::int64_t UniformGenerator::Next(Rng& rng) {
  const std::uint64_t off = span_ == 0 ? rng.NextU64() : rng.Below(span_);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo_) + off);
}

double UniformGenerator::Mean() const {
  const double span = span_ == 0 ? 18446744073709551616.0 : static_cast<double>(span_);
  return static_cast<double>(lo_) + (span - 1) / 2.0;
}

// ---------------------------------------------------------------------------
// ZipfianGenerator

ZipfianGenerator::ZipfianGenerator(std::int64_t min, std::int64_t max, double constant)
    : ZipfianGenerator(min, max, constant,
                       !(constant >= 0 && constant < 1) ? 0.0
                                                        : Zeta(CountOf(min, max, "zipfian generator"), constant)) {}

ZipfianGenerator::ZipfianGenerator(std::int64_t min, std::int64_t max, double constant, double zetan) {
  if (!(constant >= 0 && constant < 1)) {
    // Gray's method needs theta < 1 (alpha = 1/(1-theta)).
    throw ConfigError("zipfian constant " + std::to_string(constant) + ": expected a number in [0, 1)");
  }
  items_ = CountOf(min, max, "zipfian generator");
  base_ = min;
  theta_ = constant;
  zeta2theta_ = Zeta(2, theta_);
  alpha_ = 1.0 / (1.0 - theta_);
  zetan_ = zetan;
  count_for_zeta_ = items_;
  // YCSB quirk kept: eta always uses the construction-time item count.
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
  half_pow_theta_ = 1.0 + std::pow(0.5, theta_);
  // x^alpha for an integral alpha by squaring. Only when alpha is integral
  // up to the rounding of 1/(1-theta) (|alpha - k| <= 1e-12): the factor
  // x^(alpha-k) it drops changes n*x^alpha by less than 1e-12 * n * |ln x|,
  // which moves a draw to the neighbouring rank about once per 10^6 draws
  // at 10^10 items (a different double rounding than Math.pow, not a
  // different distribution).
  const double k = std::round(alpha_);
  if (k >= 1 && k <= 4096 && std::fabs(alpha_ - k) <= 1e-12) int_alpha_ = static_cast<std::uint32_t>(k);
}

double ZipfianGenerator::Zeta(std::int64_t n, double theta) { return SumInversePowers(1, n, theta, 0.0); }

double ZipfianGenerator::ZetaFrom(std::int64_t st, std::int64_t n, double theta, double initial_sum) {
  // YCSB: for (i = st; i < n; i++) sum += 1 / (i + 1)^theta.
  return SumInversePowers(st + 1, n, theta, initial_sum);
}

void ZipfianGenerator::Recompute(std::int64_t item_count) {
  // YCSB's allowitemcountdecrease is false: a smaller count keeps zetan.
  if (item_count > count_for_zeta_) {
    zetan_ = ZetaFrom(count_for_zeta_, item_count, theta_, zetan_);
    count_for_zeta_ = item_count;
    eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
  }
}

std::int64_t ZipfianGenerator::NextWithCount(Rng& rng, std::int64_t item_count) {
  if (item_count > count_for_zeta_) [[unlikely]] Recompute(item_count);
  const double u = rng.NextDouble();
  const double uz = u * zetan_;
  if (uz < 1.0) return base_;
  if (uz < half_pow_theta_) return base_ + 1;
  const double n = static_cast<double>(item_count);
  const double x = eta_ * u - eta_ + 1;
  double xa;
  if (int_alpha_ != 0) {
    xa = IntPow(x, int_alpha_);
  } else {
    xa = std::pow(x, alpha_);
  }
  auto r = static_cast<std::int64_t>(n * xa);
  // Rounding can only push r to item_count for astronomically large counts;
  // keep the result in range (YCSB would return base + item_count).
  if (r >= item_count) [[unlikely]] r = item_count - 1;
  return base_ + r;
}

// ---------------------------------------------------------------------------
// ScrambledZipfianGenerator

namespace {
double ScrambledZetan(double constant) {
  // YCSB: new ZipfianGenerator(0, ITEM_COUNT, c, ZETAN) for c == 0.99, else
  // new ZipfianGenerator(0, ITEM_COUNT, c), which computes zeta over
  // ITEM_COUNT + 1 items (minutes in Java; microseconds here).
  if (constant == ZipfianGenerator::kZipfianConstant) return ScrambledZipfianGenerator::kZetan;
  if (!(constant >= 0 && constant < 1)) return 0.0;  // the constructor throws
  return ZipfianGenerator::Zeta(ScrambledZipfianGenerator::kItemCount + 1, constant);
}
}  // namespace

ScrambledZipfianGenerator::ScrambledZipfianGenerator(std::int64_t min, std::int64_t max, double constant)
    : min_(min),
      item_count_(CountOf(min, max, "scrambled zipfian generator")),
      mod_magic_(0),
      gen_(0, kItemCount, constant, ScrambledZetan(constant)) {
  mod_magic_ = UINT64_MAX / static_cast<std::uint64_t>(item_count_);
}

std::int64_t ScrambledZipfianGenerator::Next(Rng& rng) {
  const std::int64_t h = FnvHash64(gen_.Next(rng));
  if (h < 0) [[unlikely]] {
    // h == Long.MIN_VALUE: Java's % would give a negative offset (a value
    // below min). Take 2^63 mod itemcount instead to stay in range.
    return min_ + static_cast<std::int64_t>((std::uint64_t{1} << 63) %
                                            static_cast<std::uint64_t>(item_count_));
  }
  // h % item_count_ without a division (Barrett): with m = floor((2^64-1)/d),
  // q = floor(h*m / 2^64) is floor(h/d) or one less, so one correction.
  const auto uh = static_cast<std::uint64_t>(h);
  const auto d = static_cast<std::uint64_t>(item_count_);
  const auto q = static_cast<std::uint64_t>((static_cast<unsigned __int128>(uh) * mod_magic_) >> 64);
  std::uint64_t rem = uh - q * d;
  if (rem >= d) rem -= d;
  return min_ + static_cast<std::int64_t>(rem);
}

// ---------------------------------------------------------------------------
// HotspotGenerator

HotspotGenerator::HotspotGenerator(std::int64_t lo, std::int64_t hi, double hot_set_fraction,
                                   double hot_op_fraction) {
  if (!(hot_set_fraction >= 0 && hot_set_fraction <= 1)) {
    throw ConfigError("hotspot data fraction " + std::to_string(hot_set_fraction) + ": expected [0, 1]");
  }
  if (!(hot_op_fraction >= 0 && hot_op_fraction <= 1)) {
    throw ConfigError("hotspot operation fraction " + std::to_string(hot_op_fraction) +
                      ": expected [0, 1]");
  }
  if (lo > hi) std::swap(lo, hi);  // as YCSB
  lo_ = lo;
  const std::int64_t interval = CountOf(lo, hi, "hotspot generator");
  hot_interval_ = static_cast<std::int64_t>(static_cast<double>(interval) * hot_set_fraction);
  if (hot_interval_ > interval) hot_interval_ = interval;
  cold_interval_ = interval - hot_interval_;
  hot_op_fraction_ = hot_op_fraction;
  // YCSB divides by zero (ArithmeticException) when a set is empty; send
  // every draw to the non-empty set instead.
  if (hot_interval_ == 0) hot_op_fraction_ = 0;
  if (cold_interval_ == 0) hot_op_fraction_ = 2;  // NextDouble() < 2 always
}

std::int64_t HotspotGenerator::Next(Rng& rng) {
  if (rng.NextDouble() < hot_op_fraction_) {
    return lo_ + static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(hot_interval_)));
  }
  return lo_ + hot_interval_ + static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(cold_interval_)));
}

// ---------------------------------------------------------------------------
// ExponentialGenerator

ExponentialGenerator::ExponentialGenerator(double percentile, double range) {
  if (!(percentile > 0 && percentile < 100)) {
    throw ConfigError("exponential percentile " + std::to_string(percentile) + ": expected (0, 100)");
  }
  if (!(range > 0)) throw ConfigError("exponential range " + std::to_string(range) + ": expected > 0");
  gamma_ = -std::log(1.0 - percentile / 100.0) / range;
  inv_gamma_ = 1.0 / gamma_;
}

std::int64_t ExponentialGenerator::Next(Rng& rng) {
  // 1 - U is in (0, 1], so the log is finite.
  const double x = -std::log(1.0 - rng.NextDouble()) * inv_gamma_;
  if (x >= 9.2e18) [[unlikely]] return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(x);
}

// ---------------------------------------------------------------------------
// HistogramGenerator

namespace {

std::string_view TrimWs(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Splits "a<ws>b" into two fields; false unless there are exactly two.
bool SplitTwo(std::string_view line, std::string_view* a, std::string_view* b) {
  line = TrimWs(line);
  const std::size_t sep = line.find_first_of(" \t");
  if (sep == std::string_view::npos) return false;
  *a = line.substr(0, sep);
  *b = TrimWs(line.substr(sep));
  return !b->empty() && b->find_first_of(" \t") == std::string_view::npos;
}

bool ParseInt(std::string_view s, std::int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

HistogramGenerator HistogramGenerator::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read histogram file '" + path + "': " + std::strerror(errno));
  auto fail = [&](std::size_t line_no, const std::string& what) -> ConfigError {
    return ConfigError(path + ":" + std::to_string(line_no) + ": " + what);
  };
  std::string line;
  std::size_t line_no = 0;
  std::int64_t block_size = 0;
  bool have_header = false;
  std::vector<std::int64_t> buckets;
  while (std::getline(in, line)) {
    ++line_no;
    std::string_view l = TrimWs(line);
    if (l.empty()) continue;  // YCSB would fail on blank lines; we skip them
    std::string_view a, b;
    if (!have_header) {
      if (!SplitTwo(l, &a, &b) || a != "BlockSize") {
        throw fail(line_no, "expected 'BlockSize<TAB><n>' as the first line, got '" + std::string(l) + "'");
      }
      if (!ParseInt(b, &block_size) || block_size <= 0) {
        throw fail(line_no, "block size '" + std::string(b) + "' is not a positive integer");
      }
      have_header = true;
      continue;
    }
    std::int64_t bucket = 0, count = 0;
    if (!SplitTwo(l, &a, &b) || !ParseInt(a, &bucket) || !ParseInt(b, &count)) {
      throw fail(line_no, "expected '<bucket><TAB><count>', got '" + std::string(l) + "'");
    }
    if (bucket < static_cast<std::int64_t>(buckets.size())) {
      throw fail(line_no, "bucket " + std::to_string(bucket) + " out of order (buckets must ascend)");
    }
    if (bucket > (1 << 24)) throw fail(line_no, "bucket " + std::to_string(bucket) + " is too large");
    if (count < 0) throw fail(line_no, "negative count " + std::to_string(count));
    buckets.resize(static_cast<std::size_t>(bucket), 0);  // missing buckets count 0
    buckets.push_back(count);
  }
  if (!have_header) throw fail(line_no == 0 ? 1 : line_no, "empty histogram file");
  if (buckets.empty()) throw fail(line_no, "no buckets after the BlockSize line");
  std::int64_t area = 0;
  for (auto c : buckets) area += c;
  if (area <= 0) throw fail(line_no, "all bucket counts are zero");
  try {
    return HistogramGenerator(block_size, std::move(buckets));
  } catch (const ConfigError& e) {
    throw ConfigError(path + ": " + e.what());
  }
}

HistogramGenerator::HistogramGenerator(std::int64_t block_size, std::vector<std::int64_t> buckets)
    : block_size_(block_size), area_(0), buckets_(std::move(buckets)) {
  if (block_size_ <= 0) throw ConfigError("histogram: block size must be positive");
  if (buckets_.empty()) throw ConfigError("histogram: no buckets");
  // buckets_ holds the running (cumulative) counts, so Next can binary-search.
  for (auto& c : buckets_) {
    if (c < 0) throw ConfigError("histogram: negative bucket count");
    area_ += c;
    c = area_;
  }
  if (area_ <= 0) throw ConfigError("histogram: all bucket counts are zero");
}

std::int64_t HistogramGenerator::Next(Rng& rng) {
  // YCSB: number = uniform [0, area); for i in 0..n-2 { number -= b[i];
  // if (number <= 0) return (i+1)*blockSize; } return (n-1)*blockSize.
  // "number - cum[i] <= 0" first holds at the first i with cum[i] >= number.
  const auto number = static_cast<std::int64_t>(rng.Below(static_cast<std::uint64_t>(area_)));
  const auto last = buckets_.end() - 1;
  const auto it = std::lower_bound(buckets_.begin(), last, number);
  const auto i = static_cast<std::int64_t>(it - buckets_.begin());
  return (it == last ? i : i + 1) * block_size_;
}

double HistogramGenerator::Mean() const {
  // YCSB: blockSize * sum(i * b[i]) / area.
  double weighted = 0;
  std::int64_t prev = 0;
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    weighted += static_cast<double>(i) * static_cast<double>(buckets_[i] - prev);
    prev = buckets_[i];
  }
  return static_cast<double>(block_size_) * weighted / static_cast<double>(area_);
}

// ---------------------------------------------------------------------------
// AcknowledgedCounter
//
// window_[v & mask] holds the parity of v's window generation (v >> 20) once
// v is acknowledged. While limit+1 .. limit+kWindow are outstanding, slot
// s = (limit+1) & mask holds either the parity of limit+1-kWindow (folded
// long ago) or, once acknowledged, that of limit+1: the two differ, so no
// slot ever needs clearing. Any thread that acknowledges scans forward from
// limit and advances it with a CAS; all window and limit accesses are
// seq_cst, so of two threads acknowledging neighbouring values at least one
// sees the other's flag (no acknowledgement is left unfolded, unlike YCSB's
// tryLock, where a value acknowledged while another thread holds the lock
// can stay unfolded until the next acknowledgement).

namespace {
inline bool GenParity(std::int64_t v) {
  return ((static_cast<std::uint64_t>(v) >> 20) & 1) != 0;
}
static_assert(AcknowledgedCounter::kWindow == (std::int64_t{1} << 20));
}  // namespace

AcknowledgedCounter::AcknowledgedCounter(std::int64_t start)
    : next_(start), limit_(start - 1), window_(new std::atomic<bool>[kWindow]) {
  // Each slot s starts as if the largest value <= start-1 mapping to s had
  // been acknowledged and folded.
  const auto last = static_cast<std::uint64_t>(start - 1);
  constexpr std::uint64_t mask = kWindow - 1;
  for (std::uint64_t s = 0; s < static_cast<std::uint64_t>(kWindow); ++s) {
    const std::uint64_t v0 = last - ((last - s) & mask);
    window_[s].store(GenParity(static_cast<std::int64_t>(v0)), std::memory_order_relaxed);
  }
}

void AcknowledgedCounter::Acknowledge(std::int64_t value) {
  constexpr std::uint64_t mask = kWindow - 1;
  std::int64_t lim = limit_.load(std::memory_order_seq_cst);
  if (value <= lim) return;  // already folded (values are acknowledged once)
  if (value - lim > kWindow) {
    Die("AcknowledgedCounter: too many unacknowledged insertion keys (more than 2^20 outstanding)");
  }
  window_[static_cast<std::uint64_t>(value) & mask].store(GenParity(value), std::memory_order_seq_cst);
  lim = limit_.load(std::memory_order_seq_cst);
  for (;;) {
    std::int64_t n = lim;
    while (n - lim < kWindow &&
           window_[static_cast<std::uint64_t>(n + 1) & mask].load(std::memory_order_seq_cst) ==
               GenParity(n + 1)) {
      ++n;
    }
    if (n == lim) return;
    // On failure lim is reloaded; rescan from there. On success go on from
    // n in case more were acknowledged meanwhile.
    if (limit_.compare_exchange_strong(lim, n, std::memory_order_seq_cst)) lim = n;
  }
}

// ---------------------------------------------------------------------------
// SkewedLatestGenerator

SkewedLatestGenerator::SkewedLatestGenerator(const AcknowledgedCounter& basis, double constant)
    // YCSB: new ZipfianGenerator(basis.lastValue()) = [0, lastValue - 1].
    // At least one item, so an empty store still constructs.
    : basis_(basis), zipfian_(0, std::max<std::int64_t>(basis.Limit(), 1) - 1, constant) {}

std::int64_t SkewedLatestGenerator::Next(Rng& rng) {
  const std::int64_t max = basis_.Limit();
  if (max < 1) [[unlikely]] return max;  // nothing (or only record 0) acknowledged yet
  return max - zipfian_.NextWithCount(rng, max);
}

// ---------------------------------------------------------------------------
// SequentialGenerator

SequentialGenerator::SequentialGenerator(std::int64_t lo, std::int64_t hi, SharedCounter& counter)
    : lo_(lo), interval_(CountOf(lo, hi, "sequential generator")), counter_(counter) {}

std::int64_t SequentialGenerator::Next(Rng&) {
  // YCSB: countstart + counter.getAndIncrement() % interval (the counter
  // starts at 0). Unsigned so a counter started below 0 still stays in range.
  const auto c = static_cast<std::uint64_t>(counter_.Next());
  return lo_ + static_cast<std::int64_t>(c % static_cast<std::uint64_t>(interval_));
}

// ---------------------------------------------------------------------------
// DiscreteGenerator

void DiscreteGenerator::Add(int value, double weight) {
  if (!(weight >= 0) || !std::isfinite(weight)) {
    throw ConfigError("discrete generator: weight " + std::to_string(weight) + " for value " +
                      std::to_string(value) + " must be a finite number >= 0");
  }
  if (weight == 0) return;
  const double old_total = total_;
  total_ += weight;
  for (auto& c : cumulative_) c = c * old_total / total_;
  values_.push_back(value);
  cumulative_.push_back((old_total + weight) / total_);
  cumulative_.back() = 1.0;
}


}  // namespace storebench
