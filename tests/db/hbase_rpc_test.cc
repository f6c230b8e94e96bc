// The hbase binding's RPC framing (db/hbase/rpc.h) on bytes: the preamble,
// the connection header, framed requests, and responses (ok, exception,
// truncated, garbage) as HBase's "RPC Specification" lays them out.
#include "db/hbase/rpc.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "Client.pb.h"

namespace storebench::hbase {
namespace {

std::string U32BE(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

std::string Delimited(const google::protobuf::MessageLite& m) {
  std::string body = m.SerializeAsString();
  std::string out;
  std::size_t n = body.size();
  do {
    unsigned char b = n & 0x7F;
    n >>= 7;
    if (n) b |= 0x80;
    out.push_back(static_cast<char>(b));
  } while (n);
  return out + body;
}

std::string Frame(const std::string& body) { return U32BE(static_cast<std::uint32_t>(body.size())) + body; }

TEST(HBaseRpc, PreambleIsHBasVersion0Simple) {
  std::string out = "x";
  AppendPreamble(&out);
  EXPECT_EQ(out, std::string("xHBas\x00\x50", 7));
}

TEST(HBaseRpc, ConnectionHeaderNamesUserAndServiceAndNoCodec) {
  std::string out;
  AppendConnectionHeader(&out, "alice", "ClientService");
  ASSERT_GE(out.size(), 4u);
  EXPECT_EQ(out.substr(0, 4), U32BE(static_cast<std::uint32_t>(out.size() - 4)));
  pb::ConnectionHeader h;
  ASSERT_TRUE(h.ParseFromString(out.substr(4)));
  EXPECT_EQ(h.user_info().effective_user(), "alice");
  EXPECT_EQ(h.service_name(), "ClientService");
  EXPECT_FALSE(h.has_cell_block_codec_class());
}

TEST(HBaseRpc, ConnectionHeaderNamesTheCellBlockCodecWhenAsked) {
  std::string out;
  AppendConnectionHeader(&out, "alice", "ClientService", "org.apache.hadoop.hbase.codec.KeyValueCodec");
  ASSERT_GE(out.size(), 4u);
  pb::ConnectionHeader h;
  ASSERT_TRUE(h.ParseFromString(out.substr(4)));
  EXPECT_EQ(h.cell_block_codec_class(), "org.apache.hadoop.hbase.codec.KeyValueCodec");
  EXPECT_FALSE(h.has_cell_block_compressor_class());
}

TEST(HBaseRpc, RequestIsLengthThenDelimitedHeaderThenDelimitedParam) {
  pb::GetRequest get;
  get.mutable_region()->set_type(pb::RegionSpecifier::REGION_NAME);
  get.mutable_region()->set_value("usertable,,1.abc.");
  get.mutable_get()->set_row("user1");
  RequestEncoder enc;
  std::string out = "pre";
  ASSERT_TRUE(enc.Append(&out, 7, "Get", get));
  std::string_view f = std::string_view(out).substr(3);
  ASSERT_EQ(FrameLength(f), static_cast<std::int64_t>(f.size()));
  std::string_view hdr, param;
  std::size_t n = ReadDelimited(f.substr(4), &hdr);
  ASSERT_GT(n, 0u);
  ASSERT_GT(ReadDelimited(f.substr(4 + n), &param), 0u);
  pb::RequestHeader h;
  ASSERT_TRUE(h.ParseFromArray(hdr.data(), static_cast<int>(hdr.size())));
  EXPECT_EQ(h.call_id(), 7u);
  EXPECT_EQ(h.method_name(), "Get");
  EXPECT_TRUE(h.request_param());
  pb::GetRequest back;
  ASSERT_TRUE(back.ParseFromArray(param.data(), static_cast<int>(param.size())));
  EXPECT_EQ(back.get().row(), "user1");
  EXPECT_EQ(back.region().value(), "usertable,,1.abc.");
}

TEST(HBaseRpc, RequestMissingRequiredFieldIsRefusedAndLeavesBufferAlone) {
  pb::GetRequest get;  // region and get are required
  RequestEncoder enc;
  std::string out = "keep";
  EXPECT_FALSE(enc.Append(&out, 1, "Get", get));
  EXPECT_EQ(out, "keep");
}

TEST(HBaseRpc, ReusedEncoderAndBufferStopGrowing) {
  pb::GetRequest get;
  get.mutable_region()->set_type(pb::RegionSpecifier::REGION_NAME);
  get.mutable_region()->set_value("r");
  get.mutable_get()->set_row("user1");
  RequestEncoder enc;
  std::string out;
  out.reserve(256);
  const char* data = out.data();
  for (std::uint32_t i = 0; i < 100; ++i) {
    out.clear();
    ASSERT_TRUE(enc.Append(&out, i, i % 2 ? "Get" : "Mutate", get));
  }
  EXPECT_EQ(out.data(), data);
}

TEST(HBaseRpc, ParsesAResponseAndPeeksItsCallId) {
  pb::ResponseHeader h;
  h.set_call_id(42);
  pb::GetResponse r;
  auto* cell = r.mutable_result()->add_cell();
  cell->set_row("user1");
  cell->set_qualifier("field0");
  cell->set_value("v");
  const std::string frame = Frame(Delimited(h) + Delimited(r));
  ASSERT_EQ(FrameLength(frame), static_cast<std::int64_t>(frame.size()));
  std::uint32_t id = 0;
  ASSERT_TRUE(PeekCallId(frame, &id));
  EXPECT_EQ(id, 42u);
  Response resp;
  ASSERT_TRUE(ParseResponse(frame, &resp));
  EXPECT_FALSE(resp.is_exception());
  pb::GetResponse back;
  ASSERT_TRUE(back.ParseFromArray(resp.param.data(), static_cast<int>(resp.param.size())));
  EXPECT_EQ(back.result().cell(0).value(), "v");
}

TEST(HBaseRpc, ParsesAnException) {
  pb::ResponseHeader h;
  h.set_call_id(3);
  h.mutable_exception()->set_exception_class_name("org.apache.hadoop.hbase.NotServingRegionException");
  h.mutable_exception()->set_stack_trace("at ...");
  h.mutable_exception()->set_do_not_retry(false);
  const std::string frame = Frame(Delimited(h));
  Response resp;
  ASSERT_TRUE(ParseResponse(frame, &resp));
  ASSERT_TRUE(resp.is_exception());
  EXPECT_EQ(resp.exception_class(), "org.apache.hadoop.hbase.NotServingRegionException");
  EXPECT_TRUE(resp.param.empty());
}

TEST(HBaseRpc, FrameLengthWaitsForMoreAndRejectsNonsense) {
  EXPECT_EQ(FrameLength(""), 0);
  EXPECT_EQ(FrameLength(std::string("\0\0", 2)), 0);
  EXPECT_EQ(FrameLength(U32BE(10) + "abc"), 0);
  EXPECT_EQ(FrameLength(U32BE(0)), -1);
  EXPECT_EQ(FrameLength(U32BE(0xFFFFFFFFu)), -1);
  EXPECT_EQ(FrameLength(U32BE(3) + "abcdef"), 7);
}

TEST(HBaseRpc, TruncatedResponsesAreErrors) {
  pb::ResponseHeader h;
  h.set_call_id(9);
  pb::MutateResponse r;
  r.set_processed(true);
  const std::string body = Delimited(h) + Delimited(r);
  for (std::size_t cut = 0; cut < body.size(); ++cut) {
    const std::string frame = Frame(body.substr(0, cut));
    Response resp;
    const bool ok = ParseResponse(frame, &resp);
    // The header alone is a complete (empty) response; anything shorter or
    // cut inside the param is not.
    if (ok) {
      EXPECT_EQ(cut, Delimited(h).size()) << cut;
    }
  }
  Response resp;
  EXPECT_FALSE(ParseResponse("", &resp));
  EXPECT_FALSE(ParseResponse("abc", &resp));
  std::uint32_t id;
  EXPECT_FALSE(PeekCallId(U32BE(2) + "\x05x", &id));
}

TEST(HBaseRpc, GarbageNeverCrashes) {
  std::mt19937 rng(1);
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 64, '\0');
    for (char& c : s) c = static_cast<char>(rng());
    if (i % 2) s = U32BE(static_cast<std::uint32_t>(s.size())) + s;
    Response resp;
    std::uint32_t id;
    if (ParseResponse(s, &resp)) {
      EXPECT_LE(resp.param.size(), s.size());
    }
    (void)PeekCallId(s, &id);
    (void)FrameLength(s);
  }
}

}  // namespace
}  // namespace storebench::hbase
