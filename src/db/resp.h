// RESP2, the Redis protocol, as the redis binding reads it: locating a
// complete reply in the input (ParseReply), walking it in place
// (ReplyCursor), and the cluster's messages (a CLUSTER SLOTS reply, a MOVED
// or ASK redirection) and key slots. Bytes in, values out: no sockets, so
// each piece is unit-tested and fuzzed (tests/fuzz/resp_fuzz.cc) alone.
//
// Pure functions and plain values; safe from any number of threads on
// distinct objects.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "net/socket.h"

namespace storebench::resp {

inline constexpr int kSlots = 16384;
inline constexpr std::uint16_t kNoNode = 0xffff;
// ParseReply's answer for input that is not RESP.
inline constexpr std::size_t kBadReply = static_cast<std::size_t>(-1);

// A whole decimal integer, nothing else.
inline bool ParseInt(std::string_view s, std::int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

// The length of the complete RESP2 reply at the front of `in`; 0 when more
// bytes are needed; kBadReply when `in` is not RESP.
std::size_t ParseReply(std::string_view in);

// One element of a reply: a simple string ('+'), error ('-'), integer (':'
// in n), bulk string ('$'; n = -1 for nil) or array header ('*'; n = its
// element count, -1 for nil; the elements follow).
struct Item {
  char type = 0;
  std::string_view str;
  std::int64_t n = 0;
  bool nil() const { return (type == '$' || type == '*') && n < 0; }
  bool error() const { return type == '-'; }
};

// Walks a complete reply (one that ParseReply accepted) element by element.
class ReplyCursor {
 public:
  explicit ReplyCursor(std::string_view reply) : r_(reply) {}
  bool done() const { return pos_ >= r_.size(); }
  Item Next() {
    Item it;
    if (done()) return it;
    it.type = r_[pos_];
    const std::size_t eol = r_.find('\r', pos_ + 1);
    const std::string_view body = r_.substr(pos_ + 1, eol - pos_ - 1);
    pos_ = eol + 2;
    switch (it.type) {
      case '+':
      case '-':
        it.str = body;
        break;
      case ':':
      case '*':
        ParseInt(body, &it.n);
        break;
      case '$':
        ParseInt(body, &it.n);
        if (it.n >= 0) {
          it.str = r_.substr(pos_, static_cast<std::size_t>(it.n));
          pos_ += static_cast<std::size_t>(it.n) + 2;
        }
        break;
      default:
        break;
    }
    return it;
  }
  // Skips the rest of an element whose header was `it` (an array's elements).
  void Skip(const Item& it) {
    std::int64_t pending = it.type == '*' && it.n > 0 ? it.n : 0;
    while (pending > 0 && !done()) {
      Item e = Next();
      --pending;
      if (e.type == '*' && e.n > 0) pending += e.n;
    }
  }

 private:
  std::string_view r_;
  std::size_t pos_ = 0;
};

// CRC16/XMODEM, as Redis Cluster uses (crc16("123456789") == 0x31C3).
std::uint16_t Crc16(std::string_view s);

// The key's slot: of the part between the first '{' and the next '}' when
// that is non-empty, else of the whole key.
int KeySlot(std::string_view key);

// Which node serves each slot.
struct SlotMap {
  std::vector<net::Endpoint> nodes;
  std::vector<std::uint16_t> slot_node = std::vector<std::uint16_t>(kSlots, kNoNode);

  std::uint16_t FindOrAdd(const net::Endpoint& ep) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i].host == ep.host && nodes[i].port == ep.port) return static_cast<std::uint16_t>(i);
    }
    nodes.push_back(ep);
    return static_cast<std::uint16_t>(nodes.size() - 1);
  }
  // Applies a CLUSTER SLOTS reply; false when it is not one. An empty host
  // means "the host you asked" (`asked_host`).
  bool Apply(std::string_view reply, const std::string& asked_host);
};

// "MOVED 3999 127.0.0.1:6381" / "ASK ..." -> slot and endpoint.
bool ParseRedirect(std::string_view err, const std::string& default_host, int* slot, net::Endpoint* ep);

}  // namespace storebench::resp
