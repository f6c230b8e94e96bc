#include "db/redis/resp.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::resp {
namespace {

TEST(Resp, ReplyLengths) {
  EXPECT_EQ(ParseReply("+OK\r\n"), 5u);
  EXPECT_EQ(ParseReply("$5\r\nhello\r\n+OK\r\n"), 11u);
  EXPECT_EQ(ParseReply("*2\r\n:1\r\n$-1\r\n"), 13u);
  EXPECT_EQ(ParseReply("*2\r\n:1\r\n"), 0u);  // an element still to come
  EXPECT_EQ(ParseReply("$5\r\nhel"), 0u);
  EXPECT_EQ(ParseReply("?x\r\n"), kBadReply);
  EXPECT_EQ(ParseReply("$3\r\nabcd\r\n"), kBadReply);
}

TEST(Resp, CursorWalksNestedArrays) {
  const std::string r = "*3\r\n*2\r\n$1\r\na\r\n:7\r\n$-1\r\n+OK\r\n";
  ASSERT_EQ(ParseReply(r), r.size());
  ReplyCursor c(r);
  Item top = c.Next();
  EXPECT_EQ(top.type, '*');
  EXPECT_EQ(top.n, 3);
  Item inner = c.Next();
  c.Skip(inner);
  EXPECT_TRUE(c.Next().nil());
  EXPECT_EQ(c.Next().str, "OK");
  EXPECT_TRUE(c.done());
}

TEST(Resp, CommandsEncodeAsBulkStringArrays) {
  std::string out;
  AppendCommand(out, "SET", std::string("k:1"), std::string_view("v"), "XX");
  EXPECT_EQ(out, "*4\r\n$3\r\nSET\r\n$3\r\nk:1\r\n$1\r\nv\r\n$2\r\nXX\r\n");
  out.clear();
  AppendCommand(out, "ZRANGEBYLEX", "t:_index", Joined{"[", "user1"}, "+", "LIMIT", "0", std::int64_t{-12});
  EXPECT_EQ(out,
            "*7\r\n$11\r\nZRANGEBYLEX\r\n$8\r\nt:_index\r\n$6\r\n[user1\r\n$1\r\n+\r\n$5\r\nLIMIT\r\n"
            "$1\r\n0\r\n$3\r\n-12\r\n");
  out.clear();
  AppendCommand(out, "PING");
  AppendArg(out, std::string_view());  // an empty argument is "$0"
  EXPECT_EQ(out, "*1\r\n$4\r\nPING\r\n$0\r\n\r\n");
  // What is encoded parses back as one reply of the same elements.
  out.clear();
  AppendCommand(out, "a", std::string_view("b\r\nc", 4));
  ASSERT_EQ(ParseReply(out), out.size());
  ReplyCursor c(out);
  EXPECT_EQ(c.Next().n, 2);
  EXPECT_EQ(c.Next().str, "a");
  EXPECT_EQ(c.Next().str, std::string_view("b\r\nc", 4));
  EXPECT_TRUE(c.done());
}

TEST(Resp, ErrorMessageOfErrorRepliesOnly) {
  EXPECT_EQ(ErrorMessage("-MOVED 1 h:2\r\n"), "MOVED 1 h:2");
  EXPECT_EQ(ErrorMessage("-\r\n"), "");
  EXPECT_EQ(ErrorMessage("+OK\r\n"), "");
  EXPECT_EQ(ErrorMessage("$2\r\n-x\r\n"), "");
}

}  // namespace
}  // namespace storebench::resp
