// Expected bytes follow docs/_docs/binary-client-protocol/binary-client-
// protocol.adoc (handshake, request and response headers) and the server's
// ClientListenerNioListener.onHandshake / ClientResponse.encode.
#include "db/ignite/protocol.h"
#include "db/ignite_test_bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::ignite {
using namespace test_bytes;  // Hex, Le, I16, I32, I64, Str (db/ignite_test_bytes.h)
namespace {

TEST(IgniteProtocol, Handshake100IsTheDocsExample) {
  // "int 8, byte 1 (handshake), short 1, short 0, short 0, byte 2 (thin client)".
  std::string buf;
  Writer w(buf);
  HandshakeRequest h;
  h.version = {1, 0, 0};
  EncodeHandshake(w, h);
  EXPECT_EQ(buf, Hex("08000000 01 0100 0000 0000 02"));
}

TEST(IgniteProtocol, Handshake170WithFeaturesAndCredentials) {
  std::string buf;
  Writer w(buf);
  HandshakeRequest h;
  h.version = {1, 7, 0};
  const std::string features = Hex("0208");  // bits 1 and 11
  h.features = features;
  h.has_credentials = true;
  h.user = "ignite";
  h.password = "pw";
  EncodeHandshake(w, h);
  const std::string body = Hex("01 0100 0700 0000 02 0c 02000000 0208") + Str("ignite") + Str("pw");
  EXPECT_EQ(buf, I32(static_cast<std::int32_t>(body.size())) + body);
}

TEST(IgniteProtocol, Handshake100IgnoresCredentials) {
  // Authentication arrived with 1.1.0: a 1.0.0 handshake carries none.
  std::string buf;
  Writer w(buf);
  HandshakeRequest h;
  h.version = {1, 0, 0};
  h.has_credentials = true;
  h.user = "u";
  EncodeHandshake(w, h);
  EXPECT_EQ(buf.size(), 12u);
}

TEST(IgniteProtocol, DecodesHandshakeSuccess) {
  HandshakeResponse r;
  // 1.7: bool true, features byte array, node UUID (typed, msb then lsb).
  const std::string body = Hex("01 0c 02000000 ff07 0a") + I64(0x1122334455667788) + I64(-5);
  ASSERT_TRUE(DecodeHandshake(body, {1, 7, 0}, &r));
  EXPECT_TRUE(r.success);
  EXPECT_EQ(r.features, Hex("ff07"));
  EXPECT_TRUE(r.has_node_id);
  EXPECT_EQ(r.node_id, (Uuid{0x1122334455667788, -5}));
  // 1.0 .. 1.3: the bool alone.
  ASSERT_TRUE(DecodeHandshake(Hex("01"), {1, 2, 0}, &r));
  EXPECT_TRUE(r.success);
  EXPECT_FALSE(r.has_node_id);
  // 1.4 without features.
  ASSERT_TRUE(DecodeHandshake(Hex("01 0a") + I64(1) + I64(2), {1, 4, 0}, &r));
  EXPECT_EQ(r.node_id, (Uuid{1, 2}));
}

TEST(IgniteProtocol, DecodesHandshakeFailureAndNegotiatesDown) {
  // An old server refusing 1.7.0: false, its version 1.4.0, message, status 1.
  const std::string body = Hex("00 0100 0400 0000") + Str("Unsupported version: 1.7.0") + I32(1);
  HandshakeResponse r;
  ASSERT_TRUE(DecodeHandshake(body, {1, 7, 0}, &r));
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.server_version, (Version{1, 4, 0}));
  EXPECT_EQ(r.message, "Unsupported version: 1.7.0");
  EXPECT_EQ(r.status, kStatusFailed);
  Version next;
  ASSERT_TRUE(NegotiateDown(r.server_version, &next));
  EXPECT_EQ(next, (Version{1, 4, 0}));
  // Authentication failure: version 0.0.0 and AUTH_FAILED (2000).
  const std::string auth = Hex("00 0000 0000 0000") + Str("Unauthenticated") + I32(2000);
  ASSERT_TRUE(DecodeHandshake(auth, {1, 7, 0}, &r));
  EXPECT_EQ(r.status, kStatusAuthFailed);
  EXPECT_EQ(r.message, "Unauthenticated");
  // 1.0.0 failures carry no status.
  ASSERT_TRUE(DecodeHandshake(Hex("00 0100 0000 0000") + Str("no"), {1, 0, 0}, &r));
  EXPECT_EQ(r.status, kStatusFailed);
  EXPECT_FALSE(DecodeHandshake(Hex("00 0100"), {1, 7, 0}, &r));
}

TEST(IgniteProtocol, NegotiateDownPicksNewestNotAbove) {
  Version v;
  ASSERT_TRUE(NegotiateDown({1, 8, 0}, &v));
  EXPECT_EQ(v, (Version{1, 7, 0}));
  ASSERT_TRUE(NegotiateDown({1, 6, 5}, &v));
  EXPECT_EQ(v, (Version{1, 6, 0}));
  ASSERT_TRUE(NegotiateDown({1, 0, 0}, &v));
  EXPECT_EQ(v, (Version{1, 0, 0}));
  EXPECT_FALSE(NegotiateDown({0, 9, 0}, &v));
  EXPECT_FALSE(NegotiateDown({0, 0, 0}, &v));
}

TEST(IgniteProtocol, RequestHeader) {
  std::string buf;
  Writer w(buf);
  std::size_t at = BeginRequest(w, kOpCacheGet, 0x0102030405060708);
  w.I32(42);
  FinishRequest(w, at);
  // length 14 = op code (2) + request id (8) + payload (4).
  EXPECT_EQ(buf, Hex("0e000000 e803 0807060504030201 2a000000"));
}

TEST(IgniteProtocol, ResponseHeaderFrom14) {
  ResponseHeader h;
  {  // success, no flags: the payload follows at once
    const std::string in = I64(9) + I16(0) + "P";
    Reader r(in);
    ASSERT_TRUE(DecodeResponseHeader(r, {1, 7, 0}, &h));
    EXPECT_EQ(h.request_id, 9);
    EXPECT_TRUE(h.ok());
    EXPECT_FALSE(h.topology_changed);
    EXPECT_EQ(r.remaining(), 1u);
  }
  {  // error + topology changed: version (long, int), status, message
    const std::string in = I64(10) + I16(3) + I64(5) + I32(1) + I32(1000) + Str("Cache does not exist");
    Reader r(in);
    ASSERT_TRUE(DecodeResponseHeader(r, {1, 4, 0}, &h));
    EXPECT_TRUE(h.topology_changed);
    EXPECT_EQ(h.topology_version, 5);
    EXPECT_EQ(h.topology_minor, 1);
    EXPECT_EQ(h.status, kStatusCacheDoesNotExist);
    EXPECT_EQ(h.error, "Cache does not exist");
    EXPECT_EQ(r.remaining(), 0u);
  }
  {  // truncated
    const std::string in = I64(10) + I16(1) + I32(1);
    Reader r(in);
    EXPECT_FALSE(DecodeResponseHeader(r, {1, 7, 0}, &h));
  }
}

TEST(IgniteProtocol, ResponseHeaderBefore14) {
  ResponseHeader h;
  const std::string ok = I64(3) + I32(0);
  Reader r1(ok);
  ASSERT_TRUE(DecodeResponseHeader(r1, {1, 3, 0}, &h));
  EXPECT_TRUE(h.ok());
  const std::string err = I64(3) + I32(1) + Str("boom");
  Reader r2(err);
  ASSERT_TRUE(DecodeResponseHeader(r2, {1, 0, 0}, &h));
  EXPECT_EQ(h.status, kStatusFailed);
  EXPECT_EQ(h.error, "boom");
}

}  // namespace
}  // namespace storebench::ignite
