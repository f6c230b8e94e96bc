// Binding "ignite": Apache Ignite 2.x over a built-in thin-client protocol
// implementation (no JVM). Registration only; the pieces live in
// src/db/ignite/, each testable alone:
//   wire.h, protocol.h   framing, handshake, request and response headers (bytes only)
//   binary.h             Ignite's binary objects: records as objects of String fields
//   cache_ops.h          the cache, SQL and transaction requests and their answers
//   affinity.h           which partition a key falls in (RendezvousAffinityFunction)
//   connection.h         one node's connection: handshake, request ids, pipelining
//   routing.h            partition -> host, published to every thread
//   cluster.h, client.h  what the clients share; where each request goes
//   session.h            YCSB's operations, transactions, SQL
//   store.h              opening, sessions per client slot, capabilities, stats
//   options.h            the ignite.* properties
#include <memory>

#include "db/binding.h"
#include "db/ignite/options.h"
#include "db/ignite/store.h"

namespace storebench {

const BindingInfo& ignite_binding() {
  static const BindingInfo info = [] {
    BindingInfo b;
    b.name = "ignite";
    b.summary = "Apache Ignite 2.x nodes over a built-in thin-client protocol client (partition-aware, transactions, SQL)";
    b.properties = ignite::PropertySpecs();
    b.open = OpenStore<ignite::IgniteStore, ignite::ParseOptions>;
    b.server = true;
    return b;
  }();
  return info;
}

}  // namespace storebench
