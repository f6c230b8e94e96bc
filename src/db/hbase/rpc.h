// HBase's client RPC framing (the HBase book's "RPC Specification"), bytes
// only, no sockets:
//   connection:  "HBas" + version 0 + auth 0x50 (SIMPLE), then a ConnectionHeader
//                (4-byte big-endian length + the message) naming the user and
//                the service ("ClientService", "ClientMetaService", "MasterService");
//                and, when asked, a cell block codec (cells.h: KeyValueCodec),
//                so results come back in a cell block after the response
//                message; else as protobuf Results;
//   request:     4-byte big-endian total length, then a varint-delimited
//                RequestHeader {call_id, method_name, request_param=true} and
//                the varint-delimited request message;
//   response:    4-byte big-endian total length, then a varint-delimited
//                ResponseHeader {call_id, exception?, cell_block_meta?} and,
//                unless it is an exception, the varint-delimited response
//                message (then the cell block, if any).
// Encoder: one per connection, reused (its RequestHeader keeps the method
// name's capacity), appending to a caller's buffer; no allocation per call
// once the buffers have grown. Decoding never trusts the input: a short or
// malformed frame is an error, never a crash. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "RPC.pb.h"

namespace google::protobuf {
class MessageLite;
}

namespace storebench::hbase {

// HBase's generated messages (package hbase.pb).
namespace pb = ::hbase::pb;

// The largest response frame accepted (HBase's own client default for
// hbase.ipc.max.response.size... is unbounded; 256 MiB keeps garbage from
// making us allocate gigabytes).
inline constexpr std::uint32_t kMaxFrameBytes = 256u << 20;

// Appends the 6-byte connection preamble.
void AppendPreamble(std::string* out);

// Appends the length-prefixed ConnectionHeader for `service` as `user`,
// naming `cell_block_codec` (no compressor) unless it is empty.
void AppendConnectionHeader(std::string* out, std::string_view user, std::string_view service,
                            std::string_view cell_block_codec = {});

// Encodes requests: one per connection.
class RequestEncoder {
 public:
  // Appends one framed request. False if the message cannot be serialised
  // (a required field unset), leaving *out as it was.
  bool Append(std::string* out, std::uint32_t call_id, std::string_view method,
              const google::protobuf::MessageLite& param);

 private:
  pb::RequestHeader header_;
};

// The length of the complete frame at the front of `in` (4 + its length),
// 0 when more bytes are needed, -1 when it cannot be a frame (longer than
// kMaxFrameBytes, or shorter than a header).
std::int64_t FrameLength(std::string_view in);

// One response frame, parsed. Views point into the frame.
struct Response {
  pb::ResponseHeader header;  // call_id, exception
  std::string_view param;     // the response message's bytes (empty for an exception)
  std::string_view cell_block;
  bool is_exception() const { return header.has_exception(); }
  std::string_view exception_class() const { return header.exception().exception_class_name(); }
};

// Reads only the call id of a complete frame's header (what a dispatcher
// needs to find the waiting call). False if the header is malformed.
bool PeekCallId(std::string_view frame, std::uint32_t* call_id);

// Parses a complete frame (as FrameLength measured it, length prefix
// included). False on any malformed part.
bool ParseResponse(std::string_view frame, Response* out);

// Reads a varint-delimited message's bounds from the front of `in`: sets
// *body to the message bytes and returns the bytes consumed (varint +
// body), or 0 when malformed or truncated.
std::size_t ReadDelimited(std::string_view in, std::string_view* body);

}  // namespace storebench::hbase
