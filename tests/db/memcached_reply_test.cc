#include "db/memcached/reply.h"

#include <gtest/gtest.h>

#include <string>

namespace storebench::memcache {
namespace {

TEST(MemcachedReply, ValueWithCas) {
  const std::string in = "VA 5 c1234\r\nhello\r\nHD\r\n";
  Reply r;
  ASSERT_EQ(ParseReply(in, &r), 19);
  EXPECT_TRUE(r.Is("VA"));
  EXPECT_EQ(r.value, "hello");
  EXPECT_TRUE(r.has_cas);
  EXPECT_EQ(r.cas, 1234u);
}

TEST(MemcachedReply, IncompleteAndMalformed) {
  Reply r;
  EXPECT_EQ(ParseReply("VA 5\r\nhel", &r), 0);
  EXPECT_EQ(ParseReply("HD", &r), 0);
  EXPECT_EQ(ParseReply("VA x\r\n", &r), -1);
  EXPECT_EQ(ParseReply("VA 2\r\nabcd\r\n", &r), -1);
}

// A size near 2^64 once wrapped the end-of-value arithmetic around, and the
// reply then "ended" inside its own header with a value past the input
// (found by tests/fuzz/memcached_fuzz.cc; its input is in the corpus). Any
// size beyond memcached's largest item is malformed (the hostile-server
// test's huge_length case); up to it, an incomplete value waits.
TEST(MemcachedReply, HugeSizeIsMalformedNeverComplete) {
  Reply r;
  const std::string in = "VA 18446744073709551614\r\n" + std::string(40, 'x') + "\r\n";
  EXPECT_EQ(ParseReply(in, &r), -1);
  const std::string max = "VA 18446744073709551615\r\n" + std::string(40, 'x') + "\r\n";
  EXPECT_EQ(ParseReply(max, &r), -1);
  EXPECT_EQ(ParseReply("VA 1073741825\r\nxx\r\n", &r), -1);
  EXPECT_EQ(ParseReply("VA 1073741824\r\nxx\r\n", &r), 0);
  Reply value;
  value.code = "VALUE";
  EXPECT_TRUE(value.Desyncs());
}

}  // namespace
}  // namespace storebench::memcache
