// Cluster discovery (db/aerospike/routing.h) on answers recorded from a real
// 2-node Aerospike 8.1.0.3 Community cluster (scripts/servers/aerospike.sh
// start DIR 2): each node's `replicas-master` and `peers-clear-std`.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "db/aerospike/routing.h"

namespace storebench::aerospike {
namespace {

// `replicas-master` of node A1 and of node A2 (namespace test).
constexpr std::string_view kNodeA1 =
    "test:opf1NNoRKrsnvQsdlW8CJ0481RlmCO5oBXcUpBTQvdibHsI9IrwWrGdUBjC8AxQ1N+YYAz5tObo4nSi1ihl/a5/hEFp"
    "JrsMVmbLdviEB3zsmAqgKiANDDDEXJagHMxEizjUO6u+BoaoFo2c/0ZGq3Z/S15bdM2Oln7PprcjAQMGodjoMoQiEedhUy+d"
    "VopC/dic6bteAJtvtz/FjMdASr0z2xNGaFPLHGhk4O+yDvAfitLIo6021WYWncRuzIbaZdq58EFXN4TVTrrAcM1yQApuBM+q"
    "2bsc+CjHeI3qeiRr1ZB5++GoiSKIVJ12VdNiOFF+wzVSX2UHVYofCbTdkkXBDMbHwA9bPvcfsOalYThUwn2a6CF/xxZk36oC"
    "VmpHdlRQbrbylGqSmhXz3DRlKYZfMeDK2Y3XP8b+SoCA+6lnd3XakdboK07uO0imsWiOk+mZpMN1iovtSxPZ+2Znvw2ivBRN"
    "B+/qj+JBuKrw/rGPofpTeNmSLbpV/9kzCgbzzEJlFWCxf9vxFceqj/fzLuX8r6iu/K/SFaldEs9NhhRnRBefoVtxBSWS7Dpq"
    "0TUjdAEN+FEhib5Y24Ao0TSBgykoBMPwiBsez0QXepM6GLiD7kadkpYCNqR22srVkDEhy28i18pdrv456nwt9Njg/014DdwG"
    "+X9fzB+ekR0r8kvA=";
constexpr std::string_view kNodeA2 =
    "test:XWgKyyXu1UTYQvTiapD92LHDKuaZ9xGX+ojrW+svQidk4T3C3UPpU5ir+c9D/OvKyBnn/MGSxkXHYtdKdeaAlGAe76W"
    "2UTzqZk0iQd7+IMTZ/Vf1d/y8887o2lf4zO7dMcrxFRB+XlX6XJjALm5VImAtKGkizJxaYEwWUjc/vz5XicXzXvd7hierNBi"
    "qXW9AidjFkSh/2SQSMA6czi/tULMJOy5l6w045ebHxBN8Q/gdS03XFLJKpnpYjuRM3klmiVGD76oyHsqsUU/jzKNv/WR+zBV"
    "JkTjB9c4h3IVhduUKm+GBB5Xdt13q2KJqiydx66BPMqtoJr4qnXg9ksibbo+8zk4P/CkwQjgTxlanserPYJlF96AOOmbIFX9"
    "qZW4iauvkUkNa5VtZeoMI8ua1nmgzh81JnIowDkBtX9/BFaYiIolbikX1LERxLdZTpdxbBZmWzyKdXQStOwmBJmYQPJdQ+uy"
    "+BAVcB2+R1UPAU5wXgWshyZt0kWqACbM9fkMM72a6p9OgCQO6jhVcAgM0RoDUFdRA1At6lai7TCyeeuYu+hgXqSO+tptE8WV"
    "Lsrci/7yB67edkGnJH/XLst+fNbX+zwPd+ThMLvohWzF50d8EblibWn9yVuJJTUqb87eNJDdKDWiUQHGFYPSCycfALKH8iP5"
    "BoCgM+BhbuLUDbQ8=";

TEST(AerospikeRouting, TheTwoNodesMastersSplitEveryPartitionOnce) {
  PartitionBits a, b;
  ASSERT_TRUE(ParseReplicasMaster(kNodeA1, "test", &a));
  ASSERT_TRUE(ParseReplicasMaster(kNodeA2, "test", &b));
  // Counted from the recorded bitmaps (base64 decoded with Python).
  EXPECT_EQ(a.count(), 2042u);
  EXPECT_EQ(b.count(), 2054u);
  EXPECT_TRUE((a & b).none());
  EXPECT_TRUE((a | b).all());
  // The first bits, most significant first: A1 has 0 2 6 8 11 13 14 15.
  for (int pid : {0, 2, 6, 8, 11, 13, 14, 15}) EXPECT_TRUE(a.test(static_cast<std::size_t>(pid))) << pid;
  for (int pid : {1, 3, 4, 5, 7, 9, 10, 12}) EXPECT_TRUE(b.test(static_cast<std::size_t>(pid))) << pid;
}

TEST(AerospikeRouting, ReplicasMasterOfSeveralNamespacesPicksTheOneAsked) {
  const std::string two = "bar:" + std::string(kNodeA2.substr(5)) + ";" + std::string(kNodeA1);
  PartitionBits bits;
  ASSERT_TRUE(ParseReplicasMaster(two, "test", &bits));
  EXPECT_EQ(bits.count(), 2042u);
  ASSERT_TRUE(ParseReplicasMaster(two, "bar", &bits));
  EXPECT_EQ(bits.count(), 2054u);
  EXPECT_FALSE(ParseReplicasMaster(two, "tes", &bits));
  EXPECT_FALSE(ParseReplicasMaster("", "test", &bits));
}

TEST(AerospikeRouting, BadBitmapsAreRefused) {
  PartitionBits bits;
  const std::string good(kNodeA1);
  EXPECT_FALSE(ParseReplicasMaster(good.substr(0, good.size() - 4), "test", &bits));  // 3 bytes short
  std::string bad = good;
  bad[10] = '*';
  EXPECT_FALSE(ParseReplicasMaster(bad, "test", &bits));
  EXPECT_FALSE(ParseReplicasMaster("test:" + std::string(684, 'A') + "AAAA", "test", &bits));  // too long
  EXPECT_TRUE(
      ParseReplicasMaster("test:" + std::string(680, 'A') + "AAA=", "test", &bits));  // 512 zero bytes
  EXPECT_TRUE(bits.none());
}

TEST(AerospikeRouting, PeersAsTheServerSaysThem) {
  std::uint64_t gen = 0;
  std::vector<Peer> peers;
  // Recorded from node A1 (before the script set access-address: the
  // machine's own address was advertised).
  ASSERT_TRUE(ParsePeers("2,3000,[[A2,,[192.0.2.2:17726]]]", &gen, &peers));
  EXPECT_EQ(gen, 2u);
  ASSERT_EQ(peers.size(), 1u);
  EXPECT_EQ(peers[0].node_id, "A2");
  ASSERT_EQ(peers[0].addresses.size(), 1u);
  EXPECT_EQ(peers[0].addresses[0].host, "192.0.2.2");
  EXPECT_EQ(peers[0].addresses[0].port, 17726);
  // Several peers, several addresses, the default port, IPv6, a TLS name, none.
  ASSERT_TRUE(
      ParsePeers("7,3000,[[BB9,,[10.0.0.1,10.0.0.2:3100]],[BB8,tls1,[[::1]:3001,[fe80::1]]]]", &gen, &peers));
  EXPECT_EQ(gen, 7u);
  ASSERT_EQ(peers.size(), 2u);
  EXPECT_EQ(peers[0].addresses[0].port, 3000);
  EXPECT_EQ(peers[0].addresses[1].port, 3100);
  EXPECT_EQ(peers[1].node_id, "BB8");
  EXPECT_EQ(peers[1].addresses[0].host, "::1");
  EXPECT_EQ(peers[1].addresses[0].port, 3001);
  EXPECT_EQ(peers[1].addresses[1].host, "fe80::1");
  EXPECT_EQ(peers[1].addresses[1].port, 3000);
  ASSERT_TRUE(ParsePeers("0,3000,[]", &gen, &peers));
  EXPECT_TRUE(peers.empty());
  // A peer with no address (found by the fuzzer: "0,2,[[0,2,[]]]") is left
  // out; the peers after it still count.
  ASSERT_TRUE(ParsePeers("0,2,[[0,2,[]]]", &gen, &peers));
  EXPECT_TRUE(peers.empty());
  ASSERT_TRUE(ParsePeers("4,3000,[[BB9,,[]],[BB8,,[127.0.0.1]]]", &gen, &peers));
  ASSERT_EQ(peers.size(), 1u);
  EXPECT_EQ(peers[0].node_id, "BB8");
  EXPECT_FALSE(ParsePeers("4,3000,[[BB9,,[]][BB8,,[127.0.0.1]]]", &gen, &peers)) << "a missing comma is still refused";
}

TEST(AerospikeRouting, MalformedPeersAreRefused) {
  std::uint64_t gen = 0;
  std::vector<Peer> peers;
  for (std::string_view bad : {"", "2", "2,3000", "2,3000,[", "2,3000,[[A2,,[127.0.0.1:17726]]", "x,3000,[]",
                               "2,0,[]", "2,3000,[[,,[1.2.3.4]]]", "2,3000,[[A2,,[1.2.3.4:99999]]]",
                               "2,3000,[[A2,,[[::1]]]", "2,3000,[]x", "2,3000,[[A2,,[:5]]]"}) {
    EXPECT_FALSE(ParsePeers(bad, &gen, &peers)) << bad;
  }
}

}  // namespace
}  // namespace storebench::aerospike
