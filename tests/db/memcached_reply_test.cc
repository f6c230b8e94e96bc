#include "db/memcached_reply.h"

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
// (found by tests/fuzz/memcached_fuzz.cc; its input is in the corpus).
TEST(MemcachedReply, HugeSizeIsNeverComplete) {
  Reply r;
  const std::string in = "VA 18446744073709551614\r\n" + std::string(40, 'x') + "\r\n";
  EXPECT_EQ(ParseReply(in, &r), 0);
  const std::string max = "VA 18446744073709551615\r\n" + std::string(40, 'x') + "\r\n";
  EXPECT_EQ(ParseReply(max, &r), 0);
}

}  // namespace
}  // namespace storebench::memcache
