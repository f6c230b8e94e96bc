// Binding "aerospike": Aerospike over a built-in implementation of its info
// and message protocols (no client library, no JVM). Registration only; the
// pieces live in src/db/aerospike/, each testable alone:
//   proto.h     frames, info text, messages, digests, result codes (bytes only)
//   routing.h   the partition map and peers from info answers (text only)
//   cluster.h   nodes and partition masters, kept current by a tend thread
//   client.h    one slot's connections, one per node, many requests in flight
//   session.h   YCSB's aerospike operations
//   store.h     opening, sessions per client slot, stats
//   options.h   the aerospike.* properties
// The digest's RIPEMD-160 is OpenSSL's (Debian: libssl-dev).
#include "db/aerospike/options.h"
#include "db/aerospike/store.h"
#include "db/binding.h"

namespace storebench {

const BindingInfo& aerospike_binding() {
  static const BindingInfo info = [] {
    BindingInfo b;
    b.name = "aerospike";
    b.summary =
        "Aerospike over a built-in info + message protocol client (partition-aware, no scan: no key order)";
    b.properties = aerospike::PropertySpecs();
    b.open = OpenStore<aerospike::AerospikeStore, aerospike::ParseOptions>;
    b.server = true;
    return b;
  }();
  return info;
}

}  // namespace storebench
