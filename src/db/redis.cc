// Binding "redis": Redis, standalone or Cluster, over our own RESP client.
//
// Why not hiredis: its blocking API cannot yield to the runner's fibers.
// Every wait here goes through net::TcpConnection, i.e. net/io.h, so one
// client per thread and many clients per thread (fibers) run the same code.
//
// Protocol: RESP2. A request is "append the encoded command(s) to the
// connection's output buffer, then expect N replies"; commands are encoded
// straight into that buffer (no temporary strings). A reply is located by
// ParseReply (the length of the complete reply at the front of the input,
// 0 while more bytes are needed, so a reply may arrive in any number of
// reads) and then read in place with a ReplyCursor before it is consumed.
//
// Layouts (redis.layout):
//   hash   (default, YCSB's redis layout) a hash per record at
//          "<table>:<key>", fields as hash fields, and one sorted set
//          "<table>:_index" per table whose members (score 0) are the keys,
//          for scans (ZRANGEBYLEX "[start" + LIMIT 0 count, then the
//          records fetched in one pipelined write). Redis hashes do not keep
//          their fields' order once they outgrow a listpack, so each record
//          carries one more field, kOrderField, listing its field names in
//          written order ("LEN:NAME" repeated); reads return fields in that
//          order. It also lets a record have no fields at all.
//          Insert = Lua script DEL + HSET (+ ZADD): atomic, exactly these
//                   fields. In cluster mode the ZADD goes separately to the
//                   index's node (the index is another slot).
//          Update = Lua script: NOT_FOUND unless the key exists, then HSET
//                   of each field (new names appended to the order field):
//                   atomic, so capabilities().atomic_update is true.
//          Read   = HGETALL, or HMGET of the order field and the wanted names.
//          Delete = Lua script DEL (+ ZREM); NOT_FOUND when nothing was there.
//          Scripts are loaded with SCRIPT LOAD at open and run with EVALSHA;
//          on a NOSCRIPT reply (a restarted server, another cluster node) they
//          are loaded on that connection again and the command is retried.
//   string one value per key (memtier-style): the record encoded with the
//          shared record codec; Insert = SET, Read = GET, Update = GET +
//          MergeRecord + SET XX (two round trips, not atomic), or with
//          redis.update=replace one SET XX of the given fields (right when
//          every update writes every field), or with redis.update=set one
//          plain SET, byte for byte memtier's SET (it also creates a missing
//          record: an update is then never NOT_FOUND), Delete = DEL.
//          No index, so no scans.
//
// Cluster (redis.cluster=true; redis.host/port = any node): the slot map
// comes from CLUSTER SLOTS; a key's slot is CRC16/XMODEM of the key (or of
// its {hashtag}) mod 16384; each session connects lazily to each node it
// needs. MOVED refreshes the map and retries; ASK sends ASKING and retries at
// the named node. Redirections are counted in Stats().
//
// Pipelining (redis.pipeline=N): the runner hosts N clients per connection;
// NewClientSession gives the clients of one {thread, connection} one shared
// Client, whose net::Pipeline per node queues their commands, sends them in
// one write and hands each its reply in order (as memtier's --pipeline, but
// every operation keeps its own latency). Each reply is copied into the
// session's buffer before it is parsed, so a session never reads a
// connection another client may be reading. A scan's record fetches go as
// one pipelined write per node.
//
// Transactions (Session::Begin; standalone only: in a cluster the keys of
// one transaction may live on different nodes): optimistic, with WATCH/
// MULTI/EXEC. A read inside first WATCHes its key, then reads it at once;
// writes inside are queued in the session (not sent, so reads inside do not
// see them) and Commit sends MULTI, the queued writes and EXEC in one
// pipelined write. EXEC's nil reply (a watched key changed) is ABORTED;
// Abort sends UNWATCH. One transaction per connection: not with
// redis.pipeline > 1.
//
// Failures: no connection -> SERVICE_UNAVAILABLE (TcpConnection reconnects
// with backoff on a later operation, then AUTH/SELECT are replayed); a
// timeout, a broken connection, a server error reply -> ERROR. Operations
// never throw (Guard). open() connects, authenticates and loads the scripts,
// so an unreachable server or a wrong password is a one-line SetupError.
#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/record_codec.h"
#include "db/resp.h"
#include "net/io.h"
#include "net/pipeline.h"
#include "net/socket.h"

namespace storebench {
namespace {

using resp::Item;
using resp::kBadReply;
using resp::KeySlot;
using resp::kNoNode;
using resp::ParseInt;
using resp::ParseRedirect;
using resp::ParseReply;
using resp::ReplyCursor;
using resp::SlotMap;

constexpr int kMaxRedirects = 5;
// The hidden hash field holding the record's field names in written order.
constexpr std::string_view kOrderField = "\xff" "storebench:order";

// ---------------------------------------------------------------------------
// RESP (replies, cluster slots and redirections: db/resp.h)

// Command encoding, appended to a connection's output buffer.
void Header(std::string& o, char type, std::size_t n) {
  char buf[24];
  buf[0] = type;
  char* p = std::to_chars(buf + 1, buf + sizeof buf - 2, n).ptr;
  *p++ = '\r';
  *p++ = '\n';
  o.append(buf, static_cast<std::size_t>(p - buf));
}
void Arg(std::string& o, std::string_view a) {
  Header(o, '$', a.size());
  o.append(a.data(), a.size());
  o.append("\r\n", 2);
}
void ArgInt(std::string& o, std::int64_t v) {
  char buf[24];
  char* p = std::to_chars(buf, buf + sizeof buf, v).ptr;
  Arg(o, std::string_view(buf, static_cast<std::size_t>(p - buf)));
}
// "<a><b>" as one argument.
void Arg2(std::string& o, std::string_view a, std::string_view b) {
  Header(o, '$', a.size() + b.size());
  o.append(a.data(), a.size());
  o.append(b.data(), b.size());
  o.append("\r\n", 2);
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// ---------------------------------------------------------------------------
// Options and scripts

enum class Layout { kHash, kString };

struct RedisOptions {
  net::Endpoint seed;
  std::string password;
  std::string user;
  bool cluster = false;
  int database = 0;
  std::int64_t timeout_ms = 5000;
  Layout layout = Layout::kHash;
  bool replace_on_update = false;  // redis.update=replace or set (string layout)
  bool blind_set = false;          // redis.update=set: SET without XX
  int pipeline = 1;
};

RedisOptions ParseOptions(const Properties& props) {
  RedisOptions o;
  o.seed.host = props.GetString("redis.host", "127.0.0.1");
  if (o.seed.host.empty()) throw ConfigError("property 'redis.host' is empty: expected a host name or address");
  o.seed.port = static_cast<int>(props.GetInt("redis.port", 6379, 1, 65535));
  o.password = props.GetString("redis.password", "");
  if (o.password.empty()) {
    if (const char* env = std::getenv("STOREBENCH_REDIS_PASSWORD")) o.password = env;
  }
  o.user = props.GetString("redis.user", "");
  if (!o.user.empty() && o.password.empty()) {
    throw ConfigError("property 'redis.user' needs a password (redis.password or STOREBENCH_REDIS_PASSWORD)");
  }
  o.cluster = props.GetBool("redis.cluster", false);
  o.database = static_cast<int>(props.GetInt("redis.database", 0, 0, 1 << 20));
  if (o.cluster && o.database != 0) {
    throw ConfigError("property 'redis.database' must be 0 with redis.cluster=true (a cluster has one database)");
  }
  o.timeout_ms = props.GetInt("redis.timeout_ms", 5000, 1, std::int64_t{1} << 40);
  o.layout = props.GetChoice("redis.layout", "hash", {"hash", "string"}) == "string" ? Layout::kString : Layout::kHash;
  o.pipeline = static_cast<int>(props.GetInt("redis.pipeline", 1, 1, 1024));
  const std::string update = props.GetChoice("redis.update", "merge", {"merge", "replace", "set"});
  o.replace_on_update = update != "merge";
  o.blind_set = update == "set";
  if (o.replace_on_update && o.layout != Layout::kString) {
    throw ConfigError("property 'redis.update=" + update +
                      "' needs redis.layout=string (a hash update sets only its fields)");
  }
  return o;
}

// KEYS: record [, index]   ARGV: member, order-field name, order, f1, v1, ...
constexpr std::string_view kInsertScript =
    "redis.call('DEL', KEYS[1])\n"
    "redis.call('HSET', KEYS[1], unpack(ARGV, 2))\n"
    "if KEYS[2] then redis.call('ZADD', KEYS[2], 0, ARGV[1]) end\n"
    "return 1\n";
// KEYS: record   ARGV: order-field name, f1, v1, ...   -> 0 when missing
constexpr std::string_view kUpdateScript =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end\n"
    "local add = {}\n"
    "for i = 2, #ARGV, 2 do\n"
    "  if redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then\n"
    "    add[#add + 1] = #ARGV[i] .. ':' .. ARGV[i]\n"
    "  end\n"
    "end\n"
    "if #add > 0 then\n"
    "  local o = redis.call('HGET', KEYS[1], ARGV[1])\n"
    "  if o then redis.call('HSET', KEYS[1], ARGV[1], o .. table.concat(add)) end\n"
    "end\n"
    "return 1\n";
// KEYS: record [, index]   ARGV: member   -> number of keys deleted
constexpr std::string_view kDeleteScript =
    "local n = redis.call('DEL', KEYS[1])\n"
    "if KEYS[2] then redis.call('ZREM', KEYS[2], ARGV[1]) end\n"
    "return n\n";
constexpr std::string_view kScripts[] = {kInsertScript, kUpdateScript, kDeleteScript};
enum ScriptId { kInsert = 0, kUpdate = 1, kDelete = 2 };

class RedisStore;

// ---------------------------------------------------------------------------
// Client: the connections of one session (or of the pipelined sessions of
// one {thread, connection}), one per node, and the protocol over them.
// Used from one thread. Every request goes through the node's
// net::Pipeline: the clients sharing this Client queue their commands, one
// of them writes them all in one send and reads the replies back in order,
// and each reply is copied out of the connection into the caller's own
// buffer (so it stays valid whoever reads next).

class Client {
 public:
  Client(RedisStore* store, const RedisOptions& o, const SlotMap& map, std::vector<std::string> shas, int sharers)
      : store_(store), o_(o), map_(map), shas_(std::move(shas)), sharers_(sharers) {
    if (!o_.cluster || map_.nodes.empty()) {  // (an empty map: the store's setup client)
      map_.nodes = {o_.seed};
      std::fill(map_.slot_node.begin(), map_.slot_node.end(), 0);
    }
    links_.resize(map_.nodes.size());
  }

  std::uint16_t NodeFor(std::string_view key) const {
    if (!o_.cluster) return 0;
    return map_.slot_node[static_cast<std::size_t>(KeySlot(key))];
  }
  std::size_t node_count() const { return map_.nodes.size(); }

  // The connection to `node` (opened on first use by the pipeline, with
  // AUTH/SELECT replayed after every reconnect).
  net::TcpConnection& Conn(std::uint16_t node) { return Link(node).conn; }

  // Sends AUTH/SELECT on a fresh connection and checks their replies. On a
  // refused handshake *error (if given) says why.
  Status Handshake(net::TcpConnection& c, std::int64_t deadline, std::string* error) {
    int replies = 0;
    std::string& out = c.out();
    if (!o_.password.empty()) {
      Header(out, '*', o_.user.empty() ? 2 : 3);
      Arg(out, "AUTH");
      if (!o_.user.empty()) Arg(out, o_.user);
      Arg(out, o_.password);
      ++replies;
    }
    if (!o_.cluster && o_.database != 0) {
      Header(out, '*', 2);
      Arg(out, "SELECT");
      ArgInt(out, o_.database);
      ++replies;
    }
    if (replies == 0) return Status::Ok();
    Status st = c.Flush(deadline);
    if (!st.ok()) return st;
    Status result = Status::Ok();
    for (int i = 0; i < replies; ++i) {
      std::size_t n = 0;
      while ((n = ParseReply(c.in())) == 0) {
        if (st = c.Fill(deadline); !st.ok()) return st;
      }
      if (n == kBadReply) {
        c.Disconnect();
        return Status::Error();
      }
      Item it = ReplyCursor(c.in().substr(0, n)).Next();
      if (it.error() && result.ok()) {
        if (error != nullptr) *error = std::string(it.str);
        result = Status::Error();
      }
      c.Consume(n);
    }
    if (!result.ok()) c.Disconnect();
    return result;
  }

  // Sends what `enc(out)` appends (it may be several commands) to `node` and
  // waits for `replies` replies; the first `skip` of them are dropped, the
  // others are copied, back to back, into *buf. No redirection handling.
  template <typename Enc>
  Status Exchange(std::uint16_t node, std::int64_t deadline, Enc&& enc, std::size_t replies, std::size_t skip,
                  std::string* buf) {
    auto parse = [&](std::string_view in) -> std::size_t {
      std::size_t pos = 0, start = 0;
      for (std::size_t i = 0; i < replies; ++i) {
        const std::size_t n = ParseReply(in.substr(pos));
        if (n == kBadReply) return net::Pipeline::kBroken;
        if (n == 0) return 0;
        pos += n;
        if (i < skip) start = pos;
      }
      buf->assign(in.data() + start, pos - start);
      return pos;
    };
    return Link(node).pipe.Call(enc, parse, deadline);
  }

  // Sends one command (written by `enc(out)`) to the node serving `route`
  // and waits for its reply, following MOVED/ASK and reloading the scripts
  // on NOSCRIPT. On OK, *reply holds the reply. Error replies other than
  // those are returned as replies (OK status) for the caller to judge.
  template <typename Enc>
  Status Call(std::string_view route, std::int64_t deadline, Enc&& enc, std::string* reply) {
    return CallAt(NodeFor(route), deadline, enc, reply);
  }

  template <typename Enc>
  Status CallAt(std::uint16_t node, std::int64_t deadline, Enc&& enc, std::string* reply) {
    bool asking = false;
    bool reloaded = false;
    for (int attempt = 0; attempt <= kMaxRedirects; ++attempt) {
      if (node == kNoNode) return Status::Error();  // slot not served
      const bool ask = asking;
      auto write = [&](std::string& out) {
        if (ask) {
          Header(out, '*', 1);
          Arg(out, "ASKING");
        }
        enc(out);
      };
      Status st = Exchange(node, deadline, write, ask ? 2 : 1, ask ? 1 : 0, reply);
      if (!st.ok()) return st;
      asking = false;
      const std::string_view r = *reply;
      if (r[0] == '-') {
        const std::string_view err = r.substr(1, r.size() - 3);
        const std::string& host = map_.nodes[node].host;
        int slot = 0;
        net::Endpoint ep;
        if (StartsWith(err, "MOVED ") && ParseRedirect(err, host, &slot, &ep)) {
          CountMoved();
          map_.slot_node[static_cast<std::size_t>(slot)] = map_.FindOrAdd(ep);
          node = map_.slot_node[static_cast<std::size_t>(slot)];
          Refresh(node, deadline);  // the rest of the map probably moved too
          continue;
        }
        if (StartsWith(err, "ASK ") && ParseRedirect(err, host, &slot, &ep)) {
          CountAsk();
          node = map_.FindOrAdd(ep);
          asking = true;
          continue;
        }
        if (StartsWith(err, "NOSCRIPT") && !reloaded) {
          reloaded = true;
          st = LoadScripts(node, deadline);
          if (!st.ok()) return st;
          asking = ask;  // still the importing node's key
          --attempt;
          continue;
        }
      }
      return Status::Ok();
    }
    return Status::Error();  // redirected too often
  }

  // Re-reads the slot map from `node` (cluster mode). Best effort.
  void Refresh(std::uint16_t node, std::int64_t deadline) {
    if (!o_.cluster) return;
    auto enc = [](std::string& out) {
      Header(out, '*', 2);
      Arg(out, "CLUSTER");
      Arg(out, "SLOTS");
    };
    std::string reply;  // (rare: no reused buffer, which a sharing client could overwrite)
    if (!CallAt(node, deadline, enc, &reply).ok()) return;
    const std::string host = map_.nodes[node].host;
    map_.Apply(reply, host);
  }

  Status LoadScripts(std::uint16_t node, std::int64_t deadline) {
    auto enc = [](std::string& out) {
      for (std::string_view s : kScripts) {
        Header(out, '*', 3);
        Arg(out, "SCRIPT");
        Arg(out, "LOAD");
        Arg(out, s);
      }
    };
    std::string replies;
    Status st = Exchange(node, deadline, enc, std::size(kScripts), 0, &replies);
    if (!st.ok()) return st;
    std::string_view r = replies;
    while (!r.empty()) {
      if (r[0] != '$') return Status::Error();
      r.remove_prefix(ParseReply(r));
    }
    return Status::Ok();
  }

  const std::string& sha(ScriptId id) const { return shas_[id]; }
  const RedisOptions& options() const { return o_; }
  void CountMoved();
  void CountAsk();

 private:
  struct NodeLink {
    NodeLink(Client* client, net::Endpoint ep)
        : conn(std::move(ep)), pipe(&conn, [client](net::TcpConnection& c) {
            return client->Handshake(c, net::DeadlineAfterMs(client->o_.timeout_ms), nullptr);
          }) {}
    net::TcpConnection conn;
    net::Pipeline pipe;
  };

  NodeLink& Link(std::uint16_t node) {
    if (links_.size() < map_.nodes.size()) links_.resize(map_.nodes.size());
    auto& l = links_[node];
    if (!l) {
      l = std::make_unique<NodeLink>(this, map_.nodes[node]);
      l->pipe.set_sharers(sharers_);
    }
    return *l;
  }

  RedisStore* store_;
  RedisOptions o_;
  SlotMap map_;
  std::vector<std::string> shas_;
  int sharers_;
  std::vector<std::unique_ptr<NodeLink>> links_;
};

// ---------------------------------------------------------------------------
// Store

class RedisStore : public Store {
 public:
  explicit RedisStore(const RedisOptions& o) : o_(o) {
    admin_ = std::make_unique<Client>(this, o_, SlotMap{}, std::vector<std::string>(3), 1);
    const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
    std::string error;
    net::TcpConnection& c = admin_->Conn(0);
    if (!c.Connect(deadline, &error)) throw SetupError("redis: cannot connect to " + error);
    if (!admin_->Handshake(c, deadline, &error).ok()) {
      if (error.empty()) error = "no answer within redis.timeout_ms";
      throw SetupError("redis: " + o_.seed.ToString() + ": AUTH/SELECT refused: " + error);
    }
    // Catches a server that wants a password we do not have (NOAUTH).
    std::string r;
    Status st = admin_->CallAt(0, deadline, [](std::string& out) { Header(out, '*', 1); Arg(out, "PING"); }, &r);
    if (!st.ok()) throw SetupError("redis: " + o_.seed.ToString() + ": no answer to PING (" + std::string(st.name()) + ")");
    if (r[0] == '-') throw SetupError("redis: " + o_.seed.ToString() + ": " + r.substr(1, r.size() - 3));
    if (o_.cluster) {
      auto enc = [](std::string& out) {
        Header(out, '*', 2);
        Arg(out, "CLUSTER");
        Arg(out, "SLOTS");
      };
      st = admin_->CallAt(0, deadline, enc, &r);
      if (!st.ok()) throw SetupError("redis: " + o_.seed.ToString() + ": no answer to CLUSTER SLOTS");
      if (r[0] == '-') {
        throw SetupError("redis: " + o_.seed.ToString() + ": CLUSTER SLOTS: " + r.substr(1, r.size() - 3) +
                         " (is it a cluster node? redis.cluster=true)");
      }
      if (!map_.Apply(r, o_.seed.host)) throw SetupError("redis: " + o_.seed.ToString() + ": bad CLUSTER SLOTS reply");
      if (map_.nodes.empty()) throw SetupError("redis: " + o_.seed.ToString() + ": the cluster serves no slots");
    }
    if (o_.layout == Layout::kHash) {
      for (std::string_view s : kScripts) {
        st = admin_->CallAt(
            0, deadline,
            [s](std::string& out) {
              Header(out, '*', 3);
              Arg(out, "SCRIPT");
              Arg(out, "LOAD");
              Arg(out, s);
            },
            &r);
        if (!st.ok()) throw SetupError("redis: " + o_.seed.ToString() + ": no answer to SCRIPT LOAD");
        Item it = ReplyCursor(r).Next();
        if (it.type != '$' || it.n <= 0) {
          throw SetupError("redis: " + o_.seed.ToString() + ": SCRIPT LOAD: " + std::string(it.str));
        }
        shas_.emplace_back(it.str);
      }
    } else {
      shas_.resize(3);
    }
    // From now on the admin client (Stats) knows the cluster too.
    admin_ = std::make_unique<Client>(this, o_, map_, shas_, 1);
  }

  std::unique_ptr<Session> NewSession(int thread_id) override;
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override;

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = o_.layout == Layout::kHash;
    if (!c.scan) c.why_no_scan = "redis.layout=string keeps no key index (one GET/SET per record)";
    c.persistent = true;
    c.atomic_update = o_.layout == Layout::kHash;
    c.waits_through_io = true;
    c.pipeline = o_.pipeline;
    c.native_batch_insert = !o_.cluster;  // MSET / one pipelined write; a cluster inserts one by one
    c.transactions = !o_.cluster;  // WATCH/MULTI/EXEC
    if (o_.cluster) c.why_no_transactions = "redis.cluster=true: a transaction's keys may live on different nodes";
    return c;
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    std::lock_guard lock(admin_mu_);
    const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
    std::string r;
    auto info = [](std::string& o) {
      Header(o, '*', 1);
      Arg(o, "INFO");
    };
    if (admin_->CallAt(admin_->NodeFor(""), deadline, info, &r).ok()) {
      Item it = ReplyCursor(r).Next();
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
      auto dbsize = [](std::string& o) {
        Header(o, '*', 1);
        Arg(o, "DBSIZE");
      };
      if (admin_->CallAt(static_cast<std::uint16_t>(n), deadline, dbsize, &r).ok()) {
        Item it = ReplyCursor(r).Next();
        if (it.type == ':') keys += it.n; else all = false;
      } else {
        all = false;
      }
    }
    if (all) out.emplace_back("keys", std::to_string(keys));
    if (o_.cluster) {
      out.emplace_back("cluster_nodes", std::to_string(admin_->node_count()));
      out.emplace_back("moved_redirects", std::to_string(moved_.load()));
      out.emplace_back("ask_redirects", std::to_string(ask_.load()));
    }
    return out;
  }

  std::atomic<std::uint64_t> moved_{0};
  std::atomic<std::uint64_t> ask_{0};

 private:
  std::shared_ptr<Client> NewClient(int sharers) { return std::make_shared<Client>(this, o_, map_, shas_, sharers); }

  RedisOptions o_;
  SlotMap map_;
  std::vector<std::string> shas_;
  std::mutex admin_mu_;
  std::unique_ptr<Client> admin_;
  std::mutex links_mu_;
  std::map<std::pair<int, int>, std::weak_ptr<Client>> links_;
};

void Client::CountMoved() { store_->moved_.fetch_add(1, std::memory_order_relaxed); }
void Client::CountAsk() { store_->ask_.fetch_add(1, std::memory_order_relaxed); }

// ---------------------------------------------------------------------------
// Session

class RedisSession : public Session {
 public:
  explicit RedisSession(std::shared_ptr<Client> client)
      : client_(std::move(client)), o_(client_->options()) {}

  Status Begin(const TxOptions&) override {
    if (in_tx_ || o_.cluster) return in_tx_ ? Status::Error() : Status::NotImplemented();
    in_tx_ = true;
    watching_ = false;
    tx_cmds_.clear();
    tx_count_ = 0;
    return Status::Ok();
  }

  Status Commit() override {
    return Guard([&] {
      if (!in_tx_) return Status::Error();
      in_tx_ = false;
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      if (tx_count_ == 0) return watching_ ? Unwatch(deadline) : Status::Ok();
      // MULTI, the queued writes, EXEC: 1 + tx_count_ + 1 replies, EXEC's kept.
      Status st = client_->Exchange(client_->NodeFor(""), deadline, [&](std::string& o) {
        Header(o, '*', 1);
        Arg(o, "MULTI");
        o.append(tx_cmds_);
        Header(o, '*', 1);
        Arg(o, "EXEC");
      }, tx_count_ + 2, tx_count_ + 1, &reply_);
      if (!st.ok()) return st;
      ReplyCursor cur(reply_);
      Item top = cur.Next();
      if (top.type == '*' && top.nil()) return Status(Status::kAborted);  // a watched key changed
      if (top.type != '*' || top.n != static_cast<std::int64_t>(tx_count_)) return Status::Error();
      for (std::size_t i = 0; i < tx_count_; ++i) {
        Item it = cur.Next();
        if (it.error()) return Status::Error();
      }
      return Status::Ok();
    });
  }

  Status Abort() override {
    return Guard([&] {
      if (!in_tx_) return Status::Ok();
      in_tx_ = false;
      tx_cmds_.clear();
      tx_count_ = 0;
      return watching_ ? Unwatch(net::DeadlineAfterMs(o_.timeout_ms)) : Status::Ok();
    });
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    out->Clear();
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      RecordKey(table, key);
      const std::string& r = reply_;
      if (in_tx_) {
        if (Status st = Watch(deadline); !st.ok()) return st;
      }
      if (o_.layout == Layout::kString) {
        Status st = KeyCommand("GET", deadline);
        if (!st.ok()) return st;
        Item it = ReplyCursor(r).Next();
        Status result = Status::Ok();
        if (it.type != '$') {
          result = Status::Error();
        } else if (it.nil()) {
          result = Status::NotFound();
        } else {
          out->BeginRecord(key);
          if (!DecodeRecord(it.str, fields, out)) {
            out->Clear();
            result = Status::Error();
          }
        }
        return result;
      }
      Status st = client_->Call(key_, deadline, [&](std::string& o) { EncodeHashRead(o, key_, fields); }, &reply_);
      if (!st.ok()) return st;
      Status result = EmitHash(r, key, fields, out);
      return result;
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    out->Clear();
    if (o_.layout != Layout::kHash) return Status::NotImplemented();
    if (count == 0) return Status::Ok();
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      IndexKey(table);
      const std::string& r = reply_;
      Status st = client_->Call(index_, deadline, [&](std::string& o) {
        Header(o, '*', 7);
        Arg(o, "ZRANGEBYLEX");
        Arg(o, index_);
        Arg2(o, "[", start_key);
        Arg(o, "+");
        Arg(o, "LIMIT");
        Arg(o, "0");
        ArgInt(o, static_cast<std::int64_t>(std::min<std::uint64_t>(count, INT64_MAX)));
      }, &reply_);
      if (!st.ok()) return st;
      // Copy the members out: reply_ is reused for the records.
      members_.clear();
      member_ends_.clear();
      ReplyCursor cur(r);
      Item top = cur.Next();
      if (top.type != '*') {
        return Status::Error();
      }
      for (std::int64_t i = 0; i < top.n; ++i) {
        Item m = cur.Next();
        members_.append(m.str);
        member_ends_.push_back(members_.size());
      }
      return FetchMembers(table, fields, deadline, out);
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      RecordKey(table, key);
      const std::string& r = reply_;
      if (o_.layout == Layout::kString) {
        // The new value: the given fields (replace), or them merged into the stored record.
        if (o_.replace_on_update) {
          EncodeRecord(values, &value_);
        } else {
          if (in_tx_) {
            if (Status st = Watch(deadline); !st.ok()) return st;
          }
          Status st = KeyCommand("GET", deadline);
          if (!st.ok()) return st;
          Item it = ReplyCursor(r).Next();
          if (it.type != '$') return Status::Error();
          if (it.nil()) return Status::NotFound();
          if (!MergeRecord(it.str, values, &value_)) return Status::Error();
        }
        Status st = WriteCall(deadline, "+OK\r\n", [&](std::string& o) {
          Header(o, '*', o_.blind_set ? 3 : 4);
          Arg(o, "SET");
          Arg(o, key_);
          Arg(o, value_);
          if (!o_.blind_set) Arg(o, "XX");
        }, &reply_);
        if (!st.ok()) return st;
        Item it = ReplyCursor(r).Next();
        return it.type == '+' ? Status::Ok() : it.nil() ? Status::NotFound() : Status::Error();
      }
      const std::string& sha = client_->sha(kUpdate);
      Status st = WriteCall(deadline, ":1\r\n", [&](std::string& o) {
        Header(o, '*', 5 + 2 * values.size());
        Arg(o, "EVALSHA");
        Arg(o, sha);
        Arg(o, "1");
        Arg(o, key_);
        Arg(o, kOrderField);
        for (const Field& f : values) {
          Arg(o, f.name);
          Arg(o, f.value);
        }
      }, &reply_);
      if (!st.ok()) return st;
      Item it = ReplyCursor(r).Next();
      Status result = it.type != ':' ? Status::Error() : it.n == 0 ? Status::NotFound() : Status::Ok();
      return result;
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      RecordKey(table, key);
      const std::string& r = reply_;
      if (o_.layout == Layout::kString) {
        EncodeRecord(values, &value_);
        Status st = WriteCall(deadline, "+OK\r\n", [&](std::string& o) {
          Header(o, '*', 3);
          Arg(o, "SET");
          Arg(o, key_);
          Arg(o, value_);
        }, &reply_);
        if (!st.ok()) return st;
        Status result = r[0] == '+' ? Status::Ok() : Status::Error();
        return result;
      }
      IndexKey(table);
      // In a cluster the index lives in another slot: ZADD it separately.
      const bool index_in_script = !o_.cluster;
      const std::string& sha = client_->sha(kInsert);
      Status st = WriteCall(deadline, ":1\r\n", [&](std::string& o) {
        EncodeInsert(o, sha, key, values, index_in_script);
      }, &reply_);
      if (!st.ok()) return st;
      Status result = r[0] == ':' ? Status::Ok() : Status::Error();
      if (!result.ok() || index_in_script) return result;
      st = client_->Call(index_, deadline, [&](std::string& o) {
        Header(o, '*', 4);
        Arg(o, "ZADD");
        Arg(o, index_);
        Arg(o, "0");
        Arg(o, key);
      }, &reply_);
      if (!st.ok()) return st;
      result = r[0] == ':' ? Status::Ok() : Status::Error();
      return result;
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      RecordKey(table, key);
      const std::string& r = reply_;
      if (o_.layout == Layout::kString) {
        Status st = in_tx_ ? WriteCall(deadline, ":1\r\n", [&](std::string& o) {
          Header(o, '*', 2);
          Arg(o, "DEL");
          Arg(o, key_);
        }, &reply_) : KeyCommand("DEL", deadline);
        if (!st.ok()) return st;
        Item it = ReplyCursor(r).Next();
        Status result = it.type != ':' ? Status::Error() : it.n == 0 ? Status::NotFound() : Status::Ok();
        return result;
      }
      IndexKey(table);
      const bool index_in_script = !o_.cluster;
      const std::string& sha = client_->sha(kDelete);
      Status st = WriteCall(deadline, ":1\r\n", [&](std::string& o) {
        Header(o, '*', index_in_script ? 6 : 5);
        Arg(o, "EVALSHA");
        Arg(o, sha);
        Arg(o, index_in_script ? "2" : "1");
        Arg(o, key_);
        if (index_in_script) Arg(o, index_);
        Arg(o, key);
      }, &reply_);
      if (!st.ok()) return st;
      Item it = ReplyCursor(r).Next();
      Status result = it.type != ':' ? Status::Error() : it.n == 0 ? Status::NotFound() : Status::Ok();
      if (result == Status::Error() || index_in_script) return result;
      st = client_->Call(index_, deadline, [&](std::string& o) {
        Header(o, '*', 3);
        Arg(o, "ZREM");
        Arg(o, index_);
        Arg(o, key);
      }, &reply_);
      if (!st.ok()) return st;
      if (r[0] != ':') result = Status::Error();
      return result;
    });
  }

  // Standalone server: the whole batch in one round trip (one Exchange):
  // with redis.layout=string one MSET (atomic), with the hash layout one
  // pipelined write of Insert's script calls, one per record (each record
  // atomic, the batch best effort). A NOSCRIPT reply (a restarted server)
  // reloads the scripts and sends the batch again (inserts overwrite, so
  // that is safe). Cluster mode: the records' slots differ, so Insert one
  // by one (the default), following redirections.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    if (o_.cluster) return Session::BatchInsert(table, batch);
    if (batch.empty()) return Status::Ok();
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(o_.timeout_ms);
      const std::size_t n = batch.size();
      if (o_.layout == Layout::kString) {
        Status st = client_->Exchange(0, deadline, [&](std::string& o) {
          Header(o, '*', 1 + 2 * n);
          Arg(o, "MSET");
          for (std::size_t i = 0; i < n; ++i) {
            RecordKey(table, batch.key(i));
            Arg(o, key_);
            EncodeRecord(batch.values(i), &value_);
            Arg(o, value_);
          }
        }, 1, 0, &reply_);
        if (!st.ok()) return st;
        return reply_[0] == '+' ? Status::Ok() : Status::Error();
      }
      IndexKey(table);
      const std::string& sha = client_->sha(kInsert);
      for (int attempt = 0; attempt < 2; ++attempt) {
        Status st = client_->Exchange(0, deadline, [&](std::string& o) {
          for (std::size_t i = 0; i < n; ++i) {
            RecordKey(table, batch.key(i));
            EncodeInsert(o, sha, batch.key(i), batch.values(i), true);
          }
        }, n, 0, &reply_);
        if (!st.ok()) return st;
        ReplyCursor cur(reply_);
        bool noscript = false;
        Status result = Status::Ok();
        for (std::size_t i = 0; i < n; ++i) {
          Item it = cur.Next();
          if (it.type == ':') continue;
          if (it.error() && StartsWith(it.str, "NOSCRIPT")) noscript = true;
          result = Status::Error();
        }
        if (!noscript || attempt > 0) return result;
        st = client_->LoadScripts(0, deadline);
        if (!st.ok()) return st;
      }
      return Status::Error();
    });
  }

 private:
  // EVALSHA of the insert script for key_ (and the index index_, when
  // `with_index`): DEL + HSET of exactly these fields (+ ZADD).
  void EncodeInsert(std::string& o, const std::string& sha, std::string_view key, std::span<const Field> values,
                    bool with_index) {
    order_.clear();
    for (const Field& f : values) {
      char buf[24];
      char* p = std::to_chars(buf, buf + sizeof buf, f.name.size()).ptr;
      *p++ = ':';
      order_.append(buf, static_cast<std::size_t>(p - buf));
      order_.append(f.name);
    }
    Header(o, '*', (with_index ? 8 : 7) + 2 * values.size());
    Arg(o, "EVALSHA");
    Arg(o, sha);
    Arg(o, with_index ? "2" : "1");
    Arg(o, key_);
    if (with_index) Arg(o, index_);
    Arg(o, key);
    Arg(o, kOrderField);
    Arg(o, order_);
    for (const Field& f : values) {
      Arg(o, f.name);
      Arg(o, f.value);
    }
  }

  // A write to key_: sent now (reply in reply_), or inside a transaction
  // queued for EXEC with `queued` (the reply a success would have) in reply_.
  template <typename Enc>
  Status WriteCall(std::int64_t deadline, std::string_view queued, Enc&& enc, std::string* reply) {
    if (!in_tx_) return client_->Call(key_, deadline, enc, reply);
    enc(tx_cmds_);
    ++tx_count_;
    reply->assign(queued);
    return Status::Ok();
  }
  // WATCH key_ (for the transaction's Commit).
  Status Watch(std::int64_t deadline) {
    Status st = KeyCommand("WATCH", deadline);
    if (!st.ok()) return st;
    watching_ = true;
    return reply_.starts_with("+OK") ? Status::Ok() : Status::Error();
  }
  Status Unwatch(std::int64_t deadline) {
    watching_ = false;
    return client_->Call("", deadline, [&](std::string& o) {
      Header(o, '*', 1);
      Arg(o, "UNWATCH");
    }, &reply_);
  }

  // "<cmd> <key_>" to key_'s node; the reply in reply_.
  Status KeyCommand(std::string_view cmd, std::int64_t deadline) {
    return client_->Call(key_, deadline, [&](std::string& o) {
      Header(o, '*', 2);
      Arg(o, cmd);
      Arg(o, key_);
    }, &reply_);
  }

  void RecordKey(std::string_view table, std::string_view key) {
    key_.assign(table);
    key_ += ':';
    key_.append(key);
  }
  void IndexKey(std::string_view table) {
    index_.assign(table);
    index_.append(":_index");
  }

  // HGETALL key, or HMGET key <order field> names...
  static void EncodeHashRead(std::string& o, std::string_view key, const FieldSelector& fields) {
    if (fields.all) {
      Header(o, '*', 2);
      Arg(o, "HGETALL");
      Arg(o, key);
      return;
    }
    Header(o, '*', 3 + fields.names.size());
    Arg(o, "HMGET");
    Arg(o, key);
    Arg(o, kOrderField);
    for (std::string_view n : fields.names) Arg(o, n);
  }

  // Turns an HGETALL/HMGET reply into a record of `out`, fields in their
  // written order. NOT_FOUND when the record does not exist.
  Status EmitHash(std::string_view reply, std::string_view key, const FieldSelector& fields, RecordSet* out) {
    ReplyCursor cur(reply);
    Item top = cur.Next();
    if (top.type != '*' || top.n < 0) return Status::Error();
    pairs_.clear();
    std::string_view order;
    bool has_order = false;
    if (fields.all) {
      if (top.n == 0) return Status::NotFound();
      for (std::int64_t i = 0; i + 1 < top.n; i += 2) {
        Item n = cur.Next(), v = cur.Next();
        if (n.str == kOrderField) {
          order = v.str;
          has_order = true;
        } else {
          pairs_.push_back({n.str, v.str});
        }
      }
    } else {
      Item o = cur.Next();
      has_order = !o.nil();
      order = o.str;
      bool any = has_order;
      for (std::string_view name : fields.names) {
        Item v = cur.Next();
        if (v.nil()) continue;
        any = true;
        bool dup = false;
        for (const Field& f : pairs_) dup = dup || f.name == name;
        if (!dup) pairs_.push_back({name, v.str});
      }
      if (!any) return Status::NotFound();
    }
    used_.assign(pairs_.size(), 0);
    out->BeginRecord(key);
    if (has_order) {
      // "LEN:NAME" repeated.
      std::size_t pos = 0;
      while (pos < order.size()) {
        const auto colon = order.find(':', pos);
        if (colon == std::string_view::npos) break;
        std::int64_t len = 0;
        if (!ParseInt(order.substr(pos, colon - pos), &len) || len < 0 ||
            static_cast<std::size_t>(len) > order.size() - colon - 1) {
          break;
        }
        const std::string_view name = order.substr(colon + 1, static_cast<std::size_t>(len));
        pos = colon + 1 + static_cast<std::size_t>(len);
        for (std::size_t i = 0; i < pairs_.size(); ++i) {
          if (!used_[i] && pairs_[i].name == name) {
            out->AddField(name, pairs_[i].value);
            used_[i] = 1;
            break;
          }
        }
      }
    }
    for (std::size_t i = 0; i < pairs_.size(); ++i) {  // fields the order does not list
      if (!used_[i]) out->AddField(pairs_[i].name, pairs_[i].value);
    }
    return Status::Ok();
  }

  std::string_view Member(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : member_ends_[i - 1];
    return std::string_view(members_).substr(begin, member_ends_[i] - begin);
  }

  // Fetches the records of members_ in order: one pipelined write per node
  // (all of that node's HGETALL/HMGETs), the node's replies copied back to
  // back into node_replies_[node], then emitted in the members' order. A
  // record deleted since the index was read is skipped.
  Status FetchMembers(std::string_view table, const FieldSelector& fields, std::int64_t deadline, RecordSet* out) {
    const std::size_t n = member_ends_.size();
    member_nodes_.resize(n);
    node_counts_.assign(client_->node_count(), 0);
    for (std::size_t i = 0; i < n; ++i) {
      RecordKey(table, Member(i));
      const std::uint16_t node = client_->NodeFor(key_);
      if (node == kNoNode) return Status::Error();
      member_nodes_[i] = node;
      if (node_counts_.size() <= node) node_counts_.resize(node + 1u, 0);
      node_counts_[node]++;
    }
    if (node_replies_.size() < node_counts_.size()) node_replies_.resize(node_counts_.size());
    node_offsets_.assign(node_counts_.size(), 0);
    for (std::size_t node = 0; node < node_counts_.size(); ++node) {
      if (node_counts_[node] == 0) continue;
      auto enc = [&](std::string& o) {
        for (std::size_t i = 0; i < n; ++i) {
          if (member_nodes_[i] != node) continue;
          RecordKey(table, Member(i));
          EncodeHashRead(o, key_, fields);
        }
      };
      Status st = client_->Exchange(static_cast<std::uint16_t>(node), deadline, enc, node_counts_[node], 0,
                                    &node_replies_[node]);
      if (!st.ok()) return st;
    }
    bool redirected = false;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t node = member_nodes_[i];
      const std::string_view rest = std::string_view(node_replies_[node]).substr(node_offsets_[node]);
      const std::string_view r = rest.substr(0, ParseReply(rest));
      node_offsets_[node] += r.size();
      if (r[0] == '-') {
        const std::string_view err = r.substr(1);
        if (!StartsWith(err, "MOVED ") && !StartsWith(err, "ASK ")) {
          out->Clear();
          return Status::Error();
        }
        redirected = true;
      } else if (!redirected) {
        if (EmitHash(r, Member(i), fields, out) == Status::Error()) {
          out->Clear();
          return Status::Error();
        }
      }
    }
    if (!redirected) return Status::Ok();
    // The cluster is moving slots: fetch one by one, following redirections.
    out->Clear();
    for (std::size_t i = 0; i < n; ++i) {
      RecordKey(table, Member(i));
      Status st = client_->Call(key_, deadline, [&](std::string& o) { EncodeHashRead(o, key_, fields); }, &reply_);
      if (!st.ok()) {
        out->Clear();
        return st;
      }
      if (EmitHash(reply_, Member(i), fields, out) == Status::Error()) {
        out->Clear();
        return Status::Error();
      }
    }
    return Status::Ok();
  }

  std::shared_ptr<Client> client_;
  const RedisOptions& o_;
  // Reused buffers.
  std::string key_;
  std::string index_;
  std::string value_;
  std::string order_;
  std::string members_;
  std::vector<std::size_t> member_ends_;
  std::vector<std::uint16_t> member_nodes_;
  std::vector<std::size_t> node_counts_;
  std::vector<std::size_t> node_offsets_;
  std::vector<std::string> node_replies_;
  std::string reply_;
  bool in_tx_ = false;        // between Begin and Commit/Abort
  bool watching_ = false;     // a WATCH was sent in this transaction
  std::string tx_cmds_;       // the transaction's queued writes, encoded
  std::size_t tx_count_ = 0;  // how many
  std::vector<Field> pairs_;
  std::vector<char> used_;
};

std::unique_ptr<Session> RedisStore::NewSession(int) { return std::make_unique<RedisSession>(NewClient(1)); }

std::unique_ptr<Session> RedisStore::NewClientSession(const ClientSlot& slot) {
  if (o_.pipeline <= 1) return NewSession(slot.thread);
  std::lock_guard lock(links_mu_);
  auto& weak = links_[{slot.thread, slot.connection}];
  std::shared_ptr<Client> client = weak.lock();
  if (!client) {
    client = NewClient(o_.pipeline);
    weak = client;
  }
  return std::make_unique<RedisSession>(std::move(client));
}

}  // namespace

const BindingInfo& redis_binding() {
  static const BindingInfo info{
      .name = "redis",
      .summary = "Redis server or Redis Cluster over a built-in RESP client (YCSB's hash layout, or one value per key)",
      .properties =
          {
              {"redis.host", "127.0.0.1", "server host (in cluster mode: any node)"},
              {"redis.port", "6379", "server port"},
              {"redis.password", "", "AUTH password (default: env STOREBENCH_REDIS_PASSWORD; never printed)"},
              {"redis.user", "", "ACL user name for AUTH user password (needs a password)"},
              {"redis.cluster", "false", "Redis Cluster: slot map from CLUSTER SLOTS, MOVED/ASK followed"},
              {"redis.database", "0", "database number (SELECT); must be 0 in cluster mode"},
              {"redis.timeout_ms", "5000", "per-operation (and connect) timeout in milliseconds"},
              {"redis.layout", "hash",
               "hash: a hash per record + a sorted-set index per table (YCSB); string: one encoded value per key "
               "(GET/SET, no scans)"},
              {"redis.pipeline", "1", "clients sharing one connection (with the runner's connections=N)"},
              {"redis.update", "merge",
               "string layout: merge = GET, merge the fields, SET XX (keeps other fields; two round trips); "
               "replace = one SET XX of the given fields (right when updates write every field, e.g. "
               "writeallfields=true); set = one plain SET, exactly memtier's (also creates a missing record)"},
          },
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        RedisOptions o = ParseOptions(props);
        return std::make_unique<RedisStore>(o);
      },
      .server = true,
  };
  return info;
}

}  // namespace storebench
