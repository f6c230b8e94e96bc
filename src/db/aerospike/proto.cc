#include "db/aerospike/proto.h"

// RIPEMD-160's own functions: deprecated in OpenSSL 3 in favour of EVP, whose
// digest contexts allocate on every init (two mallocs per key here); these
// compute the same digest with no allocation.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/ripemd.h>

#include <cstring>

namespace storebench::aerospike {
namespace {

void PutU16(std::string& out, std::uint16_t v) {
  const char b[2] = {static_cast<char>(v >> 8), static_cast<char>(v & 0xff)};
  out.append(b, 2);
}
void PutU32(std::string& out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xff),
                     static_cast<char>((v >> 8) & 0xff), static_cast<char>(v & 0xff)};
  out.append(b, 4);
}
void SetU16(std::string& out, std::size_t at, std::uint16_t v) {
  out[at] = static_cast<char>(v >> 8);
  out[at + 1] = static_cast<char>(v & 0xff);
}
std::uint64_t GetBE(std::string_view s, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = v << 8 | static_cast<std::uint8_t>(s[at + static_cast<std::size_t>(i)]);
  return v;
}
void AppendField(std::string& out, std::uint8_t type, std::string_view data) {
  PutU32(out, static_cast<std::uint32_t>(data.size() + 1));
  out.push_back(static_cast<char>(type));
  out.append(data);
}
void AppendOp(std::string& out, std::uint8_t op, std::uint8_t particle, std::string_view name,
              std::string_view value) {
  PutU32(out, static_cast<std::uint32_t>(4 + name.size() + value.size()));
  const char b[4] = {static_cast<char>(op), static_cast<char>(particle), 0 /* version */,
                     static_cast<char>(name.size())};
  out.append(b, 4);
  out.append(name);
  out.append(value);
}

// Skips `n` fields (or ops, whose length word has the same meaning) from
// `s`: the bytes they take, or kMalformed.
std::size_t SkipItems(std::string_view s, std::size_t n, std::size_t min_len) {
  std::size_t pos = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (s.size() - pos < 4) return kMalformed;
    const std::uint64_t len = GetBE(s, pos, 4);
    if (len < min_len || len > s.size() - pos - 4) return kMalformed;
    pos += 4 + static_cast<std::size_t>(len);
  }
  return pos;
}

}  // namespace

Digest ComputeDigest(std::string_view set, std::uint8_t key_type, std::string_view key) {
  RIPEMD160_CTX c;
  RIPEMD160_Init(&c);
  RIPEMD160_Update(&c, set.data(), set.size());
  RIPEMD160_Update(&c, &key_type, 1);
  RIPEMD160_Update(&c, key.data(), key.size());
  Digest d;
  RIPEMD160_Final(d.data(), &c);
  return d;
}

void AppendProtoHeader(std::string& out, std::uint8_t type, std::uint64_t body_size) {
  char b[8] = {2, static_cast<char>(type)};
  for (int i = 0; i < 6; ++i) b[2 + i] = static_cast<char>((body_size >> (40 - 8 * i)) & 0xff);
  out.append(b, sizeof b);
}

std::size_t FrameLength(std::string_view in, std::uint8_t* type) {
  if (in.size() < kProtoHeaderSize) {
    // A wrong first byte is wrong already.
    if (!in.empty() && in[0] != 2) return kMalformed;
    return 0;
  }
  const auto t = static_cast<std::uint8_t>(in[1]);
  if (in[0] != 2 || (t != kTypeInfo && t != kTypeMessage && t != kTypeCompressed)) return kMalformed;
  const std::uint64_t body = GetBE(in, 2, 6);
  if (body > kMaxBody) return kMalformed;
  *type = t;
  const std::size_t total = kProtoHeaderSize + static_cast<std::size_t>(body);
  return in.size() >= total ? total : 0;
}

void AppendInfoRequest(std::string& out, std::span<const std::string_view> names) {
  std::size_t body = 0;
  for (std::string_view n : names) body += n.size() + 1;
  AppendProtoHeader(out, kTypeInfo, body);
  for (std::string_view n : names) {
    out.append(n);
    out.push_back('\n');
  }
}

std::optional<std::string_view> InfoValue(std::string_view body, std::string_view name) {
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view line = body.substr(pos, end - pos);
    const std::size_t tab = line.find('\t');
    if (line.substr(0, tab) == name) {
      return tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
    }
    pos = end + 1;
  }
  return std::nullopt;
}

void MessageWriter::Begin(const MsgHeader& h) {
  start_ = out_.size();
  fields_ = ops_ = 0;
  AppendProtoHeader(out_, kTypeMessage, 0);  // the length is set by Finish
  const char flags[6] = {static_cast<char>(kMsgHeaderSize), static_cast<char>(h.info1),
                         static_cast<char>(h.info2),        static_cast<char>(h.info3),
                         static_cast<char>(h.info4),        static_cast<char>(h.result_code)};
  out_.append(flags, sizeof flags);
  PutU32(out_, h.generation);
  PutU32(out_, h.record_ttl);
  PutU32(out_, h.transaction_ttl);
  PutU16(out_, 0);
  PutU16(out_, 0);
}

void MessageWriter::Field(std::uint8_t type, std::string_view data) {
  AppendField(out_, type, data);
  ++fields_;
}

void MessageWriter::Op(std::uint8_t op, std::uint8_t particle, std::string_view name,
                       std::string_view value) {
  AppendOp(out_, op, particle, name.substr(0, 255), value);
  ++ops_;
}

void MessageWriter::Finish() {
  const std::uint64_t body = out_.size() - start_ - kProtoHeaderSize;
  for (int i = 0; i < 6; ++i) {
    out_[start_ + 2 + static_cast<std::size_t>(i)] = static_cast<char>((body >> (40 - 8 * i)) & 0xff);
  }
  SetU16(out_, start_ + kProtoHeaderSize + 18, fields_);
  SetU16(out_, start_ + kProtoHeaderSize + 20, ops_);
}

std::size_t ParseMessage(std::string_view body, Reply* out) {
  if (body.size() < kMsgHeaderSize) return kMalformed;
  const auto header_size = static_cast<std::uint8_t>(body[0]);
  if (header_size < kMsgHeaderSize || header_size > body.size()) return kMalformed;
  MsgHeader& h = out->header;
  h.info1 = static_cast<std::uint8_t>(body[1]);
  h.info2 = static_cast<std::uint8_t>(body[2]);
  h.info3 = static_cast<std::uint8_t>(body[3]);
  h.info4 = static_cast<std::uint8_t>(body[4]);
  h.result_code = static_cast<std::uint8_t>(body[5]);
  h.generation = static_cast<std::uint32_t>(GetBE(body, 6, 4));
  h.record_ttl = static_cast<std::uint32_t>(GetBE(body, 10, 4));
  h.transaction_ttl = static_cast<std::uint32_t>(GetBE(body, 14, 4));
  h.n_fields = static_cast<std::uint16_t>(GetBE(body, 18, 2));
  h.n_ops = static_cast<std::uint16_t>(GetBE(body, 20, 2));
  std::string_view rest = body.substr(header_size);
  const std::size_t fields = SkipItems(rest, h.n_fields, 1);
  if (fields == kMalformed) return kMalformed;
  out->fields = rest.substr(0, fields);
  rest.remove_prefix(fields);
  const std::size_t ops = SkipItems(rest, h.n_ops, 4);
  if (ops == kMalformed) return kMalformed;
  out->ops = rest.substr(0, ops);
  // Each op's name must fit inside it.
  std::string_view check = out->ops;
  BinOp op;
  for (std::uint16_t i = 0; i < h.n_ops; ++i) {
    if (!NextOp(&check, &op)) return kMalformed;
  }
  return header_size + fields + ops;
}

bool NextOp(std::string_view* ops, BinOp* out) {
  if (ops->size() < 8) return false;
  const std::uint64_t len = GetBE(*ops, 0, 4);
  if (len < 4 || len > ops->size() - 4) return false;
  const auto name_len = static_cast<std::uint8_t>((*ops)[7]);
  if (name_len > len - 4) return false;
  out->op = static_cast<std::uint8_t>((*ops)[4]);
  out->particle = static_cast<std::uint8_t>((*ops)[5]);
  out->name = ops->substr(8, name_len);
  out->value = ops->substr(8 + name_len, static_cast<std::size_t>(len) - 4 - name_len);
  ops->remove_prefix(4 + static_cast<std::size_t>(len));
  return true;
}

void AppendBatchField(MessageWriter& w, std::string& scratch, std::string_view ns, std::string_view set,
                      std::span<const std::uint32_t> indexes, std::span<const Digest> digests,
                      std::span<const std::string_view> bins) {
  scratch.clear();
  PutU32(scratch, static_cast<std::uint32_t>(digests.size()));
  scratch.push_back(1);  // parent flags: the server may answer inline (data in memory)
  for (std::size_t i = 0; i < digests.size(); ++i) {
    PutU32(scratch, indexes[i]);
    scratch.append(reinterpret_cast<const char*>(digests[i].data()), kDigestSize);
    if (i > 0) {
      scratch.push_back(1);  // repeat: same namespace, set and bins as the row before
      continue;
    }
    scratch.push_back(0);  // no extra info
    scratch.push_back(static_cast<char>(bins.empty() ? (kInfo1Read | kInfo1GetAll) : kInfo1Read));
    PutU16(scratch, 2);
    PutU16(scratch, static_cast<std::uint16_t>(bins.size()));
    AppendField(scratch, kFieldNamespace, ns);
    AppendField(scratch, kFieldSet, set);
    for (std::string_view b : bins) AppendOp(scratch, kOpRead, 0, b.substr(0, 255), {});
  }
  w.Field(kFieldBatch, scratch);
}

Status StatusOf(std::uint8_t rc) {
  switch (rc) {
    case 0:
      return Status::Ok();
    case 2:
      return Status::NotFound();
    case 3:
    case 5:
    case 19:
      return Status(Status::kUnexpectedState);
    case 4:
    case 12:
    case 13:
    case 16:
    case 20:
    case 21:
    case 25:
      return Status(Status::kBadRequest);
    case 7:
    case 8:
    case 11:
    case 14:
    case 18:
    case 32:
    case 150:
    case 151:
    case 152:
      return Status(Status::kServiceUnavailable);
    case 22:
    case 52:
    case 80:
    case 81:
    case 82:
    case 83:
      return Status(Status::kForbidden);
    default:
      return Status::Error();
  }
}

std::string ResultName(std::uint8_t rc) {
  switch (rc) {
    case 0:
      return "OK";
    case 1:
      return "UNKNOWN";
    case 2:
      return "NOT_FOUND";
    case 3:
      return "GENERATION";
    case 4:
      return "PARAMETER";
    case 5:
      return "RECORD_EXISTS";
    case 6:
      return "BIN_EXISTS";
    case 7:
      return "CLUSTER_KEY_MISMATCH";
    case 8:
      return "OUT_OF_SPACE";
    case 9:
      return "TIMEOUT";
    case 11:
      return "UNAVAILABLE";
    case 12:
      return "INCOMPATIBLE_TYPE";
    case 13:
      return "RECORD_TOO_BIG";
    case 14:
      return "KEY_BUSY";
    case 16:
      return "UNSUPPORTED_FEATURE";
    case 17:
      return "BIN_NOT_FOUND";
    case 18:
      return "DEVICE_OVERLOAD";
    case 19:
      return "KEY_MISMATCH";
    case 20:
      return "NAMESPACE";
    case 21:
      return "BIN_NAME";
    case 22:
      return "FORBIDDEN";
    case 25:
      return "ENTERPRISE_ONLY";
    case 26:
      return "OP_NOT_APPLICABLE";
    case 27:
      return "FILTERED_OUT";
    case 28:
      return "LOST_CONFLICT";
    case 32:
      return "XDR_KEY_BUSY";
    case 52:
      return "SECURITY_NOT_CONFIGURED";
    case 80:
      return "NOT_AUTHENTICATED";
    case 81:
      return "ROLE_VIOLATION";
    case 82:
      return "NOT_WHITELISTED";
    case 83:
      return "QUOTA_EXCEEDED";
    case 100:
      return "UDF_EXECUTION";
    case 150:
      return "BATCH_DISABLED";
    case 151:
      return "BATCH_MAX_REQUESTS";
    case 152:
      return "BATCH_QUEUES_FULL";
    default:
      return "CODE_" + std::to_string(rc);
  }
}

}  // namespace storebench::aerospike
