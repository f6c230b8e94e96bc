#include "db/redis/resp.h"

#include <cstring>

namespace storebench::resp {

void AppendHeader(std::string& out, char type, std::size_t n) {
  char buf[24];
  buf[0] = type;
  char* p = std::to_chars(buf + 1, buf + sizeof buf - 2, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  out.append(buf, static_cast<std::size_t>(p - buf));
}

void AppendArg(std::string& out, std::int64_t v) {
  char buf[24];
  char* p = std::to_chars(buf, buf + sizeof buf, v).ptr;
  AppendArg(out, std::string_view(buf, static_cast<std::size_t>(p - buf)));
}

void AppendArg(std::string& out, Joined j) {
  AppendHeader(out, '$', j.a.size() + j.b.size());
  out.append(j.a.data(), j.a.size());
  out.append(j.b.data(), j.b.size());
  out.append("\r\n", 2);
}

std::size_t ParseReply(std::string_view in) {
  std::size_t pos = 0;
  std::int64_t pending = 1;
  while (pending > 0) {
    if (pos + 1 >= in.size()) return 0;
    const void* cr = std::memchr(in.data() + pos + 1, '\r', in.size() - pos - 1);
    if (cr == nullptr) return 0;
    const std::size_t eol = static_cast<std::size_t>(static_cast<const char*>(cr) - in.data());
    if (eol + 1 >= in.size()) return 0;
    if (in[eol + 1] != '\n') return kBadReply;
    const char type = in[pos];
    const std::string_view body = in.substr(pos + 1, eol - pos - 1);
    pos = eol + 2;
    --pending;
    std::int64_t n = 0;
    switch (type) {
      case '+':
      case '-':
        break;
      case ':':
        if (!ParseInt(body, &n)) return kBadReply;
        break;
      case '$':
        if (!ParseInt(body, &n) || n < -1 || n > (std::int64_t{1} << 40)) return kBadReply;
        if (n >= 0) {
          const auto len = static_cast<std::size_t>(n);
          if (in.size() - pos < len + 2) return 0;
          if (in[pos + len] != '\r' || in[pos + len + 1] != '\n') return kBadReply;
          pos += len + 2;
        }
        break;
      case '*':
        if (!ParseInt(body, &n) || n < -1 || n > (std::int64_t{1} << 32)) return kBadReply;
        if (n > 0) pending += n;
        break;
      default:
        return kBadReply;
    }
  }
  return pos;
}

}  // namespace storebench::resp
