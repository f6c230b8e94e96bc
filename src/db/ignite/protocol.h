// The thin-client protocol's framing: protocol versions (1.0.0 … 1.7.0), the
// handshake and its answer, the request header (length, op code, request id)
// and the response header (request id, flags from 1.4, status and error
// message). Op codes of the requests the binding sends. Sources:
// docs/_docs/binary-client-protocol/binary-client-protocol.adoc and, as the
// authority, apache/ignite's ClientListenerNioListener.onHandshake,
// ClientConnectionContext.initializeFromHandshake, ClientRequestHandler
// .writeHandshake, ClientResponse.encode and ClientMessageParser.
//
// Pure functions over caller-owned buffers (see wire.h); thread-safe on
// distinct objects. Decoded strings are views into the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "db/ignite/binary.h"
#include "db/ignite/wire.h"

namespace storebench::ignite {

struct Version {
  std::int16_t major = 1, minor = 7, patch = 0;
  bool operator==(const Version&) const = default;
  bool AtLeast(std::int16_t mj, std::int16_t mn) const { return major > mj || (major == mj && minor >= mn); }
};

// The versions this codec speaks, newest first: the client offers the first
// and, when the server refuses and names its own, the newest one not above it.
inline constexpr Version kVersions[] = {{1, 7, 0}, {1, 6, 0}, {1, 5, 0}, {1, 4, 0},
                                        {1, 3, 0}, {1, 2, 0}, {1, 1, 0}, {1, 0, 0}};
// The newest of kVersions at or below `server` (what to retry with after a
// refusal that names the server's version); false if none is.
bool NegotiateDown(Version server, Version* out);

// Protocol feature bits of 1.7.0 (ClientBitmaskFeature ids); bit id goes to
// byte id / 8, bit id % 8. The codec never asks for USER_ATTRIBUTES (it would
// oblige the handshake to carry a map) nor ALL_AFFINITY_MAPPINGS (it changes
// CACHE_PARTITIONS' request).
enum Feature : int {
  kFeatureUserAttributes = 0,
  kFeatureExecuteTaskByName = 1,
  kFeatureClusterStates = 2,
  kFeatureHeartbeat = 11,
  kFeatureAllAffinityMappings = 13,
};

// The handshake's codes: request 1, client type 2 (thin client).
inline constexpr std::uint8_t kHandshakeCode = 1;
inline constexpr std::uint8_t kThinClientType = 2;

struct HandshakeRequest {
  Version version;
  std::string_view features;  // 1.7.0: the bitmask bytes (may be empty)
  std::string_view user;      // from 1.1.0 when has_credentials
  std::string_view password;
  bool has_credentials = false;
};
// Appends the whole handshake message (length prefix included): code 1,
// version, client type 2, the features byte array (1.7), then user and
// password as strings when given (1.1 and later).
void EncodeHandshake(Writer& w, const HandshakeRequest& h);

struct HandshakeResponse {
  bool success = false;
  // Success: the server's features (1.7) and node id (1.4, for routing).
  std::string_view features;
  Uuid node_id;
  bool has_node_id = false;
  // Failure: the version the server speaks, its message, and (1.1+) status.
  Version server_version;
  std::string_view message;
  std::int32_t status = 0;
};
// Decodes a handshake answer's body (after the length prefix) for a request
// made with `asked`. False when the body is malformed.
bool DecodeHandshake(std::string_view body, Version asked, HandshakeResponse* out);

// ---- requests and responses -------------------------------------------------

enum OpCode : std::int16_t {
  kOpResourceClose = 0,
  kOpCacheGet = 1000,
  kOpCachePut = 1001,
  kOpCachePutIfAbsent = 1002,
  kOpCacheGetAll = 1003,
  kOpCachePutAll = 1004,
  kOpCacheGetAndPut = 1005,
  kOpCacheReplace = 1009,
  kOpCacheReplaceIfEquals = 1010,
  kOpCacheContainsKey = 1011,
  kOpCacheRemoveKey = 1016,
  kOpCacheRemoveKeys = 1018,
  kOpCacheGetOrCreateWithConfiguration = 1054,
  kOpCacheDestroy = 1056,
  kOpCachePartitions = 1101,
  kOpQuerySqlFields = 2004,
  kOpQuerySqlFieldsCursorGetPage = 2005,
  kOpTxStart = 4000,
  kOpTxEnd = 4001,
};

// Starts a request: int32 length (patched by FinishRequest), int16 op code,
// int64 request id. Returns the length's position.
inline std::size_t BeginRequest(Writer& w, OpCode op, std::int64_t request_id) {
  std::size_t at = w.Placeholder();
  w.I16(op);
  w.I64(request_id);
  return at;
}
inline void FinishRequest(Writer& w, std::size_t at) { w.PatchLength(at); }

// Response flags (1.4+): ClientFlag.ERROR and AFFINITY_TOPOLOGY_CHANGED.
inline constexpr std::int16_t kFlagError = 1;
inline constexpr std::int16_t kFlagTopologyChanged = 2;

// Status codes (ClientStatus) a caller may want to tell apart.
enum ServerStatus : std::int32_t {
  kStatusSuccess = 0,
  kStatusFailed = 1,
  kStatusInvalidOpCode = 2,
  kStatusCacheDoesNotExist = 1000,
  kStatusCacheExists = 1001,
  kStatusTooManyCursors = 1010,
  kStatusResourceDoesNotExist = 1011,
  kStatusSecurityViolation = 1012,
  kStatusTxLimitExceeded = 1020,
  kStatusTxNotFound = 1021,
  kStatusAuthFailed = 2000,
};

struct ResponseHeader {
  std::int64_t request_id = 0;
  std::int16_t flags = 0;
  bool topology_changed = false;
  std::int64_t topology_version = 0;  // when topology_changed
  std::int32_t topology_minor = 0;
  std::int32_t status = kStatusSuccess;
  std::string_view error;  // when status != 0
  bool ok() const { return status == kStatusSuccess; }
};

// Decodes the header of a response body (after the length prefix) under
// `version`; on return `r` stands at the payload (success) or past the error.
// Before 1.4: request id, status, message if status != 0. From 1.4: request
// id, flags, topology version (long + int) if flag 2, status and message if
// flag 1. False when malformed.
bool DecodeResponseHeader(Reader& r, Version version, ResponseHeader* out);

}  // namespace storebench::ignite
