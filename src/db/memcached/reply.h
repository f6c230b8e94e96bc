// The memcached text protocol's replies, as the memcached binding reads them:
// meta replies (VA <size> <flags>, HD, EN, NF, NS, EX, MN), the classic
// one-line ones (STORED, NOT_STORED, EXISTS, NOT_FOUND, DELETED, ERROR,
// CLIENT_ERROR ..., SERVER_ERROR ...) and a classic single-key get's
// (VALUE <key> <flags> <bytes> [<cas>] [more fields] + data + END, or END). Bytes in, a
// Reply out: no sockets, so the parser is unit-tested and fuzzed
// (tests/fuzz/memcached_fuzz.cc) alone. Pure; thread-safe.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace storebench::memcache {

// One reply of the meta (or classic) text protocol, viewed in the input
// buffer: valid until the connection's input is consumed or refilled.
struct Reply {
  std::string_view code;   // first token of the first line: "VA", "HD", "EN", "STORED", "SERVER_ERROR"...
  std::string_view line;   // the whole first line, without \r\n
  std::string_view value;  // VA's data block
  std::uint64_t cas = 0;   // the c<token> flag, when present
  bool has_cas = false;

  bool Is(std::string_view c) const { return code == c; }
  // A reply after which the stream may be out of step with our requests
  // (VALUE: a classic get's reply, never asked for, its data block unread).
  bool Desyncs() const { return code == "ERROR" || code == "CLIENT_ERROR" || code == "VALUE"; }
};

// memcached's largest item (-I 1024m): a VA announcing more is malformed.
inline constexpr std::uint64_t kMaxValueSize = std::uint64_t{1} << 30;

// A whole unsigned decimal number, nothing else (not empty).
inline bool ParseU64(std::string_view s, std::uint64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// Parses the reply at the front of `in`: the number of bytes it spans, 0
// when it is not complete yet, -1 when it is malformed (a VA of more than
// kMaxValueSize included: waiting for it would never end).
std::ptrdiff_t ParseReply(std::string_view in, Reply* r);

// Parses the reply to a classic one-key `get`/`gets` at the front of `in`:
// "END" (a miss: code "END"), or "VALUE <key> <flags> <bytes> [<cas>]"
// (fields after the cas, as ROMA sends, are ignored), its data block and
// "END" (code "VALUE", value and cas set), or any one-line reply (an
// error). Bytes spanned, 0 when not complete, -1 when malformed.
std::ptrdiff_t ParseGetReply(std::string_view in, Reply* r);

}  // namespace storebench::memcache
