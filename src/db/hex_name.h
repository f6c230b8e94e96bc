// Names a store's naming rules would refuse (a field name with a space, a
// reserved word), spelled "x_" + the lower-case hex of their bytes: the
// column names of the SQL bindings (db/sql/columns.h) and groonga's. Each
// binding decides which names are plain; these are the spelling both share.
// Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace storebench {

// Appends "x_" and two lower-case hex digits per byte of `name` to *out.
inline void AppendHexName(std::string_view name, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->append("x_");
  for (char c : name) {
    const auto b = static_cast<unsigned char>(c);
    out->push_back(kHex[b >> 4]);
    out->push_back(kHex[b & 15]);
  }
}

// Appends the bytes that the lower-case hex pairs of `hex` (without the
// "x_") spell to *out; false when `hex` is not whole pairs of [0-9a-f].
inline bool AppendHexBytes(std::string_view hex, std::string* out) {
  auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  if (hex.size() % 2 != 0) return false;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

}  // namespace storebench
