#include "db/ignite/protocol.h"

namespace storebench::ignite {

bool NegotiateDown(Version server, Version* out) {
  for (const Version& v : kVersions) {
    if (server.major > v.major || (server.major == v.major && (server.minor > v.minor ||
                                                               (server.minor == v.minor && server.patch >= v.patch)))) {
      *out = v;
      return true;
    }
  }
  return false;
}

void EncodeHandshake(Writer& w, const HandshakeRequest& h) {
  std::size_t at = w.Placeholder();
  w.U8(kHandshakeCode);
  w.I16(h.version.major);
  w.I16(h.version.minor);
  w.I16(h.version.patch);
  w.U8(kThinClientType);
  if (h.version.AtLeast(1, 7)) WriteByteArray(w, h.features);
  if (h.has_credentials && h.version.AtLeast(1, 1)) {
    WriteString(w, h.user);
    WriteString(w, h.password);
  }
  w.PatchLength(at);
}

bool DecodeHandshake(std::string_view body, Version asked, HandshakeResponse* out) {
  Reader r(body);
  *out = HandshakeResponse{};
  out->success = r.Bool();
  if (!r.ok()) return false;
  if (out->success) {
    if (asked.AtLeast(1, 7)) {
      bool present;
      if (!ReadByteArrayOrNull(r, &out->features, &present)) return false;
    }
    if (asked.AtLeast(1, 4)) {
      if (!ReadUuidOrNull(r, &out->node_id, &out->has_node_id)) return false;
    }
    return r.ok();
  }
  out->server_version.major = r.I16();
  out->server_version.minor = r.I16();
  out->server_version.patch = r.I16();
  bool present;
  if (!ReadStringOrNull(r, &out->message, &present)) return false;
  out->status = kStatusFailed;
  if (asked.AtLeast(1, 1) && r.remaining() >= 4) out->status = r.I32();
  return r.ok();
}

bool DecodeResponseHeader(Reader& r, Version version, ResponseHeader* out) {
  *out = ResponseHeader{};
  out->request_id = r.I64();
  bool has_error;
  if (version.AtLeast(1, 4)) {
    out->flags = r.I16();
    out->topology_changed = (out->flags & kFlagTopologyChanged) != 0;
    if (out->topology_changed) {
      out->topology_version = r.I64();
      out->topology_minor = r.I32();
    }
    has_error = (out->flags & kFlagError) != 0;
    if (has_error) out->status = r.I32();
  } else {
    out->status = r.I32();
    has_error = out->status != kStatusSuccess;
  }
  if (!r.ok()) return false;
  if (has_error) {
    bool present;
    if (!ReadStringOrNull(r, &out->error, &present)) return false;
    // An error flag with status 0 would read as success: keep it an error.
    if (out->status == kStatusSuccess) out->status = kStatusFailed;
  }
  return r.ok();
}

}  // namespace storebench::ignite
