// The redis binding's store: Redis, standalone or Cluster, over our own RESP
// client (db/redis/resp.h, routing.h, client.h; sessions in session.h).
//
// Why not hiredis: its blocking API cannot yield to the runner's fibers.
// Every wait goes through net::TcpConnection, i.e. net/io.h, so one client
// per thread and many clients per thread (fibers) run the same code.
//
// Opening connects to the seed, authenticates, PINGs, reads the slot map
// (CLUSTER SLOTS, cluster mode) and loads the hash layout's scripts, so an
// unreachable server or a wrong password is a one-line SetupError.
//
// Pipelining (redis.pipeline=N): the runner hosts N clients per connection;
// NewClientSession gives the clients of one {thread, connection} one shared
// Client, whose net::Pipeline per node queues their commands and sends them
// in one write (as memtier's --pipeline, but every operation keeps its own
// latency).
//
// Failures: no connection -> SERVICE_UNAVAILABLE (the connection reconnects
// with backoff on a later operation, then AUTH/SELECT are replayed); a
// timeout, a broken connection, a server error reply -> ERROR. Thread-safe:
// sessions are handed out to any thread; Stats() serialises on a mutex.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "db/binding.h"
#include "db/redis/client.h"
#include "db/redis/options.h"
#include "db/redis/routing.h"
#include "db/shared_clients.h"

namespace storebench::redis {

class RedisStore : public Store {
 public:
  // Connects and checks the server as above. Throws SetupError.
  explicit RedisStore(const Options& o);

  std::unique_ptr<Session> NewSession(int thread_id) override;
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override;
  Capabilities capabilities() const override;
  // redis_version, used_memory, keys (all nodes), and in a cluster its node
  // count and the redirections followed.
  std::vector<std::pair<std::string, std::string>> Stats() override;

 private:
  std::shared_ptr<Client> NewClient(int sharers);
  // `command` (no arguments) on `node` of the admin client: the reply's first element.
  bool AdminCall(std::uint16_t node, std::string_view command, std::int64_t deadline, resp::Item* item);

  Options o_;
  SlotMap map_;
  std::vector<std::string> shas_;
  RedirectCounts counts_;
  std::mutex admin_mu_;
  std::unique_ptr<Client> admin_;
  std::string admin_reply_;  // guarded by admin_mu_
  SharedClients<Client> links_;  // the Client of each {thread, connection} when pipelining
};

}  // namespace storebench::redis
