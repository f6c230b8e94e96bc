// The aerospike binding's store: an Aerospike cluster over our own
// implementation of its info and message protocols (db/aerospike/proto.h
// for the bytes; routing.h, cluster.h, client.h, session.h for the rest).
// No client library.
//
// Opening finds the nodes through the seeds (aerospike.host) and reads the
// namespace's partition map, then a tend thread keeps both current
// (cluster.h). An unreachable cluster or an unknown namespace is a one-line
// SetupError.
//
// Thread-safe: sessions are handed out to any thread; the clients of one
// {thread, connection} slot share one Client when aerospike.pipeline > 1.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/aerospike/client.h"
#include "db/aerospike/cluster.h"
#include "db/aerospike/options.h"
#include "db/binding.h"
#include "db/shared_clients.h"

namespace storebench::aerospike {

class AerospikeStore : public Store {
 public:
  // Connects as above. Throws SetupError.
  explicit AerospikeStore(Options o) : cluster_(std::move(o)) {}

  std::unique_ptr<Session> NewSession(int thread_id) override;
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override;
  Capabilities capabilities() const override;
  // Nodes, partition map updates, node failures, requests without reply,
  // and every result code seen, by name (result.NOT_FOUND=...).
  std::vector<std::pair<std::string, std::string>> Stats() override { return cluster_.Stats(); }

 private:
  Cluster cluster_;
  SharedClients<Client> links_;  // the Client of each {thread, connection} when pipelining
};

}  // namespace storebench::aerospike
