// Partition awareness math: which partition of a cache a key falls in, as
// RendezvousAffinityFunction computes it (calculateMask / calculatePartition
// in apache/ignite's RendezvousAffinityFunction.java, mirrored by the C++ thin
// client's affinity_assignment.cpp), and which node holds it as primary
// (from the PartitionMap that CACHE_PARTITIONS returns, cache_ops.h).
//
// Keys are Java Strings on the server, so a key's hash is String.hashCode
// (binary.h JavaHash). With a power-of-two partition count (1024 by default)
// the partition is (h ^ (h >>> 16)) & (parts - 1); otherwise |h % parts|
// with Integer.MIN_VALUE mapped to 0 (U.safeAbs).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "db/ignite/cache_ops.h"

namespace storebench::ignite {

inline constexpr std::int32_t kDefaultPartitions = 1024;

// calculateMask: parts - 1 when parts is a power of two, else -1.
std::int32_t PartitionMask(std::int32_t parts);
// calculatePartition for a key whose Java hashCode is `hash`.
std::int32_t PartitionOfHash(std::int32_t hash, std::int32_t parts);
// The partition of a String key.
inline std::int32_t PartitionOfKey(std::string_view key, std::int32_t parts) {
  return PartitionOfHash(JavaHash(key), parts);
}

// The index into map.nodes of the primary of `key`, or -1 when the map does
// not apply (not applicable, custom key configuration, unknown partition):
// the caller then sends to any node.
std::int32_t PrimaryNode(const PartitionMap& map, std::string_view key);

}  // namespace storebench::ignite
