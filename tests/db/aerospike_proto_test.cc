// Aerospike's wire protocol (db/aerospike/proto.h) and reply framing
// (db/aerospike/client.h TakeReply). The digests are vectors recorded from
// a real Aerospike 8.1.0.3 server: records written by Aerospike's own
// client (the Python client 19.3, C client inside) with their keys sent,
// then read back by a scan of the set, whose answer carries each record's
// key and digest as the server stores them.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "db/aerospike/client.h"
#include "db/aerospike/proto.h"

namespace storebench::aerospike {
namespace {

std::string Hex(const Digest& d) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : d) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

std::string Bytes(std::initializer_list<int> v) {
  std::string s;
  for (int b : v) s.push_back(static_cast<char>(b));
  return s;
}

TEST(AerospikeProto, DigestsAndPartitionsAsTheServerKeepsThem) {
  struct Vector {
    std::string_view key;
    const char* digest;
    int partition;
  };
  // Set "vectors", string keys; partition = digest's first two bytes little-endian mod 4096.
  const Vector vectors[] = {
      {"user1", "4e092591315d1c17f3ed33c031922aa840e3a7cc", 2382},
      {"user6284781860667377211", "c38a6c0454025efed853fa6040bacee63a773922", 2755},
      {"user9999999999999999999", "51230a424d1daed1c5ca025490b0a3804ed19143", 849},
      {"", "12f18c6d1789a850c6657c9f9c062d6a5f9c0043", 274},
      {"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87", "84a10113c43c860e4abf7ac4095b3df370ce61c0",
       388},  // "ключ" in UTF-8
  };
  for (const Vector& v : vectors) {
    const Digest d = StringKeyDigest("vectors", v.key);
    EXPECT_EQ(Hex(d), v.digest) << v.key;
    EXPECT_EQ(PartitionId(d), v.partition) << v.key;
  }
  // The integer key 42: key type 1, its 8 bytes big-endian.
  const Digest i = ComputeDigest("vectors", kParticleInteger, Bytes({0, 0, 0, 0, 0, 0, 0, 42}));
  EXPECT_EQ(Hex(i), "fa544aad2e1b82f8ae65050cddcc2d7d3dcf7a69");
  EXPECT_EQ(PartitionId(i), 1274);
  // YCSB's set: aerospike.calc_digest("test", "usertable", "user1") of the Python client.
  EXPECT_EQ(Hex(StringKeyDigest("usertable", "user1")), "5a4c32e0278aaf0153b9838e7da33868219f2eb7");
  // The set and the key type are hashed too.
  EXPECT_NE(StringKeyDigest("vectors", "user1"), StringKeyDigest("vector", "suser1"));
  EXPECT_NE(StringKeyDigest("vectors", "x"), ComputeDigest("vectors", kParticleBlob, "x"));
}

TEST(AerospikeProto, FramesAreFoundByTheirHeader) {
  std::string f;
  AppendProtoHeader(f, kTypeMessage, 3);
  EXPECT_EQ(f, Bytes({2, 3, 0, 0, 0, 0, 0, 3}));
  f += "abc";
  std::uint8_t type = 0;
  EXPECT_EQ(FrameLength(f, &type), 11u);
  EXPECT_EQ(type, kTypeMessage);
  for (std::size_t cut = 0; cut < f.size(); ++cut) EXPECT_EQ(FrameLength(f.substr(0, cut), &type), 0u) << cut;
  EXPECT_EQ(FrameLength(f + "next", &type), 11u);
  EXPECT_EQ(FrameLength(Bytes({3}), &type), kMalformed);                       // version
  EXPECT_EQ(FrameLength(Bytes({2, 2, 0, 0, 0, 0, 0, 0}), &type), kMalformed);  // type
  EXPECT_EQ(FrameLength(Bytes({2, 3, 0, 0, 8, 0, 0, 1}), &type), kMalformed);  // 128 MiB + 1
  std::string big;
  AppendProtoHeader(big, kTypeInfo, kMaxBody);
  EXPECT_EQ(FrameLength(big, &type), 0u);  // the largest allowed: wait for it
}

TEST(AerospikeProto, InfoRequestsAndAnswers) {
  std::string req;
  const std::string_view names[] = {"node", "partition-generation"};
  AppendInfoRequest(req, names);
  EXPECT_EQ(req, Bytes({2, 1, 0, 0, 0, 0, 0, 26}) + "node\npartition-generation\n");
  // Recorded from a node of a 2-node cluster.
  const std::string_view answer =
      "node\tA1\npartition-generation\t0\npeers-generation\t2\npeers-clear-std\t2,3000,[[A2,,[192.0.2.2:"
      "17726]]]\n"
      "cluster-size\tERROR:4:unrecognized command\n";
  EXPECT_EQ(InfoValue(answer, "node"), "A1");
  EXPECT_EQ(InfoValue(answer, "partition-generation"), "0");
  EXPECT_EQ(InfoValue(answer, "peers-clear-std"), "2,3000,[[A2,,[192.0.2.2:17726]]]");
  EXPECT_EQ(InfoValue(answer, "cluster-size"), "ERROR:4:unrecognized command");
  EXPECT_FALSE(InfoValue(answer, "peers").has_value());
  EXPECT_FALSE(InfoValue(answer, "nod").has_value());
  EXPECT_EQ(InfoValue("bare\n", "bare"), "");
}

TEST(AerospikeProto, AReadRequestByteForByte) {
  std::string out = "x";  // appended after what is there
  MessageWriter w(out);
  MsgHeader h;
  h.info1 = kInfo1Read;
  h.transaction_ttl = 1000;
  w.Begin(h);
  w.Field(kFieldNamespace, "test");
  Digest d{};
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<std::uint8_t>(i);
  w.DigestField(d);
  w.Op(kOpRead, 0, "f1", {});
  w.Finish();
  std::string want = "x" + Bytes({2, 3, 0, 0, 0, 0, 0, 22 + 9 + 25 + 10});
  want += Bytes({22, kInfo1Read, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 2, 0, 1});
  want += Bytes({0, 0, 0, 5, kFieldNamespace}) + "test";
  want += Bytes({0, 0, 0, 21, kFieldDigest});
  for (int i = 0; i < 20; ++i) want.push_back(static_cast<char>(i));
  want += Bytes({0, 0, 0, 6, kOpRead, 0, 0, 2}) + "f1";
  EXPECT_EQ(out, want);
}

// A reply as a server sends one: header, no fields, the given bins (string particles).
std::string ReplyBody(std::uint8_t rc, std::vector<std::pair<std::string, std::string>> bins,
                      std::uint8_t info3 = 0, std::uint32_t index = 0) {
  std::string out;
  MessageWriter w(out);
  MsgHeader h;
  h.result_code = rc;
  h.info3 = info3;
  h.generation = 7;
  h.transaction_ttl = index;
  w.Begin(h);
  for (auto& [n, v] : bins) w.Op(kOpRead, kParticleString, n, v);
  w.Finish();
  return out.substr(kProtoHeaderSize);
}

TEST(AerospikeProto, RepliesAreParsedWithTheirBins) {
  const std::string body = ReplyBody(0, {{"field0", "v0"}, {"field1", std::string(300, 'z')}, {"", ""}});
  Reply r;
  ASSERT_EQ(ParseMessage(body, &r), body.size());
  EXPECT_EQ(r.header.result_code, 0);
  EXPECT_EQ(r.header.generation, 7u);
  EXPECT_EQ(r.header.n_ops, 3);
  std::string_view ops = r.ops;
  BinOp op;
  ASSERT_TRUE(NextOp(&ops, &op));
  EXPECT_EQ(op.name, "field0");
  EXPECT_EQ(op.value, "v0");
  EXPECT_EQ(op.particle, kParticleString);
  ASSERT_TRUE(NextOp(&ops, &op));
  EXPECT_EQ(op.value, std::string(300, 'z'));
  ASSERT_TRUE(NextOp(&ops, &op));
  EXPECT_EQ(op.name, "");
  EXPECT_FALSE(NextOp(&ops, &op));
  // Every truncation is malformed, never a read past the end.
  for (std::size_t cut = 0; cut < body.size(); ++cut) {
    const std::string part = body.substr(0, cut);
    EXPECT_EQ(ParseMessage(part, &r), kMalformed) << cut;
  }
  // A name longer than its op.
  std::string bad = ReplyBody(0, {{"ab", ""}});
  bad[kMsgHeaderSize + 7] = 5;
  EXPECT_EQ(ParseMessage(bad, &r), kMalformed);
  // A header size under 22.
  bad = ReplyBody(0, {});
  bad[0] = 21;
  EXPECT_EQ(ParseMessage(bad, &r), kMalformed);
}

TEST(AerospikeProto, ABatchFieldNamesItsRowsOnceAndRepeats) {
  std::string out, scratch;
  MessageWriter w(out);
  w.Begin({});
  Digest a{}, b{};
  a.fill(0xaa);
  b.fill(0xbb);
  const std::uint32_t rows[] = {4, 9};
  const Digest digests[] = {a, b};
  const std::string_view bins[] = {"f"};
  AppendBatchField(w, scratch, "test", "s", rows, digests, bins);
  w.Finish();
  std::string want = Bytes({0, 0, 0, 2, 1});  // count, parent flags
  want += Bytes({0, 0, 0, 4}) + std::string(20, '\xaa') + Bytes({0, kInfo1Read, 0, 2, 0, 1});
  want += Bytes({0, 0, 0, 5, kFieldNamespace}) + "test" + Bytes({0, 0, 0, 2, kFieldSet}) + "s";
  want += Bytes({0, 0, 0, 5, kOpRead, 0, 0, 1}) + "f";
  want += Bytes({0, 0, 0, 9}) + std::string(20, '\xbb') + Bytes({1});
  Reply r;
  ASSERT_EQ(ParseMessage(std::string_view(out).substr(kProtoHeaderSize), &r), out.size() - kProtoHeaderSize);
  ASSERT_EQ(r.header.n_fields, 1);
  EXPECT_EQ(r.fields, Bytes({0, 0, 0, static_cast<int>(want.size() + 1), kFieldBatch}) + want);
}

TEST(AerospikeProto, ResultCodesMapToStatuses) {
  EXPECT_EQ(StatusOf(0), Status::Ok());
  EXPECT_EQ(StatusOf(2), Status::NotFound());
  EXPECT_EQ(StatusOf(3).code(), Status::kUnexpectedState);      // generation
  EXPECT_EQ(StatusOf(5).code(), Status::kUnexpectedState);      // record exists (create_only)
  EXPECT_EQ(StatusOf(13).code(), Status::kBadRequest);          // record too big
  EXPECT_EQ(StatusOf(21).code(), Status::kBadRequest);          // bin name
  EXPECT_EQ(StatusOf(11).code(), Status::kServiceUnavailable);  // partition unavailable
  EXPECT_EQ(StatusOf(8).code(), Status::kServiceUnavailable);   // out of space (stop-writes)
  EXPECT_EQ(StatusOf(14).code(), Status::kServiceUnavailable);  // key busy
  EXPECT_EQ(StatusOf(80).code(), Status::kForbidden);
  EXPECT_EQ(StatusOf(9), Status::Error());  // timeout
  EXPECT_EQ(StatusOf(1), Status::Error());
  EXPECT_EQ(StatusOf(255), Status::Error());
  EXPECT_EQ(ResultName(2), "NOT_FOUND");
  EXPECT_EQ(ResultName(13), "RECORD_TOO_BIG");
  EXPECT_EQ(ResultName(9), "TIMEOUT");
  EXPECT_EQ(ResultName(254), "CODE_254");
}

std::string Frame(const std::string& body, std::uint8_t type = kTypeMessage) {
  std::string f;
  AppendProtoHeader(f, type, body.size());
  return f + body;
}

TEST(AerospikeProto, RepliesAreTakenWholeFromTheStream) {
  std::string bodies;
  const std::string one = Frame(ReplyBody(0, {{"a", "1"}}));
  const std::string stream = one + Frame(ReplyBody(2, {}));
  EXPECT_EQ(TakeReply(stream, false, &bodies), one.size());
  EXPECT_EQ(bodies, one.substr(kProtoHeaderSize));
  for (std::size_t cut = 0; cut < one.size(); ++cut)
    EXPECT_EQ(TakeReply(one.substr(0, cut), false, &bodies), 0u);
  // A batch: rows in two frames, the second ending with the LAST message.
  const std::string b1 = Frame(ReplyBody(0, {{"a", "1"}}, 0, 0) + ReplyBody(2, {}, 0, 1));
  const std::string b2 = Frame(ReplyBody(0, {{"b", "2"}}, 0, 2) + ReplyBody(0, {}, kInfo3Last));
  EXPECT_EQ(TakeReply(b1, true, &bodies), 0u);  // not over yet
  EXPECT_EQ(TakeReply(b1 + b2 + one, true, &bodies), b1.size() + b2.size());
  EXPECT_EQ(bodies, b1.substr(kProtoHeaderSize) + b2.substr(kProtoHeaderSize));
  // Out of step: an info frame, garbage, a message after LAST in its frame.
  EXPECT_EQ(TakeReply(Frame("node\tA1\n", kTypeInfo), false, &bodies), net::Pipeline::kBroken);
  EXPECT_EQ(TakeReply("\x07garbage", false, &bodies), net::Pipeline::kBroken);
  EXPECT_EQ(TakeReply(Frame(ReplyBody(0, {}, kInfo3Last) + ReplyBody(0, {})), true, &bodies),
            net::Pipeline::kBroken);
  EXPECT_EQ(TakeReply(Frame("short"), true, &bodies), net::Pipeline::kBroken);
}

}  // namespace
}  // namespace storebench::aerospike
