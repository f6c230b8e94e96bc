// RESP2, the Redis protocol, as the redis binding speaks it: commands
// encoded into a caller's buffer (AppendCommand and its parts), a complete
// reply located at the front of the input (ParseReply) and walked in place
// (ReplyCursor). Bytes in, bytes out: no sockets, so each piece is
// unit-tested (tests/db/resp_test.cc) and fuzzed (tests/fuzz/resp_fuzz.cc)
// alone. Cluster routing (slots, MOVED/ASK) is db/redis/routing.h.
//
// Pure functions and plain values; safe from any number of threads on
// distinct objects. The encoders append to the caller's std::string and
// allocate only when it has to grow (a reused buffer stops growing).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::resp {

// ParseReply's answer for input that is not RESP.
inline constexpr std::size_t kBadReply = static_cast<std::size_t>(-1);

// ---- encoding ---------------------------------------------------------------

// "<type><n>\r\n": an array header ('*') or a bulk string's length ('$').
void AppendHeader(std::string& out, char type, std::size_t n);

// One bulk string argument: "$<len>\r\n<a>\r\n".
inline void AppendArg(std::string& out, std::string_view a) {
  AppendHeader(out, '$', a.size());
  out.append(a.data(), a.size());
  out.append("\r\n", 2);
}
// An integer as one (decimal) bulk string argument.
void AppendArg(std::string& out, std::int64_t v);

// Two pieces sent as one argument "<a><b>" (e.g. ZRANGEBYLEX's "[start").
struct Joined {
  std::string_view a, b;
};
void AppendArg(std::string& out, Joined j);

// A whole command of a fixed number of arguments:
// AppendCommand(out, "SET", key, value) == "*3\r\n$3\r\nSET\r\n...".
template <typename... Args>
void AppendCommand(std::string& out, const Args&... args) {
  AppendHeader(out, '*', sizeof...(Args));
  (AppendArg(out, args), ...);
}

// ---- decoding ---------------------------------------------------------------

// A whole decimal integer, nothing else.
inline bool ParseInt(std::string_view s, std::int64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return ec == std::errc() && p == s.data() + s.size();
}

// The length of the complete RESP2 reply at the front of `in`; 0 when more
// bytes are needed; kBadReply when `in` is not RESP.
std::size_t ParseReply(std::string_view in);

// An error reply's message: "-MOVED 1 h:1\r\n" -> "MOVED 1 h:1"; empty for
// any other reply. `reply` is one complete reply.
inline std::string_view ErrorMessage(std::string_view reply) {
  if (reply.size() < 3 || reply[0] != '-') return {};
  return reply.substr(1, reply.size() - 3);
}

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

}  // namespace storebench::resp
