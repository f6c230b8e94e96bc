// Fuzzes the ignite codec's decoders (db/ignite/): what a server (or anything
// on its port) may send. The first byte picks the decoder and the protocol
// version; the rest is the input: a handshake answer, a response header and
// its payload (get, getAll, cache partitions, SQL page), or a lone binary
// object. Every decoder must stay inside its input and never crash; views it
// returns lie inside the input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "db/ignite/affinity.h"
#include "db/ignite/binary.h"
#include "db/ignite/cache_ops.h"
#include "db/ignite/protocol.h"
#include "db/ignite/wire.h"

using namespace storebench::ignite;

namespace {

void Check(std::string_view part, std::string_view whole) {
  if (!part.empty() && (part.data() < whole.data() || part.data() + part.size() > whole.data() + whole.size()))
    std::abort();
}

void Object(const ObjectView& o, std::string_view in) {
  Check(o.bytes, in);
  Check(o.schema, in);
  for (std::size_t i = 0; i < o.field_count && i < 64; ++i) {
    std::int32_t id;
    std::string_view v;
    if (ObjectField(o, i, &id, &v)) Check(v, in);
  }
  std::string_view s;
  if (ObjectStringField(o, FieldId("field0"), &s)) Check(s, in);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t sel = data[0];
  const std::string buf(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string_view in(buf);
  const Version v = kVersions[(sel >> 4) % (sizeof(kVersions) / sizeof(kVersions[0]))];
  Reader r(in);
  switch (sel & 0x0F) {
    case 0: {
      HandshakeResponse h;
      if (DecodeHandshake(in, v, &h)) {
        Check(h.features, in);
        Check(h.message, in);
      }
      break;
    }
    case 1: {
      ObjectView o;
      if (ReadObject(r, &o)) Object(o, in);
      break;
    }
    case 2: {
      ResponseHeader h;
      if (!DecodeResponseHeader(r, v, &h)) break;
      Check(h.error, in);
      ObjectView o;
      bool found;
      if (h.ok() && DecodeGetValue(r, &o, &found) && found) Object(o, in);
      break;
    }
    case 3:
      DecodeGetAll(r, [&](std::string_view k, const ObjectView& o) {
        Check(k, in);
        Object(o, in);
      });
      break;
    case 4: {
      PartitionMap m;
      if (DecodeCachePartitions(r, 11, &m)) {
        if (m.partition_node.size() > 65536) std::abort();
        std::int32_t n = PrimaryNode(m, "user1");
        if (n >= static_cast<std::int32_t>(m.nodes.size())) std::abort();
      }
      break;
    }
    case 5: {
      std::int32_t columns = 0;
      std::int64_t cursor = 0;
      bool more = false;
      DecodeSqlPage(r, (sel & 0x10) != 0, &columns, &cursor, &more,
                    [](std::int32_t, std::int32_t, Reader& cell) { return SkipValue(cell); });
      break;
    }
    default: {
      for (int i = 0; i < 64 && r.ok() && r.remaining() > 0; ++i)
        if (!SkipValue(r)) break;
      break;
    }
  }
  if (r.pos() > in.size()) std::abort();
  return 0;
}
