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

// A classic get's reply: memcached's VALUE line (gets: with the cas), ROMA's
// (a field more after the cas), a miss, error lines.
TEST(MemcachedReply, ClassicGetReplies) {
  Reply r;
  const std::string hit = "VALUE usertable-user1 0 5\r\nhe\r\no\r\nEND\r\nSTORED\r\n";
  ASSERT_EQ(ParseGetReply(hit, &r), static_cast<std::ptrdiff_t>(hit.size() - 8));
  EXPECT_TRUE(r.Is("VALUE"));
  EXPECT_EQ(r.value, "he\r\no");
  EXPECT_FALSE(r.has_cas);
  ASSERT_EQ(ParseGetReply("VALUE k 7 3 99\r\nabc\r\nEND\r\n", &r), 26);
  EXPECT_TRUE(r.has_cas);
  EXPECT_EQ(r.cas, 99u);
  ASSERT_EQ(ParseGetReply("VALUE b 0 1 0 1\r\nx\r\nEND\r\n", &r), 25);  // ROMA: an extra field
  EXPECT_EQ(r.value, "x");
  EXPECT_EQ(r.cas, 0u);
  ASSERT_EQ(ParseGetReply("END\r\n", &r), 5);
  EXPECT_TRUE(r.Is("END"));
  ASSERT_EQ(ParseGetReply("SERVER_ERROR out of memory\r\n", &r), 28);
  EXPECT_TRUE(r.Is("SERVER_ERROR"));
  // Incomplete: every cut of a whole reply waits for more.
  for (std::size_t cut = 0; cut + 8 < hit.size(); ++cut) EXPECT_EQ(ParseGetReply(hit.substr(0, cut), &r), 0) << cut;
  // Malformed: no END after the data, a bad size, too few fields, a huge size.
  EXPECT_EQ(ParseGetReply("VALUE k 0 3\r\nabcXXEND\r\n", &r), -1);
  EXPECT_EQ(ParseGetReply("VALUE k 0 x\r\n", &r), -1);
  EXPECT_EQ(ParseGetReply("VALUE k 0\r\n", &r), -1);
  EXPECT_EQ(ParseGetReply("VALUE k 0 18446744073709551615\r\nab\r\nEND\r\n", &r), -1);
}

}  // namespace
}  // namespace storebench::memcache
