// One RPC connection to one HBase server (a region server's ClientService,
// or the master's ClientMetaService / MasterService): the socket
// (net::TcpConnection, with its reconnect backoff), the preamble and
// ConnectionHeader replayed on every (re)connect, the call ids, and many
// calls in flight.
//
// HBase answers a connection's calls in any order (its handlers run them in
// parallel), so the clients sharing a Connection go through net::Pipeline in
// tagged mode: replies are handed to the call whose id they carry, and a
// call made while another client waits for replies is written at once.
// A broken connection, a timeout or bytes that cannot be a frame fail every
// queued call (ERROR) and drop the connection; the next call reconnects with
// TcpConnection's backoff and replays the preamble and header first.
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
#include "net/pipeline.h"
#include "net/socket.h"

namespace google::protobuf {
class MessageLite;
}

namespace storebench::hbase {

class Connection {
 public:
  // `service`: "ClientService", "ClientMetaService" or "MasterService".
  // `timeout_ms` bounds sending the preamble after a reconnect; `sharers`:
  // clients that share it (1: no reason to wait for others);
  // `cell_block_codec`: named in the ConnectionHeader (empty: none, cells
  // come back inside the protobuf Results).
  Connection(net::Endpoint ep, std::string service, std::string user, std::int64_t timeout_ms, int sharers,
             std::string cell_block_codec = {});

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
  Status Hello(net::TcpConnection& conn, std::int64_t deadline);

  net::TcpConnection conn_;
  std::string service_;
  std::string user_;
  std::string codec_;
  std::int64_t timeout_ms_;
  RequestEncoder encoder_;
  net::Pipeline pipeline_;
  std::uint32_t next_id_ = 1;
};

}  // namespace storebench::hbase
