#include "db/ignite/client.h"

#include <utility>

#include "db/ignite/cache_ops.h"
#include "net/io.h"

namespace storebench::ignite {

Client::Client(Cluster* cluster, int thread, int sharers)
    : cluster_(cluster),
      home_(static_cast<int>(static_cast<std::size_t>(thread < 0 ? 0 : thread) % cluster->host_count())),
      sharers_(sharers),
      links_(cluster->host_count()) {}

Connection& Client::Conn(std::size_t host) {
  auto& l = links_[host];
  if (!l) {
    const Options& o = cluster_->options();
    Cluster* c = cluster_;
    l = std::make_unique<Connection>(o.hosts[host], &c->credentials(), o.timeout_ms, sharers_,
                                     [c, host](const Uuid& id) { c->NoteNode(host, id); });
  }
  return *l;
}

int Client::Live(int host) const {
  const int n = static_cast<int>(links_.size());
  const std::int64_t now = SteadyClock::Now();
  for (int i = 0; i < n; ++i) {
    const int h = (host + i) % n;
    if (!links_[static_cast<std::size_t>(h)] || !links_[static_cast<std::size_t>(h)]->Resting(now)) return h;
  }
  return host;
}

int Client::HostOf(const Table& table, std::string_view key) {
  if (!cluster_->options().partition_awareness) return -1;
  if (cluster_->TakeStale()) {
    // A node restarted with a new id: fetch every known table's routes again.
    for (const Cached& c : routes_) RefreshRoutes(static_cast<std::size_t>(home_), *c.table, net::DeadlineAfterMs(options().timeout_ms));
  }
  const std::uint64_t gen = cluster_->routes().generation();
  if (gen != generation_) {
    generation_ = gen;
    for (Cached& c : routes_) c.routes = cluster_->routes().Get(c.table->cache_id);
  }
  for (const Cached& c : routes_) {
    if (c.table == &table) return c.routes ? c.routes->HostOf(key) : -1;
  }
  routes_.push_back({&table, cluster_->routes().Get(table.cache_id)});
  return routes_.back().routes ? routes_.back().routes->HostOf(key) : -1;
}

void Client::AfterReply(std::size_t host, const ResponseHeader& h) {
  if (!h.topology_changed || !cluster_->options().partition_awareness) return;
  if (!cluster_->ClaimRefresh(h.topology_version, h.topology_minor)) return;
  const std::int64_t deadline = net::DeadlineAfterMs(options().timeout_ms);
  for (const Cached& c : routes_) RefreshRoutes(host, *c.table, deadline);
}

Status Client::RefreshRoutes(std::size_t host, const Table& table, std::int64_t deadline) {
  Connection::Reply reply;
  auto enc = [&](Writer& w, std::int64_t id) { EncodeCachePartitions(w, id, &table.cache_id, 1); };
  Status st = Conn(host).Call(enc, deadline, &scratch_, &reply);
  if (!st.ok()) return st;
  if (!reply.header.ok()) return Status::Error();
  PartitionMap map;
  Reader r(reply.payload);
  if (!DecodeCachePartitions(r, table.cache_id, &map)) return Status::Error();
  const std::vector<Uuid> ids = cluster_->HostIds();
  cluster_->routes().Publish(table.cache_id, std::make_shared<const Routes>(BuildRoutes(map, ids)));
  cluster_->refreshes.fetch_add(1, std::memory_order_relaxed);
  return Status::Ok();
}

const Table* Client::EnsureTable(std::string_view name, std::int64_t deadline, std::string* error) {
  if (const Table* t = cluster_->FindTable(name)) return t;
  const Options& o = options();
  std::vector<QueryField> fields;
  fields.push_back({o.key_column});
  for (const std::string& f : o.field_names) fields.push_back({f});
  CacheConfig c;
  c.name = name;
  c.atomicity = o.atomicity;
  c.backups = o.backups;
  c.write_sync = o.write_sync;
  c.group = o.cache_group;
  c.value_type = name;
  c.table_name = name;
  c.key_field = o.key_column;
  c.fields = fields.data();
  c.field_count = fields.size();
  Connection::Reply reply;
  Connection& conn = Conn(static_cast<std::size_t>(home_));
  auto enc = [&](Writer& w, std::int64_t id) { EncodeGetOrCreateCache(w, id, conn.version(), c); };
  std::string body;  // (not scratch_: a topology change seen in the answer refreshes routes into it)
  Status st = CallAt(home_, false, deadline, enc, &body, &reply);
  if (!st.ok()) {
    *error = "no answer from the nodes (" + std::string(st.name()) + ")";
    return nullptr;
  }
  if (!reply.header.ok()) {
    *error = std::string(reply.header.error);
    return nullptr;
  }
  const Table* t = cluster_->AddTable(name);
  if (o.partition_awareness && !cluster_->routes().Get(t->cache_id)) RefreshRoutes(static_cast<std::size_t>(home_), *t, deadline);
  return t;
}

}  // namespace storebench::ignite
