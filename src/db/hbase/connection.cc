#include "db/hbase/connection.h"

#include <utility>

namespace storebench::hbase {
namespace {

// Pipeline's tagged framing: one length-prefixed response, tagged by its call id.
std::size_t ResponseFrame(std::string_view in, std::int64_t* tag) {
  const std::int64_t n = FrameLength(in);
  if (n == 0) return 0;
  std::uint32_t id = 0;
  if (n < 0 || !PeekCallId(in.substr(0, static_cast<std::size_t>(n)), &id)) return net::Pipeline::kBroken;
  *tag = id;
  return static_cast<std::size_t>(n);
}

}  // namespace

Connection::Connection(net::Endpoint ep, std::string service, std::string user, std::int64_t timeout_ms, int sharers,
                       std::string cell_block_codec)
    : conn_(std::move(ep)),
      service_(std::move(service)),
      user_(std::move(user)),
      codec_(std::move(cell_block_codec)),
      timeout_ms_(timeout_ms),
      pipeline_(&conn_, [this](net::TcpConnection& c) { return Hello(c, net::DeadlineAfterMs(timeout_ms_)); }) {
  pipeline_.set_sharers(sharers);
  pipeline_.set_tagged(&ResponseFrame);
}

bool Connection::Open(std::int64_t deadline, std::string* error) {
  if (!conn_.Connect(deadline, error)) return false;
  if (!Hello(conn_, deadline).ok()) {
    *error = conn_.endpoint().ToString() + ": could not send the RPC preamble";
    conn_.Disconnect();
    return false;
  }
  return true;
}

Status Connection::Hello(net::TcpConnection& conn, std::int64_t deadline) {
  // Before any queued request (Pipeline writes them after this returns).
  std::string& out = conn.out();
  out.clear();
  AppendPreamble(&out);
  AppendConnectionHeader(&out, user_, service_, codec_);
  return conn.Flush(deadline);
}

Status Connection::Call(std::string_view method, const google::protobuf::MessageLite& param, std::int64_t deadline,
                        std::string* frame, Response* resp) {
  if (!param.IsInitialized()) return Status(Status::kBadRequest);
  const std::uint32_t call_id = next_id_++;
  if (next_id_ > 0x7FFFFFFF) next_id_ = 1;  // HBase's call ids are ints
  Status st = pipeline_.Call([&](std::string& out) { (void)encoder_.Append(&out, call_id, method, param); },
                             [&](std::string_view in) {
                               frame->assign(in.data(), in.size());
                               return in.size();
                             },
                             deadline, call_id);
  if (!st.ok()) return st;
  if (!ParseResponse(*frame, resp)) return Status::Error();
  return Status::Ok();
}

}  // namespace storebench::hbase
