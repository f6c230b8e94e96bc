// Tests of the Ignite nodes that scripts/servers/ignite.sh starts: every host
// of ignite.hosts (STOREBENCH_TEST_SERVER_IGNITE) accepts a thin-client
// handshake and lists the YCSB table's cache. The bytes are written by hand,
// from Ignite's protocol documentation (apache/ignite
// docs/_docs/binary-client-protocol/binary-client-protocol.adoc: "Message
// Format", "Handshake", "Standard Message Header"; data-format.adoc for the
// type codes; cache-configuration.adoc for OP_CACHE_GET_NAMES) and, where
// the docs stop at version 1.0, Ignite 2.17's server code:
// ClientConnectionContext.initializeFromHandshake (1.7 reads a feature byte
// array after the client code), ClientRequestHandler.writeHandshake (the
// success reply: a bool, from 1.7 the server's feature byte array, from 1.4
// the node's UUID), ClientResponse.encode (from 1.4 a short of flags: 1 error,
// 2 affinity topology changed, the latter followed by a long and an int).
// This is a check of the nodes, not the binding's codec.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "test_util.h"
#include "tcp_connect.h"

namespace storebench {
namespace {

using Bytes = std::vector<std::uint8_t>;

// Binary type codes (data-format.adoc).
constexpr std::uint8_t kTypeString = 9;
constexpr std::uint8_t kTypeUuid = 10;
constexpr std::uint8_t kTypeByteArray = 12;
constexpr std::uint8_t kTypeNull = 101;
// Op codes (binary-client-protocol.adoc, cache-configuration.adoc).
constexpr std::uint8_t kHandshake = 1;
constexpr std::uint8_t kClientThin = 2;
constexpr std::int16_t kOpCacheGetNames = 1050;

struct Version {
  std::int16_t major, minor, patch;
  bool AtLeast(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
};

void PutLe(Bytes& b, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// Prefixes the message with its length (an int, excluding itself).
Bytes Framed(const Bytes& body) {
  Bytes out;
  out.reserve(4 + body.size());
  PutLe(out, body.size(), 4);
  for (const std::uint8_t c : body) out.push_back(c);  // (g++ 12 misreads insert() here as an overread)
  return out;
}

// Handshake request: code 1, version, client code 2; from 1.7 the client's
// feature bitmask as a byte array (here empty: type 12, length 0). No user
// name or password (the server reads them only when bytes remain).
Bytes HandshakeRequest(Version v) {
  Bytes b{kHandshake};
  PutLe(b, static_cast<std::uint16_t>(v.major), 2);
  PutLe(b, static_cast<std::uint16_t>(v.minor), 2);
  PutLe(b, static_cast<std::uint16_t>(v.patch), 2);
  b.push_back(kClientThin);
  if (v.AtLeast(1, 7)) {
    b.push_back(kTypeByteArray);
    PutLe(b, 0, 4);
  }
  return Framed(b);
}

// Standard request header with no payload: op code (short), request id (long).
Bytes EmptyRequest(std::int16_t op, std::int64_t request_id) {
  Bytes b;
  PutLe(b, static_cast<std::uint16_t>(op), 2);
  PutLe(b, static_cast<std::uint64_t>(request_id), 8);
  return Framed(b);
}

// Reads little-endian values from a message body; `ok` turns false on overrun.
struct Reader {
  const Bytes& b;
  std::size_t pos = 0;
  bool ok = true;
  std::uint64_t Le(int n) {  // n <= 8
    if (n > 8 || pos + n > b.size()) {
      ok = false;
      return 0;
    }
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{b[pos + i]} << (8 * i);
    pos += n;
    return v;
  }
  std::optional<std::string> String() {  // type 9, int length, UTF-8; or 101 (null)
    const auto type = Le(1);
    if (type == kTypeNull) return std::nullopt;
    if (type != kTypeString) {
      ok = false;
      return std::nullopt;
    }
    const auto len = Le(4);
    if (!ok || pos + len > b.size()) {
      ok = false;
      return std::nullopt;
    }
    std::string s(b.begin() + static_cast<long>(pos), b.begin() + static_cast<long>(pos + len));
    pos += len;
    return s;
  }
  bool AtEnd() const { return ok && pos == b.size(); }
};

struct HandshakeReply {
  bool success = false;
  Version server{0, 0, 0};  // on failure: the version the server offers
  std::string error;
  bool well_formed = false;  // every byte accounted for
};

// Parses a handshake reply body (after its length) for a request of version v.
HandshakeReply ParseHandshakeReply(const Bytes& body, Version v) {
  HandshakeReply r;
  Reader in{body};
  r.success = in.Le(1) == 1;
  if (r.success) {
    if (v.AtLeast(1, 7)) {  // server features: byte array
      if (in.Le(1) != kTypeByteArray) return r;
      in.pos += in.Le(4);
    }
    if (v.AtLeast(1, 4)) {  // node id: UUID (type 10, two longs)
      if (in.Le(1) != kTypeUuid) return r;
      in.pos += 16;
    }
  } else {
    r.server.major = static_cast<std::int16_t>(in.Le(2));
    r.server.minor = static_cast<std::int16_t>(in.Le(2));
    r.server.patch = static_cast<std::int16_t>(in.Le(2));
    r.error = in.String().value_or("");
    if (v.AtLeast(1, 1)) in.Le(4);  // status code
  }
  r.well_formed = in.AtEnd();
  return r;
}

// Parses an OP_CACHE_GET_NAMES reply body: request id, then the status
// (1.4+: flags, [topology version], [status, message]; before: status
// [, message]), then int count and count strings.
bool ParseCacheNames(const Bytes& body, Version v, std::int64_t request_id, std::vector<std::string>& names,
                     std::string& error) {
  Reader in{body};
  if (static_cast<std::int64_t>(in.Le(8)) != request_id) {
    error = "request id differs";
    return false;
  }
  std::uint32_t status = 0;
  if (v.AtLeast(1, 4)) {
    const auto flags = in.Le(2);
    if (flags & 2) {  // affinity topology version: long major, int minor
      in.Le(8);
      in.Le(4);
    }
    if (flags & 1) status = static_cast<std::uint32_t>(in.Le(4));
  } else {
    status = static_cast<std::uint32_t>(in.Le(4));
  }
  if (status != 0) {
    error = "status " + std::to_string(status) + ": " + in.String().value_or("");
    return false;
  }
  const auto count = in.Le(4);
  for (std::uint64_t i = 0; i < count && in.ok; ++i) names.push_back(in.String().value_or("<null>"));
  if (!in.AtEnd()) {
    error = "malformed reply";
    return false;
  }
  return true;
}

// A blocking loopback connection with a 10 s receive timeout.
class Conn {
 public:
  explicit Conn(const std::string& host_port)
      : fd_(test_util::ConnectTcp(host_port, 10)), connected_(fd_ >= 0) {}
  ~Conn() {
    if (fd_ >= 0) close(fd_);
  }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  bool connected() const { return connected_; }

  bool Send(const Bytes& b) { return write(fd_, b.data(), b.size()) == static_cast<ssize_t>(b.size()); }
  // One message's body (its int length read first); nullopt on EOF/timeout.
  std::optional<Bytes> Receive() {
    Bytes len(4);
    if (!ReadAll(len)) return std::nullopt;
    const std::uint32_t n = len[0] | len[1] << 8 | len[2] << 16 | static_cast<std::uint32_t>(len[3]) << 24;
    if (n > (64u << 20)) return std::nullopt;
    Bytes body(n);
    if (!ReadAll(body)) return std::nullopt;
    return body;
  }

 private:
  bool ReadAll(Bytes& b) {
    std::size_t got = 0;
    while (got < b.size()) {
      const ssize_t r = read(fd_, b.data() + got, b.size() - got);
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    return true;
  }
  int fd_ = -1;
  bool connected_ = false;
};

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const auto end = s.find(sep, start);
    const auto piece = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!piece.empty()) out.push_back(piece);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// The request bytes as the docs lay them out (version 1.0.0: the docs'
// table; 1.7.0 adds the empty feature byte array; OP_CACHE_GET_NAMES = 1050
// = 0x041A with request id 7).
TEST(IgniteNodesProtocol, RequestBytesFollowTheDocumentedLayout) {
  EXPECT_EQ(HandshakeRequest({1, 0, 0}), (Bytes{8, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 2}));
  EXPECT_EQ(HandshakeRequest({1, 7, 0}), (Bytes{13, 0, 0, 0, 1, 1, 0, 7, 0, 0, 0, 2, 12, 0, 0, 0, 0}));
  EXPECT_EQ(EmptyRequest(kOpCacheGetNames, 7), (Bytes{10, 0, 0, 0, 0x1A, 0x04, 7, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(IgniteNodesProtocol, RepliesAreParsedByVersion) {
  // 1.0 success: just the flag.
  EXPECT_TRUE(ParseHandshakeReply(Bytes{1}, {1, 0, 0}).well_formed);
  // 1.7 success: flag, features (2 bytes), node UUID.
  Bytes ok17{1, 12, 2, 0, 0, 0, 0xAB, 0xCD, 10};
  ok17.resize(ok17.size() + 16, 0x55);
  const auto r = ParseHandshakeReply(ok17, {1, 7, 0});
  EXPECT_TRUE(r.success);
  EXPECT_TRUE(r.well_formed);
  EXPECT_FALSE(ParseHandshakeReply(Bytes(ok17.begin(), ok17.end() - 1), {1, 7, 0}).well_formed);
  // Failure: flag 0, server version 1.6.0, message "no", status.
  const Bytes fail{0, 1, 0, 6, 0, 0, 0, 9, 2, 0, 0, 0, 'n', 'o', 1, 0, 0, 0};
  const auto f = ParseHandshakeReply(fail, {1, 7, 0});
  EXPECT_FALSE(f.success);
  EXPECT_TRUE(f.well_formed);
  EXPECT_EQ(f.server.minor, 6);
  EXPECT_EQ(f.error, "no");
  // Cache names, 1.4+: id 7, flags 2 (topology changed: long, int), 1 name.
  Bytes names{7, 0, 0, 0, 0, 0, 0, 0, 2, 0};
  names.resize(names.size() + 12, 0);
  for (std::uint8_t c : Bytes{1, 0, 0, 0, 9, 1, 0, 0, 0, 'u'}) names.push_back(c);
  std::vector<std::string> got;
  std::string error;
  ASSERT_TRUE(ParseCacheNames(names, {1, 7, 0}, 7, got, error)) << error;
  EXPECT_EQ(got, std::vector<std::string>{"u"});
  got.clear();
  EXPECT_FALSE(ParseCacheNames(names, {1, 7, 0}, 8, got, error));
}

// Every node answers a handshake (1.7.0, else the version it offers) and
// lists the table's cache.
TEST(IgniteNodes, EveryHostHandshakesAndListsTheTable) {
  test_util::Settings settings;
  STOREBENCH_NEED_SERVER("ignite", settings);
  const auto hosts = Split(test_util::SettingOf(settings, "ignite.hosts"), ',');
  ASSERT_FALSE(hosts.empty()) << "no ignite.hosts in the server line";
  const char* table_env = std::getenv("IGNITE_TABLE");
  const std::string table = table_env != nullptr && *table_env != '\0' ? table_env : "usertable";
  for (const auto& host : hosts) {
    SCOPED_TRACE(host);
    Version v{1, 7, 0};
    std::optional<Conn> conn;
    HandshakeReply reply;
    for (int attempt = 0; attempt < 2; ++attempt) {
      conn.emplace(host);
      ASSERT_TRUE(conn->connected());
      ASSERT_TRUE(conn->Send(HandshakeRequest(v)));
      const auto body = conn->Receive();
      ASSERT_TRUE(body.has_value()) << "no handshake reply";
      reply = ParseHandshakeReply(*body, v);
      ASSERT_TRUE(reply.well_formed) << "malformed handshake reply of " << body->size() << " bytes";
      if (reply.success) break;
      v = reply.server;  // the server's offer; a new connection, as the server closes this one
    }
    ASSERT_TRUE(reply.success) << reply.error;
    const std::int64_t request_id = 42;
    ASSERT_TRUE(conn->Send(EmptyRequest(kOpCacheGetNames, request_id)));
    const auto body = conn->Receive();
    ASSERT_TRUE(body.has_value()) << "no reply to OP_CACHE_GET_NAMES";
    std::vector<std::string> names;
    std::string error;
    ASSERT_TRUE(ParseCacheNames(*body, v, request_id, names, error)) << error;
    EXPECT_NE(std::find(names.begin(), names.end(), table), names.end()) << "cache " << table << " not listed";
  }
}

}  // namespace
}  // namespace storebench
