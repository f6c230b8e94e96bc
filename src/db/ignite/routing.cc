#include "db/ignite/routing.h"

#include <utility>

namespace storebench::ignite {

Routes BuildRoutes(const PartitionMap& map, std::span<const Uuid> host_ids) {
  Routes r;
  r.topology_version = map.topology_version;
  r.topology_minor = map.topology_minor;
  if (!map.applicable || map.has_custom_key_config) return r;
  // map.nodes[i] -> host index (or -1).
  std::vector<std::int16_t> node_host(map.nodes.size(), -1);
  for (std::size_t i = 0; i < map.nodes.size(); ++i) {
    for (std::size_t h = 0; h < host_ids.size(); ++h) {
      if (!(host_ids[h] == Uuid{}) && host_ids[h] == map.nodes[i]) node_host[i] = static_cast<std::int16_t>(h);
    }
  }
  r.partition_host.resize(map.partition_node.size(), -1);
  for (std::size_t p = 0; p < map.partition_node.size(); ++p) {
    const std::int32_t n = map.partition_node[p];
    if (n >= 0 && static_cast<std::size_t>(n) < node_host.size()) r.partition_host[p] = node_host[n];
  }
  return r;
}

std::shared_ptr<const Routes> RouteBook::Get(std::int32_t cache_id) const {
  std::lock_guard lock(mu_);
  auto it = routes_.find(cache_id);
  return it == routes_.end() ? nullptr : it->second;
}

void RouteBook::Publish(std::int32_t cache_id, std::shared_ptr<const Routes> routes) {
  {
    std::lock_guard lock(mu_);
    routes_[cache_id] = std::move(routes);
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace storebench::ignite
