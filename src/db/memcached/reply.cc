#include "db/memcached/reply.h"

namespace storebench::memcache {

// Parses the reply at the front of `in`: the number of bytes it spans, 0
// when it is not complete yet, -1 when it is malformed.
std::ptrdiff_t ParseReply(std::string_view in, Reply* r) {
  const std::size_t eol = in.find("\r\n");
  if (eol == std::string_view::npos) return in.size() > 8192 ? -1 : 0;
  r->line = in.substr(0, eol);
  r->value = {};
  r->has_cas = false;
  std::string_view rest = r->line;
  auto next_token = [&rest]() {
    const std::size_t sp = rest.find(' ');
    std::string_view t = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    return t;
  };
  r->code = next_token();
  std::size_t size = 0;
  bool has_value = false;
  if (r->code == "VA") {
    std::uint64_t n = 0;
    if (!ParseU64(next_token(), &n) || n > kMaxValueSize) return -1;
    size = static_cast<std::size_t>(n);
    has_value = true;
  }
  if (r->code.size() == 2) {  // meta reply: flags follow
    while (!rest.empty()) {
      std::string_view flag = next_token();
      if (!flag.empty() && flag[0] == 'c') r->has_cas = ParseU64(flag.substr(1), &r->cas);
    }
  }
  std::size_t total = eol + 2;
  if (has_value) {
    // Not total + size + 2: a size near 2^64 (from the wire) would wrap it.
    if (in.size() - total < 2 || in.size() - total - 2 < size) return 0;
    if (in.substr(total + size, 2) != "\r\n") return -1;
    r->value = in.substr(total, size);
    total += size + 2;
  }
  return static_cast<std::ptrdiff_t>(total);
}

}  // namespace storebench::memcache
