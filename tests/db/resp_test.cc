#include "db/resp.h"

#include <gtest/gtest.h>

#include <string>

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

TEST(Resp, Redirect) {
  int slot = 0;
  net::Endpoint ep;
  ASSERT_TRUE(ParseRedirect("MOVED 3999 10.0.0.2:6381", "h", &slot, &ep));
  EXPECT_EQ(slot, 3999);
  EXPECT_EQ(ep.host, "10.0.0.2");
  EXPECT_EQ(ep.port, 6381);
  ASSERT_TRUE(ParseRedirect("ASK 1 :7000", "h", &slot, &ep));
  EXPECT_EQ(ep.host, "h");
  EXPECT_FALSE(ParseRedirect("MOVED 16384 a:1", "h", &slot, &ep));
  EXPECT_FALSE(ParseRedirect("MOVED 1 a:0", "h", &slot, &ep));
}

TEST(Resp, ClusterSlots) {
  const std::string r =
      "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$2\r\nid\r\n";
  ASSERT_EQ(ParseReply(r), r.size());
  SlotMap map;
  ASSERT_TRUE(map.Apply(r, "asked"));
  ASSERT_EQ(map.nodes.size(), 1u);
  EXPECT_EQ(map.nodes[0].port, 7000);
  EXPECT_EQ(map.slot_node[0], 0);
  EXPECT_EQ(map.slot_node[kSlots - 1], 0);
  EXPECT_FALSE(map.Apply("+OK\r\n", "asked"));
  EXPECT_EQ(KeySlot("123456789"), 0x31C3 & (kSlots - 1));
  EXPECT_EQ(KeySlot("{user1}.a"), KeySlot("user1"));
}

}  // namespace
}  // namespace storebench::resp
