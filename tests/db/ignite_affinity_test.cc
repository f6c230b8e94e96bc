// Expected partitions come from Apache Ignite 2.17.0's
// RendezvousAffinityFunction.calculatePartition(key, calculateMask(parts),
// parts), run in jshell on String keys, not from this codec.
#include "db/ignite/affinity.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>

namespace storebench::ignite {
namespace {

TEST(IgniteAffinity, MaskOnlyForPowersOfTwo) {
  EXPECT_EQ(PartitionMask(1024), 1023);
  EXPECT_EQ(PartitionMask(1000), -1);
}

TEST(IgniteAffinity, StringKeysAsRendezvous) {
  EXPECT_EQ(PartitionOfKey("user6284781860667377211", 1024), 184);
  EXPECT_EQ(PartitionOfKey("user1", 1024), 864);
  EXPECT_EQ(PartitionOfKey("usertable", 1024), 952);
  EXPECT_EQ(PartitionOfKey("Aa", 1024), 64);
  EXPECT_EQ(PartitionOfKey("user6284781860667377211", 1000), 599);
  EXPECT_EQ(PartitionOfKey("user1", 1000), 566);
  EXPECT_EQ(PartitionOfKey("usertable", 1000), 515);
  EXPECT_EQ(PartitionOfKey("Aa", 1000), 112);
  EXPECT_EQ(PartitionOfHash(INT_MIN, 1000), 648);
}

TEST(IgniteAffinity, PrimaryNodeFromMap) {
  PartitionMap m;
  m.applicable = true;
  m.nodes = {{1, 1}, {2, 2}};
  m.partition_node.assign(1024, 0);
  m.partition_node[864] = 1;
  EXPECT_EQ(PrimaryNode(m, "user1"), 1);
  EXPECT_EQ(PrimaryNode(m, "usertable"), 0);
  m.has_custom_key_config = true;
  EXPECT_EQ(PrimaryNode(m, "user1"), -1);
  m.has_custom_key_config = false;
  m.applicable = false;
  EXPECT_EQ(PrimaryNode(m, "user1"), -1);
}

}  // namespace
}  // namespace storebench::ignite
