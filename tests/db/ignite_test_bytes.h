// Bytes for the Ignite codec's tests (tests/db/ignite_*_test.cc): hex and
// little-endian spellings, so that expected messages read like the
// protocol's tables in docs/_docs/binary-client-protocol/.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::ignite::test_bytes {

// "0a 0B ff" -> bytes (spaces ignored).
inline std::string Hex(std::string_view h) {
  std::string out;
  int nib = -1;
  for (char c : h) {
    int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (v < 0) continue;
    if (nib < 0) {
      nib = v;
    } else {
      out.push_back(static_cast<char>(nib * 16 + v));
      nib = -1;
    }
  }
  return out;
}

// The n-byte little-endian spelling of v.
inline std::string Le(std::uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return out;
}
inline std::string I16(std::int16_t v) { return Le(static_cast<std::uint16_t>(v), 2); }
inline std::string I32(std::int32_t v) { return Le(static_cast<std::uint32_t>(v), 4); }
inline std::string I64(std::int64_t v) { return Le(static_cast<std::uint64_t>(v), 8); }
// A typed string (9, int32 length, bytes).
inline std::string Str(std::string_view s) { return std::string("\x09", 1) + I32(static_cast<std::int32_t>(s.size())) + std::string(s); }

}  // namespace storebench::ignite::test_bytes
