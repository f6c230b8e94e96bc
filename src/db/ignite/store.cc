#include "db/ignite/store.h"

#include "core/error.h"
#include "db/ignite/session.h"
#include "net/socket.h"

namespace storebench::ignite {

IgniteStore::IgniteStore(Options o) : cluster_(std::move(o)) {
  const Options& opts = cluster_.options();
  admin_ = std::make_unique<Client>(&cluster_, 0, 1);
  const std::int64_t deadline = net::DeadlineAfterMs(opts.timeout_ms);
  for (std::size_t h = 0; h < cluster_.host_count(); ++h) {
    std::string error;
    if (!admin_->Conn(h).Open(deadline, &error)) throw SetupError("ignite: cannot connect to " + error);
  }
  std::string error;
  const Table* t = admin_->EnsureTable(opts.table, deadline, &error);
  if (t == nullptr) throw SetupError("ignite: cannot create or open table '" + opts.table + "': " + error);
  if (opts.atomicity == Atomicity::kTransactional) CheckTransactional(*t);
}

void IgniteStore::CheckTransactional(const Table& t) {
  const Options& opts = cluster_.options();
  std::unique_ptr<Session> s = NewIgniteSession(std::make_shared<Client>(&cluster_, 0, 1));
  Status st = s->Begin(TxOptions{});
  if (!st.ok()) throw SetupError("ignite: cannot start a transaction (" + std::string(st.name()) + ")");
  RecordSet out;
  st = s->Read(t.name, "storebench-probe", FieldSelector{}, &out);
  s->Abort();
  if (st.code() == Status::kAborted || st.code() == Status::kError) {
    throw SetupError("ignite: table '" + t.name + "' refuses transactions: it exists on the nodes as an ATOMIC cache " +
                     "(ignite.atomicity=transactional applies to a table the binding creates; use another table, " +
                     "e.g. -p table=accounts, or start the nodes with IGNITE_ATOMICITY=transactional)");
  }
  (void)opts;
}

std::unique_ptr<Session> IgniteStore::NewSession(int thread_id) {
  return NewIgniteSession(std::make_shared<Client>(&cluster_, thread_id, 1));
}

std::unique_ptr<Session> IgniteStore::NewClientSession(const ClientSlot& slot) {
  const int pipeline = cluster_.options().pipeline;
  if (pipeline <= 1) return NewSession(slot.thread);
  return NewIgniteSession(
      links_.Get(slot, [&] { return std::make_shared<Client>(&cluster_, slot.thread, pipeline); }));
}

Capabilities IgniteStore::capabilities() const {
  const Options& o = cluster_.options();
  Capabilities c;
  c.persistent = true;
  c.atomic_update = o.update == UpdateMode::kAuto;
  c.waits_through_io = true;
  c.pipeline = o.pipeline;
  c.native_batch_insert = true;
  c.native_batch_read = true;  // CACHE_GET_ALL
  c.transactions = o.atomicity == Atomicity::kTransactional;
  if (!c.transactions) {
    c.why_no_transactions = "ignite.atomicity=atomic (Ignite's default): use -p ignite.atomicity=transactional "
                            "with a table the binding creates (e.g. -p table=accounts)";
  }
  c.sql = true;
  return c;
}

std::vector<std::pair<std::string, std::string>> IgniteStore::Stats() {
  std::lock_guard lock(admin_mu_);
  const Version v = admin_->Conn(0).version();
  return {
      {"nodes", std::to_string(cluster_.host_count())},
      {"protocol", std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch)},
      {"route_refreshes", std::to_string(cluster_.refreshes.load())},
      {"fallbacks", std::to_string(cluster_.fallbacks.load())},
  };
}

}  // namespace storebench::ignite
