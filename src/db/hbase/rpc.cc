#include "db/hbase/rpc.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message_lite.h>
#include <google/protobuf/wire_format_lite.h>

namespace storebench::hbase {
namespace {

void PutU32BE(std::string* out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  out->append(b, 4);
}

std::uint32_t GetU32BE(std::string_view in) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// Appends a varint-delimited message.
void AppendDelimited(std::string* out, const google::protobuf::MessageLite& m, std::size_t size) {
  namespace io = google::protobuf::io;
  const std::size_t at = out->size();
  const std::size_t prefix = io::CodedOutputStream::VarintSize32(static_cast<std::uint32_t>(size));
  out->resize(at + prefix + size);
  auto* p = reinterpret_cast<std::uint8_t*>(out->data() + at);
  p = io::CodedOutputStream::WriteVarint32ToArray(static_cast<std::uint32_t>(size), p);
  m.SerializeWithCachedSizesToArray(p);
}

}  // namespace

void AppendPreamble(std::string* out) {
  out->append("HBas", 4);
  out->push_back('\0');    // RPC version 0
  out->push_back('\x50');  // auth: SIMPLE
}

void AppendConnectionHeader(std::string* out, std::string_view user, std::string_view service,
                            std::string_view cell_block_codec) {
  pb::ConnectionHeader h;
  h.mutable_user_info()->set_effective_user(std::string(user));
  h.set_service_name(std::string(service));
  if (!cell_block_codec.empty()) h.set_cell_block_codec_class(std::string(cell_block_codec));
  const std::size_t size = h.ByteSizeLong();
  PutU32BE(out, static_cast<std::uint32_t>(size));
  const std::size_t at = out->size();
  out->resize(at + size);
  h.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out->data() + at));
}

bool RequestEncoder::Append(std::string* out, std::uint32_t call_id, std::string_view method,
                            const google::protobuf::MessageLite& param) {
  if (!param.IsInitialized()) return false;
  header_.set_call_id(call_id);
  if (header_.method_name() != method) header_.mutable_method_name()->assign(method.data(), method.size());
  header_.set_request_param(true);
  namespace io = google::protobuf::io;
  const std::size_t hsize = header_.ByteSizeLong();
  const std::size_t psize = param.ByteSizeLong();
  const std::size_t total = io::CodedOutputStream::VarintSize32(static_cast<std::uint32_t>(hsize)) + hsize +
                            io::CodedOutputStream::VarintSize32(static_cast<std::uint32_t>(psize)) + psize;
  PutU32BE(out, static_cast<std::uint32_t>(total));
  AppendDelimited(out, header_, hsize);
  AppendDelimited(out, param, psize);
  return true;
}

std::int64_t FrameLength(std::string_view in) {
  if (in.size() < 4) return 0;
  const std::uint32_t n = GetU32BE(in);
  if (n == 0 || n > kMaxFrameBytes) return -1;
  if (in.size() - 4 < n) return 0;
  return std::int64_t{n} + 4;
}

std::size_t ReadDelimited(std::string_view in, std::string_view* body) {
  std::uint64_t len = 0;
  std::size_t i = 0;
  for (int shift = 0;; shift += 7) {
    if (i >= in.size() || shift > 28) return 0;
    const auto b = static_cast<unsigned char>(in[i++]);
    len |= std::uint64_t{b & 0x7Fu} << shift;
    if ((b & 0x80) == 0) break;
  }
  if (len > in.size() - i) return 0;
  *body = in.substr(i, static_cast<std::size_t>(len));
  return i + static_cast<std::size_t>(len);
}

bool PeekCallId(std::string_view frame, std::uint32_t* call_id) {
  if (frame.size() < 4) return false;
  std::string_view header;
  if (ReadDelimited(frame.substr(4), &header) == 0) return false;
  // The call id is field 1 (varint), which HBase writes first; parse the
  // header's fields until it is found without building the message.
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(header.data()),
                                            static_cast<int>(header.size()));
  while (true) {
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0) return false;
    if (tag == (1u << 3 | 0u)) return in.ReadVarint32(call_id);
    if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) return false;
  }
}

bool ParseResponse(std::string_view frame, Response* out) {
  out->param = {};
  out->cell_block = {};
  if (frame.size() < 4) return false;
  std::string_view rest = frame.substr(4);
  std::string_view header;
  std::size_t n = ReadDelimited(rest, &header);
  if (n == 0) return false;
  out->header.Clear();
  if (!out->header.ParseFromArray(header.data(), static_cast<int>(header.size()))) return false;
  rest.remove_prefix(n);
  if (out->header.has_exception()) return true;
  if (rest.empty()) return true;  // a response with no message (all defaults)
  n = ReadDelimited(rest, &out->param);
  if (n == 0) return false;
  rest.remove_prefix(n);
  if (out->header.has_cell_block_meta()) {
    const std::uint32_t len = out->header.cell_block_meta().length();
    if (len > rest.size()) return false;
    out->cell_block = rest.substr(0, len);
  }
  return true;
}

}  // namespace storebench::hbase
