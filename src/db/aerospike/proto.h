// Aerospike's wire protocol, bytes only (no sockets): what the aerospike
// binding sends and parses, each piece unit-tested on recorded bytes
// (tests/db/aerospike_proto_test.cc) and fuzzed (tests/fuzz/aerospike_fuzz.cc).
//
// Every message starts with an 8-byte proto header: version 2, a type (1:
// info, 3: message), and the body's length in 6 big-endian bytes.
//   - Info (type 1): the body is text. A request names what it asks for,
//     one name a line ("node\npartition-generation\n"); the answer repeats
//     each name followed by a tab and its value ("node\tBB9...\n").
//   - Message (type 3): a 22-byte header (flags info1..info4, result code,
//     generation, record TTL, transaction TTL, field and op counts), then
//     fields (4-byte length, type, data: namespace, set, digest, batch) and
//     operations on bins (4-byte length, op, particle type, version, name
//     length, name, value). All integers big-endian.
// A record is addressed by its digest: RIPEMD-160 over the set name, the
// key's type byte and the key; its partition is the digest's first two
// bytes, little-endian, mod 4096 (as Aerospike's clients and server do).
//
// Pure functions and plain values, thread-safe; the encoders append to the
// caller's buffer and do not allocate once it has grown.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"

namespace storebench::aerospike {

inline constexpr int kPartitions = 4096;
inline constexpr std::size_t kProtoHeaderSize = 8;
inline constexpr std::size_t kMsgHeaderSize = 22;
inline constexpr std::size_t kDigestSize = 20;
// Returned by the frame and message parsers for bytes that cannot be one.
inline constexpr std::size_t kMalformed = std::numeric_limits<std::size_t>::max();
// The largest body accepted from a server (Aerospike's own limit is 128 MiB
// for a message; anything larger is out of step).
inline constexpr std::uint64_t kMaxBody = std::uint64_t{128} << 20;

using Digest = std::array<std::uint8_t, kDigestSize>;

// Proto types.
inline constexpr std::uint8_t kTypeInfo = 1;
inline constexpr std::uint8_t kTypeMessage = 3;
inline constexpr std::uint8_t kTypeCompressed = 4;

// Key types (the byte hashed into the digest) and bin particle types.
inline constexpr std::uint8_t kParticleInteger = 1;
inline constexpr std::uint8_t kParticleString = 3;
inline constexpr std::uint8_t kParticleBlob = 4;

// Message flags (as/include/base/proto.h in Aerospike's server).
inline constexpr std::uint8_t kInfo1Read = 1 << 0;
inline constexpr std::uint8_t kInfo1GetAll = 1 << 1;
inline constexpr std::uint8_t kInfo1Batch = 1 << 3;
inline constexpr std::uint8_t kInfo1NoBinData = 1 << 5;
inline constexpr std::uint8_t kInfo2Write = 1 << 0;
inline constexpr std::uint8_t kInfo2Delete = 1 << 1;
inline constexpr std::uint8_t kInfo2CreateOnly = 1 << 5;
inline constexpr std::uint8_t kInfo3Last = 1 << 0;
inline constexpr std::uint8_t kInfo3UpdateOnly = 1 << 3;
inline constexpr std::uint8_t kInfo3CreateOrReplace = 1 << 4;
inline constexpr std::uint8_t kInfo3ReplaceOnly = 1 << 5;

// Field types.
inline constexpr std::uint8_t kFieldNamespace = 0;
inline constexpr std::uint8_t kFieldSet = 1;
inline constexpr std::uint8_t kFieldKey = 2;
inline constexpr std::uint8_t kFieldDigest = 4;
inline constexpr std::uint8_t kFieldBatch = 41;

// Operation types.
inline constexpr std::uint8_t kOpRead = 1;
inline constexpr std::uint8_t kOpWrite = 2;
inline constexpr std::uint8_t kOpTouch = 11;

// Result codes the binding looks at by name (all are counted, ResultName).
inline constexpr std::uint8_t kResultOk = 0;
inline constexpr std::uint8_t kResultNotFound = 2;

// The digest of `key` (of key type `key_type`, bytes as sent: a string's
// UTF-8 bytes, an integer's 8 big-endian bytes) in `set`.
Digest ComputeDigest(std::string_view set, std::uint8_t key_type, std::string_view key);
inline Digest StringKeyDigest(std::string_view set, std::string_view key) {
  return ComputeDigest(set, kParticleString, key);
}
// The partition holding a digest: its first two bytes, little-endian, mod 4096.
inline int PartitionId(const Digest& d) {
  return static_cast<int>((static_cast<unsigned>(d[0]) | static_cast<unsigned>(d[1]) << 8) % kPartitions);
}

// The proto header for a body of `body_size` bytes.
void AppendProtoHeader(std::string& out, std::uint8_t type, std::uint64_t body_size);
// The frame at the front of `in`: its whole length (header and body) when
// complete, 0 when more bytes are needed, kMalformed when it cannot be one
// (wrong version, unknown type, body over kMaxBody). *type gets its type.
std::size_t FrameLength(std::string_view in, std::uint8_t* type);

// An info request for `names` (each followed by '\n').
void AppendInfoRequest(std::string& out, std::span<const std::string_view> names);
// The value of `name` in an info answer's body ("name\tvalue\n" lines);
// nullopt when the answer has no such line.
std::optional<std::string_view> InfoValue(std::string_view body, std::string_view name);

// A message header's variable parts.
struct MsgHeader {
  std::uint8_t info1 = 0;
  std::uint8_t info2 = 0;
  std::uint8_t info3 = 0;
  std::uint8_t info4 = 0;
  std::uint8_t result_code = 0;
  std::uint32_t generation = 0;
  std::uint32_t record_ttl = 0;
  std::uint32_t transaction_ttl =
      0;  // requests: the server-side timeout in ms; batch replies: the row's index
  std::uint16_t n_fields = 0;
  std::uint16_t n_ops = 0;
};

// Writes one message (proto header included) into `out`: Begin, then
// fields, then ops, then Finish, which fills in the lengths and counts.
class MessageWriter {
 public:
  explicit MessageWriter(std::string& out) : out_(out) {}
  void Begin(const MsgHeader& h);
  void Field(std::uint8_t type, std::string_view data);
  void DigestField(const Digest& d) {
    Field(kFieldDigest, std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  }
  // A bin operation; `name` at most 255 bytes (Aerospike's limit is 15).
  void Op(std::uint8_t op, std::uint8_t particle, std::string_view name, std::string_view value);
  void Finish();

 private:
  std::string& out_;
  std::size_t start_ = 0;
  std::uint16_t fields_ = 0;
  std::uint16_t ops_ = 0;
};

// One operation of a reply (a bin and its value), viewed in the reply.
struct BinOp {
  std::uint8_t op = 0;
  std::uint8_t particle = 0;
  std::string_view name;
  std::string_view value;
};

// One message of a reply body, viewed: its header, fields and ops.
struct Reply {
  MsgHeader header;
  std::string_view fields;  // the fields' bytes (header.n_fields of them)
  std::string_view ops;     // the ops' bytes (header.n_ops of them)
};

// Parses one message at the front of `body` (a type-3 frame's body, which
// may hold several back to back, as batch replies do): the bytes it takes,
// or kMalformed.
std::size_t ParseMessage(std::string_view body, Reply* out);
// The next bin of `*ops` (advanced past it); false at the end or when the
// bytes are not an op (ParseMessage has checked a reply's ops already).
bool NextOp(std::string_view* ops, BinOp* out);

// A batch read's BATCH field: `count` rows, each a row index and a digest;
// the first row carries the namespace, the set and the bins to read (none:
// all), the others repeat it.
void AppendBatchField(MessageWriter& w, std::string& scratch, std::string_view ns, std::string_view set,
                      std::span<const std::uint32_t> indexes, std::span<const Digest> digests,
                      std::span<const std::string_view> bins);

// The storebench status of an Aerospike result code: OK; NOT_FOUND (record
// not found); UNEXPECTED_STATE (generation, record exists, key mismatch);
// BAD_REQUEST (parameter, bin type, record too big, namespace, bin name,
// unsupported or enterprise-only feature); SERVICE_UNAVAILABLE (partition
// unavailable, out of space, key busy, device overload, cluster key
// mismatch, batch queues full or disabled); FORBIDDEN (security); ERROR
// for the rest (server error, timeout, unknown codes).
Status StatusOf(std::uint8_t result_code);
// The result code's name, as in Aerospike's server (AS_ERR_NOT_FOUND ->
// "NOT_FOUND"); "CODE_<n>" for one it does not name.
std::string ResultName(std::uint8_t result_code);

}  // namespace storebench::aerospike
