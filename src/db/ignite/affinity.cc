#include "db/ignite/affinity.h"

#include <cstddef>

namespace storebench::ignite {

std::int32_t PartitionMask(std::int32_t parts) { return (parts & (parts - 1)) == 0 ? parts - 1 : -1; }

std::int32_t PartitionOfHash(std::int32_t hash, std::int32_t parts) {
  if (parts <= 0) return 0;
  const std::int32_t mask = PartitionMask(parts);
  if (mask >= 0) {
    auto h = static_cast<std::uint32_t>(hash);
    return static_cast<std::int32_t>((h ^ (h >> 16)) & static_cast<std::uint32_t>(mask));
  }
  std::int32_t r = hash % parts;  // C++ and Java agree: the sign follows the dividend
  return r < 0 ? -r : r;          // |r| < parts, so no overflow
}

std::int32_t PrimaryNode(const PartitionMap& map, std::string_view key) {
  if (!map.applicable || map.has_custom_key_config || map.partition_node.empty()) return -1;
  // The partition count is the mapping's size: every partition has a primary
  // once the topology is stable (RendezvousAffinityFunction.partitions()).
  const auto parts = static_cast<std::int32_t>(map.partition_node.size());
  return map.partition_node[static_cast<std::size_t>(PartitionOfKey(key, parts))];
}

}  // namespace storebench::ignite
