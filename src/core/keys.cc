#include "core/keys.h"

#include <cstring>

#include "core/error.h"
#include "core/generators.h"

namespace storebench {
namespace {

constexpr char kDigitPairs[201] =
    "00010203040506070809"
    "10111213141516171819"
    "20212223242526272829"
    "30313233343536373839"
    "40414243444546474849"
    "50515253545556575859"
    "60616263646566676869"
    "70717273747576777879"
    "80818283848586878889"
    "90919293949596979899";

constexpr std::uint64_t kPow10[20] = {1ull,
                                      10ull,
                                      100ull,
                                      1000ull,
                                      10000ull,
                                      100000ull,
                                      1000000ull,
                                      10000000ull,
                                      100000000ull,
                                      1000000000ull,
                                      10000000000ull,
                                      100000000000ull,
                                      1000000000000ull,
                                      10000000000000ull,
                                      100000000000000ull,
                                      1000000000000000ull,
                                      10000000000000000ull,
                                      100000000000000000ull,
                                      1000000000000000000ull,
                                      10000000000000000000ull};

// Number of decimal digits of x (1 for 0).
inline int CountDigits(std::uint64_t x) {
  // floor(log10(x)) estimate from the bit length, corrected by one compare.
  const int bits = 64 - __builtin_clzll(x | 1);
  int d = (bits * 1233) >> 12;  // 1233/4096 ~ log10(2)
  return d + 1 - ((x | 1) < kPow10[d] ? 1 : 0);
}

// Writes the `digits` decimal digits of x ending at end[-1].
inline void WriteDigits(std::uint64_t x, char* end) {
  while (x >= 100) {
    const std::uint64_t q = x / 100;
    const auto r = static_cast<unsigned>(x - q * 100);
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * r, 2);
    x = q;
  }
  if (x >= 10) {
    end -= 2;
    std::memcpy(end, kDigitPairs + 2 * x, 2);
  } else {
    *--end = static_cast<char>('0' + x);
  }
}

}  // namespace

KeyBuilder::KeyBuilder(bool ordered, int zeropadding) : ordered_(ordered), zeropadding_(zeropadding) {
  if (zeropadding < 1 || zeropadding > kMaxZeroPadding) {
    throw ConfigError("zeropadding " + std::to_string(zeropadding) + ": expected an integer in [1, " +
                      std::to_string(kMaxZeroPadding) + "]");
  }
}

std::size_t KeyBuilder::Build(std::int64_t keynum, char* buf) const {
  const std::int64_t n = ordered_ ? keynum : FnvHash64(keynum);
  const bool neg = n < 0;
  // Magnitude in unsigned arithmetic: well defined for INT64_MIN too.
  const std::uint64_t mag = neg ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  const int digits = CountDigits(mag);
  const int len = digits + (neg ? 1 : 0);
  const int fill = zeropadding_ > len ? zeropadding_ - len : 0;
  std::memcpy(buf, "user", 4);
  char* p = buf + 4;
  std::memset(p, '0', static_cast<std::size_t>(fill));
  p += fill;
  if (neg) *p++ = '-';
  WriteDigits(mag, p + digits);
  return static_cast<std::size_t>(p + digits - buf);
}

std::string KeyBuilder::Build(std::int64_t keynum) const {
  char buf[kMaxKeyLength];
  return std::string(buf, Build(keynum, buf));
}

}  // namespace storebench
