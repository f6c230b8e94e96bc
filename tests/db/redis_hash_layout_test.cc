// The hash layout (db/redis/hash_layout.h) on replies recorded from Redis 7.0:
// the commands it sends, and records rebuilt in written order.
#include "db/redis/hash_layout.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace storebench::redis {
namespace {

// HGETALL of a record written as field0, field1, field2 (Redis returns the
// order field first here; any order must do).
constexpr std::string_view kHgetall =
    "*8\r\n$17\r\n\xff" "storebench:order\r\n$24\r\n6:field06:field16:field2\r\n$6\r\nfield0\r\n$4\r\n)m7>\r\n"
    "$6\r\nfield1\r\n$4\r\n?G[~\r\n$6\r\nfield2\r\n$4\r\nm&pt\r\n";
// HMGET of the same record: order field, field2, field0, nope.
constexpr std::string_view kHmget = "*4\r\n$24\r\n6:field06:field16:field2\r\n$4\r\nm&pt\r\n$4\r\n)m7>\r\n$-1\r\n";

std::vector<std::string> Fields(const RecordSet& rs, std::size_t r) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < rs.field_count(r); ++i) {
    const Field f = rs.field(r, i);
    out.push_back(std::string(f.name) + "=" + std::string(f.value));
  }
  return out;
}

TEST(RedisHashLayout, KeysAndOrderField) {
  std::string s;
  RecordKey("usertable", "user1", &s);
  EXPECT_EQ(s, "usertable:user1");
  IndexKey("usertable", &s);
  EXPECT_EQ(s, "usertable:_index");
  const Field f[] = {{"field0", "a"}, {"", "b"}, {"f:x", "c"}};
  EncodeOrder(f, &s);
  EXPECT_EQ(s, "6:field00:3:f:x");
}

TEST(RedisHashLayout, ReadCommands) {
  std::string out;
  AppendHashRead(out, "t:k", FieldSelector{});
  EXPECT_EQ(out, "*2\r\n$7\r\nHGETALL\r\n$3\r\nt:k\r\n");
  out.clear();
  const std::string_view names[] = {"f1"};
  AppendHashRead(out, "t:k", FieldSelector{false, names});
  EXPECT_EQ(out, "*4\r\n$5\r\nHMGET\r\n$3\r\nt:k\r\n$17\r\n\xff" "storebench:order\r\n$2\r\nf1\r\n");
}

TEST(RedisHashLayout, HgetallReplyInWrittenOrder) {
  HashReader reader;
  RecordSet rs;
  ASSERT_EQ(reader.Emit(kHgetall, "user1", FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(rs.key(0), "user1");
  EXPECT_EQ(Fields(rs, 0), (std::vector<std::string>{"field0=)m7>", "field1=?G[~", "field2=m&pt"}));
  // A hash whose order field lists the fields differently: that order wins.
  const std::string reordered =
      "*6\r\n$6\r\nfield0\r\n$1\r\na\r\n$17\r\n\xff" "storebench:order\r\n$16\r\n6:field16:field0\r\n"
      "$6\r\nfield1\r\n$1\r\nb\r\n";
  rs.Clear();
  ASSERT_EQ(reader.Emit(reordered, "k", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(Fields(rs, 0), (std::vector<std::string>{"field1=b", "field0=a"}));
}

TEST(RedisHashLayout, HmgetReplyKeepsWrittenOrderAndSkipsMissingFields) {
  const std::string_view names[] = {"field2", "field0", "nope"};
  HashReader reader;
  RecordSet rs;
  ASSERT_EQ(reader.Emit(kHmget, "user1", FieldSelector{false, names}, &rs), Status::Ok());
  EXPECT_EQ(Fields(rs, 0), (std::vector<std::string>{"field0=)m7>", "field2=m&pt"}));
}

TEST(RedisHashLayout, MissingRecordsAndBadReplies) {
  HashReader reader;
  RecordSet rs;
  EXPECT_EQ(reader.Emit("*0\r\n", "k", FieldSelector{}, &rs), Status::NotFound());
  const std::string_view names[] = {"a"};
  EXPECT_EQ(reader.Emit("*2\r\n$-1\r\n$-1\r\n", "k", FieldSelector{false, names}, &rs), Status::NotFound());
  EXPECT_EQ(reader.Emit("-WRONGTYPE x\r\n", "k", FieldSelector{}, &rs), Status::Error());
  EXPECT_EQ(rs.record_count(), 0u);
  // An order field alone: a record with no fields.
  const std::string empty = "*2\r\n$17\r\n\xff" "storebench:order\r\n$0\r\n\r\n";
  ASSERT_EQ(reader.Emit(empty, "k", FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(rs.field_count(0), 0u);
}

}  // namespace
}  // namespace storebench::redis
