// The ignite binding's store: Apache Ignite 2.x nodes over our own
// thin-client protocol implementation (db/ignite/{wire,protocol,binary,
// cache_ops,affinity}.h for the bytes; connection.h, routing.h, client.h,
// session.h for the rest). No JVM in storebench.
//
// Opening connects to every host of ignite.hosts and handshakes (an
// unreachable node, a refused handshake or a wrong password is a one-line
// SetupError), creates the workload's table if the nodes do not have it
// (get-or-create with ignite.atomicity, ignite.backups, ignite.write_sync and
// one SQL field per YCSB field) and reads its affinity map. With
// ignite.atomicity=transactional it checks that the table really is
// TRANSACTIONAL (a table that already existed keeps its own mode).
//
// Thread-safe: sessions are handed out to any thread; Stats() serialises on
// a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "db/binding.h"
#include "db/ignite/client.h"
#include "db/ignite/cluster.h"
#include "db/ignite/options.h"
#include "db/shared_clients.h"

namespace storebench::ignite {

class IgniteStore : public Store {
 public:
  // Connects and checks the nodes as above. Throws SetupError.
  explicit IgniteStore(Options o);

  std::unique_ptr<Session> NewSession(int thread_id) override;
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override;
  Capabilities capabilities() const override;
  // Nodes, protocol version, routes fetched, requests sent past a down node.
  std::vector<std::pair<std::string, std::string>> Stats() override;

 private:
  // Begins a transaction, reads one key in it, rolls back: what a
  // TRANSACTIONAL table allows and an ATOMIC one refuses. Throws SetupError.
  void CheckTransactional(const Table& t);

  Cluster cluster_;
  std::mutex admin_mu_;
  std::unique_ptr<Client> admin_;
  SharedClients<Client> links_;  // the Client of each {thread, connection} when pipelining
};

}  // namespace storebench::ignite
