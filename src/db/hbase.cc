// Binding "hbase": Apache HBase 2.x over its native client RPC (protobuf over
// TCP, no JVM). Registration only; the pieces live in src/db/hbase/. Not
// usable yet: this commit carries the build and the RPC codec (rpc.h).
#include "core/error.h"
#include "db/binding.h"

namespace storebench {

const BindingInfo& hbase_binding() {
  static const BindingInfo info = [] {
    BindingInfo b;
    b.name = "hbase";
    b.summary = "Apache HBase 2.x over its native client RPC (work in progress: not usable yet)";
    b.open = [](const Properties&, const OpenContext&) -> std::unique_ptr<Store> {
      throw SetupError("hbase: the binding is not finished yet");
    };
    b.server = true;
    return b;
  }();
  return info;
}

}  // namespace storebench
