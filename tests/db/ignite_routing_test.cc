// Partition awareness tables (routing.h): which configured host is each
// partition's primary, "any host" where the primary is no host storebench
// knows, no routing where the cache cannot be routed, and the RouteBook's
// generation moving on every publish.
#include "db/ignite/routing.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace storebench::ignite {
namespace {

PartitionMap Map(std::vector<Uuid> nodes, std::vector<std::int32_t> partition_node) {
  PartitionMap m;
  m.cache_id = 7;
  m.applicable = true;
  m.topology_version = 3;
  m.topology_minor = 1;
  m.nodes = std::move(nodes);
  m.partition_node = std::move(partition_node);
  return m;
}

TEST(IgniteRouting, PartitionsGoToTheHostWhoseNodeIsPrimary) {
  const Uuid a{1, 2}, b{3, 4}, stranger{5, 6};
  // Partitions 0..3: a, b, stranger, unknown.
  const PartitionMap m = Map({a, b, stranger}, {0, 1, 2, -1});
  const Uuid hosts[] = {b, a};  // host 0 is node b, host 1 is node a
  const Routes r = BuildRoutes(m, hosts);
  EXPECT_EQ(r.topology_version, 3);
  EXPECT_EQ(r.topology_minor, 1);
  EXPECT_EQ(r.partition_host, (std::vector<std::int16_t>{1, 0, -1, -1}));
  // HostOf hashes the key as Ignite does (4 partitions: masked hash).
  for (const char* key : {"user1", "user2", "user3", "usertable", "Aa"}) {
    EXPECT_EQ(r.HostOf(key), r.partition_host[static_cast<std::size_t>(PartitionOfKey(key, 4))]) << key;
  }
}

TEST(IgniteRouting, UnknownHostIdsMatchNothing) {
  const Uuid a{1, 2};
  const PartitionMap m = Map({Uuid{}, a}, {0, 1});
  const Uuid hosts[] = {Uuid{}, Uuid{}};  // no handshake has told a node id yet
  const Routes r = BuildRoutes(m, hosts);
  EXPECT_EQ(r.partition_host, (std::vector<std::int16_t>{-1, -1}));
}

TEST(IgniteRouting, CachesThatCannotBeRoutedGoAnywhere) {
  const Uuid a{1, 2};
  const Uuid hosts[] = {a};
  PartitionMap custom = Map({a}, {0, 0});
  custom.has_custom_key_config = true;
  EXPECT_TRUE(BuildRoutes(custom, hosts).partition_host.empty());
  EXPECT_EQ(BuildRoutes(custom, hosts).HostOf("user1"), -1);
  PartitionMap not_applicable = Map({a}, {0, 0});
  not_applicable.applicable = false;
  EXPECT_EQ(BuildRoutes(not_applicable, hosts).HostOf("user1"), -1);
}

TEST(IgniteRouting, NewerTopologiesAreNoticed) {
  Routes r;
  r.topology_version = 5;
  r.topology_minor = 2;
  EXPECT_TRUE(r.OlderThan(6, 0));
  EXPECT_TRUE(r.OlderThan(5, 3));
  EXPECT_FALSE(r.OlderThan(5, 2));
  EXPECT_FALSE(r.OlderThan(4, 9));
}

TEST(IgniteRouting, BookPublishesPerCacheAndMovesItsGeneration) {
  RouteBook book;
  EXPECT_EQ(book.Get(7), nullptr);
  const std::uint64_t g0 = book.generation();
  auto routes = std::make_shared<Routes>();
  routes->partition_host = {0, 1};
  book.Publish(7, routes);
  EXPECT_GT(book.generation(), g0);
  ASSERT_NE(book.Get(7), nullptr);
  EXPECT_EQ(book.Get(7)->partition_host, routes->partition_host);
  EXPECT_EQ(book.Get(8), nullptr);
  const std::uint64_t g1 = book.generation();
  book.Publish(7, std::make_shared<Routes>());
  EXPECT_GT(book.generation(), g1);
  EXPECT_TRUE(book.Get(7)->partition_host.empty());
}

}  // namespace
}  // namespace storebench::ignite
