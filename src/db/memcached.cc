// Binding "memcached": memcached servers (>= 1.6) over their meta text
// protocol, or any memcached-compatible server (ROMA, twemproxy, older
// memcached) over the classic one (memcached.protocol: meta, classic, or
// auto, probed at open with `mn`), with our own client on
// net::TcpConnection (libmemcached's blocking I/O could not yield to the
// runner's fibers). Options: db/memcached/options.h; keys and hosts:
// db/memcached/keys.h; replies: db/memcached/reply.h.
//
// The classic protocol (get/gets/set/cas/replace/delete, no noreply, no
// reliance on flags): a key that is not plain, or that begins with "b64:",
// is sent as "b64:" + its base64 (keys.h ClassicKey); a get's reply is
// VALUE ... END or END (reply.h ParseGetReply). Operations map one to one
// onto the meta ones below (docs/bindings/memcached.md has the table).
//
// Why the meta protocol (mg/ms/md) rather than the classic get/set/cas:
//  - binary keys: the 'b' flag sends a key base64-encoded, so any key
//    (NUL, spaces, bytes >= 0x80) is stored under its exact bytes; the
//    classic protocol has no way to send such a key;
//  - an update's read returns the value and its CAS token in one `mg k v c`;
//  - every reply starts with a two-letter code (HD, VA, EN, NF, NS, EX), one
//    parser serves every command, and pipelined replies come back in order.
//
// Keys: YCSB's memcached binding qualifies keys with the table, and so do
// we: the memcached key is "<table>-<key>". Sent as is when it is 1..250
// bytes of printable ASCII without spaces; otherwise base64-encoded with the
// 'b' flag when the encoding fits memcached's 250-byte limit (raw keys up to
// 187 bytes); longer keys are rejected: the operation returns ERROR without
// contacting the server (hashing them would make distinct keys collide).
//
// Values: one item per record, the record encoded with EncodeRecord
// (db/record_codec.h). memcached refuses items over its -I limit (1 MiB by
// default) with SERVER_ERROR: the operation returns ERROR and the connection
// stays usable (the server skips the payload).
//
// Operations:
//   Insert = ms (set; T<exptime> when memcached.exptime > 0)
//   Read   = mg k v; EN (miss) is NOT_FOUND
//   Update = mg k v c, MergeRecord, ms k C<cas>: EX (another client changed
//            it in between) retries the whole read-merge-write, up to
//            kCasAttempts times, then returns ABORTED; EN/NF is NOT_FOUND
//            (nothing is created). Atomic: no concurrent update is lost.
//            With memcached.update=replace: one "ms <key> MR" of the given
//            fields (stored only if the key exists, else NS = NOT_FOUND).
//   Delete = md; NF is NOT_FOUND
//   Scan   = not supported (memcached keeps no key order)
//
// Hosts: memcached.hosts is a comma-separated host:port list; each key goes
// to one host chosen by jump consistent hashing (Lamping & Veach) of a
// 64-bit FNV-1a hash of the memcached key: stable across processes and runs,
// and adding a host at the end moves only 1/N of the keys. Each session has
// one connection per host, opened on first use and reopened with backoff
// after a failure (TcpConnection::Ensure). Every wait goes through net/io.h,
// with the operation's deadline (memcached.timeout_ms).
//
// memcached.pipeline > 1: the clients of one ClientSlot {thread, connection}
// (fibers of one thread) share one connection per host (NewClientSession),
// through a net::Pipeline: their requests go out in one write and the
// replies come back in order. Each reply is copied into the session's own
// buffer before it is read, so no session reads a connection another may be
// reading.
//
// Authentication: memcached's ASCII authentication (-Y authfile, memcached
// >= 1.5.15): a connection sends "set <any> 0 0 <n>\r\n<user> <password>\r\n"
// first. `open` probes every host; only hosts that answer
// "CLIENT_ERROR unauthenticated" are sent the credentials (on a server
// without -Y that line would store an item). SASL (binary protocol only) is
// not supported.
//
// Setup errors from `open` (SetupError): a host that cannot be reached, that
// does not answer like memcached >= 1.6, or that refuses the credentials.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/memcached/keys.h"
#include "db/memcached/options.h"
#include "db/memcached/reply.h"
#include "db/record_codec.h"
#include "measure/clock.h"
#include "net/io.h"
#include "net/pipeline.h"
#include "net/socket.h"

namespace storebench {
namespace {

constexpr int kCasAttempts = 100;  // read-merge-write attempts of one update before ABORTED

using memcache::kMaxKey;
using MemcachedOptions = memcache::Options;
using memcache::Protocol;

// ---- protocol ------------------------------------------------------------

using memcache::ParseReply;
using memcache::ParseU64;
using memcache::Reply;

using memcache::AppendBase64;
using memcache::AppendNumber;
using memcache::Fnv1a64;
using memcache::IsPlainKey;
using memcache::JumpHash;

// ---- connections -----------------------------------------------------------

// What every connection to one host needs to know.
struct HostInfo {
  net::Endpoint endpoint;
  bool needs_auth = false;  // the server answered "CLIENT_ERROR unauthenticated"
};

// One connection to one host and the pipeline over it: the clients sharing
// it queue their requests, one write carries them all, the replies are
// handed back in order. Authentication is replayed after every reconnect,
// before any queued request is written.
class HostConnection {
 public:
  HostConnection(const HostInfo& host, const MemcachedOptions& o, int sharers)
      : host_(host), opts_(o), tcp_(host.endpoint), pipe_(&tcp_, [this](net::TcpConnection& c) { return Authenticate(c); }) {
    pipe_.set_sharers(sharers);
  }

  // Sends what `write(out)` appends (one request) and waits for its reply,
  // which is copied into *buf; *r views it there. ERROR when the reply
  // leaves the stream out of step (ERROR / CLIENT_ERROR: the connection is
  // dropped, and with it every request queued behind this one).
  // `get_reply`: the request is a classic get/gets, whose reply is VALUE +
  // data + END, or END (memcache::ParseGetReply).
  template <typename Write>
  Status Exchange(std::int64_t deadline, Write&& write, std::string* buf, Reply* r, bool get_reply = false) {
    auto parse = [buf, get_reply](std::string_view in) -> std::size_t {
      Reply probe;
      const std::ptrdiff_t n = get_reply ? memcache::ParseGetReply(in, &probe) : ParseReply(in, &probe);
      if (n < 0 || (n > 0 && probe.Desyncs() && !(get_reply && probe.Is("VALUE")))) return net::Pipeline::kBroken;
      if (n == 0) return 0;
      buf->assign(in.data(), static_cast<std::size_t>(n));
      return static_cast<std::size_t>(n);
    };
    Status s = pipe_.Call(write, parse, deadline);
    if (!s.ok()) return s;
    if (get_reply) {
      memcache::ParseGetReply(*buf, r);
    } else {
      ParseReply(*buf, r);
    }
    return Status::Ok();
  }

  // Sends what `write(out)` appends (`count` requests) in one write and
  // waits for their `count` replies, copied back to back into *buf.
  template <typename Write>
  Status ExchangeMany(std::int64_t deadline, Write&& write, std::size_t count, std::string* buf) {
    auto parse = [buf, count](std::string_view in) -> std::size_t {
      std::size_t pos = 0;
      for (std::size_t i = 0; i < count; ++i) {
        Reply probe;
        const std::ptrdiff_t n = ParseReply(in.substr(pos), &probe);
        if (n < 0 || (n > 0 && probe.Desyncs())) return net::Pipeline::kBroken;
        if (n == 0) return 0;
        pos += static_cast<std::size_t>(n);
      }
      buf->assign(in.data(), pos);
      return pos;
    };
    return pipe_.Call(write, parse, deadline);
  }

  static void AppendAuth(const std::string& user, const std::string& password, std::string* out) {
    const std::size_t n = user.size() + 1 + password.size();
    out->append("set auth 0 0 ");
    AppendNumber(n, out);
    out->append("\r\n");
    out->append(user).append(" ").append(password).append("\r\n");
  }

 private:
  // The per-connection setup, on a fresh connection nobody else uses yet.
  Status Authenticate(net::TcpConnection& c) {
    if (!host_.needs_auth) return Status::Ok();
    const std::int64_t deadline = net::DeadlineAfterMs(opts_.timeout_ms);
    AppendAuth(opts_.user, opts_.password, &c.out());
    if (Status s = c.Flush(deadline); !s.ok()) return s;
    Reply r;
    std::ptrdiff_t n = 0;
    while ((n = ParseReply(c.in(), &r)) == 0) {
      if (Status s = c.Fill(deadline); !s.ok()) return s;
    }
    const bool ok = n > 0 && r.Is("STORED");
    if (n > 0) c.Consume(static_cast<std::size_t>(n));
    return ok ? Status::Ok() : Status::Error();
  }

  const HostInfo& host_;
  const MemcachedOptions& opts_;
  net::TcpConnection tcp_;
  net::Pipeline pipe_;
};

// One connection per host, shared by the sessions of one ClientSlot
// {thread, connection} when memcached.pipeline > 1 (else one per session).
struct ConnectionSet {
  ConnectionSet(const std::vector<HostInfo>& hosts, const MemcachedOptions& o, int sharers) {
    conns.reserve(hosts.size());
    for (const auto& h : hosts) conns.push_back(std::make_unique<HostConnection>(h, o, sharers));
  }
  std::vector<std::unique_ptr<HostConnection>> conns;
};

// ---- session ---------------------------------------------------------------

class MemcachedSession final : public Session {
 public:
  MemcachedSession(std::shared_ptr<ConnectionSet> conns, const MemcachedOptions& o)
      : opts_(o), set_(std::move(conns)), classic_(o.protocol == Protocol::kClassic) {}

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      Reply r;
      if (Status s = Request(table, key, [&](std::string& o) { AppendRead(o, false); }, &r, classic_); !s.ok()) {
        return s;
      }
      if (r.Is(classic_ ? "END" : "EN")) return Status::NotFound();
      if (!r.Is(classic_ ? "VALUE" : "VA")) return Status::Error();
      out->BeginRecord(key);
      if (DecodeRecord(r.value, fields, out)) return Status::Ok();
      out->Clear();
      return Status::Error();
    });
  }

  Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&, RecordSet* out) override {
    out->Clear();
    return Status::NotImplemented();
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      if (opts_.replace_on_update) {  // one "ms ... MR": stored only where the key exists
        EncodeRecord(values, &value_);
        Reply r;
        if (Status s = Request(table, key, [&](std::string& o) { AppendSet(o, 0, true); }, &r); !s.ok()) return s;
        return r.Is(Stored()) ? Status::Ok() : r.Is(classic_ ? "NOT_STORED" : "NS") ? Status::NotFound() : Status::Error();
      }
      const std::int64_t deadline = net::DeadlineAfterMs(opts_.timeout_ms);
      HostConnection* c = nullptr;
      if (Status s = Prepare(table, key, &c); !s.ok()) return s;
      for (int attempt = 0; attempt < kCasAttempts; ++attempt) {
        Reply r;
        if (Status s = c->Exchange(deadline, [&](std::string& o) { AppendRead(o, true); }, &reply_, &r, classic_);
            !s.ok()) {
          return s;
        }
        if (r.Is(classic_ ? "END" : "EN")) return Status::NotFound();
        if (!r.Is(classic_ ? "VALUE" : "VA") || !r.has_cas) return Status::Error();
        const std::uint64_t cas = r.cas;
        if (!MergeRecord(r.value, values, &value_)) return Status::Error();
        if (Status s = c->Exchange(deadline, [&](std::string& o) { AppendSet(o, cas); }, &reply_, &r); !s.ok()) {
          return s;
        }
        if (r.Is(Stored())) return Status::Ok();
        if (r.Is(classic_ ? "NOT_FOUND" : "NF")) return Status::NotFound();  // deleted since our read
        if (!r.Is(classic_ ? "EXISTS" : "EX")) return Status::Error();       // changed since our read: again
      }
      return Status(Status::kAborted);
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      EncodeRecord(values, &value_);
      Reply r;
      if (Status s = Request(table, key, [&](std::string& o) { AppendSet(o, 0); }, &r); !s.ok()) return s;
      return r.Is(Stored()) ? Status::Ok() : Status::Error();
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      Reply r;
      auto write = [&](std::string& o) {
        if (classic_) {
          o.append("delete ").append(key_token_).append("\r\n");
        } else {
          AppendCommand(o, "md", "");
        }
      };
      if (Status s = Request(table, key, write, &r); !s.ok()) return s;
      return r.Is(classic_ ? "DELETED" : "HD")  ? Status::Ok()
             : r.Is(classic_ ? "NOT_FOUND" : "NF") ? Status::NotFound()
                                                  : Status::Error();
    });
  }

  // The batch's sets pipelined: per host, every "ms" of its records in one
  // write, then their replies. Not atomic: each set succeeds or fails alone
  // (the first failure is returned; the others are still sent).
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    if (batch.empty()) return Status::Ok();
    return Guard([&] {
      const std::int64_t deadline = net::DeadlineAfterMs(opts_.timeout_ms);
      const std::size_t hosts = set_->conns.size();
      host_of_.resize(batch.size());
      host_counts_.assign(hosts, 0);
      for (std::size_t i = 0; i < batch.size(); ++i) {
        HostConnection* c = nullptr;
        if (Status s = Prepare(table, batch.key(i), &c); !s.ok()) return s;
        std::size_t h = 0;
        while (set_->conns[h].get() != c) ++h;
        host_of_[i] = h;
        host_counts_[h]++;
      }
      Status result = Status::Ok();
      for (std::size_t h = 0; h < hosts; ++h) {
        if (host_counts_[h] == 0) continue;
        auto write = [&](std::string& o) {
          for (std::size_t i = 0; i < batch.size(); ++i) {
            if (host_of_[i] != h) continue;
            HostConnection* unused = nullptr;
            Prepare(table, batch.key(i), &unused);  // checked above
            EncodeRecord(batch.values(i), &value_);
            AppendSet(o, 0);
          }
        };
        Status s = set_->conns[h]->ExchangeMany(deadline, write, host_counts_[h], &reply_);
        if (!s.ok()) {
          if (result.ok()) result = s;
          continue;
        }
        std::string_view rest = reply_;
        for (std::size_t k = 0; k < host_counts_[h]; ++k) {
          Reply r;
          const std::ptrdiff_t n = ParseReply(rest, &r);
          if (n <= 0) return Status::Error();
          if (!r.Is(Stored()) && result.ok()) result = Status::Error();
          rest.remove_prefix(static_cast<std::size_t>(n));
        }
      }
      return result;
    });
  }

 private:
  // One request about (table, key) (written by `write(out)`) to its host,
  // with a fresh deadline; its reply in *r.
  template <typename Write>
  Status Request(std::string_view table, std::string_view key, Write&& write, Reply* r, bool get_reply = false) {
    const std::int64_t deadline = net::DeadlineAfterMs(opts_.timeout_ms);
    HostConnection* c = nullptr;
    if (Status s = Prepare(table, key, &c); !s.ok()) return s;
    return c->Exchange(deadline, write, &reply_, r, get_reply);
  }

  // The reply of a write that stored the item.
  std::string_view Stored() const { return classic_ ? "STORED" : "HD"; }

  // A read of the item's value (and of its CAS token when `cas`):
  // "mg <key>[ b] v[ c]" or "get|gets <key>".
  void AppendRead(std::string& out, bool cas) const {
    if (classic_) {
      out.append(cas ? "gets " : "get ").append(key_token_).append("\r\n");
    } else {
      AppendCommand(out, "mg", cas ? " v c" : " v");
    }
  }

  // Builds the memcached key of (table, key) into key_ (its token in
  // key_token_, binary_ when base64) and picks its host's connection.
  // ERROR for a key memcached cannot take.
  Status Prepare(std::string_view table, std::string_view key, HostConnection** c) {
    key_.assign(table.data(), table.size());
    key_.push_back('-');
    key_.append(key.data(), key.size());
    key_token_.clear();
    binary_ = false;
    if (classic_) {
      if (!memcache::ClassicKey(key_, &key_token_)) return Status::Error();
    } else if ((binary_ = !IsPlainKey(key_))) {
      if ((key_.size() + 2) / 3 * 4 > kMaxKey) return Status::Error();
      AppendBase64(key_, &key_token_);
    } else {
      key_token_ = key_;
    }
    const std::size_t n = set_->conns.size();
    const std::size_t host = n == 1 ? 0 : static_cast<std::size_t>(JumpHash(Fnv1a64(key_), static_cast<int>(n)));
    *c = set_->conns[host].get();
    return Status::Ok();
  }

  // "<cmd> <key>[ b]<flags>\r\n".
  void AppendCommand(std::string& out, std::string_view cmd, std::string_view flags) const {
    out.append(cmd).append(" ").append(key_token_);
    if (binary_) out.append(" b");
    out.append(flags).append("\r\n");
  }

  // "ms <key> <len>[ b][ T<exptime>][ C<cas>][ MR]\r\n<value_>\r\n".
  // Classic: "set|cas|replace <key> 0 <exptime> <len>[ <cas>]\r\n<value_>\r\n".
  void AppendSet(std::string& out, std::uint64_t cas, bool replace = false) const {
    if (classic_) {
      out.append(replace ? "replace " : cas != 0 ? "cas " : "set ").append(key_token_).append(" 0 ");
      AppendNumber(static_cast<std::uint64_t>(opts_.exptime), &out);
      out.push_back(' ');
      AppendNumber(value_.size(), &out);
      if (cas != 0) {
        out.push_back(' ');
        AppendNumber(cas, &out);
      }
      out.append("\r\n").append(value_).append("\r\n");
      return;
    }
    out.append("ms ").append(key_token_).append(" ");
    AppendNumber(value_.size(), &out);
    if (binary_) out.append(" b");
    if (replace) out.append(" MR");
    if (opts_.exptime > 0) {
      out.append(" T");
      AppendNumber(static_cast<std::uint64_t>(opts_.exptime), &out);
    }
    if (cas != 0) {
      out.append(" C");
      AppendNumber(cas, &out);
    }
    out.append("\r\n").append(value_).append("\r\n");
  }

  const MemcachedOptions& opts_;
  std::shared_ptr<ConnectionSet> set_;
  std::string key_, key_token_, value_;
  std::string reply_;  // the last reply, copied out of the connection
  bool binary_ = false;
  const bool classic_;  // memcached.protocol resolved to classic
  std::vector<std::size_t> host_of_;      // BatchInsert: each record's host
  std::vector<std::size_t> host_counts_;  // BatchInsert: records per host
};

// ---- store -----------------------------------------------------------------

// Sends `request` on a fresh exchange and collects reply lines until one
// satisfies `last` (or an error line). Setup code only.
bool RequestLines(net::TcpConnection& tcp, const std::string& request, std::int64_t deadline,
                  bool (*last)(std::string_view), std::vector<std::string>* lines) {
  tcp.out() = request;
  if (!tcp.Flush(deadline).ok()) return false;
  for (;;) {
    std::string_view in = tcp.in();
    const std::size_t eol = in.find("\r\n");
    if (eol != std::string_view::npos) {
      std::string line(in.substr(0, eol));
      tcp.Consume(eol + 2);
      // (ROMA's unknown-command line is "ERROR: 'mn' is not roma command. ...".)
      const bool end = last(line) || line.starts_with("ERROR") || line.starts_with("CLIENT_ERROR") ||
                       line.starts_with("SERVER_ERROR");
      lines->push_back(std::move(line));
      if (end) return true;
      continue;
    }
    if (!tcp.Fill(deadline).ok()) return false;
  }
}

class MemcachedStore final : public Store {
 public:
  explicit MemcachedStore(MemcachedOptions o) : opts_(std::move(o)) {
    std::string refused;  // a host's answer to `mn` when it does not speak the meta protocol
    for (const auto& ep : opts_.hosts) {
      hosts_.push_back({ep, false});
      Probe(&hosts_.back(), &refused);
    }
    if (opts_.protocol == Protocol::kAuto) {
      opts_.protocol = refused.empty() ? Protocol::kMeta : Protocol::kClassic;
      if (!refused.empty()) {
        std::cerr << "storebench: memcached: " << refused
                  << "; using the classic protocol (get/gets/set/cas/replace/delete; memcached.protocol=classic)\n";
      }
    }
  }

  std::unique_ptr<Session> NewSession(int) override {
    return std::make_unique<MemcachedSession>(std::make_shared<ConnectionSet>(hosts_, opts_, 1), opts_);
  }

  // With memcached.pipeline > 1 the clients of one {thread, connection}
  // share one ConnectionSet (they all run on that thread).
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override {
    if (opts_.pipeline <= 1) return NewSession(slot.thread);
    std::lock_guard lock(mu_);
    std::weak_ptr<ConnectionSet>& entry = shared_[{slot.thread, slot.connection}];
    std::shared_ptr<ConnectionSet> set = entry.lock();
    if (!set) {
      set = std::make_shared<ConnectionSet>(hosts_, opts_, opts_.pipeline);
      entry = set;
    }
    return std::make_unique<MemcachedSession>(std::move(set), opts_);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = false;
    c.why_no_scan = "memcached keeps no key order";
    c.persistent = true;      // the server keeps the data after the process
    c.atomic_update = !opts_.replace_on_update;  // CAS: a concurrent change makes the update retry
    c.waits_through_io = true;
    c.pipeline = opts_.pipeline;
    c.native_batch_insert = true;  // pipelined sets, one write per host
    return c;
  }

  // Per host "stats" and "stats settings": version and item size limit of
  // the first host that answers, then items, bytes and hit figures summed.
  std::vector<std::pair<std::string, std::string>> Stats() override {
    static const char* const kSummed[] = {"curr_items", "bytes", "limit_maxbytes", "get_hits", "get_misses",
                                          "evictions",  "cmd_get", "cmd_set", "cas_hits", "cas_badval",
                                          "curr_connections"};
    std::map<std::string, std::uint64_t> sums;
    std::string version, item_size_max;
    int answered = 0;
    for (const auto& h : hosts_) {
      net::TcpConnection tcp(h.endpoint);
      const std::int64_t deadline = net::DeadlineAfterMs(opts_.timeout_ms);
      std::string error;
      if (!tcp.Connect(deadline, &error)) continue;
      std::vector<std::string> lines;
      std::string req;
      if (h.needs_auth) HostConnection::AppendAuth(opts_.user, opts_.password, &req);
      req += "stats\r\n";
      auto is_end = [](std::string_view l) { return l == "END"; };
      if (!RequestLines(tcp, req, deadline, is_end, &lines)) continue;
      if (!RequestLines(tcp, "stats settings\r\n", deadline, is_end, &lines)) continue;
      ++answered;
      for (const auto& l : lines) {
        // "STAT name value" (memcached), or "name value" (ROMA)
        const std::size_t from = l.starts_with("STAT ") ? 5 : 0;
        const std::size_t sp = l.find(' ', from);
        if (sp == std::string::npos || l == "END") continue;
        const std::string name = l.substr(from, sp - from), value = l.substr(sp + 1);
        if (name == "version" && version.empty()) version = value;
        if (name == "item_size_max" && item_size_max.empty()) item_size_max = value;
        for (const char* s : kSummed) {
          std::uint64_t v = 0;
          if (name == s && ParseU64(value, &v)) sums[name] += v;
        }
      }
    }
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("memcached.hosts", std::to_string(hosts_.size()));
    out.emplace_back("memcached.hosts_answering", std::to_string(answered));
    if (!version.empty()) out.emplace_back("memcached.version", version);
    if (!item_size_max.empty()) out.emplace_back("memcached.item_size_max", item_size_max);
    for (const auto& [k, v] : sums) out.emplace_back("memcached." + k, std::to_string(v));
    return out;
  }

 private:
  // Connects to one host, finds whether it needs authentication, checks the
  // credentials and (unless memcached.protocol=classic) whether it speaks
  // the meta protocol: a refusal of `mn` is a SetupError naming the server's
  // line under memcached.protocol=meta, and is said in *refused (host and
  // line) under auto. Throws SetupError.
  void Probe(HostInfo* h, std::string* refused) {
    const std::string where = h->endpoint.ToString();
    const std::int64_t deadline = net::DeadlineAfterMs(opts_.timeout_ms);
    net::TcpConnection tcp(h->endpoint);
    std::string error;
    if (!tcp.Connect(deadline, &error)) throw SetupError("memcached: cannot connect to " + error);
    auto is_version = [](std::string_view l) { return l.starts_with("VERSION "); };
    std::vector<std::string> lines;
    auto no_answer = [&](const std::string& what) {
      return SetupError("memcached: " + where + ": no answer to '" + what + "' within memcached.timeout_ms=" +
                        std::to_string(opts_.timeout_ms));
    };
    if (!RequestLines(tcp, "version\r\n", deadline, is_version, &lines)) throw no_answer("version");
    if (!lines.empty() && lines[0].starts_with("CLIENT_ERROR unauthenticated")) {
      if (opts_.user.empty()) {
        throw SetupError("memcached: " + where +
                         " requires authentication: set memcached.user and memcached.password "
                         "(or STOREBENCH_MEMCACHED_PASSWORD)");
      }
      h->needs_auth = true;
      tcp.Disconnect();  // memcached closes an unauthenticated connection after the error
      if (!tcp.Connect(deadline, &error)) throw SetupError("memcached: cannot connect to " + error);
      std::string req;
      HostConnection::AppendAuth(opts_.user, opts_.password, &req);
      lines.clear();
      if (!RequestLines(tcp, req, deadline, [](std::string_view l) { return l == "STORED"; }, &lines) ||
          lines.empty() || lines.back() != "STORED") {
        throw SetupError("memcached: " + where + ": authentication failed for user '" + opts_.user + "'" +
                         (lines.empty() ? std::string() : " (" + lines.back() + ")"));
      }
      lines.clear();
      if (!RequestLines(tcp, "version\r\n", deadline, is_version, &lines)) throw no_answer("version");
    }
    if (lines.empty() || !lines.back().starts_with("VERSION ")) {
      throw SetupError("memcached: " + where + ": not a memcached server? answered '" +
                       (lines.empty() ? std::string() : lines.back()) + "' to 'version'");
    }
    if (opts_.protocol == Protocol::kClassic) return;
    // "mn" (meta no-op): memcached >= 1.6 answers MN; a classic-only server an error line, at once.
    // (twemproxy closes the connection on a command it does not know: that is a refusal too.)
    std::vector<std::string> mn;
    std::string answer;
    if (!RequestLines(tcp, "mn\r\n", deadline, [](std::string_view l) { return l == "MN"; }, &mn)) {
      if (SteadyClock::Now() >= deadline) throw no_answer("mn");
      answer = "the connection closed";
    } else if (!mn.empty() && mn.back() == "MN") {
      return;
    } else {
      answer = "'" + (mn.empty() ? std::string() : mn.back()) + "'";
    }
    const std::string why = where + " (" + lines.back() + ") refused 'mn', the meta protocol's no-op: " + answer;
    if (opts_.protocol == Protocol::kMeta) {
      throw SetupError("memcached: " + why + "; set memcached.protocol=classic (or auto)");
    }
    if (refused->empty()) *refused = why;
  }

  MemcachedOptions opts_;
  std::vector<HostInfo> hosts_;
  std::mutex mu_;
  // By {thread, connection}; weak, so the connections close with the last
  // session, on its thread.
  std::map<std::pair<int, int>, std::weak_ptr<ConnectionSet>> shared_;
};

}  // namespace

const BindingInfo& memcached_binding() {
  static const BindingInfo info = [] {
    BindingInfo b;
    b.name = "memcached";
    b.summary = "memcached (meta protocol) and memcached-compatible servers (classic protocol: ROMA, twemproxy); keys spread by consistent hashing";
    b.properties = memcache::PropertySpecs();
    b.open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
      return std::make_unique<MemcachedStore>(memcache::ParseOptions(props));
    };
    b.server = true;
    return b;
  }();
  return info;
}

}  // namespace storebench
