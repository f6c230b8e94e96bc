// Key naming with YCSB's CoreWorkload.buildKeyName semantics.
//
// A key is "user" + zeros + the number in decimal, where the number is
// FnvHash64(keynum) (insertorder=hashed, YCSB's default) or keynum itself
// (insertorder=ordered), and the zeros fill the number's text up to
// `zeropadding` characters (YCSB: fill = zeropadding - value.length(), the
// length counting a '-' sign; zeros go before the sign, as YCSB does).
// Record 0 with hashed order is "user6284781860667377211".
//
// KeyBuilder is immutable after construction and safe to share between
// threads. Build(keynum, buf) does not allocate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace storebench {

class KeyBuilder {
 public:
  // Longest key Build can write: "user" + 60 characters.
  static constexpr std::size_t kMaxKeyLength = 64;
  static constexpr int kMaxZeroPadding = static_cast<int>(kMaxKeyLength) - 4;

  // zeropadding in [1, kMaxZeroPadding]; throws ConfigError otherwise.
  KeyBuilder(bool ordered, int zeropadding);

  // Writes the key for record number keynum into buf (at least
  // kMaxKeyLength bytes; not NUL-terminated; bytes past the returned length
  // may be overwritten as scratch) and returns its length.
  std::size_t Build(std::int64_t keynum, char* buf) const;
  std::string Build(std::int64_t keynum) const;

  bool ordered() const { return ordered_; }
  int zeropadding() const { return zeropadding_; }

 private:
  bool ordered_;
  int zeropadding_;
};

}  // namespace storebench
