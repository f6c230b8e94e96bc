// Cluster routing (db/redis/routing.h) on values and replies recorded from a
// Redis 7.0 cluster (CLUSTER KEYSLOT, CLUSTER SLOTS, a MOVED reply).
#include "db/redis/routing.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "db/redis/resp.h"

namespace storebench::redis {
namespace {

TEST(RedisRouting, KeySlotsMatchTheServers) {
  // `redis-cli cluster keyslot K`
  EXPECT_EQ(Crc16("123456789"), 0x31C3);  // CRC16/XMODEM's check value
  EXPECT_EQ(KeySlot("123456789"), 12739);
  EXPECT_EQ(KeySlot("foo"), 12182);
  EXPECT_EQ(KeySlot("bar"), 5061);
  EXPECT_EQ(KeySlot("hello"), 866);
  EXPECT_EQ(KeySlot("usertable:user6284781860667377211"), 1512);
  // Hash tags: the first {...} when it is not empty.
  EXPECT_EQ(KeySlot("{user1000}.following"), 3443);
  EXPECT_EQ(KeySlot("{user1000}.following"), KeySlot("{user1000}.followers"));
  EXPECT_EQ(KeySlot("foo{bar}{zap}"), 5061);  // "bar"
  EXPECT_EQ(KeySlot("foo{}{bar}"), 8363);     // an empty tag: the whole key
  EXPECT_EQ(KeySlot("foo{{bar}}zap"), 4015);  // "{bar"
}

// CLUSTER SLOTS of a three-master cluster (Redis 7.0: host, port, node id,
// metadata map per node).
constexpr std::string_view kClusterSlots =
    "*3\r\n"
    "*3\r\n:0\r\n:5460\r\n*4\r\n$9\r\n127.0.0.1\r\n:13778\r\n"
    "$40\r\nbdae76cefe8e81b7eff4bc949d5e95c68466f9da\r\n*0\r\n"
    "*3\r\n:5461\r\n:10922\r\n*4\r\n$9\r\n127.0.0.1\r\n:14162\r\n"
    "$40\r\n8eac10f6139c07df459d9639ff904e7b7625a6f0\r\n*0\r\n"
    "*3\r\n:10923\r\n:16383\r\n*4\r\n$9\r\n127.0.0.1\r\n:16480\r\n"
    "$40\r\nf42d0b3696cd546bdc80b3b18ee17c72bd9b9876\r\n*0\r\n";

TEST(RedisRouting, SlotMapFromARecordedClusterSlotsReply) {
  ASSERT_EQ(resp::ParseReply(kClusterSlots), kClusterSlots.size());
  SlotMap map;
  ASSERT_TRUE(map.Apply(kClusterSlots, "asked"));
  ASSERT_EQ(map.nodes.size(), 3u);
  EXPECT_EQ(map.nodes[0].host, "127.0.0.1");
  EXPECT_EQ(map.nodes[0].port, 13778);
  EXPECT_EQ(map.nodes[2].port, 16480);
  EXPECT_EQ(map.slot_node[0], 0);
  EXPECT_EQ(map.slot_node[5460], 0);
  EXPECT_EQ(map.slot_node[5461], 1);
  EXPECT_EQ(map.slot_node[kSlots - 1], 2);
  EXPECT_EQ(map.NodeFor("foo"), 2);  // slot 12182
  EXPECT_EQ(map.NodeFor("bar"), 0);  // slot 5061
  // Applied again (a refresh), the nodes keep their numbers.
  ASSERT_TRUE(map.Apply(kClusterSlots, "asked"));
  EXPECT_EQ(map.nodes.size(), 3u);
  EXPECT_FALSE(map.Apply("+OK\r\n", "asked"));
}

TEST(RedisRouting, ClusterSlotsWithoutAHostMeansTheAskedOne) {
  const std::string r = "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$0\r\n\r\n:7000\r\n$2\r\nid\r\n";
  SlotMap map;
  ASSERT_TRUE(map.Apply(r, "asked"));
  ASSERT_EQ(map.nodes.size(), 1u);
  EXPECT_EQ(map.nodes[0].host, "asked");
  EXPECT_EQ(map.nodes[0].port, 7000);
  EXPECT_EQ(map.slot_node[kSlots - 1], 0);
}

TEST(RedisRouting, UnservedSlotsHaveNoNode) {
  SlotMap map;
  ASSERT_TRUE(map.Apply("*1\r\n*3\r\n:0\r\n:99\r\n*2\r\n$1\r\nh\r\n:1\r\n", "asked"));
  EXPECT_EQ(map.slot_node[99], 0);
  EXPECT_EQ(map.slot_node[100], kNoNode);
  map.Single({"s", 6379});
  EXPECT_EQ(map.slot_node[100], 0);
  EXPECT_EQ(map.nodes.size(), 1u);
}

TEST(RedisRouting, MovedAndAskFromRecordedReplies) {
  // `GET foo` sent to the node of slots 0-5460.
  const std::string_view moved = resp::ErrorMessage("-MOVED 12182 127.0.0.1:16480\r\n");
  Redirection r = ParseRedirection(moved, "asked");
  EXPECT_EQ(r.kind, Redirection::kMoved);
  EXPECT_EQ(r.slot, 12182);
  EXPECT_EQ(r.to.host, "127.0.0.1");
  EXPECT_EQ(r.to.port, 16480);
  EXPECT_TRUE(IsRedirection(moved));

  r = ParseRedirection(resp::ErrorMessage("-ASK 3999 :6381\r\n"), "asked");
  EXPECT_EQ(r.kind, Redirection::kAsk);
  EXPECT_EQ(r.slot, 3999);
  EXPECT_EQ(r.to.host, "asked");  // an empty host: the node that answered
  EXPECT_EQ(r.to.port, 6381);

  // Malformed or other errors are no redirection.
  EXPECT_EQ(ParseRedirection("MOVED 16384 a:1", "h").kind, Redirection::kNone);
  EXPECT_EQ(ParseRedirection("MOVED 1 a:0", "h").kind, Redirection::kNone);
  EXPECT_EQ(ParseRedirection("MOVED 1", "h").kind, Redirection::kNone);
  EXPECT_EQ(ParseRedirection("NOSCRIPT No matching script", "h").kind, Redirection::kNone);
  EXPECT_EQ(ParseRedirection("MOVEDX 1 a:1", "h").kind, Redirection::kNone);
  EXPECT_FALSE(IsRedirection("NOSCRIPT x"));
}

TEST(RedisRouting, MovedUpdatesOneSlotAndAddsTheNode) {
  SlotMap map;
  ASSERT_TRUE(map.Apply(kClusterSlots, "asked"));
  const std::uint16_t node = map.Move(12182, {"10.0.0.9", 7001});
  EXPECT_EQ(node, 3);
  EXPECT_EQ(map.slot_node[12182], 3);
  EXPECT_EQ(map.slot_node[12181], 2);
  EXPECT_EQ(map.Move(5061, {"127.0.0.1", 14162}), 1);  // a known node keeps its number
  EXPECT_EQ(map.nodes.size(), 4u);
}

}  // namespace
}  // namespace storebench::redis
