#include "db/resp.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace storebench::resp {
namespace {

constexpr std::array<std::uint16_t, 256> MakeCrcTable() {
  std::array<std::uint16_t, 256> t{};
  for (int i = 0; i < 256; ++i) {
    std::uint16_t c = static_cast<std::uint16_t>(i << 8);
    for (int b = 0; b < 8; ++b) c = static_cast<std::uint16_t>((c & 0x8000) ? (c << 1) ^ 0x1021 : c << 1);
    t[static_cast<std::size_t>(i)] = c;
  }
  return t;
}
constexpr std::array<std::uint16_t, 256> kCrcTable = MakeCrcTable();

}  // namespace

// The length of the complete RESP2 reply at the front of `in`; 0 when more
// bytes are needed; kBadReply when `in` is not RESP.
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

// CRC16/XMODEM, as Redis Cluster uses (crc16("123456789") == 0x31C3).
std::uint16_t Crc16(std::string_view s) {
  std::uint16_t crc = 0;
  for (unsigned char c : s) crc = static_cast<std::uint16_t>((crc << 8) ^ kCrcTable[((crc >> 8) ^ c) & 0xff]);
  return crc;
}

// The key's slot: of the part between the first '{' and the next '}' when
// that is non-empty, else of the whole key.
int KeySlot(std::string_view key) {
  const auto open = key.find('{');
  if (open != std::string_view::npos) {
    const auto close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
  }
  return Crc16(key) & (kSlots - 1);
}

bool SlotMap::Apply(std::string_view reply, const std::string& asked_host) {
  ReplyCursor c(reply);
  Item top = c.Next();
  if (top.type != '*' || top.n < 0) return false;
  for (std::int64_t r = 0; r < top.n; ++r) {
    Item range = c.Next();
    if (range.type != '*' || range.n < 3) return false;
    Item lo = c.Next(), hi = c.Next(), master = c.Next();
    if (lo.type != ':' || hi.type != ':' || master.type != '*' || master.n < 2) return false;
    Item host = c.Next(), port = c.Next();
    if (host.type != '$' || port.type != ':') return false;
    for (std::int64_t k = 2; k < master.n; ++k) c.Skip(c.Next());
    for (std::int64_t k = 3; k < range.n; ++k) c.Skip(c.Next());  // replicas
    net::Endpoint ep{host.str.empty() || host.str == "?" ? asked_host : std::string(host.str),
                     static_cast<int>(port.n)};
    const std::uint16_t node = FindOrAdd(ep);
    for (std::int64_t s = std::max<std::int64_t>(0, lo.n); s <= hi.n && s < kSlots; ++s) {
      slot_node[static_cast<std::size_t>(s)] = node;
    }
  }
  return true;
}

// "MOVED 3999 127.0.0.1:6381" / "ASK ..." -> slot and endpoint.
bool ParseRedirect(std::string_view err, const std::string& default_host, int* slot, net::Endpoint* ep) {
  const auto sp1 = err.find(' ');
  if (sp1 == std::string_view::npos) return false;
  const auto sp2 = err.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  std::int64_t s = 0;
  if (!ParseInt(err.substr(sp1 + 1, sp2 - sp1 - 1), &s) || s < 0 || s >= kSlots) return false;
  const std::string_view addr = err.substr(sp2 + 1);
  const auto colon = addr.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::int64_t port = 0;
  if (!ParseInt(addr.substr(colon + 1), &port) || port <= 0 || port > 65535) return false;
  *slot = static_cast<int>(s);
  ep->host = colon == 0 ? default_host : std::string(addr.substr(0, colon));
  ep->port = static_cast<int>(port);
  return true;
}

}  // namespace storebench::resp
