// Fuzzes what an Aerospike server (or anything listening on its port) sends
// the aerospike binding: reply framing (TakeReply, single and batch), the
// messages inside (ParseMessage, NextOp) and the info answers the tend
// thread reads (InfoValue, replicas-master, peers-clear-std). Every input
// must be "incomplete", accepted within its bounds, or refused; never a
// read out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "db/aerospike/client.h"
#include "db/aerospike/proto.h"
#include "db/aerospike/routing.h"

using namespace storebench;
using namespace storebench::aerospike;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string in(reinterpret_cast<const char*>(data), size);  // a copy: ASan sees its end
  std::string bodies;
  for (bool multi : {false, true}) {
    const std::size_t n = TakeReply(in, multi, &bodies);
    if (n != net::Pipeline::kBroken && n > in.size()) std::abort();
    if (n != 0 && n != net::Pipeline::kBroken) {
      // What TakeReply accepted parses as messages to its end.
      std::string_view rest = bodies;
      while (!rest.empty()) {
        Reply r;
        const std::size_t m = ParseMessage(rest, &r);
        if (m == kMalformed) {
          if (multi) std::abort();  // TakeReply checked every message of a batch
          break;
        }
        if (m > rest.size()) std::abort();
        std::string_view ops = r.ops;
        BinOp op;
        int count = 0;
        while (NextOp(&ops, &op)) ++count;
        if (count != r.header.n_ops || !ops.empty()) std::abort();
        rest.remove_prefix(m);
        if (!multi) break;
      }
    }
  }
  // The raw input as one message body, and as info answers.
  Reply r;
  const std::size_t m = ParseMessage(in, &r);
  if (m != kMalformed && m > in.size()) std::abort();
  (void)InfoValue(in, "replicas-master");
  PartitionBits bits;
  (void)ParseReplicasMaster(in, "test", &bits);
  std::uint64_t gen = 0;
  std::vector<Peer> peers;
  if (ParsePeers(in, &gen, &peers)) {
    for (const Peer& p : peers) {
      if (p.node_id.empty() || p.addresses.empty()) std::abort();
    }
  }
  return 0;
}
