// How the memcached binding names and places items: the memcached key of a
// (table, key) as sent on the wire (plain, base64 for the meta protocol's
// `b` flag, or an escaped spelling for the classic protocol, which has no
// binary keys), and the host it lives on (jump consistent hashing of a
// 64-bit FNV-1a hash). Pure functions, thread-safe.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::memcache {

inline constexpr std::size_t kMaxKey = 250;  // memcached's KEY_MAX_LENGTH, for the key as sent

// Standard base64 with '=' padding.
inline void AppendBase64(std::string_view in, std::string* out) {
  static constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << 16 |
                            static_cast<std::uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8 |
                            static_cast<unsigned char>(in[i + 2]);
    out->push_back(kBase64[v >> 18]);
    out->push_back(kBase64[(v >> 12) & 63]);
    out->push_back(kBase64[(v >> 6) & 63]);
    out->push_back(kBase64[v & 63]);
  }
  if (i < in.size()) {
    std::uint32_t v = static_cast<std::uint32_t>(static_cast<unsigned char>(in[i])) << 16;
    if (i + 1 < in.size()) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(in[i + 1])) << 8;
    out->push_back(kBase64[v >> 18]);
    out->push_back(kBase64[(v >> 12) & 63]);
    out->push_back(i + 1 < in.size() ? kBase64[(v >> 6) & 63] : '=');
    out->push_back('=');
  }
}

// 1..250 bytes of printable ASCII without spaces: sent as it is.
inline bool IsPlainKey(std::string_view k) {
  if (k.empty() || k.size() > kMaxKey) return false;
  for (char c : k) {
    if (c <= ' ' || c >= 0x7f) return false;  // control, space, DEL, bytes >= 0x80 (char is signed)
  }
  return true;
}

// The classic protocol's spelling of a memcached key: the key itself when
// plain and not starting with "b64:", else "b64:" + its base64 (so no two
// keys share a spelling). False when that is over 250 bytes.
inline bool ClassicKey(std::string_view key, std::string* out) {
  out->clear();
  if (IsPlainKey(key) && !key.starts_with("b64:")) {
    out->assign(key.data(), key.size());
    return true;
  }
  if (4 + (key.size() + 2) / 3 * 4 > kMaxKey) return false;
  out->append("b64:");
  AppendBase64(key, out);
  return true;
}

inline std::uint64_t Fnv1a64(std::string_view s) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// Jump consistent hash (Lamping & Veach, 2014): a bucket in [0, buckets).
inline int JumpHash(std::uint64_t key, int buckets) {
  std::int64_t b = -1, j = 0;
  while (j < buckets) {
    b = j;
    key = key * 2862933555777941757ull + 1;
    j = static_cast<std::int64_t>(static_cast<double>(b + 1) *
                                  (static_cast<double>(1ll << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<int>(b);
}

inline void AppendNumber(std::uint64_t v, std::string* out) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, static_cast<std::size_t>(p - buf));
}

}  // namespace storebench::memcache
