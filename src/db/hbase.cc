// Binding "hbase": Apache HBase 2.x over a built-in implementation of its
// client RPC (protobuf over TCP; no JVM, no gateway). Registration only; the
// pieces live in src/db/hbase/, each testable alone:
//   rpc.h          preamble, connection header, request/response frames (bytes only)
//   connection.h   one server's connection: call ids, many calls in flight, reconnect
//   routing.h      the region cache; hbase:meta rows and keys (bytes only)
//   client.h       what the clients share; bootstrap, locate, call, retry
//   session.h      YCSB's hbase2 operations
//   store.h        opening (table get-or-create), sessions per client slot, stats
//   options.h      the hbase.* properties
// The protobuf messages are generated at build time from the .proto files in
// HBase's own hbase-protocol-shaded jar (cmake/HBaseProto.cmake).
#include <memory>

#include "db/binding.h"
#include "db/hbase/options.h"
#include "db/hbase/store.h"

namespace storebench {

const BindingInfo& hbase_binding() {
  static const BindingInfo info = [] {
    BindingInfo b;
    b.name = "hbase";
    b.summary = "Apache HBase 2.x over a built-in client RPC implementation (region-aware, many calls per connection)";
    b.properties = hbase::PropertySpecs();
    b.open = OpenStore<hbase::HBaseStore, hbase::ParseOptions>;
    b.server = true;
    return b;
  }();
  return info;
}

}  // namespace storebench
