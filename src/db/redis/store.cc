#include "db/redis/store.h"

#include "core/error.h"
#include "db/redis/hash_layout.h"
#include "db/redis/resp.h"
#include "db/redis/session.h"
#include "net/io.h"

namespace storebench::redis {

RedisStore::RedisStore(const Options& o) : o_(o) {
  admin_ = std::make_unique<Client>(o_, SlotMap{}, Scripts{kScripts, std::vector<std::string>(3)}, 1, &counts_);
  const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
  const std::string where = "redis: " + o_.seed.ToString() + ": ";
  std::string error;
  net::TcpConnection& c = admin_->Conn(0);
  if (!c.Connect(deadline, &error)) throw SetupError("redis: cannot connect to " + error);
  if (!admin_->Handshake(c, deadline, &error).ok()) {
    if (error.empty()) error = "no answer within redis.timeout_ms";
    throw SetupError(where + "AUTH/SELECT refused: " + error);
  }
  // Catches a server that wants a password we do not have (NOAUTH).
  std::string r;
  Status st = admin_->CallAt(0, deadline, [](std::string& out) { resp::AppendCommand(out, "PING"); }, &r);
  if (!st.ok()) throw SetupError(where + "no answer to PING (" + std::string(st.name()) + ")");
  if (r[0] == '-') throw SetupError(where + std::string(resp::ErrorMessage(r)));
  if (o_.cluster) {
    st = admin_->CallAt(0, deadline, [](std::string& out) { resp::AppendCommand(out, "CLUSTER", "SLOTS"); }, &r);
    if (!st.ok()) throw SetupError(where + "no answer to CLUSTER SLOTS");
    if (r[0] == '-') {
      throw SetupError(where + "CLUSTER SLOTS: " + std::string(resp::ErrorMessage(r)) +
                       " (is it a cluster node? redis.cluster=true)");
    }
    if (!map_.Apply(r, o_.seed.host)) throw SetupError(where + "bad CLUSTER SLOTS reply");
    if (map_.nodes.empty()) throw SetupError(where + "the cluster serves no slots");
  }
  if (o_.layout == Layout::kHash) {
    for (std::string_view s : kScripts) {
      st = admin_->CallAt(0, deadline, [s](std::string& out) { resp::AppendCommand(out, "SCRIPT", "LOAD", s); }, &r);
      if (!st.ok()) throw SetupError(where + "no answer to SCRIPT LOAD");
      resp::Item it = resp::ReplyCursor(r).Next();
      if (it.type != '$' || it.n <= 0) throw SetupError(where + "SCRIPT LOAD: " + std::string(it.str));
      shas_.emplace_back(it.str);
    }
  } else {
    shas_.resize(3);
  }
  // From now on the admin client (Stats) knows the cluster too.
  admin_ = std::make_unique<Client>(o_, map_, Scripts{kScripts, shas_}, 1, &counts_);
}

std::shared_ptr<Client> RedisStore::NewClient(int sharers) {
  return std::make_shared<Client>(o_, map_, Scripts{kScripts, shas_}, sharers, &counts_);
}

std::unique_ptr<Session> RedisStore::NewSession(int) { return NewRedisSession(NewClient(1)); }

std::unique_ptr<Session> RedisStore::NewClientSession(const ClientSlot& slot) {
  if (o_.pipeline <= 1) return NewSession(slot.thread);
  return NewRedisSession(links_.Get(slot, [&] { return NewClient(o_.pipeline); }));
}

Capabilities RedisStore::capabilities() const {
  Capabilities c;
  c.scan = o_.layout == Layout::kHash;
  if (!c.scan) c.why_no_scan = "redis.layout=string keeps no key index (one GET/SET per record)";
  c.persistent = true;
  c.atomic_update = o_.layout == Layout::kHash;
  c.waits_through_io = true;
  c.pipeline = o_.pipeline;
  c.native_batch_insert = !o_.cluster;  // MSET / one pipelined write; a cluster inserts one by one
  c.transactions = !o_.cluster;         // WATCH/MULTI/EXEC
  if (o_.cluster) c.why_no_transactions = "redis.cluster=true: a transaction's keys may live on different nodes";
  return c;
}

bool RedisStore::AdminCall(std::uint16_t node, std::string_view command, std::int64_t deadline, resp::Item* item) {
  auto enc = [command](std::string& o) { resp::AppendCommand(o, command); };
  if (!admin_->CallAt(node, deadline, enc, &admin_reply_).ok()) return false;
  *item = resp::ReplyCursor(admin_reply_).Next();
  return true;
}

std::vector<std::pair<std::string, std::string>> RedisStore::Stats() {
  std::vector<std::pair<std::string, std::string>> out;
  std::lock_guard lock(admin_mu_);
  const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
  resp::Item it;
  if (AdminCall(admin_->NodeFor(""), "INFO", deadline, &it)) {
    for (std::string_view name : {"redis_version", "used_memory"}) {
      const std::string pat = "\n" + std::string(name) + ":";
      const auto at = it.str.find(pat);
      if (it.type == '$' && at != std::string_view::npos) {
        std::string_view v = it.str.substr(at + pat.size());
        v = v.substr(0, v.find('\r'));
        out.emplace_back(std::string(name), std::string(v));
      }
    }
  }
  std::int64_t keys = 0;
  bool all = true;
  for (std::size_t n = 0; n < admin_->node_count(); ++n) {
    if (AdminCall(static_cast<std::uint16_t>(n), "DBSIZE", deadline, &it) && it.type == ':') {
      keys += it.n;
    } else {
      all = false;
    }
  }
  if (all) out.emplace_back("keys", std::to_string(keys));
  if (o_.cluster) {
    out.emplace_back("cluster_nodes", std::to_string(admin_->node_count()));
    out.emplace_back("moved_redirects", std::to_string(counts_.moved.load()));
    out.emplace_back("ask_redirects", std::to_string(counts_.ask.load()));
  }
  return out;
}

}  // namespace storebench::redis
