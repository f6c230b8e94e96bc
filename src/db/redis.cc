// Binding "redis": Redis, standalone or Cluster, over our own RESP client.
// Registration only; the pieces live in src/db/redis/, each testable alone:
//   resp.h         the protocol (RESP2 encoding and decoding; bytes only)
//   routing.h      cluster routing (key slots, the slot map, MOVED/ASK)
//   client.h       the connections to the nodes, following the routing
//   hash_layout.h  YCSB's hash layout: scripts, reads, records from replies
//   session.h      the binding: YCSB's operations in either layout
//   store.h        opening, sessions per client slot, capabilities, stats
//   options.h      the redis.* properties
#include <memory>

#include "db/binding.h"
#include "db/redis/options.h"
#include "db/redis/store.h"

namespace storebench {

const BindingInfo& redis_binding() {
  static const BindingInfo info = [] {
    BindingInfo b;
    b.name = "redis";
    b.summary = "Redis server or Redis Cluster over a built-in RESP client (YCSB's hash layout, or one value per key)";
    b.properties = redis::PropertySpecs();
    b.open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
      return std::make_unique<redis::RedisStore>(redis::ParseOptions(props));
    };
    b.server = true;
    return b;
  }();
  return info;
}

}  // namespace storebench
