#include "db/ignite/connection.h"

#include <utility>

#include "net/io.h"

namespace storebench::ignite {

Connection::Connection(net::Endpoint ep, const Credentials* credentials, std::int64_t timeout_ms, int sharers,
                       std::function<void(const Uuid&)> on_node)
    : conn_(std::move(ep)),
      pipe_(&conn_,
            [this](net::TcpConnection& c) { return Handshake(c, net::DeadlineAfterMs(timeout_ms_), nullptr); }),
      credentials_(credentials),
      timeout_ms_(timeout_ms),
      on_node_(std::move(on_node)),
      version_(kVersions[0]) {
  pipe_.set_sharers(sharers);
  pipe_.set_tagged(&ReplyFrame);
}

std::size_t Connection::ReplyFrame(std::string_view in, std::int64_t* request_id) {
  const std::int64_t n = FrameLength(in);
  if (n <= 0) return n == 0 ? 0 : net::Pipeline::kBroken;
  if (n < 12) return net::Pipeline::kBroken;  // length + request id at least
  Reader r(in.substr(4, 8));
  *request_id = r.I64();
  return static_cast<std::size_t>(n);
}

bool Connection::Open(std::int64_t deadline, std::string* error) {
  // Twice at most: a refusal that names an older version is retried with it.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!conn_.Connect(deadline, error)) return false;
    error->clear();
    if (Handshake(conn_, deadline, error).ok()) return true;
    if (error->empty()) {
      *error = conn_.endpoint().ToString() + ": no handshake answer within ignite.timeout_ms";
      return false;
    }
    if (error->rfind("retry", 0) != 0) return false;
  }
  return false;
}

Status Connection::Handshake(net::TcpConnection& c, std::int64_t deadline, std::string* error) {
  std::string& out = c.out();
  Writer w(out);
  HandshakeRequest req;
  req.version = version_;
  req.has_credentials = credentials_ != nullptr && !credentials_->user.empty();
  if (req.has_credentials) {
    req.user = credentials_->user;
    req.password = credentials_->password;
  }
  EncodeHandshake(w, req);
  if (Status st = c.Flush(deadline); !st.ok()) return st;
  std::int64_t n = 0;
  while ((n = FrameLength(c.in())) == 0) {
    if (Status st = c.Fill(deadline); !st.ok()) return st;
  }
  HandshakeResponse resp;
  if (n < 0 || !DecodeHandshake(c.in().substr(4, static_cast<std::size_t>(n) - 4), version_, &resp)) {
    c.Disconnect();
    if (error != nullptr) *error = conn_.endpoint().ToString() + ": not an Ignite thin-client handshake answer";
    return Status::Error();
  }
  if (!resp.success) {
    Version older;
    const bool retry = !(resp.server_version == version_) && NegotiateDown(resp.server_version, &older) &&
                       !(older == version_);
    if (error != nullptr) {
      *error = retry ? "retry" : conn_.endpoint().ToString() + ": handshake refused (status " +
                                     std::to_string(resp.status) + "): " + std::string(resp.message);
    }
    if (retry) version_ = older;  // the next connect offers it
    c.Disconnect();
    return Status::Error();
  }
  if (resp.has_node_id && on_node_) on_node_(resp.node_id);
  c.Consume(static_cast<std::size_t>(n));
  return Status::Ok();
}

}  // namespace storebench::ignite
