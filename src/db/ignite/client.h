// The ignite binding's client: the connections of one session (or of the
// pipelined sessions of one {thread, connection}), one per configured host,
// opened lazily, and where each request goes.
//
// A keyed request goes to the host that holds the key's partition as
// primary (partition awareness, routing.h), else to this client's home host
// (spread over the hosts by thread). A host whose connection is down and
// resting (net::TcpConnection's reconnect backoff) is skipped for the next
// live one, and a request that could not be sent at all (no connection) is
// sent to the next host: so a node that goes away costs only the requests
// it had in flight, and its partitions are served by the others (which own
// them once Ignite has rebalanced) until it is back.
//
// Every answer's "affinity topology changed" flag is looked at: the first
// client to see a newer topology fetches the affinity map (CACHE_PARTITIONS)
// over its own connection and publishes it (Cluster's RouteBook); the others
// pick it up by a generation number, without a lock on the hot path.
//
// Used from one thread; operations return Status, never throw.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "db/ignite/cluster.h"
#include "db/ignite/connection.h"
#include "measure/clock.h"

namespace storebench::ignite {

class Client {
 public:
  Client(Cluster* cluster, int thread, int sharers);

  Cluster& cluster() { return *cluster_; }
  const Options& options() const { return cluster_->options(); }
  std::size_t host_count() const { return links_.size(); }
  int home() const { return home_; }

  // The connection to `host` (made on first use; opened by its first Call).
  Connection& Conn(std::size_t host);

  // Sends a request to `host` (written by enc(Writer&, request id)); on OK,
  // *reply views into *body. When `host` is -1, resting, or cannot be
  // reached before anything was sent, the request goes to the next host
  // (unless `pinned`: a transaction lives on its connection). *used (if
  // given) is the host that answered: a cursor or a transaction lives there.
  template <typename Enc>
  Status CallAt(int host, bool pinned, std::int64_t deadline, Enc&& enc, std::string* body,
                Connection::Reply* reply, int* used = nullptr) {
    if (host < 0) host = home_;
    if (!pinned) host = Live(host);
    Status st = Conn(static_cast<std::size_t>(host)).Call(enc, deadline, body, reply);
    if (!pinned && st.code() == Status::kServiceUnavailable && links_.size() > 1) {
      // Nothing was sent (no connection): another node can serve it.
      const int other = Live((host + 1) % static_cast<int>(links_.size()));
      if (other != host) {
        cluster_->fallbacks.fetch_add(1, std::memory_order_relaxed);
        host = other;
        st = Conn(static_cast<std::size_t>(host)).Call(enc, deadline, body, reply);
      }
    }
    if (used != nullptr) *used = host;
    if (st.ok()) AfterReply(static_cast<std::size_t>(host), reply->header);
    return st;
  }

  // To the primary of `key` in `table` (or any host).
  template <typename Enc>
  Status CallKey(const Table& table, std::string_view key, std::int64_t deadline, Enc&& enc, std::string* body,
                 Connection::Reply* reply) {
    return CallAt(HostOf(table, key), false, deadline, enc, body, reply);
  }

  // The host of `key`'s primary in `table`, or -1.
  int HostOf(const Table& table, std::string_view key);

  // The table named `name`: created on the nodes (get-or-create with the
  // options' configuration and SQL fields) on its first use in this process.
  // nullptr with *error when the nodes refuse.
  const Table* EnsureTable(std::string_view name, std::int64_t deadline, std::string* error);

  // Fetches and publishes the routes of `table` over host `host`'s connection.
  Status RefreshRoutes(std::size_t host, const Table& table, std::int64_t deadline);

 private:
  // `host`, or the next one whose connection is not resting.
  int Live(int host) const;
  void AfterReply(std::size_t host, const ResponseHeader& h);

  Cluster* cluster_;
  int home_;
  int sharers_;
  std::vector<std::unique_ptr<Connection>> links_;
  // This client's copies of the routes, by table (few: a vector).
  struct Cached {
    const Table* table;
    std::shared_ptr<const Routes> routes;
  };
  std::vector<Cached> routes_;
  std::uint64_t generation_ = 0;
  std::string scratch_;  // answers of the client's own requests (routes, tables)
};

}  // namespace storebench::ignite
