#include "db/redis/routing.h"

#include <algorithm>
#include <array>

#include "db/redis/resp.h"

namespace storebench::redis {
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

std::uint16_t Crc16(std::string_view s) {
  std::uint16_t crc = 0;
  for (unsigned char c : s) crc = static_cast<std::uint16_t>((crc << 8) ^ kCrcTable[((crc >> 8) ^ c) & 0xff]);
  return crc;
}

int KeySlot(std::string_view key) {
  const auto open = key.find('{');
  if (open != std::string_view::npos) {
    const auto close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1) key = key.substr(open + 1, close - open - 1);
  }
  return Crc16(key) & (kSlots - 1);
}

void SlotMap::Single(const net::Endpoint& ep) {
  nodes = {ep};
  std::fill(slot_node.begin(), slot_node.end(), 0);
}

std::uint16_t SlotMap::FindOrAdd(const net::Endpoint& ep) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].host == ep.host && nodes[i].port == ep.port) return static_cast<std::uint16_t>(i);
  }
  nodes.push_back(ep);
  return static_cast<std::uint16_t>(nodes.size() - 1);
}

std::uint16_t SlotMap::Move(int slot, const net::Endpoint& ep) {
  auto& node = slot_node[static_cast<std::size_t>(slot)];
  node = FindOrAdd(ep);
  return node;
}

bool SlotMap::Apply(std::string_view reply, const std::string& asked_host) {
  resp::ReplyCursor c(reply);
  resp::Item top = c.Next();
  if (top.type != '*' || top.n < 0) return false;
  for (std::int64_t r = 0; r < top.n; ++r) {
    resp::Item range = c.Next();
    if (range.type != '*' || range.n < 3) return false;
    resp::Item lo = c.Next(), hi = c.Next(), master = c.Next();
    if (lo.type != ':' || hi.type != ':' || master.type != '*' || master.n < 2) return false;
    resp::Item host = c.Next(), port = c.Next();
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

bool ParseRedirect(std::string_view err, const std::string& default_host, int* slot, net::Endpoint* ep) {
  const auto sp1 = err.find(' ');
  if (sp1 == std::string_view::npos) return false;
  const auto sp2 = err.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos) return false;
  std::int64_t s = 0;
  if (!resp::ParseInt(err.substr(sp1 + 1, sp2 - sp1 - 1), &s) || s < 0 || s >= kSlots) return false;
  const std::string_view addr = err.substr(sp2 + 1);
  const auto colon = addr.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::int64_t port = 0;
  if (!resp::ParseInt(addr.substr(colon + 1), &port) || port <= 0 || port > 65535) return false;
  *slot = static_cast<int>(s);
  ep->host = colon == 0 ? default_host : std::string(addr.substr(0, colon));
  ep->port = static_cast<int>(port);
  return true;
}

Redirection ParseRedirection(std::string_view err, const std::string& default_host) {
  Redirection r;
  const Redirection::Kind kind = err.starts_with("MOVED ") ? Redirection::kMoved
                                 : err.starts_with("ASK ") ? Redirection::kAsk
                                                           : Redirection::kNone;
  if (kind != Redirection::kNone && ParseRedirect(err, default_host, &r.slot, &r.to)) r.kind = kind;
  return r;
}

}  // namespace storebench::redis
