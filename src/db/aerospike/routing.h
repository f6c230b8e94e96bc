// Aerospike cluster discovery, as the aerospike binding follows it: the
// info answers that say which nodes there are and which node is master of
// each of a namespace's 4096 partitions. Text in, values out: no sockets,
// so each parser is unit-tested on recorded answers
// (tests/db/aerospike_routing_test.cc) and fuzzed.
//
//   replicas-master    "ns1:BASE64;ns2:BASE64": per namespace, a bitmap of
//                      the 4096 partitions this node is master of (bit i is
//                      byte i/8's bit 7 - i%8), base64-encoded.
//   peers-clear-std    "GEN,PORT,[[NODE-ID,TLS-NAME,[ADDR,...]],...]": the
//                      other nodes and their service addresses; an address
//                      without ":port" uses PORT; IPv6 addresses in [ ].
//
// Pure functions; thread-safe.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "db/aerospike/proto.h"
#include "net/socket.h"

namespace storebench::aerospike {

using PartitionBits = std::bitset<kPartitions>;

// The partitions of namespace `ns` this node is master of, from its
// replicas-master answer. False when the answer does not name `ns` or its
// bitmap is not 4096 bits of base64.
bool ParseReplicasMaster(std::string_view answer, std::string_view ns, PartitionBits* out);

// One node of a peers answer.
struct Peer {
  std::string node_id;
  std::vector<net::Endpoint> addresses;
};

// Parses a peers-clear-std answer into its generation and peers (a peer
// listed with no address is left out: it cannot be reached). False when the
// text is not one.
bool ParsePeers(std::string_view answer, std::uint64_t* generation, std::vector<Peer>* out);

}  // namespace storebench::aerospike
