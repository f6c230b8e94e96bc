#include "db/aerospike/routing.h"

#include <charconv>

namespace storebench::aerospike {
namespace {

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes standard base64 (with '=' padding) into exactly `want` bytes.
bool DecodeBase64(std::string_view in, std::size_t want, std::string* out) {
  out->clear();
  if (in.size() % 4 != 0) return false;
  for (std::size_t i = 0; i < in.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = in[i + static_cast<std::size_t>(j)];
      if (c == '=' && i + 4 == in.size() && j >= 2) {
        v[j] = 0;
        ++pad;
      } else if (pad > 0 || (v[j] = Base64Value(c)) < 0) {
        return false;
      }
    }
    const std::uint32_t word = static_cast<std::uint32_t>(v[0]) << 18 |
                               static_cast<std::uint32_t>(v[1]) << 12 |
                               static_cast<std::uint32_t>(v[2]) << 6 | static_cast<std::uint32_t>(v[3]);
    out->push_back(static_cast<char>(word >> 16));
    if (pad < 2) out->push_back(static_cast<char>((word >> 8) & 0xff));
    if (pad < 1) out->push_back(static_cast<char>(word & 0xff));
  }
  return out->size() == want;
}

bool ParseU64(std::string_view s, std::uint64_t* v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

// A cursor over peers-clear-std text.
struct Cursor {
  std::string_view s;
  std::size_t pos = 0;
  bool Eat(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  // Text up to (not including) the first of `stops`.
  std::string_view Until(std::string_view stops) {
    const std::size_t start = pos;
    while (pos < s.size() && stops.find(s[pos]) == std::string_view::npos) ++pos;
    return s.substr(start, pos - start);
  }
};

// "1.2.3.4", "1.2.3.4:3000", "[::1]:3000", "[::1]", "host".
bool ParseAddress(std::string_view a, int default_port, net::Endpoint* ep) {
  std::string_view host = a;
  std::string_view port;
  if (a.starts_with('[')) {
    const std::size_t close = a.find(']');
    if (close == std::string_view::npos) return false;
    host = a.substr(1, close - 1);
    std::string_view rest = a.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') return false;
      port = rest.substr(1);
    }
  } else if (const std::size_t colon = a.rfind(':'); colon != std::string_view::npos) {
    host = a.substr(0, colon);
    port = a.substr(colon + 1);
  }
  if (host.empty()) return false;
  std::uint64_t p = static_cast<std::uint64_t>(default_port);
  if (!port.empty() && !ParseU64(port, &p)) return false;
  if (p == 0 || p > 65535) return false;
  ep->host = std::string(host);
  ep->port = static_cast<int>(p);
  return true;
}

}  // namespace

bool ParseReplicasMaster(std::string_view answer, std::string_view ns, PartitionBits* out) {
  std::size_t pos = 0;
  std::string bytes;
  while (pos <= answer.size()) {
    std::size_t end = answer.find(';', pos);
    if (end == std::string_view::npos) end = answer.size();
    const std::string_view entry = answer.substr(pos, end - pos);
    const std::size_t colon = entry.find(':');
    if (colon != std::string_view::npos && entry.substr(0, colon) == ns) {
      if (!DecodeBase64(entry.substr(colon + 1), kPartitions / 8, &bytes)) return false;
      out->reset();
      for (int pid = 0; pid < kPartitions; ++pid) {
        if (static_cast<std::uint8_t>(bytes[static_cast<std::size_t>(pid >> 3)]) & (0x80 >> (pid & 7)))
          out->set(static_cast<std::size_t>(pid));
      }
      return true;
    }
    pos = end + 1;
  }
  return false;
}

bool ParsePeers(std::string_view answer, std::uint64_t* generation, std::vector<Peer>* out) {
  out->clear();
  Cursor c{answer};
  std::uint64_t port = 0;
  if (!ParseU64(c.Until(","), generation) || !c.Eat(',')) return false;
  if (!ParseU64(c.Until(","), &port) || port == 0 || port > 65535 || !c.Eat(',')) return false;
  if (!c.Eat('[')) return false;
  for (bool first = true; !c.Eat(']'); first = false) {
    if (!first && !c.Eat(',')) return false;
    if (!c.Eat('[')) return false;
    Peer p;
    p.node_id = std::string(c.Until(",]"));
    if (p.node_id.empty() || !c.Eat(',')) return false;
    c.Until(",]");  // the TLS name (empty without TLS)
    if (!c.Eat(',') || !c.Eat('[')) return false;
    while (!c.Eat(']')) {
      if (!p.addresses.empty() && !c.Eat(',')) return false;
      std::string_view addr;
      if (c.pos < answer.size() && answer[c.pos] == '[') {  // [v6]:port
        const std::size_t start = c.pos;
        c.Until("]");
        if (!c.Eat(']')) return false;
        c.Until(",]");
        addr = answer.substr(start, c.pos - start);
      } else {
        addr = c.Until(",]");
      }
      net::Endpoint ep;
      if (!ParseAddress(addr, static_cast<int>(port), &ep)) return false;
      p.addresses.push_back(std::move(ep));
      if (c.pos >= answer.size()) return false;
    }
    if (!c.Eat(']')) return false;
    // A peer that names no address cannot be reached: left out, the rest kept.
    if (!p.addresses.empty()) out->push_back(std::move(p));
    if (c.pos >= answer.size()) return false;
  }
  return c.pos == answer.size();
}

}  // namespace storebench::aerospike
