// Binding "groonga": an embedded Groonga column store (the system's
// libgroonga, C API <groonga.h>), the other backend of YCSB's ROMA binding.
//
// Layout. One Groonga database, the file `db` (and Groonga's `db.*` files)
// in groonga.dir. Each YCSB table ("usertable") is one Groonga table keyed
// by the record key (key type ShortText: arbitrary bytes, NUL and 0xFF
// included, 1 to 4096 bytes; an empty or longer key is an ERROR). The table
// is a patricia trie (groonga.table_type=pat, ordered: scans work) or a hash
// (groonga.table_type=hash: no key order, so no scans). Every field is ONE
// scalar column of the table (type groonga.value_type, LongText by default),
// created the first time a write names that field. Groonga column names are
// [A-Za-z0-9_] and must not start with '_', so a field name maps to a column
// name reversibly:
//   - names of [A-Za-z0-9_] that do not start with '_' or "x_" stay as they
//     are ("field0" -> "field0");
//   - every other name is "x_" + lowercase hex of its bytes ("n\0m" ->
//     "x_6e006d", "" -> "x_").
// One more column per table, "x__fields" (a name neither rule produces),
// is a UInt32 vector holding the ids of the record's field columns in the
// order the fields were written: it says which fields a record HAS (a column
// without a value reads as "", so presence cannot come from the value
// columns) and in which order a read returns them. Table names use the same
// mapping; a table name that collides with a Groonga built-in (e.g. "select")
// is an ERROR on use.
//
// Operations (writes serialised, see below):
//   Insert = table add (or find) + set every given field + append its column
//            id + set the other columns the old record had to "" (to free
//            their space) + store the new id list: exactly these fields.
//   Update = get + set the given fields, appending new ones to the id list;
//            NOT_FOUND (nothing created) for a missing key.
//   Read   = get + for each id in the record's list, the column's value
//            (only the selected fields are fetched); NOT_FOUND if missing.
//   Delete = get + grn_table_delete_by_id (Groonga clears the record's
//            column values); NOT_FOUND for a missing key.
//   Scan   = a patricia-trie cursor, ascending from start_key inclusive
//            (GRN_CURSOR_GE), limited to `count`; NOT_IMPLEMENTED on a hash.
//
// Concurrency. grn_init() runs once per process (reference-counted over the
// open stores; grn_fin() at the last close). The store opens the database in
// its own grn_ctx; each Session has its own grn_ctx (a grn_ctx is not
// thread-safe) attached to that shared database object with grn_ctx_use,
// its own reused bulks (key/value/id buffers) and its own cache of column id
// -> (column, field name). Groonga locks each table and column file
// internally for a single primitive write, but a record is several column
// writes, and Groonga's model is one writer with lock-free readers. So the
// store holds a reader/writer lock: every write (and column or table
// creation, which is therefore serialised) takes it exclusively, so records
// are written whole and two writers never interleave; reads and scans take it
// shared, so they see whole records and run in parallel with each other.
// With groonga.lockfree_reads=true readers take no lock at all (Groonga's own
// lock-free read path, running alongside the single writer): faster under
// mixed loads, but a read racing a write of the same record may see a mix of
// its old and new fields.
//
// Process exclusion. Groonga itself lets several processes open one database
// (it coordinates them with lock counters in the files). This binding keeps
// per-process caches, so it takes an exclusive flock() on groonga.dir: a
// second store on the same directory, in this or another process, is a
// SetupError. A process killed in the middle of a write leaves Groonga's lock
// counter set, and every later write would wait for it (up to Groonga's lock
// timeout, 15 minutes); open therefore checks the database, its tables and
// columns for such a lock and fails with a SetupError that names them, unless
// groonga.clear_lock=true, which clears it (grn_obj_clear_lock) and says so in
// Stats() ("groonga.cleared_stale_lock").
//
// Setup errors (ConfigError for a bad property; SetupError naming
// groonga.dir for a directory that cannot be created, locked, or a database
// Groonga cannot create or open, and naming groonga.table_type for a table
// of the other type) are thrown from `open`, one line each. Close() flushes
// every file (grn_obj_flush_recursive) and closes the database; it throws
// SetupError if either fails. Not supported: scans on hash tables; keys
// longer than 4 KiB; field or table names whose column name (after the
// mapping above) is longer than Groonga's 4 KiB name limit.
#include <groonga.h>

#include <algorithm>
#include <climits>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/groonga/store.h"

namespace storebench {
namespace groonga {
namespace {

// ---- session ----------------------------------------------------------------

class GroongaSession final : public Session {
 public:
  GroongaSession(GroongaStore* store, grn_obj* db);
  ~GroongaSession() override { Release(); }
  GroongaSession(const GroongaSession&) = delete;
  GroongaSession& operator=(const GroongaSession&) = delete;

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override;
  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override;
  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Delete(std::string_view table, std::string_view key) override;

 private:
  struct ColumnInfo {
    grn_obj* column = nullptr;
    std::string field;  // decoded field name
  };

  TableState* Table(std::string_view table, bool create);
  const ColumnRef* Column(TableState* t, std::string_view field);
  const ColumnInfo* ById(grn_id id);
  // The id of record `key` in *rid: OK, NOT_FOUND, or ERROR when Groonga fails.
  Status FindRecord(TableState* t, std::string_view key, grn_id* rid) {
    ctx_.rc = GRN_SUCCESS;
    *rid = grn_table_get(&ctx_, t->table, key.data(), static_cast<unsigned>(key.size()));
    if (*rid != GRN_ID_NIL) return Status::Ok();
    return ctx_.rc == GRN_SUCCESS ? Status::NotFound() : Status::Error();
  }
  // The table and record an update or delete names: NOT_FOUND when either
  // is missing, ERROR when the table name is unusable or Groonga fails.
  Status FindExisting(std::string_view table, std::string_view key, TableState** t, grn_id* rid) {
    *t = Table(table, false);
    if (*t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
    return FindRecord(*t, key, rid);
  }
  bool LoadIds(TableState* t, grn_id rid, grn_obj* ids);
  bool EmitRecord(TableState* t, grn_id rid, const FieldSelector& sel, RecordSet* out);
  bool SetValue(grn_obj* column, grn_id rid, std::string_view value) {
    GRN_TEXT_SET_REF(&set_, value.data(), value.size());
    return grn_obj_set_value(&ctx_, column, rid, &set_, GRN_OBJ_SET) == GRN_SUCCESS;
  }
  static std::size_t IdCount(grn_obj* ids) { return GRN_BULK_VSIZE(ids) / sizeof(std::uint32_t); }
  static bool Contains(grn_obj* ids, grn_id id) {
    for (std::size_t i = 0, n = IdCount(ids); i < n; ++i) {
      if (GRN_UINT32_VALUE_AT(ids, i) == id) return true;
    }
    return false;
  }
  std::shared_lock<std::shared_mutex> ReadLock();
  // Frees the bulks and the grn_ctx (the destructor, or a failed constructor).
  void Release() {
    GRN_OBJ_FIN(&ctx_, &value_);
    GRN_OBJ_FIN(&ctx_, &set_);
    GRN_OBJ_FIN(&ctx_, &ids_);
    GRN_OBJ_FIN(&ctx_, &new_ids_);
    grn_ctx_fin(&ctx_);
  }

  GroongaStore* store_;
  grn_ctx ctx_;
  grn_obj value_;    // read buffer (Text bulk)
  grn_obj set_;      // write value: a shallow reference to the caller's bytes
  grn_obj ids_;      // a record's column ids (UInt32 vector)
  grn_obj new_ids_;  // the ids an insert writes
  std::string cached_table_;
  TableState* cached_state_ = nullptr;
  bool table_error_ = false;
  std::string colname_;  // scratch
  std::string field_;    // scratch
  std::vector<ColumnInfo> by_id_;  // column id -> column and field name
};

}  // namespace

std::unique_ptr<Session> GroongaStore::NewSession(int) {
  if (db_ == nullptr) throw SetupError("groonga: NewSession after Close");
  return std::make_unique<GroongaSession>(this, db_);
}

namespace {

// ---- session implementation ---------------------------------------------------

GroongaSession::GroongaSession(GroongaStore* store, grn_obj* db) : store_(store) {
  grn_ctx_init(&ctx_, 0);
  GRN_TEXT_INIT(&value_, 0);
  GRN_TEXT_INIT(&set_, GRN_OBJ_DO_SHALLOW_COPY);
  GRN_UINT32_INIT(&ids_, GRN_OBJ_VECTOR);
  GRN_UINT32_INIT(&new_ids_, GRN_OBJ_VECTOR);
  if (grn_ctx_use(&ctx_, db) != GRN_SUCCESS) {
    std::string msg = "groonga.dir '" + store->options().dir + "': cannot attach a session: " + ErrorOf(&ctx_);
    Release();
    throw SetupError(msg);
  }
}

std::shared_lock<std::shared_mutex> GroongaSession::ReadLock() {
  if (store_->options().lockfree_reads) return {};
  return std::shared_lock(store_->rw());
}

// The state of `table`, remembered for the next call. nullptr when it does
// not exist and !create; table_error_ tells a failure apart.
TableState* GroongaSession::Table(std::string_view table, bool create) {
  table_error_ = false;
  if (cached_state_ != nullptr && table == cached_table_) return cached_state_;
  TableState* t = store_->FindTable(&ctx_, table, create, &table_error_);
  if (t == nullptr) return nullptr;
  cached_table_.assign(table);
  cached_state_ = t;
  return t;
}

// The column of `field` in t, created on first use (the caller holds the
// write lock, so creation is serialised and t->columns is safe to change).
const ColumnRef* GroongaSession::Column(TableState* t, std::string_view field) {
  auto it = t->columns.find(field);
  if (it != t->columns.end()) return &it->second;
  EncodeName(field, &colname_);
  const auto len = static_cast<unsigned>(colname_.size());
  grn_obj* col = grn_obj_column(&ctx_, t->table, colname_.data(), len);
  if (col == nullptr) {
    ctx_.rc = GRN_SUCCESS;
    col = grn_column_create(&ctx_, t->table, colname_.data(), len, nullptr,
                            GRN_OBJ_PERSISTENT | GRN_OBJ_COLUMN_SCALAR | store_->options().compression,
                            grn_ctx_at(&ctx_, store_->options().value_type));
    if (col == nullptr) return nullptr;
  }
  ColumnRef ref{col, grn_obj_id(&ctx_, col)};
  return &t->columns.emplace(std::string(field), ref).first->second;
}

// The column with id `id` and its field name, cached per session (ids are
// the database's, stable while it is open).
const GroongaSession::ColumnInfo* GroongaSession::ById(grn_id id) {
  if (id < by_id_.size() && by_id_[id].column != nullptr) return &by_id_[id];
  grn_obj* col = grn_ctx_at(&ctx_, id);
  if (col == nullptr || !grn_obj_is_column(&ctx_, col)) return nullptr;
  char buf[GRN_TABLE_MAX_KEY_SIZE];
  int len = grn_column_name(&ctx_, col, buf, sizeof buf);
  if (len <= 0 || !DecodeName(std::string_view(buf, static_cast<std::size_t>(len)), &field_)) return nullptr;
  if (id >= by_id_.size()) by_id_.resize(id + 1);
  by_id_[id].column = col;
  by_id_[id].field = field_;
  return &by_id_[id];
}

bool GroongaSession::LoadIds(TableState* t, grn_id rid, grn_obj* ids) {
  GRN_BULK_REWIND(ids);
  grn_obj_get_value(&ctx_, t->fields, rid, ids);
  return ctx_.rc == GRN_SUCCESS;
}

// Appends record rid's selected fields, in stored order, to out's current record.
bool GroongaSession::EmitRecord(TableState* t, grn_id rid, const FieldSelector& sel, RecordSet* out) {
  if (!LoadIds(t, rid, &ids_)) return false;
  for (std::size_t i = 0, n = IdCount(&ids_); i < n; ++i) {
    const ColumnInfo* c = ById(GRN_UINT32_VALUE_AT(&ids_, i));
    if (c == nullptr) return false;
    if (!sel.Wants(c->field)) continue;
    GRN_BULK_REWIND(&value_);
    grn_obj_get_value(&ctx_, c->column, rid, &value_);
    if (ctx_.rc != GRN_SUCCESS) return false;
    out->AddField(c->field, std::string_view(GRN_TEXT_VALUE(&value_), GRN_TEXT_LEN(&value_)));
  }
  return true;
}

Status GroongaSession::Read(std::string_view table, std::string_view key, const FieldSelector& fields,
                            RecordSet* out) {
  return Guard([&] {
    out->Clear();
    TableState* t = Table(table, false);
    if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
    auto lock = ReadLock();
    grn_id rid;
    if (Status st = FindRecord(t, key, &rid); !st.ok()) return st;
    out->BeginRecord(key);
    if (!EmitRecord(t, rid, fields, out)) {
      out->Clear();
      return Status::Error();
    }
    return Status::Ok();
  });
}

Status GroongaSession::Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
                            const FieldSelector& fields, RecordSet* out) {
  return Guard([&] {
    out->Clear();
    TableState* t = Table(table, false);
    if (t == nullptr) return table_error_ ? Status::Error() : Status::Ok();  // no table: no records
    if (!t->pat) return Status::NotImplemented();
    if (count == 0) return Status::Ok();
    auto lock = ReadLock();
    ctx_.rc = GRN_SUCCESS;
    const int limit = count > static_cast<std::uint64_t>(INT_MAX) ? -1 : static_cast<int>(count);
    grn_table_cursor* cur =
        grn_table_cursor_open(&ctx_, t->table, start_key.empty() ? nullptr : start_key.data(),
                              static_cast<unsigned>(start_key.size()), nullptr, 0, 0, limit,
                              GRN_CURSOR_ASCENDING | GRN_CURSOR_GE | GRN_CURSOR_BY_KEY);
    if (cur == nullptr) return Status::Error();
    Status st = Status::Ok();
    grn_id rid;
    std::uint64_t n = 0;
    while (n < count && (rid = grn_table_cursor_next(&ctx_, cur)) != GRN_ID_NIL) {
      void* k = nullptr;
      int klen = grn_table_cursor_get_key(&ctx_, cur, &k);
      out->BeginRecord(std::string_view(static_cast<const char*>(k), static_cast<std::size_t>(std::max(klen, 0))));
      if (!EmitRecord(t, rid, fields, out)) {
        st = Status::Error();
        break;
      }
      ++n;
    }
    if (ctx_.rc != GRN_SUCCESS) st = Status::Error();
    grn_table_cursor_close(&ctx_, cur);
    if (!st.ok()) out->Clear();
    return st;
  });
}

Status GroongaSession::Insert(std::string_view table, std::string_view key, std::span<const Field> values) {
  return Guard([&] {
    std::unique_lock lock(store_->rw());
    TableState* t = Table(table, true);
    if (t == nullptr) return Status::Error();
    ctx_.rc = GRN_SUCCESS;
    int added = 0;
    grn_id rid = grn_table_add(&ctx_, t->table, key.data(), static_cast<unsigned>(key.size()), &added);
    if (rid == GRN_ID_NIL) return Status::Error();
    GRN_BULK_REWIND(&new_ids_);
    for (const Field& f : values) {
      const ColumnRef* c = Column(t, f.name);
      if (c == nullptr || !SetValue(c->column, rid, f.value)) return Status::Error();
      if (!Contains(&new_ids_, c->id)) GRN_UINT32_PUT(&ctx_, &new_ids_, c->id);
    }
    if (!added) {
      // Overwrite: the old record's other fields go (their space is freed).
      if (!LoadIds(t, rid, &ids_)) return Status::Error();
      for (std::size_t i = 0, n = IdCount(&ids_); i < n; ++i) {
        grn_id id = GRN_UINT32_VALUE_AT(&ids_, i);
        if (Contains(&new_ids_, id)) continue;
        const ColumnInfo* c = ById(id);
        if (c == nullptr || !SetValue(c->column, rid, {})) return Status::Error();
      }
    }
    if (grn_obj_set_value(&ctx_, t->fields, rid, &new_ids_, GRN_OBJ_SET) != GRN_SUCCESS) return Status::Error();
    return Status::Ok();
  });
}

Status GroongaSession::Update(std::string_view table, std::string_view key, std::span<const Field> values) {
  return Guard([&] {
    std::unique_lock lock(store_->rw());
    TableState* t;
    grn_id rid;
    if (Status st = FindExisting(table, key, &t, &rid); !st.ok()) return st;
    if (!LoadIds(t, rid, &ids_)) return Status::Error();
    bool grew = false;
    for (const Field& f : values) {
      const ColumnRef* c = Column(t, f.name);
      if (c == nullptr || !SetValue(c->column, rid, f.value)) return Status::Error();
      if (!Contains(&ids_, c->id)) {
        GRN_UINT32_PUT(&ctx_, &ids_, c->id);
        grew = true;
      }
    }
    if (grew && grn_obj_set_value(&ctx_, t->fields, rid, &ids_, GRN_OBJ_SET) != GRN_SUCCESS) return Status::Error();
    return Status::Ok();
  });
}

Status GroongaSession::Delete(std::string_view table, std::string_view key) {
  return Guard([&] {
    std::unique_lock lock(store_->rw());
    TableState* t;
    grn_id rid;
    if (Status st = FindExisting(table, key, &t, &rid); !st.ok()) return st;
    return grn_table_delete_by_id(&ctx_, t->table, rid) == GRN_SUCCESS ? Status::Ok() : Status::Error();
  });
}

}  // namespace
}  // namespace groonga

const BindingInfo& groonga_binding() {
  static const BindingInfo info{
      .name = "groonga",
      .summary = std::string("embedded Groonga ") + grn_get_version() +
                 " (one table per YCSB table, one column per field; per-thread grn_ctx, writes serialised)",
      .properties =
          {
              {"groonga.dir", groonga::kDefaultDir, "database directory (created with its parents if missing; file 'db')"},
              {"groonga.table_type", "pat",
               "table kind: pat (patricia trie, ordered: scans) or hash (no key order: no scans)"},
              {"groonga.value_type", "LongText",
               "type of the field columns created from now on: ShortText, Text or LongText"},
              {"groonga.compression", "none", "compression of new field columns: none, zlib, lz4 or zstd"},
              {"groonga.lockfree_reads", "false",
               "reads take no lock (Groonga's lock-free readers beside the one writer; may see half-updated records)"},
              {"groonga.clear_lock", "false",
               "clear Groonga locks left by a process that died while writing (only if no other process uses the db)"},
              {"groonga.destroy", "false", "wipe the database (db, db.* files) before opening it (a clean load)"},
          },
      .open = OpenStore<groonga::GroongaStore, groonga::ParseOptions>,
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
