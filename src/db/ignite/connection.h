// One thin-client connection to one Ignite node: the socket (net::
// TcpConnection), the requests of the clients sharing it (net::Pipeline: one
// write for all queued requests, replies read back in order), the handshake
// replayed on every (re)connect, and the request ids.
//
// The handshake offers protocol 1.7.0 (no feature bits asked for) with the
// user and password when given; a node that refuses and names an older
// version is asked again with the newest version this codec has at or below
// it (protocol.h NegotiateDown). The node's id from the handshake (1.4+) is
// what the affinity map names, so the client can route keys to this node.
//
// Ignite may answer a connection's requests out of order (its client
// connector runs them on a thread pool), so replies go to their requests by
// request id (net::Pipeline's tagged mode), as Ignite's own thin clients do;
// a reply with an id nobody waits for means the stream is out of step: the
// connection is dropped and its requests fail.
//
// Used from one thread (the sessions of one {thread, connection} may share
// it). Times are deadlines on net/io.h's clock (nanoseconds). No allocation
// per request once the buffers have grown.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "db/ignite/binary.h"
#include "db/ignite/protocol.h"
#include "db/ignite/wire.h"
#include "net/pipeline.h"
#include "net/socket.h"

namespace storebench::ignite {

struct Credentials {
  std::string user;
  std::string password;
};

class Connection {
 public:
  // `on_node`: called after each successful handshake with the node's id
  // (the id changes when the node restarts). `sharers`: clients sharing it.
  Connection(net::Endpoint ep, const Credentials* credentials, std::int64_t timeout_ms, int sharers,
             std::function<void(const Uuid&)> on_node = {});

  // Connects and handshakes now (setup code). False with *error ("host:port:
  // reason") when the node cannot be reached or refuses.
  bool Open(std::int64_t deadline, std::string* error);

  // An answer: its decoded header (`header.ok()` false when the node
  // reported an error; `header.error` is its message) and the payload after
  // the header, both views into the caller's buffer.
  struct Reply {
    ResponseHeader header;
    std::string_view payload;
  };

  // Sends one request, written by `enc(Writer&, std::int64_t request_id)`,
  // and waits for its answer, copied into *body (after its length prefix)
  // and decoded into *reply. ERROR (broken, timed out, out of step) or
  // SERVICE_UNAVAILABLE (no connection) otherwise.
  template <typename Enc>
  Status Call(Enc&& enc, std::int64_t deadline, std::string* body, Reply* reply) {
    const std::int64_t id = next_id_++;
    auto write = [&](std::string& out) {
      Writer w(out);
      enc(w, id);
    };
    auto parse = [&](std::string_view in) -> std::size_t {
      const std::int64_t n = FrameLength(in);
      if (n <= 0) return n == 0 ? 0 : net::Pipeline::kBroken;
      Reader r(in.substr(4, static_cast<std::size_t>(n) - 4));
      if (r.I64() != id) return net::Pipeline::kBroken;
      body->assign(in.data() + 4, static_cast<std::size_t>(n) - 4);
      return static_cast<std::size_t>(n);
    };
    Status st = pipe_.Call(write, parse, deadline, id);
    if (!st.ok()) return st;
    Reader r(*body);
    if (!DecodeResponseHeader(r, version_, &reply->header)) {
      conn_.Disconnect();
      return Status::Error();
    }
    reply->payload = std::string_view(*body).substr(r.pos());
    return st;
  }

  // Not connected, and the reconnect backoff is not over: a request now
  // would wait (callers pick another node instead).
  bool Resting(std::int64_t now_ns) const { return !conn_.connected() && conn_.next_attempt_ns() > now_ns; }
  bool connected() const { return conn_.connected(); }
  Version version() const { return version_; }
  const net::Endpoint& endpoint() const { return conn_.endpoint(); }

 private:
  // A reply's length and request id (Pipeline's FrameFn).
  static std::size_t ReplyFrame(std::string_view in, std::int64_t* request_id);
  // The handshake on a fresh connection (Pipeline's on_connect).
  Status Handshake(net::TcpConnection& c, std::int64_t deadline, std::string* error);

  net::TcpConnection conn_;
  net::Pipeline pipe_;
  const Credentials* credentials_;
  std::int64_t timeout_ms_;
  std::function<void(const Uuid&)> on_node_;
  Version version_;
  std::int64_t next_id_ = 1;
};

}  // namespace storebench::ignite
