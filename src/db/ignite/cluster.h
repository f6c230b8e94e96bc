// What the ignite store's clients share, across threads: the options, the
// tables (caches) in use, the routes of partition awareness, and the node id
// each configured host announced. Counters for Stats().
//
// Thread-safe. Locks are held for lookups and copies only, never across
// I/O (a fiber that waits while holding a lock would stall its thread's
// other fibers): clients do their own requests and publish the results.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "db/ignite/binary.h"
#include "db/ignite/connection.h"
#include "db/ignite/options.h"
#include "db/ignite/routing.h"

namespace storebench::ignite {

// One YCSB table: its cache (same name), the value type (same name) and the
// SQL that scans it.
struct Table {
  std::string name;
  std::int32_t cache_id = 0;
  std::int32_t type_id = 0;
  // SELECT key, every field FROM name WHERE key >= ? ORDER BY key LIMIT ?
  std::string scan_all_sql;
};

class Cluster {
 public:
  explicit Cluster(Options o);

  const Options& options() const { return o_; }
  const Credentials& credentials() const { return credentials_; }
  RouteBook& routes() { return routes_; }
  std::size_t host_count() const { return o_.hosts.size(); }

  // A host's node id, from its handshake; a changed id (a restarted node)
  // makes the routes stale.
  void NoteNode(std::size_t host, const Uuid& id);
  std::vector<Uuid> HostIds() const;
  // True once for each time a host's node id changed since the last call.
  bool TakeStale() { return stale_.exchange(false, std::memory_order_acq_rel); }
  // True when the caller should fetch the routes for this topology version:
  // the first to ask for a version newer than any asked for before.
  bool ClaimRefresh(std::int64_t version, std::int32_t minor);

  // The table named `name`, or nullptr before AddTable. Pointers stay valid.
  const Table* FindTable(std::string_view name) const;
  const Table* AddTable(std::string_view name);

  // Field names by id: the configured ones, and every name a session of
  // this process wrote (an object holds field ids only). Learn records a
  // name; NameOf finds one ("" and false when no session wrote it).
  void Learn(std::int32_t field_id, std::string_view name);
  bool NameOf(std::int32_t field_id, std::string* name) const;

  std::atomic<std::uint64_t> refreshes{0};   // routes fetched
  std::atomic<std::uint64_t> fallbacks{0};   // requests sent to another host than their primary's (it was down)

 private:
  Options o_;
  Credentials credentials_;
  RouteBook routes_;
  mutable std::mutex mu_;
  std::vector<std::pair<std::int32_t, std::string>> names_;  // guarded by mu_
  std::vector<Uuid> host_ids_;
  std::deque<Table> tables_;
  std::int64_t claimed_version_ = -1;
  std::int32_t claimed_minor_ = -1;
  std::atomic<bool> stale_{false};
};

}  // namespace storebench::ignite
