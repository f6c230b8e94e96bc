// One RPC connection to one HBase server (a region server's ClientService,
// or the master's ClientMetaService / MasterService): the socket
// (net::TcpConnection, with its reconnect backoff), the preamble and
// ConnectionHeader replayed on every (re)connect, the call ids, and many
// calls in flight.
//
// HBase answers a connection's calls in any order (its handlers run them in
// parallel), so unlike net::Pipeline, whose replies come in order, the
// clients sharing a Connection queue their calls by call id: the first
// caller to find nobody reading leads: it writes every queued request in one
// write, then reads frames and hands each to the call whose id it carries
// (waking that client), until its own has come; then another waiting caller
// leads. A call queued while the leader waits for answers is written by its
// own caller at once (HBase answers each call on its own, so it must not
// wait for the leader's next wake-up). A frame for no waiting call (an answer after its call failed) is
// dropped. A broken connection, a timeout or bytes that cannot be a frame
// fail every queued call (ERROR) and drop the connection; the next call
// reconnects with TcpConnection's backoff.
//
// Used from one thread (the clients of one {thread, connection} slot share
// it, as fibers). Times are deadlines on net/io.h's clock. No allocation per
// call once the buffers have grown (queued calls live in the callers' frames).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"
#include "db/hbase/rpc.h"
#include "net/io.h"
#include "net/socket.h"

namespace google::protobuf {
class MessageLite;
}

namespace storebench::hbase {

class Connection {
 public:
  // `service`: "ClientService", "ClientMetaService" or "MasterService".
  // `sharers`: clients that share it (1: no reason to wait for others).
  Connection(net::Endpoint ep, std::string service, std::string user, int sharers);

  // Connects and sends the preamble and header now (setup code). False with
  // *error ("host:port: reason") when the server cannot be reached.
  bool Open(std::int64_t deadline, std::string* error);

  // Sends `method(param)` and waits for its answer: OK when a response frame
  // came (copied into *frame, parsed into *resp; resp->is_exception() says
  // whether the server raised one), else ERROR (broken, timed out, garbage)
  // or SERVICE_UNAVAILABLE (no connection, within the backoff).
  Status Call(std::string_view method, const google::protobuf::MessageLite& param, std::int64_t deadline,
              std::string* frame, Response* resp);

  bool connected() const { return conn_.connected(); }
  const net::Endpoint& endpoint() const { return conn_.endpoint(); }
  std::uint64_t reconnects() const { return conn_.reconnects(); }

 private:
  struct Entry {
    io::Fiber* fiber = nullptr;
    std::uint32_t call_id = 0;
    std::string* frame = nullptr;
    Entry* next = nullptr;
    bool done = false;
    Status status;
  };

  Status Connected(std::int64_t deadline);
  Status Hello(std::int64_t deadline);
  void Lead(Entry* self, std::int64_t deadline);
  void Complete(Entry* e, Status st, Entry* self);
  void FailAll(Status st, Entry* self);
  // Hands the frame at the front of the input to its call; false if broken.
  bool Dispatch(std::string_view frame, Entry* self);

  net::TcpConnection conn_;
  std::string service_;
  std::string user_;
  RequestEncoder encoder_;
  Entry* head_ = nullptr;  // calls waiting for their answer, in no order
  std::uint32_t next_id_ = 1;
  int sharers_ = 1;
  bool reading_ = false;
  bool writing_ = false;  // a caller other than the leader is flushing its request
  bool connecting_ = false;
};

}  // namespace storebench::hbase
