// Partition awareness, as a table the clients look keys up in: which of the
// configured hosts (ignite.hosts, by index) is the primary of each partition
// of one cache, built from the cache's affinity map (CACHE_PARTITIONS,
// cache_ops.h) and the node id each host announced in its handshake.
// Partitions whose primary is no configured host (a node storebench was not
// told about, or one whose connection has not been made since it restarted)
// route to "any host" (-1): that node forwards the request.
//
// Routes is an immutable value once built; RouteBook publishes the current
// Routes of each cache to every thread (a generation number tells a client
// that its copy is stale, without a lock on the hot path).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/ignite/affinity.h"
#include "db/ignite/binary.h"
#include "db/ignite/cache_ops.h"

namespace storebench::ignite {

struct Routes {
  std::int64_t topology_version = -1;
  std::int32_t topology_minor = 0;
  std::vector<std::int16_t> partition_host;  // partition -> host index, -1 any; empty: no routing

  // The host of `key`'s primary, or -1 (any host).
  int HostOf(std::string_view key) const {
    if (partition_host.empty()) return -1;
    const auto parts = static_cast<std::int32_t>(partition_host.size());
    return partition_host[static_cast<std::size_t>(PartitionOfKey(key, parts))];
  }
  // True when (version, minor) is newer than what these routes were built for.
  bool OlderThan(std::int64_t version, std::int32_t minor) const {
    return version > topology_version || (version == topology_version && minor > topology_minor);
  }
};

// The routes for `map`, with host_ids[h] the node id of host h (unknown ids
// are all-zero and match nothing).
Routes BuildRoutes(const PartitionMap& map, std::span<const Uuid> host_ids);

// The current Routes of each cache. Thread-safe; Get takes a lock, so
// clients call it only when generation() moved.
class RouteBook {
 public:
  std::uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  std::shared_ptr<const Routes> Get(std::int32_t cache_id) const;
  void Publish(std::int32_t cache_id, std::shared_ptr<const Routes> routes);

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::int32_t, std::shared_ptr<const Routes>> routes_;
  std::atomic<std::uint64_t> generation_{1};
};

}  // namespace storebench::ignite
