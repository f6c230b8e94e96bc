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

inline void Write2(char* p, std::uint32_t v) { std::memcpy(p, kDigitPairs + 2 * v, 2); }
inline void Write4(char* p, std::uint32_t v) {  // v < 10^4
  const std::uint32_t a = v / 100;
  Write2(p, a);
  Write2(p + 2, v - a * 100);
}
inline void Write8(char* p, std::uint32_t v) {  // v < 10^8
  const std::uint32_t a = v / 10000;
  Write4(p, a);
  Write4(p + 4, v - a * 10000);
}

// Writes the `digits` decimal digits of x to dst; dst_room is the space
// left in the output buffer (>= digits). The digits are produced as a
// fixed-width 20-digit string in independent 8/4/2-digit pieces (a shallow
// tree of multiplications rather than a chain of ten divisions by 100),
// then the significant tail is copied, with a fixed-size copy when the
// buffer has room for it (no library call).
inline void WriteDigits(std::uint64_t x, int digits, char* dst, std::size_t dst_room) {
  char tmp[40] = {};  // digits in tmp[0..20); tmp[20..40) is slack for the fixed copy
  if (x < 100000000ull) {
    Write8(tmp + 12, static_cast<std::uint32_t>(x));
  } else {
    const std::uint64_t hi = x / 10000000000000000ull;  // < 1845
    const std::uint64_t rest = x - hi * 10000000000000000ull;
    const std::uint64_t mid = rest / 100000000ull;
    Write4(tmp, static_cast<std::uint32_t>(hi));
    Write8(tmp + 4, static_cast<std::uint32_t>(mid));
    Write8(tmp + 12, static_cast<std::uint32_t>(rest - mid * 100000000ull));
  }
  const char* src = tmp + 20 - digits;
  if (dst_room >= 20) {
    std::memcpy(dst, src, 20);  // bytes past `digits` are scratch
  } else {
    std::memcpy(dst, src, static_cast<std::size_t>(digits));
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
  for (int i = 0; i < fill; ++i) *p++ = '0';  // usually none: no memset call
  if (neg) *p++ = '-';
  WriteDigits(mag, digits, p, kMaxKeyLength - static_cast<std::size_t>(p - buf));
  return static_cast<std::size_t>(p + digits - buf);
}

std::string KeyBuilder::Build(std::int64_t keynum) const {
  char buf[kMaxKeyLength];
  return std::string(buf, Build(keynum, buf));
}

}  // namespace storebench
