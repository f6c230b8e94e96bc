// TCP client connections for network bindings.
//
// TcpConnection is one non-blocking socket with an output and an input
// buffer. Every wait goes through io::WaitFd, so the same code serves one
// client per thread (blocking in poll) and many clients per thread (fibers).
// A broken connection is closed and reopened on the next use, with an
// exponential backoff (10 ms doubling to 1 s) between attempts, so a server
// that restarts is found again without a storm of connects. Failures are
// Status codes, never exceptions: SERVICE_UNAVAILABLE when there is no
// connection, ERROR on a timeout or a broken one. Not thread-safe: one per
// client (or one per group of pipelined clients of one thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace storebench::net {

struct Endpoint {
  std::string host;
  int port = 0;
  std::string ToString() const { return host + ":" + std::to_string(port); }
};

// Parses "host:port" or "host" (then default_port). Throws ConfigError
// naming `property` on a malformed value.
Endpoint ParseEndpoint(std::string_view text, int default_port, const std::string& property);
// A comma-separated list of endpoints ("a:1,b:2"); at least one.
std::vector<Endpoint> ParseEndpointList(std::string_view text, int default_port, const std::string& property);

class TcpConnection {
 public:
  TcpConnection() = default;
  explicit TcpConnection(Endpoint ep) : endpoint_(std::move(ep)) {}
  ~TcpConnection() { Disconnect(); }
  TcpConnection(const TcpConnection&) = delete;
  TcpConnection& operator=(const TcpConnection&) = delete;

  void set_endpoint(Endpoint ep) { endpoint_ = std::move(ep); Disconnect(); }
  const Endpoint& endpoint() const { return endpoint_; }

  // Connects now, waiting until the deadline. On failure returns false and
  // sets *error to "host:port: <reason>" (setup code turns it into a
  // SetupError).
  bool Connect(std::int64_t deadline_ns, std::string* error);
  // Connected, or reconnected when the backoff allows it before the
  // deadline (sleeping until then). OK, or SERVICE_UNAVAILABLE. `reconnected`
  // tells the caller to replay its per-connection setup (AUTH, SELECT).
  Status Ensure(std::int64_t deadline_ns, bool* reconnected);
  bool connected() const { return fd_ >= 0; }
  void Disconnect();
  int fd() const { return fd_; }

  // Bytes queued for the server; Flush writes them all.
  std::string& out() { return out_; }
  Status Flush(std::int64_t deadline_ns);
  // Unconsumed bytes from the server. Fill appends at least one more byte
  // (waiting until the deadline); Consume drops n bytes from the front.
  std::string_view in() const { return std::string_view(in_.data() + in_begin_, in_end_ - in_begin_); }
  Status Fill(std::int64_t deadline_ns);
  void Consume(std::size_t n);

  // Takes over an already connected non-blocking socket (tests).
  void AdoptForTest(int fd) {
    Disconnect();
    fd_ = fd;
  }

  // Connect attempts that failed since the last success (for Stats).
  std::uint64_t reconnects() const { return reconnects_; }
  // When the next reconnect may be tried (0: now); on SteadyClock's time line.
  std::int64_t next_attempt_ns() const { return next_attempt_ns_; }

 private:
  bool ConnectOnce(std::int64_t deadline_ns, std::string* error);

  Endpoint endpoint_;
  int fd_ = -1;
  std::string out_;
  std::vector<char> in_;  // bytes [in_begin_, in_end_) are unconsumed
  std::size_t in_begin_ = 0;
  std::size_t in_end_ = 0;
  std::int64_t next_attempt_ns_ = 0;
  std::int64_t backoff_ns_ = 0;
  std::uint64_t reconnects_ = 0;
  bool ever_connected_ = false;
  // The last recv returned less than it could take: the socket was empty,
  // so the next Fill waits for readiness before reading (one syscall less
  // per reply). In fiber mode this relies on the edge that any data
  // arriving later raises (see io::WaitFd).
  bool drained_ = false;
};

// Milliseconds to a deadline on SteadyClock's time line (0 = none).
std::int64_t DeadlineAfterMs(std::int64_t timeout_ms);

}  // namespace storebench::net
