// The redis binding's client: the connections of one session (or of the
// pipelined sessions of one {thread, connection}), one per node, opened
// lazily, and the request/reply exchange over them. It follows the cluster's
// redirections (db/redis/routing.h: MOVED updates its slot map and re-reads
// the rest from CLUSTER SLOTS; ASK sends ASKING to the named node), replays
// AUTH/SELECT after every reconnect, and reloads the scripts it was given
// on a NOSCRIPT reply (a restarted server, another node), then retries.
//
// Every request goes through the node's net::Pipeline: the clients sharing
// this Client queue their commands, one of them writes them all in one send
// and reads the replies back in order, and each reply is copied out of the
// connection into the caller's own buffer (so it stays valid whoever reads
// next). Used from one thread. Times are deadlines in net/io.h's clock
// (nanoseconds); operations return Status, never throw.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "db/redis/options.h"
#include "db/redis/resp.h"
#include "db/redis/routing.h"
#include "net/pipeline.h"
#include "net/socket.h"

namespace storebench::redis {

// Redirections followed, counted for the store's Stats(); shared by the
// store's clients (any thread).
struct RedirectCounts {
  std::atomic<std::uint64_t> moved{0};
  std::atomic<std::uint64_t> ask{0};
};

// The Lua scripts a client keeps loaded, and their SHA1s (from SCRIPT LOAD).
struct Scripts {
  std::span<const std::string_view> sources;
  std::vector<std::string> shas;
};

class Client {
 public:
  // `map`: the cluster's slot map (ignored for a standalone server, and an
  // empty one means the seed alone). `sharers`: clients sharing it.
  // `counts` outlives the client.
  Client(const Options& o, const SlotMap& map, Scripts scripts, int sharers, RedirectCounts* counts);

  std::uint16_t NodeFor(std::string_view key) const { return o_.cluster ? map_.NodeFor(key) : 0; }
  std::size_t node_count() const { return map_.nodes.size(); }
  const std::string& sha(std::size_t script) const { return scripts_.shas[script]; }
  const Options& options() const { return o_; }

  // The connection to `node` (opened on first use by the pipeline, with
  // AUTH/SELECT replayed after every reconnect).
  net::TcpConnection& Conn(std::uint16_t node) { return Link(node).conn; }

  // Sends AUTH/SELECT on a fresh connection and checks their replies. On a
  // refused handshake *error (if given) says why.
  Status Handshake(net::TcpConnection& c, std::int64_t deadline, std::string* error);

  // Sends what `enc(out)` appends (it may be several commands) to `node` and
  // waits for `replies` replies; the first `skip` of them are dropped, the
  // others are copied, back to back, into *buf. No redirection handling.
  template <typename Enc>
  Status Exchange(std::uint16_t node, std::int64_t deadline, Enc&& enc, std::size_t replies, std::size_t skip,
                  std::string* buf) {
    auto parse = [&](std::string_view in) -> std::size_t {
      std::size_t pos = 0, start = 0;
      for (std::size_t i = 0; i < replies; ++i) {
        const std::size_t n = resp::ParseReply(in.substr(pos));
        if (n == resp::kBadReply) return net::Pipeline::kBroken;
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
    Route route{node};
    Status st = Status::Ok();
    do {
      if (route.node == kNoNode) return Status::Error();  // slot not served
      const bool ask = route.asking;
      auto write = [&](std::string& out) {
        if (ask) resp::AppendCommand(out, "ASKING");
        enc(out);
      };
      st = Exchange(route.node, deadline, write, ask ? 2 : 1, ask ? 1 : 0, reply);
    } while (st.ok() && Retry(*reply, deadline, &route, &st));
    return st;
  }

  // Re-reads the slot map from `node` (cluster mode). Best effort.
  void Refresh(std::uint16_t node, std::int64_t deadline);

  // SCRIPT LOAD of every script on `node`.
  Status LoadScripts(std::uint16_t node, std::int64_t deadline);

 private:
  static constexpr int kMaxRedirects = 5;

  // Where a call goes next.
  struct Route {
    std::uint16_t node;
    bool asking = false;   // send ASKING first
    bool reloaded = false;  // the scripts were reloaded once
    int redirects = 0;
  };
  // Judges `reply`, the answer of route->node: true to send the command
  // again (to the updated *route), false when the call is over (*st its
  // status: ERROR after too many redirections or a failed script reload).
  bool Retry(std::string_view reply, std::int64_t deadline, Route* route, Status* st);

  struct NodeLink {
    NodeLink(Client* client, net::Endpoint ep);
    net::TcpConnection conn;
    net::Pipeline pipe;
  };
  NodeLink& Link(std::uint16_t node);

  Options o_;
  SlotMap map_;
  Scripts scripts_;
  int sharers_;
  RedirectCounts* counts_;
  std::vector<std::unique_ptr<NodeLink>> links_;
};

}  // namespace storebench::redis
