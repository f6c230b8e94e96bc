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
#include <fcntl.h>
#include <groonga.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

constexpr char kDefaultDir[] = "storebench-data/groonga";
constexpr char kDbFile[] = "db";                // Groonga adds db.0000000, db.001, ...
constexpr std::string_view kFieldsColumn = "x__fields";  // the record's column ids, in order

struct ValueType {
  const char* name;
  grn_builtin_type type;
};
constexpr ValueType kValueTypes[] = {
    {"ShortText", GRN_DB_SHORT_TEXT},
    {"Text", GRN_DB_TEXT},
    {"LongText", GRN_DB_LONG_TEXT},
};

struct Compression {
  const char* name;
  grn_column_flags flags;
};
constexpr Compression kCompressions[] = {
    {"none", GRN_OBJ_COMPRESS_NONE},
    {"zlib", GRN_OBJ_COMPRESS_ZLIB},
    {"lz4", GRN_OBJ_COMPRESS_LZ4},
    {"zstd", GRN_OBJ_COMPRESS_ZSTD},
};

// Typed options, read and validated once.
struct GroongaOptions {
  std::string dir;
  bool hash = false;            // groonga.table_type=hash
  bool table_type_given = false;
  std::string value_type_name = "LongText";
  grn_builtin_type value_type = GRN_DB_LONG_TEXT;
  std::string compression_name = "none";
  grn_column_flags compression = GRN_OBJ_COMPRESS_NONE;
  bool lockfree_reads = false;
  bool clear_lock = false;
  bool destroy = false;
};

GroongaOptions ParseOptions(const Properties& props) {
  GroongaOptions o;
  o.dir = props.GetString("groonga.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'groonga.dir' is empty: expected a directory");
  o.table_type_given = props.Has("groonga.table_type");
  o.hash = props.GetChoice("groonga.table_type", "pat", {"pat", "hash"}) == "hash";
  std::vector<std::string> names;
  for (const auto& v : kValueTypes) names.emplace_back(v.name);
  o.value_type_name = props.GetChoice("groonga.value_type", "LongText", names);
  for (const auto& v : kValueTypes) {
    if (o.value_type_name == v.name) o.value_type = v.type;
  }
  names.clear();
  for (const auto& c : kCompressions) names.emplace_back(c.name);
  o.compression_name = props.GetChoice("groonga.compression", "none", names);
  for (const auto& c : kCompressions) {
    if (o.compression_name == c.name) o.compression = c.flags;
  }
  o.lockfree_reads = props.GetBool("groonga.lockfree_reads", false);
  o.clear_lock = props.GetBool("groonga.clear_lock", false);
  o.destroy = props.GetBool("groonga.destroy", false);
  return o;
}

// ---- names ----------------------------------------------------------------

bool IsPlainName(std::string_view name) {
  if (name.empty() || name[0] == '_' || name.starts_with("x_")) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Field (or table) name -> Groonga object name, into *out.
void EncodeName(std::string_view name, std::string* out) {
  out->clear();
  if (IsPlainName(name)) {
    out->append(name);
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  out->append("x_");
  for (char c : name) {
    const auto b = static_cast<unsigned char>(c);
    out->push_back(kHex[b >> 4]);
    out->push_back(kHex[b & 15]);
  }
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Groonga column name -> field name; false for a name EncodeName never makes.
bool DecodeName(std::string_view column, std::string* out) {
  out->clear();
  if (!column.starts_with("x_")) {
    out->append(column);
    return true;
  }
  column.remove_prefix(2);
  if (column.size() % 2 != 0) return false;
  for (std::size_t i = 0; i < column.size(); i += 2) {
    int hi = HexDigit(column[i]), lo = HexDigit(column[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

// ---- Groonga helpers --------------------------------------------------------

// Groonga's last error in `ctx`, on one line.
std::string ErrorOf(grn_ctx* ctx) {
  std::string msg = ctx->errbuf;
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  if (msg.empty()) msg = "unknown error";
  return msg + " (rc " + std::to_string(static_cast<int>(ctx->rc)) + ")";
}

// grn_init() once per process while any store is open; grn_fin() after the
// last one closes (Groonga may be initialised again afterwards).
class GroongaLibrary {
 public:
  static void Acquire() {
    std::lock_guard lock(mu_);
    if (users_ == 0) {
      grn_rc rc = grn_init();
      if (rc != GRN_SUCCESS) throw SetupError("groonga: grn_init failed (rc " + std::to_string(static_cast<int>(rc)) + ")");
    }
    ++users_;
  }
  static void Release() {
    std::lock_guard lock(mu_);
    if (--users_ == 0) grn_fin();
  }

 private:
  static inline std::mutex mu_;
  static inline int users_ = 0;
};

bool IsOurTableType(const grn_obj* obj) {
  return obj != nullptr &&
         (obj->header.type == GRN_TABLE_PAT_KEY || obj->header.type == GRN_TABLE_HASH_KEY);
}

// ---- shared state -----------------------------------------------------------

struct ColumnRef {
  grn_obj* column = nullptr;
  grn_id id = GRN_ID_NIL;
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// One YCSB table: the Groonga table, its presence column and (for writers,
// under the store's write lock) its field columns by field name.
struct TableState {
  std::string name;   // YCSB name
  std::string gname;  // Groonga name
  grn_obj* table = nullptr;
  grn_obj* fields = nullptr;  // x__fields: UInt32 vector of column ids
  bool pat = true;
  std::unordered_map<std::string, ColumnRef, StringHash, std::equal_to<>> columns;  // write lock
};

class GroongaStore;

// ---- session ----------------------------------------------------------------

class GroongaSession final : public Session {
 public:
  GroongaSession(GroongaStore* store, grn_obj* db);
  ~GroongaSession() override {
    GRN_OBJ_FIN(&ctx_, &value_);
    GRN_OBJ_FIN(&ctx_, &set_);
    GRN_OBJ_FIN(&ctx_, &ids_);
    GRN_OBJ_FIN(&ctx_, &new_ids_);
    grn_ctx_fin(&ctx_);
  }
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

// ---- store ------------------------------------------------------------------

class GroongaStore final : public Store {
 public:
  explicit GroongaStore(const GroongaOptions& o) : opts_(o) {
    PrepareStoreDir("groonga.dir", o.dir);
    LockDir();
    try {
      if (o.destroy) Destroy();
      GroongaLibrary::Acquire();
      library_ = true;
      grn_ctx_init(&ctx_, 0);
      ctx_ready_ = true;
      OpenDb();
      CheckLocks();
      LoadTables();
    } catch (...) {
      Shutdown();
      throw;
    }
  }

  ~GroongaStore() override { Shutdown(); }

  std::unique_ptr<Session> NewSession(int) override {
    if (db_ == nullptr) throw SetupError("groonga: NewSession after Close");
    return std::make_unique<GroongaSession>(this, db_);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = !hash_;
    if (!c.scan) {
      c.why_no_scan = opts_.hash ? "groonga.table_type=hash keeps no key order"
                                 : "the tables in groonga.dir are hash tables (groonga.table_type=hash), without key order";
    }
    c.persistent = true;
    c.atomic_update = true;  // every write holds the store-wide lock exclusively
    return c;
  }

  // Flushes every file of the database (msync), then counts the blocks the
  // files in groonga.dir occupy (what du shows). Groonga grows its files by
  // whole segments, so the figure moves in steps, and the files are sparse:
  // Stats() adds groonga.file_bytes, the sum of their sizes, which is larger.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    if (db_ != nullptr) {
      std::unique_lock lock(rw_);
      grn_obj_flush_recursive(&ctx_, db_);
    }
    return DiskBytes(opts_.dir);
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("groonga.version", grn_get_version());
    if (db_ == nullptr) return out;
    std::unique_lock lock(rw_);
    out.emplace_back("groonga.table_type", hash_ ? "hash" : "pat");
    out.emplace_back("groonga.value_type", opts_.value_type_name);
    out.emplace_back("groonga.compression", opts_.compression_name);
    out.emplace_back("groonga.lockfree_reads", opts_.lockfree_reads ? "true" : "false");
    if (cleared_lock_) out.emplace_back("groonga.cleared_stale_lock", "true");
    std::string names;
    std::uint64_t records = 0, columns = 0;
    {
      std::lock_guard tl(tables_mu_);
      for (const auto& t : tables_) {
        names += (names.empty() ? "" : ",") + t->name;
        records += grn_table_size(&ctx_, t->table);
        grn_hash* cols = grn_hash_create(&ctx_, nullptr, sizeof(grn_id), 0, GRN_OBJ_TABLE_HASH_KEY | GRN_HASH_TINY);
        if (cols != nullptr) {
          int n = grn_table_columns(&ctx_, t->table, "", 0, reinterpret_cast<grn_obj*>(cols));
          if (n > 0) columns += static_cast<std::uint64_t>(n) - 1;  // not x__fields
          grn_hash_close(&ctx_, cols);
        }
      }
    }
    out.emplace_back("groonga.tables", names);
    out.emplace_back("groonga.records", std::to_string(records));
    out.emplace_back("groonga.field_columns", std::to_string(columns));
    if (auto usage = MeasurePath(opts_.dir)) out.emplace_back("groonga.file_bytes", std::to_string(usage->file_bytes));
    return out;
  }

  void Close() override {
    if (db_ == nullptr) return;
    std::string error;
    {
      std::unique_lock lock(rw_);
      if (grn_obj_flush_recursive(&ctx_, db_) != GRN_SUCCESS) error = "flush on close failed: " + ErrorOf(&ctx_);
      grn_rc rc = grn_obj_close(&ctx_, db_);
      if (rc != GRN_SUCCESS && error.empty()) error = "close failed: " + ErrorOf(&ctx_);
      db_ = nullptr;
    }
    Shutdown();
    if (!error.empty()) throw SetupError("groonga.dir '" + opts_.dir + "': " + error);
  }

  // ---- for sessions ----

  const GroongaOptions& options() const { return opts_; }
  std::shared_mutex& rw() { return rw_; }

  // The state of `table`, or nullptr when it does not exist and !create.
  // Creation (by a writer, which holds the write lock) uses the caller's
  // ctx. *error is set when the table cannot be made or its name is taken.
  TableState* FindTable(grn_ctx* ctx, std::string_view table, bool create, bool* error) {
    *error = false;
    std::lock_guard lock(tables_mu_);
    for (const auto& t : tables_) {
      if (t->name == table) return t.get();
    }
    if (!create) return nullptr;
    auto t = std::make_unique<TableState>();
    t->name.assign(table);
    EncodeName(table, &t->gname);
    if (grn_ctx_get(ctx, t->gname.data(), static_cast<int>(t->gname.size())) != nullptr) {
      *error = true;  // a Groonga object (built-in or foreign) has the name
      return nullptr;
    }
    t->pat = !hash_;
    t->table = grn_table_create(ctx, t->gname.data(), static_cast<unsigned>(t->gname.size()), nullptr,
                                GRN_OBJ_PERSISTENT | (hash_ ? GRN_OBJ_TABLE_HASH_KEY : GRN_OBJ_TABLE_PAT_KEY),
                                grn_ctx_at(ctx, GRN_DB_SHORT_TEXT), nullptr);
    if (t->table != nullptr) {
      t->fields = grn_column_create(ctx, t->table, kFieldsColumn.data(), static_cast<unsigned>(kFieldsColumn.size()),
                                    nullptr, GRN_OBJ_PERSISTENT | GRN_OBJ_COLUMN_VECTOR,
                                    grn_ctx_at(ctx, GRN_DB_UINT32));
    }
    if (t->table == nullptr || t->fields == nullptr) {
      if (t->table != nullptr) grn_obj_remove(ctx, t->table);
      *error = true;
      return nullptr;
    }
    tables_.push_back(std::move(t));
    return tables_.back().get();
  }

 private:
  std::string DbPath() const { return (fs::path(opts_.dir) / kDbFile).string(); }
  std::string What() const { return "groonga.dir '" + opts_.dir + "': "; }

  // One store per directory: an exclusive flock on the directory itself.
  void LockDir() {
    dir_fd_ = ::open(opts_.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd_ < 0) throw SetupError(What() + "cannot open: " + std::strerror(errno));
    if (::flock(dir_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(dir_fd_);
      dir_fd_ = -1;
      if (err == EWOULDBLOCK) {
        throw SetupError(What() + "the database is locked, in use by another process or another store in this process");
      }
      throw SetupError(What() + "cannot lock: " + std::strerror(err));
    }
  }

  // groonga.destroy: removes Groonga's files (db and db.*), nothing else.
  void Destroy() {
    std::error_code ec;
    for (fs::directory_iterator it(opts_.dir, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name == kDbFile || name.starts_with(std::string(kDbFile) + ".")) {
        std::error_code rec;
        fs::remove_all(it->path(), rec);
        if (rec) throw SetupError(What() + "cannot remove " + it->path().string() + " (groonga.destroy=true): " + rec.message());
      }
    }
    if (ec) throw SetupError(What() + "cannot list (groonga.destroy=true): " + ec.message());
  }

  void OpenDb() {
    const std::string path = DbPath();
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    if (exists && !LooksLikeGroongaFile(path)) {
      // Checked here because grn_db_open leaks on such a file (Groonga 13).
      throw SetupError(What() + "cannot open the Groonga database " + path +
                       ": not a Groonga database (no GROONGA:IO header)");
    }
    db_ = exists ? grn_db_open(&ctx_, path.c_str()) : grn_db_create(&ctx_, path.c_str(), nullptr);
    if (db_ == nullptr || ctx_.rc != GRN_SUCCESS) {
      std::string msg = What() + "cannot " + (exists ? "open" : "create") + " the Groonga database " + path + ": " +
                        ErrorOf(&ctx_);
      if (db_ != nullptr) grn_obj_close(&ctx_, db_);
      db_ = nullptr;
      throw SetupError(msg);
    }
  }

  // Groonga's files start with the 16-byte id string "GROONGA:IO:00001".
  static bool LooksLikeGroongaFile(const std::string& path) {
    char head[11] = {};
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;  // let grn_db_open report why
    const ssize_t n = ::read(fd, head, sizeof head);
    ::close(fd);
    return n == static_cast<ssize_t>(sizeof head) && std::memcmp(head, "GROONGA:IO:", sizeof head) == 0;
  }

  // Calls f(obj) for every table and column of the database.
  template <typename F>
  void ForEachUserObject(F&& f) {
    grn_table_cursor* cur = grn_table_cursor_open(&ctx_, db_, nullptr, 0, nullptr, 0, 0, -1, 0);
    if (cur == nullptr) throw SetupError(What() + "cannot list the database's objects: " + ErrorOf(&ctx_));
    grn_id id;
    while ((id = grn_table_cursor_next(&ctx_, cur)) != GRN_ID_NIL) {
      grn_obj* obj = grn_ctx_at(&ctx_, id);
      if (obj == nullptr) {
        ctx_.rc = GRN_SUCCESS;  // e.g. a plugin that is not installed
        continue;
      }
      if (grn_obj_is_table(&ctx_, obj) || grn_obj_is_column(&ctx_, obj)) f(obj);
    }
    grn_table_cursor_close(&ctx_, cur);
  }

  std::string NameOf(grn_obj* obj) {
    char buf[GRN_TABLE_MAX_KEY_SIZE];
    int len = grn_obj_name(&ctx_, obj, buf, sizeof buf);
    return std::string(buf, static_cast<std::size_t>(std::max(len, 0)));
  }

  // A process that died in the middle of a write leaves Groonga's lock
  // counters set; later writes would wait for them for minutes. Refuse to
  // open such a database unless groonga.clear_lock=true.
  void CheckLocks() {
    std::vector<std::string> locked;
    if (grn_obj_is_locked(&ctx_, db_) != 0) locked.emplace_back("the database");
    ForEachUserObject([&](grn_obj* obj) {
      if (grn_obj_is_locked(&ctx_, obj) != 0) locked.push_back(NameOf(obj));
    });
    if (locked.empty()) return;
    if (!opts_.clear_lock) {
      std::string list;
      for (std::size_t i = 0; i < locked.size() && i < 5; ++i) list += (i ? ", " : "") + locked[i];
      if (locked.size() > 5) list += ", ...";
      throw SetupError(What() + "Groonga objects are locked (" + list +
                       "), left by a process that stopped while writing; if no other process uses the database, "
                       "set groonga.clear_lock=true to clear the locks");
    }
    if (grn_obj_clear_lock(&ctx_, db_) != GRN_SUCCESS) {
      throw SetupError(What() + "cannot clear the stale locks (groonga.clear_lock=true): " + ErrorOf(&ctx_));
    }
    cleared_lock_ = true;
  }

  // Registers the tables this binding made (those with an x__fields column)
  // and settles the table type: an explicit groonga.table_type must match
  // them; by default, the existing tables' type is kept.
  void LoadTables() {
    bool any_pat = false, any_hash = false;
    ForEachUserObject([&](grn_obj* obj) {
      if (!IsOurTableType(obj)) return;
      grn_obj* fields = grn_obj_column(&ctx_, obj, kFieldsColumn.data(), static_cast<unsigned>(kFieldsColumn.size()));
      if (fields == nullptr) return;
      auto t = std::make_unique<TableState>();
      t->gname = NameOf(obj);
      if (!DecodeName(t->gname, &t->name)) return;
      t->table = obj;
      t->fields = fields;
      t->pat = obj->header.type == GRN_TABLE_PAT_KEY;
      (t->pat ? any_pat : any_hash) = true;
      tables_.push_back(std::move(t));
    });
    hash_ = opts_.hash;
    const bool mismatch = opts_.hash ? any_pat : any_hash;
    if (mismatch && opts_.table_type_given) {
      std::string table;
      for (const auto& t : tables_) {
        if (t->pat == opts_.hash) table = t->name;
      }
      throw SetupError("groonga.table_type=" + std::string(opts_.hash ? "hash" : "pat") + " but table '" + table +
                       "' in groonga.dir '" + opts_.dir + "' is a " + (opts_.hash ? "patricia trie (pat)" : "hash") +
                       "; use groonga.table_type=" + (opts_.hash ? "pat" : "hash") + " or groonga.destroy=true");
    }
    if (any_pat && any_hash) {
      throw SetupError(What() + "holds both pat and hash tables; use groonga.destroy=true");
    }
    if (any_pat || any_hash) hash_ = any_hash;
  }

  // Releases everything still held (idempotent): database, ctx, library, lock.
  void Shutdown() {
    tables_.clear();
    if (db_ != nullptr) {
      grn_obj_flush_recursive(&ctx_, db_);
      grn_obj_close(&ctx_, db_);
      db_ = nullptr;
    }
    if (ctx_ready_) {
      grn_ctx_fin(&ctx_);
      ctx_ready_ = false;
    }
    if (library_) {
      GroongaLibrary::Release();
      library_ = false;
    }
    if (dir_fd_ >= 0) {
      ::close(dir_fd_);  // releases the flock
      dir_fd_ = -1;
    }
  }

  GroongaOptions opts_;
  int dir_fd_ = -1;
  bool library_ = false;
  bool ctx_ready_ = false;
  grn_ctx ctx_;
  grn_obj* db_ = nullptr;
  bool hash_ = false;  // effective table type
  bool cleared_lock_ = false;
  std::shared_mutex rw_;  // writes exclusive; reads shared unless lockfree_reads
  std::mutex tables_mu_;  // tables_
  std::vector<std::unique_ptr<TableState>> tables_;
};

// ---- session implementation ---------------------------------------------------

GroongaSession::GroongaSession(GroongaStore* store, grn_obj* db) : store_(store) {
  grn_ctx_init(&ctx_, 0);
  GRN_TEXT_INIT(&value_, 0);
  GRN_TEXT_INIT(&set_, GRN_OBJ_DO_SHALLOW_COPY);
  GRN_UINT32_INIT(&ids_, GRN_OBJ_VECTOR);
  GRN_UINT32_INIT(&new_ids_, GRN_OBJ_VECTOR);
  if (grn_ctx_use(&ctx_, db) != GRN_SUCCESS) {
    std::string msg = "groonga.dir '" + store->options().dir + "': cannot attach a session: " + ErrorOf(&ctx_);
    GRN_OBJ_FIN(&ctx_, &value_);
    GRN_OBJ_FIN(&ctx_, &set_);
    GRN_OBJ_FIN(&ctx_, &ids_);
    GRN_OBJ_FIN(&ctx_, &new_ids_);
    grn_ctx_fin(&ctx_);
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
    ctx_.rc = GRN_SUCCESS;
    grn_id rid = grn_table_get(&ctx_, t->table, key.data(), static_cast<unsigned>(key.size()));
    if (rid == GRN_ID_NIL) return ctx_.rc == GRN_SUCCESS ? Status::NotFound() : Status::Error();
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
    TableState* t = Table(table, false);
    if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
    ctx_.rc = GRN_SUCCESS;
    grn_id rid = grn_table_get(&ctx_, t->table, key.data(), static_cast<unsigned>(key.size()));
    if (rid == GRN_ID_NIL) return ctx_.rc == GRN_SUCCESS ? Status::NotFound() : Status::Error();
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
    TableState* t = Table(table, false);
    if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
    ctx_.rc = GRN_SUCCESS;
    grn_id rid = grn_table_get(&ctx_, t->table, key.data(), static_cast<unsigned>(key.size()));
    if (rid == GRN_ID_NIL) return ctx_.rc == GRN_SUCCESS ? Status::NotFound() : Status::Error();
    return grn_table_delete_by_id(&ctx_, t->table, rid) == GRN_SUCCESS ? Status::Ok() : Status::Error();
  });
}

}  // namespace

const BindingInfo& groonga_binding() {
  static const BindingInfo info{
      .name = "groonga",
      .summary = std::string("embedded Groonga ") + grn_get_version() +
                 " (one table per YCSB table, one column per field; per-thread grn_ctx, writes serialised)",
      .properties =
          {
              {"groonga.dir", kDefaultDir, "database directory (created with its parents if missing; file 'db')"},
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
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        GroongaOptions o = ParseOptions(props);
        return std::make_unique<GroongaStore>(o);
      },
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
