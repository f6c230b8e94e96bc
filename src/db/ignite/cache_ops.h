// Requests of the thin-client protocol that the ignite binding sends, and the
// decoding of their answers' payloads: key-value operations on a cache
// (get, put, replace, remove, and their batch forms), get-or-create with a
// configuration (name, atomicity, backups, write synchronization, one
// QueryEntity so that SQL sees the record's fields), the affinity mapping
// for partition awareness (CACHE_PARTITIONS), SQL fields queries with cursor
// paging, and transactions. Sources: docs/_docs/binary-client-protocol/
// {key-value-queries,cache-configuration,sql-and-scan-queries}.adoc and, as
// the authority, apache/ignite's ClientCacheRequest / ClientCacheDataRequest
// (cache id, flags, tx id), ClientCacheConfigurationSerializer (property
// codes), ClientCachePartitionsResponse, ClientCacheSqlFieldsQueryRequest and
// ClientTxStartRequest.
//
// Keys are strings (Java String keys: the partition is String.hashCode's, see
// affinity.h); values are complex objects written by binary.h. Every Encode*
// appends one whole message (length prefix patched) to a Writer; decoders read
// a payload after DecodeResponseHeader and return views into the input. Pure
// functions; thread-safe on distinct objects; no allocation once buffers are
// warm (PartitionMap excepted: it is rebuilt on topology changes only).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "db/ignite/binary.h"
#include "db/ignite/protocol.h"
#include "db/ignite/wire.h"

namespace storebench::ignite {

// What every cache operation carries after the request header: the cache id,
// a flags byte, and (1.5+, flag 0x02) the id of the transaction it joins.
struct CacheTarget {
  std::int32_t cache_id = 0;
  std::int32_t tx_id = 0;
  bool in_tx = false;
};
inline constexpr std::uint8_t kCacheFlagKeepBinary = 0x01;
inline constexpr std::uint8_t kCacheFlagTransactional = 0x02;

// Writes cache id, flags (keep binary; transactional when in_tx) and tx id.
void WriteCacheTarget(Writer& w, const CacheTarget& t, Version v);

// One record to put: the key and its fields (the value object's fields).
struct RecordView {
  std::string_view key;
  const FieldView* fields = nullptr;
  const std::int32_t* field_ids = nullptr;
  std::size_t field_count = 0;
};

void EncodeGet(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::string_view key);
void EncodePut(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id, const RecordView& r);
void EncodeReplace(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                   const RecordView& r);
void EncodeRemoveKey(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::string_view key);
void EncodeGetAll(Writer& w, std::int64_t id, const CacheTarget& t, Version v, const std::string_view* keys,
                  std::size_t n);
void EncodePutAll(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                  const RecordView* records, std::size_t n);
// CACHE_REPLACE_IF_EQUALS (1010): key, the value expected (an object's bytes
// exactly as a get returned them), the new value.
void EncodeReplaceIfEquals(Writer& w, std::int64_t id, const CacheTarget& t, Version v, std::int32_t type_id,
                           std::string_view expected_object, const RecordView& r);
void EncodeRemoveKeys(Writer& w, std::int64_t id, const CacheTarget& t, Version v, const std::string_view* keys,
                      std::size_t n);

// CACHE_GET's payload: the value, a complex object or null (found = false).
bool DecodeGetValue(Reader& r, ObjectView* value, bool* found);
// CACHE_REPLACE's and CACHE_REMOVE_KEY's payload: a bool.
bool DecodeBool(Reader& r, bool* value);
// CACHE_GET_ALL's payload: int count, then (key, value) pairs; calls
// f(key, const ObjectView&) for each pair. False when malformed.
template <typename F>
bool DecodeGetAll(Reader& r, F&& f) {
  std::int32_t n = r.I32();
  if (!r.ok() || n < 0) return false;
  for (std::int32_t i = 0; i < n; ++i) {
    std::string_view key;
    bool present;
    ObjectView value;
    if (!ReadStringOrNull(r, &key, &present) || !ReadObject(r, &value)) return false;
    f(key, value);
  }
  return r.ok();
}

// ---- cache creation ---------------------------------------------------------

enum class Atomicity : std::int32_t { kTransactional = 0, kAtomic = 1 };
enum class WriteSync : std::int32_t { kFullSync = 0, kFullAsync = 1, kPrimarySync = 2 };

// One SQL column of the QueryEntity: a name and its Java type name.
struct QueryField {
  std::string_view name;
  std::string_view java_type = "java.lang.String";
};
struct CacheConfig {
  std::string_view name;
  Atomicity atomicity = Atomicity::kAtomic;
  std::int32_t backups = 0;
  WriteSync write_sync = WriteSync::kPrimarySync;
  std::string_view group;  // the cache group ("" = none: a group of its own)
  // The QueryEntity (written when value_type is not empty): key and value
  // type names, the SQL table name, the key's column name, and the columns
  // (the key column included, as Ignite expects it among the fields).
  std::string_view key_type = "java.lang.String";
  std::string_view value_type;
  std::string_view table_name;
  std::string_view key_field;
  const QueryField* fields = nullptr;
  std::size_t field_count = 0;
};
// CACHE_GET_OR_CREATE_WITH_CONFIGURATION: int32 length, int16 property count,
// then (int16 code, value) for NAME 0, ATOMICITY_MODE 2, BACKUPS 3,
// WRITE_SYNCHRONIZATION_MODE 4, GROUP_NAME 400 (when given) and
// QUERY_ENTITIES 200.
void EncodeGetOrCreateCache(Writer& w, std::int64_t id, Version v, const CacheConfig& c);

// ---- partition awareness ----------------------------------------------------

// CACHE_PARTITIONS (1.4+): int count, the cache ids.
void EncodeCachePartitions(Writer& w, std::int64_t id, const std::int32_t* cache_ids, std::size_t n);

// The decoded affinity mapping of one cache: which node holds each partition
// as primary. `applicable` is false for caches whose partitions a client
// cannot compute (a custom affinity function, REPLICATED): send anywhere.
struct PartitionMap {
  std::int32_t cache_id = 0;
  bool applicable = false;
  bool has_custom_key_config = false;       // an affinity key field: keys are not plain strings
  std::int64_t topology_version = 0;
  std::int32_t topology_minor = 0;
  std::vector<Uuid> nodes;                  // distinct primaries
  std::vector<std::int32_t> partition_node; // partition -> index into nodes (-1: unknown)
};
// Decodes CACHE_PARTITIONS' payload and fills `out` for `cache_id`; false
// when malformed or the cache is absent from the answer.
bool DecodeCachePartitions(Reader& r, std::int32_t cache_id, PartitionMap* out);

// ---- SQL --------------------------------------------------------------------

// One argument of a SQL query: a long (type 4) or a string (type 9).
struct SqlArg {
  std::int64_t i = 0;
  std::string_view text;
  bool is_text = false;
};
struct SqlQuery {
  std::string_view schema;  // "" = the cache's (null on the wire)
  std::string_view sql;
  const SqlArg* args = nullptr;
  std::size_t arg_count = 0;
  bool distributed_joins = false;  // joins of tables that are not collocated
  std::int32_t page_size = 1024;
  std::int32_t max_rows = 0;  // 0 = no limit
  std::int64_t timeout_ms = 0;
};
// QUERY_SQL_FIELDS (2004): cache target, schema, page size, max rows, sql,
// args, statement type 0 (any), distributed joins (as asked), local,
// replicated only, enforce join order, collocated, lazy (all false), timeout,
// include field names (false).
void EncodeSqlFields(Writer& w, std::int64_t id, const CacheTarget& t, Version v, const SqlQuery& q);
// QUERY_SQL_FIELDS_CURSOR_GET_PAGE (2005): the cursor id.
void EncodeSqlFieldsPage(Writer& w, std::int64_t id, std::int64_t cursor_id);
// RESOURCE_CLOSE (0): closes a cursor that still has pages.
void EncodeResourceClose(Writer& w, std::int64_t id, std::int64_t resource_id);

// A page of rows: calls f(row, column, Reader& at the value) for each cell;
// f must consume exactly one value (SkipValue or a Read*). The first page
// starts with the cursor id and column count (first_page = true), later pages
// with the row count only. `*more` tells whether another page follows.
template <typename F>
bool DecodeSqlPage(Reader& r, bool first_page, std::int32_t* columns, std::int64_t* cursor_id, bool* more, F&& f) {
  if (first_page) {
    *cursor_id = r.I64();
    *columns = r.I32();
  }
  std::int32_t rows = r.I32();
  if (!r.ok() || *columns < 0 || rows < 0) return false;
  // Zero columns: rows carry no bytes (and a huge count must not spin).
  for (std::int32_t i = 0; *columns > 0 && i < rows; ++i)
    for (std::int32_t c = 0; c < *columns; ++c) {
      if (!f(i, c, r) || !r.ok()) return false;
    }
  *more = r.Bool();
  return r.ok();
}

// ---- transactions -----------------------------------------------------------

enum class TxConcurrency : std::uint8_t { kOptimistic = 0, kPessimistic = 1 };
enum class TxIsolation : std::uint8_t { kReadCommitted = 0, kRepeatableRead = 1, kSerializable = 2 };
// TX_START (1.5+): concurrency, isolation, timeout (ms), label (null).
void EncodeTxStart(Writer& w, std::int64_t id, TxConcurrency c, TxIsolation i, std::int64_t timeout_ms);
// TX_START's payload: the transaction id.
bool DecodeTxStart(Reader& r, std::int32_t* tx_id);
// TX_END: the transaction id, commit (true) or rollback.
void EncodeTxEnd(Writer& w, std::int64_t id, std::int32_t tx_id, bool commit);

}  // namespace storebench::ignite
