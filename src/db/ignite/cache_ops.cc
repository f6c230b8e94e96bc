#include "db/ignite/cache_ops.h"

namespace storebench::ignite {
namespace {

// Cache configuration property codes (ClientCacheConfigurationSerializer).
constexpr std::int16_t kPropName = 0;
constexpr std::int16_t kPropAtomicityMode = 2;
constexpr std::int16_t kPropBackups = 3;
constexpr std::int16_t kPropWriteSyncMode = 4;
constexpr std::int16_t kPropQueryEntities = 200;
constexpr std::int16_t kPropGroupName = 400;

void WriteRecord(Writer& w, std::int32_t type_id, const RecordView& r) {
  WriteString(w, r.key);
  WriteStringObject(w, type_id, r.fields, r.field_ids, r.field_count);
}

void KeyRequest(Writer& w, OpCode op, std::int64_t id, const CacheTarget& t, Version v, std::string_view key) {
  std::size_t at = BeginRequest(w, op, id);
  WriteCacheTarget(w, t, v);
  WriteString(w, key);
  FinishRequest(w, at);
}

void KeysRequest(Writer& w, OpCode op, std::int64_t id, const CacheTarget& t, Version v, const std::string_view* keys,
                 std::size_t n) {
  std::size_t at = BeginRequest(w, op, id);
  WriteCacheTarget(w, t, v);
  w.I32(static_cast<std::int32_t>(n));
  for (std::size_t i = 0; i < n; ++i) WriteString(w, keys[i]);
  FinishRequest(w, at);
}

void RecordRequest(Writer& w, OpCode op, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                   const RecordView& r) {
  std::size_t at = BeginRequest(w, op, id);
  WriteCacheTarget(w, t, v);
  WriteRecord(w, type_id, r);
  FinishRequest(w, at);
}

}  // namespace

void WriteCacheTarget(Writer& w, const CacheTarget& t, Version v) {
  w.I32(t.cache_id);
  const bool tx = t.in_tx && v.AtLeast(1, 5);
  w.U8(static_cast<std::uint8_t>(kCacheFlagKeepBinary | (tx ? kCacheFlagTransactional : 0)));
  if (tx) w.I32(t.tx_id);
}

void EncodeGet(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::string_view key) {
  KeyRequest(w, kOpCacheGet, id, t, v, key);
}
void EncodeRemoveKey(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::string_view key) {
  KeyRequest(w, kOpCacheRemoveKey, id, t, v, key);
}
void EncodePut(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
               const RecordView& r) {
  RecordRequest(w, kOpCachePut, id, t, v, type_id, r);
}
void EncodeReplace(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                   const RecordView& r) {
  RecordRequest(w, kOpCacheReplace, id, t, v, type_id, r);
}
void EncodeReplaceIfEquals(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                           std::string_view expected_object, const RecordView& r) {
  std::size_t at = BeginRequest(w, kOpCacheReplaceIfEquals, id);
  WriteCacheTarget(w, t, v);
  WriteString(w, r.key);
  w.Bytes(expected_object);
  WriteStringObject(w, type_id, r.fields, r.field_ids, r.field_count);
  FinishRequest(w, at);
}
void EncodeGetAll(Writer& w, std::int64_t id, const CacheTarget& t, Version v, const std::string_view* keys,
                  std::size_t n) {
  KeysRequest(w, kOpCacheGetAll, id, t, v, keys, n);
}
void EncodeRemoveKeys(Writer& w, std::int64_t id, const CacheTarget& t, Version v, const std::string_view* keys,
                      std::size_t n) {
  KeysRequest(w, kOpCacheRemoveKeys, id, t, v, keys, n);
}
void EncodePutAll(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                  const RecordView* records, std::size_t n) {
  std::size_t at = BeginRequest(w, kOpCachePutAll, id);
  WriteCacheTarget(w, t, v);
  w.I32(static_cast<std::int32_t>(n));
  for (std::size_t i = 0; i < n; ++i) WriteRecord(w, type_id, records[i]);
  FinishRequest(w, at);
}

bool DecodeGetValue(Reader& r, ObjectView* value, bool* found) {
  if (r.remaining() >= 1 && static_cast<unsigned char>(r.input()[r.pos()]) == kTypeNull) {
    r.U8();
    *found = false;
    return true;
  }
  *found = ReadObject(r, value);
  return *found;
}

bool DecodeBool(Reader& r, bool* value) {
  *value = r.Bool();
  return r.ok();
}

void EncodeGetOrCreateCache(Writer& w, std::int64_t id, Version v, const CacheConfig& c) {
  std::size_t at = BeginRequest(w, kOpCacheGetOrCreateWithConfiguration, id);
  // The configuration's length: the server skips it; the count of the bytes
  // that follow it, as the Java thin client writes.
  std::size_t cfg_at = w.Placeholder();
  const bool entity = !c.value_type.empty();
  w.I16(static_cast<std::int16_t>(4 + (entity ? 1 : 0) + (c.group.empty() ? 0 : 1)));
  w.I16(kPropName);
  WriteString(w, c.name);
  w.I16(kPropAtomicityMode);
  w.I32(static_cast<std::int32_t>(c.atomicity));
  w.I16(kPropBackups);
  w.I32(c.backups);
  w.I16(kPropWriteSyncMode);
  w.I32(static_cast<std::int32_t>(c.write_sync));
  if (!c.group.empty()) {
    w.I16(kPropGroupName);
    WriteString(w, c.group);
  }
  if (entity) {
    w.I16(kPropQueryEntities);
    w.I32(1);
    WriteString(w, c.key_type);
    WriteString(w, c.value_type);
    WriteStringOrNull(w, c.table_name, !c.table_name.empty());
    WriteStringOrNull(w, c.key_field, !c.key_field.empty());
    WriteNull(w);  // value field name
    w.I32(static_cast<std::int32_t>(c.field_count));
    for (std::size_t i = 0; i < c.field_count; ++i) {
      WriteString(w, c.fields[i].name);
      WriteString(w, c.fields[i].java_type);
      w.Bool(c.fields[i].name == c.key_field);  // is a key field
      w.Bool(false);                            // not null
      WriteNull(w);                             // default value
      if (v.AtLeast(1, 2)) {                    // QUERY_ENTITY_PRECISION_AND_SCALE
        w.I32(-1);
        w.I32(-1);
      }
    }
    w.I32(0);  // aliases
    w.I32(0);  // indexes
  }
  w.PatchLength(cfg_at);
  FinishRequest(w, at);
}

void EncodeCachePartitions(Writer& w, std::int64_t id, const std::int32_t* cache_ids, std::size_t n) {
  std::size_t at = BeginRequest(w, kOpCachePartitions, id);
  w.I32(static_cast<std::int32_t>(n));
  for (std::size_t i = 0; i < n; ++i) w.I32(cache_ids[i]);
  FinishRequest(w, at);
}

bool DecodeCachePartitions(Reader& r, std::int32_t cache_id, PartitionMap* out) {
  out->cache_id = cache_id;
  out->topology_version = r.I64();
  out->topology_minor = r.I32();
  // Every count read below is bounded by the bytes left (each item takes at
  // least one byte), so a hostile or torn reply cannot spin the loops.
  std::int32_t groups = r.I32();
  if (!r.ok() || groups < 0 || static_cast<std::size_t>(groups) > r.remaining()) return false;
  bool found = false;
  for (std::int32_t g = 0; g < groups; ++g) {
    bool applicable = r.Bool();
    std::int32_t caches = r.I32();
    if (!r.ok() || caches < 0 || static_cast<std::size_t>(caches) > r.remaining() / 4) return false;
    bool mine = false, custom = false;
    for (std::int32_t c = 0; c < caches; ++c) {
      std::int32_t id = r.I32();
      bool this_one = id == cache_id;
      mine = mine || this_one;
      if (!applicable) continue;
      std::int32_t key_cfgs = r.I32();
      if (!r.ok() || key_cfgs < 0 || static_cast<std::size_t>(key_cfgs) > r.remaining() / 8) return false;
      if (this_one && key_cfgs > 0) custom = true;
      r.Skip(static_cast<std::size_t>(key_cfgs) * 8);
    }
    if (!applicable) {
      if (mine) {
        found = true;
        out->applicable = false;
        out->nodes.clear();
        out->partition_node.clear();
      }
      continue;
    }
    std::int32_t node_count = r.I32();
    if (!r.ok() || node_count < 0 || static_cast<std::size_t>(node_count) > r.remaining()) return false;
    if (mine) {
      found = true;
      out->applicable = true;
      out->has_custom_key_config = custom;
      out->nodes.clear();
      out->partition_node.clear();
    }
    for (std::int32_t n = 0; n < node_count; ++n) {
      Uuid node;
      bool present;
      if (!ReadUuidOrNull(r, &node, &present) || !present) return false;
      std::int32_t parts = r.I32();
      if (!r.ok() || parts < 0 || static_cast<std::size_t>(parts) > r.remaining() / 4) return false;
      if (mine) out->nodes.push_back(node);
      for (std::int32_t p = 0; p < parts; ++p) {
        std::int32_t part = r.I32();
        if (!mine) continue;
        // Partition counts are bounded by Ignite at 65000.
        if (part < 0 || part >= 65536) return false;
        if (static_cast<std::size_t>(part) >= out->partition_node.size())
          out->partition_node.resize(static_cast<std::size_t>(part) + 1, -1);
        out->partition_node[static_cast<std::size_t>(part)] = static_cast<std::int32_t>(out->nodes.size() - 1);
      }
    }
  }
  return r.ok() && found;
}

void EncodeSqlFields(Writer& w, std::int64_t id, const CacheTarget& t, Version v, const SqlQuery& q) {
  std::size_t at = BeginRequest(w, kOpQuerySqlFields, id);
  WriteCacheTarget(w, t, v);
  WriteStringOrNull(w, q.schema, !q.schema.empty());
  w.I32(q.page_size);
  w.I32(q.max_rows);
  WriteString(w, q.sql);
  w.I32(static_cast<std::int32_t>(q.arg_count));
  for (std::size_t i = 0; i < q.arg_count; ++i) {
    if (q.args[i].is_text)
      WriteString(w, q.args[i].text);
    else
      WriteLong(w, q.args[i].i);
  }
  w.U8(0);  // statement type: any
  w.Bool(q.distributed_joins);
  for (int i = 0; i < 5; ++i) w.Bool(false);  // local, replicated only, join order, collocated, lazy
  w.I64(q.timeout_ms);
  w.Bool(false);  // include field names
  FinishRequest(w, at);
}

void EncodeSqlFieldsPage(Writer& w, std::int64_t id, std::int64_t cursor_id) {
  std::size_t at = BeginRequest(w, kOpQuerySqlFieldsCursorGetPage, id);
  w.I64(cursor_id);
  FinishRequest(w, at);
}

void EncodeResourceClose(Writer& w, std::int64_t id, std::int64_t resource_id) {
  std::size_t at = BeginRequest(w, kOpResourceClose, id);
  w.I64(resource_id);
  FinishRequest(w, at);
}

void EncodeTxStart(Writer& w, std::int64_t id, TxConcurrency c, TxIsolation i, std::int64_t timeout_ms) {
  std::size_t at = BeginRequest(w, kOpTxStart, id);
  w.U8(static_cast<std::uint8_t>(c));
  w.U8(static_cast<std::uint8_t>(i));
  w.I64(timeout_ms);
  WriteNull(w);  // label
  FinishRequest(w, at);
}

bool DecodeTxStart(Reader& r, std::int32_t* tx_id) {
  *tx_id = r.I32();
  return r.ok();
}

void EncodeTxEnd(Writer& w, std::int64_t id, std::int32_t tx_id, bool commit) {
  std::size_t at = BeginRequest(w, kOpTxEnd, id);
  w.I32(tx_id);
  w.Bool(commit);
  FinishRequest(w, at);
}

}  // namespace storebench::ignite
