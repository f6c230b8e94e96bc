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

std::ptrdiff_t ParseGetReply(std::string_view in, Reply* r) {
  const std::size_t eol = in.find("\r\n");
  if (eol == std::string_view::npos) return in.size() > 8192 ? -1 : 0;
  if (!in.starts_with("VALUE ")) return ParseReply(in, r);
  r->line = in.substr(0, eol);
  r->code = r->line.substr(0, 5);
  r->has_cas = false;
  std::string_view rest = r->line.substr(6);
  std::string_view tokens[4];
  int n = 0;
  while (!rest.empty() && n < 4) {
    const std::size_t sp = rest.find(' ');
    tokens[n++] = rest.substr(0, sp);
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
  }
  std::uint64_t flags = 0, size = 0;
  if (n < 3 || tokens[0].empty() || !ParseU64(tokens[1], &flags) || !ParseU64(tokens[2], &size) ||
      size > kMaxValueSize) {
    return -1;
  }
  if (n == 4) r->has_cas = ParseU64(tokens[3], &r->cas);
  const std::size_t start = eol + 2;
  // Not start + size + 7: a size from the wire near 2^64 would wrap it.
  if (in.size() - start < 7 || in.size() - start - 7 < size) return 0;
  if (in.substr(start + size, 7) != "\r\nEND\r\n") return -1;
  r->value = in.substr(start, static_cast<std::size_t>(size));
  return static_cast<std::ptrdiff_t>(start + size + 7);
}

}  // namespace storebench::memcache
