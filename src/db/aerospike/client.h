// The aerospike binding's client: the connections of one session (or of
// the pipelined sessions of one {thread, connection} slot), one per node,
// opened on first use, and the request/reply exchange over them.
//
// Aerospike answers a connection's requests in order, so the clients
// sharing one go through net::Pipeline in its ordered mode: their requests
// leave in one write and each reply is copied out of the connection into
// the caller's own buffer. A broken connection fails every queued request
// (ERROR) and is reopened with TcpConnection's backoff on the next call
// (SERVICE_UNAVAILABLE while none can be made).
//
// Used from one thread; no allocation per call once the buffers have grown.
// Times are deadlines on net/io.h's clock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "db/aerospike/cluster.h"
#include "db/aerospike/proto.h"
#include "net/pipeline.h"
#include "net/socket.h"

namespace storebench::aerospike {

// The reply at the front of `in`: its length when complete, 0 when not yet,
// net::Pipeline::kBroken when it cannot be one. A single-record reply is one
// message frame; a batch reply (`multi`) is message frames up to the one
// holding a message marked last (info3 LAST). The frames' bodies are
// copied, back to back, into *bodies once complete.
std::size_t TakeReply(std::string_view in, bool multi, std::string* bodies);

class Client {
 public:
  Client(Cluster* cluster, int sharers) : cluster_(cluster), sharers_(sharers) {}
  Cluster& cluster() { return *cluster_; }
  const Options& options() const { return cluster_->options(); }

  // Sends what `write(out)` appends to `node` and waits for its reply,
  // whose message bodies land in *bodies. OK, ERROR (broken, timed out,
  // bytes out of step) or SERVICE_UNAVAILABLE (no connection).
  template <typename Write>
  Status Call(std::uint16_t node, std::int64_t deadline, Write&& write, bool multi, std::string* bodies) {
    auto parse = [&](std::string_view in) { return TakeReply(in, multi, bodies); };
    return Link(node).pipe.Call(write, parse, deadline);
  }

 private:
  struct NodeLink {
    NodeLink(net::Endpoint ep, int sharers) : conn(std::move(ep)), pipe(&conn) { pipe.set_sharers(sharers); }
    net::TcpConnection conn;
    net::Pipeline pipe;
  };
  NodeLink& Link(std::uint16_t node) {
    if (node >= links_.size()) links_.resize(static_cast<std::size_t>(node) + 1);
    if (!links_[node]) links_[node] = std::make_unique<NodeLink>(cluster_->NodeEndpoint(node), sharers_);
    return *links_[node];
  }

  Cluster* cluster_;
  int sharers_;
  std::vector<std::unique_ptr<NodeLink>> links_;  // by node index
};

}  // namespace storebench::aerospike
