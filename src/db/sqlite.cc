// Binding "sqlite": an embedded SQLite 3 database (the system's libsqlite3).
//
// Layout: YCSB's JDBC schema, one SQL table per YCSB table (`table`,
// "usertable" by default) in one database file, `sqlite.dir`/`sqlite.file`:
//   CREATE TABLE IF NOT EXISTS "usertable"(YCSB_KEY VARCHAR(255) PRIMARY KEY,
//                                           "field0" BLOB, ..., "field9" BLOB)
// created on the first write to the table with `fieldcount` columns named
// with `fieldnameprefix` (YCSB's core properties, defaults 10 and "field").
// Keys and values are bound as BLOBs, so they are stored byte for byte (NUL
// and 0xFF included) and keys compare, index and scan in memcmp order. A
// field a record does not have is a NULL column; a read returns the non-NULL
// columns, in column order (which is write order for YCSB's field0..fieldN;
// a field first written after others are added goes last).
//
// Field names become column names by a reversible encoding that makes SQL's
// case-insensitive identifiers safe: a name made only of [a-z0-9_] that does
// not start with "x_" and is not "ycsb_key" is used as is; any other name
// (upper case, empty, NUL, any other byte) becomes "x_" + lowercase hex of
// its bytes ("Field0" -> "x_4669656c6430", "" -> "x_"). Decoding: a column
// "x_<hex>" is the hex bytes, any other column its lower-cased name (columns
// FIELD0.. made by another tool read as field0..; rows whose key is TEXT
// rather than a BLOB are neither found nor scanned). A field name that is
// not a column yet is added with ALTER TABLE ADD COLUMN under the store's
// schema mutex; the store's schema version then changes and every session
// re-prepares its statements at its next operation. SQLite allows at most
// 1999 field columns per table.
//
// Concurrency: one connection per Session (SQLITE_OPEN_NOMUTEX: a session is
// used by one thread), plus one "admin" connection of the Store for schema
// changes, checkpoints and Stats. WAL journal by default, so readers never
// wait for the writer. SQLite allows one writer at a time: with
// sqlite.serialize_writes=true (default) this process's writes queue on a
// mutex instead of SQLite's busy handler, which sleeps 1-100 ms per retry;
// other processes (SQLite lets several open the file: no lock error) are
// waited for by the busy handler up to sqlite.busy_timeout_ms, after which
// the operation returns SERVICE_UNAVAILABLE. Every operation is one
// autocommit statement, hence atomic (an update is one UPDATE statement, not
// read-modify-write). Each session prepares its statements once
// (SQLITE_PREPARE_PERSISTENT) and keeps them; reads of selected fields and
// updates use a small per-session cache keyed by the column set, looked up
// without allocating.
//
// Transactions (Session::Begin): BEGIN IMMEDIATE ... COMMIT on the
// session's connection, holding this process's write lock from BEGIN to
// COMMIT/ROLLBACK (with sqlite.serialize_writes): SQLite has one writer, so
// transactions are serializable; waiting for another process past
// sqlite.busy_timeout_ms is SERVICE_UNAVAILABLE.
//
// Operations:
//   Insert = INSERT OR REPLACE INTO t(YCSB_KEY, every column) VALUES(...):
//            NULL for absent fields, so the record has exactly these fields
//   Update = UPDATE t SET f=?, ... WHERE YCSB_KEY=?; NOT_FOUND when no row
//            changed (a missing key creates nothing)
//   Read   = SELECT YCSB_KEY, cols FROM t WHERE YCSB_KEY=?; NOT_FOUND if none
//   Delete = DELETE FROM t WHERE YCSB_KEY=?; NOT_FOUND when no row existed
//   Scan   = SELECT YCSB_KEY, cols FROM t WHERE YCSB_KEY>=? ORDER BY YCSB_KEY
//            LIMIT ?
// A read, update or delete of a table that does not exist is NOT_FOUND, a
// scan of it returns nothing. Table names are SQL identifiers, so tables
// that differ only in case are the same table.
//
// Setup errors (ConfigError for a bad property, SetupError for a directory
// that cannot be created, a file that cannot be opened or is not a database,
// a journal mode that cannot be set) are thrown from `open` with a one-line
// message naming the property and the path.
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/sql/columns.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

using sql::DecodeColumn;
using sql::EncodeColumn;

constexpr char kDefaultDir[] = "storebench-data/sqlite";
constexpr char kDefaultFile[] = "storebench.db";
constexpr std::int64_t kDefaultCacheSize = -2000;  // SQLite's own default: 2000 KiB per connection
constexpr std::int64_t kMaxFieldColumns = 1999;    // SQLITE_MAX_COLUMN (2000) minus the key
constexpr std::size_t kStatementCacheSize = 32;    // per session and kind (selected reads, scans, updates)

struct SqliteOptions {
  std::string dir;
  std::string file;
  std::string path;  // dir + "/" + file
  std::string journal_mode;
  std::string synchronous;
  std::int64_t cache_size = kDefaultCacheSize;
  std::uint64_t mmap_size = 0;
  std::int64_t busy_timeout_ms = 10000;
  bool serialize_writes = true;
  std::int64_t fieldcount = 10;
  std::string fieldnameprefix = "field";
};

SqliteOptions ParseOptions(const Properties& props) {
  SqliteOptions o;
  o.dir = props.GetString("sqlite.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'sqlite.dir' is empty: expected a directory");
  o.file = props.GetString("sqlite.file", kDefaultFile);
  if (o.file.empty() || o.file.find('/') != std::string::npos || o.file == "." || o.file == "..") {
    throw ConfigError("property 'sqlite.file' = '" + o.file + "' (" + props.OriginOf("sqlite.file") +
                      "): expected a file name inside sqlite.dir (no '/')");
  }
  o.path = o.dir + "/" + o.file;
  o.journal_mode = props.GetChoice("sqlite.journal_mode", "WAL", {"WAL", "DELETE", "TRUNCATE", "PERSIST", "MEMORY", "OFF"});
  for (char& c : o.journal_mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  o.synchronous = props.GetChoice("sqlite.synchronous", "NORMAL", {"OFF", "NORMAL", "FULL", "EXTRA"});
  for (char& c : o.synchronous) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  o.cache_size = props.GetInt("sqlite.cache_size", kDefaultCacheSize);
  o.mmap_size = props.GetSize("sqlite.mmap_size", 0);
  o.busy_timeout_ms = props.GetInt("sqlite.busy_timeout_ms", 10000, 0, INT_MAX);
  o.serialize_writes = props.GetBool("sqlite.serialize_writes", true);
  // YCSB's core properties: the columns a new table starts with.
  o.fieldcount = props.GetInt("fieldcount", 10, 1, 1 << 20);
  if (o.fieldcount > kMaxFieldColumns) {
    throw ConfigError("property 'fieldcount' = '" + std::to_string(o.fieldcount) + "' (" +
                      props.OriginOf("fieldcount") + "): the sqlite binding stores a field per column, at most " +
                      std::to_string(kMaxFieldColumns));
  }
  o.fieldnameprefix = props.GetString("fieldnameprefix", "field");
  return o;
}

// ---- SQL identifiers (field <-> column names: db/sql/columns.h) ----------

// "name" with embedded quotes doubled: an SQL identifier.
std::string Quote(std::string_view id) {
  std::string out = "\"";
  for (char c : id) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

// ---- SQLite helpers --------------------------------------------------------

Status FromCode(int rc) {
  switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_DONE:
    case SQLITE_ROW:
      return Status::Ok();
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status(Status::kServiceUnavailable);
    default:
      return Status::Error();
  }
}

// Owns a prepared statement.
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(sqlite3_stmt* s) : s_(s) {}
  Stmt(Stmt&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept {
    if (this != &o) {
      sqlite3_finalize(s_);
      s_ = o.s_;
      o.s_ = nullptr;
    }
    return *this;
  }
  ~Stmt() { sqlite3_finalize(s_); }
  sqlite3_stmt* get() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }

 private:
  sqlite3_stmt* s_ = nullptr;
};

Stmt Prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()) + 1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(s);
    return Stmt();
  }
  return Stmt(s);
}

// Binds bytes as a BLOB (a zero-length BLOB, not NULL, for empty data).
int BindBytes(sqlite3_stmt* s, int i, std::string_view v) {
  if (v.empty()) return sqlite3_bind_zeroblob(s, i, 0);
  return sqlite3_bind_blob64(s, i, v.data(), v.size(), SQLITE_STATIC);
}

std::string_view ColumnBytes(sqlite3_stmt* s, int i) {
  const void* p = sqlite3_column_blob(s, i);
  int n = sqlite3_column_bytes(s, i);
  if (p == nullptr || n <= 0) return {};
  return std::string_view(static_cast<const char*>(p), static_cast<std::size_t>(n));
}

// Resets a statement after use (ends its read transaction) and drops the
// bound pointers into the caller's buffers.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* s) : s_(s) {}
  ~ResetOnExit() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* s_;
};

std::string Message(sqlite3* db) { return db != nullptr ? sqlite3_errmsg(db) : "out of memory"; }

// Runs SQL that returns no rows (or ignores them); false + *error on failure.
bool Exec(sqlite3* db, const std::string& sql, std::string* error) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    if (error != nullptr) *error = msg != nullptr ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    return false;
  }
  return true;
}

// The first column of the first row of `sql`, as text ("" if none).
bool QueryText(sqlite3* db, const std::string& sql, std::string* out) {
  Stmt s = Prepare(db, sql);
  if (!s) return false;
  int rc = sqlite3_step(s.get());
  out->clear();
  if (rc == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(s.get(), 0);
    if (t != nullptr) out->assign(reinterpret_cast<const char*>(t));
    return true;
  }
  return rc == SQLITE_DONE;
}

// ---- The store -------------------------------------------------------------

// One table's columns: field names (decoded) and column names (as in SQL).
struct TableSchema {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::string> fields;
};

class SqliteStore;

// Opens a connection and applies the per-connection settings; SetupError.
sqlite3* OpenConnection(const SqliteOptions& o, bool set_journal_mode) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(o.path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = Message(db);
    sqlite3_close_v2(db);
    throw SetupError("sqlite.dir/sqlite.file '" + o.path + "': cannot open the database: " + msg);
  }
  sqlite3_extended_result_codes(db, 0);
  sqlite3_busy_timeout(db, static_cast<int>(o.busy_timeout_ms));
  std::string error;
  auto fail = [&](const std::string& what) {
    sqlite3_close_v2(db);
    throw SetupError("sqlite.dir/sqlite.file '" + o.path + "': " + what + ": " + error);
  };
  // The first statement reads the file: a file that is not a database fails here.
  if (!Exec(db, "PRAGMA synchronous=" + o.synchronous, &error)) fail("cannot set sqlite.synchronous");
  if (!Exec(db, "PRAGMA cache_size=" + std::to_string(o.cache_size), &error)) fail("cannot set sqlite.cache_size");
  if (!Exec(db, "PRAGMA mmap_size=" + std::to_string(o.mmap_size), &error)) fail("cannot set sqlite.mmap_size");
  // WAL is a property of the database file (set once, by the store);
  // the other journal modes are per connection.
  if (set_journal_mode || o.journal_mode != "WAL") {
    std::string mode;
    if (!QueryText(db, "PRAGMA journal_mode=" + o.journal_mode, &mode)) {
      error = Message(db);
      fail("cannot set sqlite.journal_mode");
    }
    for (char& c : mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (mode != o.journal_mode) {
      error = "the database stays in journal_mode " + mode + " (leaving WAL needs every other connection closed)";
      fail("cannot set sqlite.journal_mode=" + o.journal_mode);
    }
  }
  return db;
}

class SqliteStore final : public Store {
 public:
  explicit SqliteStore(const SqliteOptions& o) : opts_(o) {
    PrepareStoreDir("sqlite.dir", o.dir);
    if (std::filesystem::is_directory(o.path)) {
      throw SetupError("sqlite.dir/sqlite.file '" + o.path + "': is a directory, expected a database file");
    }
    admin_ = OpenConnection(o, true);
  }
  ~SqliteStore() override {
    if (admin_ != nullptr) sqlite3_close_v2(admin_);
  }

  std::unique_ptr<Session> NewSession(int) override;

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.atomic_update = true;  // one UPDATE statement
    c.native_batch_insert = true;  // one transaction
    c.transactions = true;   // BEGIN IMMEDIATE ... COMMIT
    c.sql = true;            // Session::Sql (workload=sqlquery)
    return c;
  }

  // Checkpoints the WAL into the database file (TRUNCATE: the WAL is then
  // empty), so the figure is the database's own size; then database file +
  // WAL + rollback journal.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    {
      std::lock_guard lock(schema_mu_);
      if (admin_ != nullptr && opts_.journal_mode == "WAL") {
        std::unique_lock writes = WriteLock();
        Exec(admin_, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr);
      }
    }
    auto db = DiskBytes(opts_.path);
    if (!db) return std::nullopt;
    std::uint64_t total = *db;
    for (const char* suffix : {"-wal", "-journal"}) total += DiskBytes(opts_.path + suffix).value_or(0);
    return total;
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("sqlite.version", sqlite3_libversion());
    std::lock_guard lock(schema_mu_);
    if (admin_ == nullptr) return out;
    for (const char* p :
         {"journal_mode", "synchronous", "page_size", "page_count", "freelist_count", "cache_size", "mmap_size"}) {
      std::string v;
      if (QueryText(admin_, std::string("PRAGMA ") + p, &v)) out.emplace_back(std::string("sqlite.") + p, v);
    }
    std::string tables;
    Stmt list = Prepare(admin_, "SELECT name FROM sqlite_schema WHERE type='table' ORDER BY name");
    std::vector<std::string> names;
    while (list && sqlite3_step(list.get()) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(list.get(), 0);
      if (t != nullptr) names.emplace_back(reinterpret_cast<const char*>(t));
    }
    list = Stmt();
    for (const auto& n : names) {
      tables += (tables.empty() ? "" : ",") + n;
      std::string rows;
      if (QueryText(admin_, "SELECT count(*) FROM " + Quote(n), &rows)) out.emplace_back("sqlite." + n + ".rows", rows);
      std::string cols;
      if (QueryText(admin_, "SELECT count(*) - 1 FROM pragma_table_info(" + QuoteString(n) + ")", &cols)) {
        out.emplace_back("sqlite." + n + ".field_columns", cols);
      }
    }
    out.emplace_back("sqlite.tables", tables);
    return out;
  }

  void Close() override {
    std::lock_guard lock(schema_mu_);
    if (admin_ == nullptr) return;
    int rc = sqlite3_close(admin_);  // the last connection: checkpoints and removes the WAL
    std::string msg = rc == SQLITE_OK ? "" : sqlite3_errmsg(admin_);
    if (rc != SQLITE_OK) sqlite3_close_v2(admin_);
    admin_ = nullptr;
    if (rc != SQLITE_OK) throw SetupError("sqlite.dir/sqlite.file '" + opts_.path + "': close failed: " + msg);
  }

  // --- used by sessions ---

  const SqliteOptions& options() const { return opts_; }
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

  // Holds this process's write lock (when sqlite.serialize_writes).
  std::unique_lock<std::mutex> WriteLock() {
    return opts_.serialize_writes ? std::unique_lock(write_mu_) : std::unique_lock<std::mutex>();
  }

  // The schema of `table`; creates the table when `create`. nullptr when it
  // does not exist (and !create) or on failure (*error set).
  std::shared_ptr<const TableSchema> GetTable(std::string_view table, bool create, bool* error) {
    *error = false;
    std::lock_guard lock(schema_mu_);
    auto it = tables_.find(table);
    if (it != tables_.end()) return it->second;
    if (admin_ == nullptr) {
      *error = true;
      return nullptr;
    }
    auto schema = LoadSchema(table, error);
    if (schema == nullptr && !*error && create) {
      std::string sql = "CREATE TABLE IF NOT EXISTS " + Quote(table) + "(YCSB_KEY VARCHAR(255) PRIMARY KEY";
      for (std::int64_t i = 0; i < opts_.fieldcount; ++i) {
        sql += ", " + Quote(EncodeColumn(opts_.fieldnameprefix + std::to_string(i))) + " BLOB";
      }
      sql += ")";
      std::unique_lock writes = WriteLock();
      if (!Exec(admin_, sql, nullptr)) {
        *error = true;
        return nullptr;
      }
      writes.unlock();
      schema = LoadSchema(table, error);
    }
    if (schema == nullptr) return nullptr;
    tables_.emplace(std::string(table), schema);  // no session has state for it: no version change
    return schema;
  }

  // Adds a column for every field in `fields` the table lacks (another
  // process may have added some: the schema is read again first). Bumps the
  // version so that sessions re-prepare. False on failure.
  bool AddColumns(std::string_view table, const std::vector<std::string_view>& fields) {
    std::lock_guard lock(schema_mu_);
    if (admin_ == nullptr) return false;
    bool error = false;
    auto schema = LoadSchema(table, &error);
    if (schema == nullptr) return false;
    std::size_t new_columns = 0;
    for (std::string_view f : fields) {
      if (std::find(schema->fields.begin(), schema->fields.end(), f) == schema->fields.end()) ++new_columns;
    }
    if (schema->fields.size() + new_columns > static_cast<std::size_t>(kMaxFieldColumns)) return false;
    bool added = false;
    for (std::string_view f : fields) {
      if (std::find(schema->fields.begin(), schema->fields.end(), f) != schema->fields.end()) continue;
      std::unique_lock writes = WriteLock();
      if (!Exec(admin_, "ALTER TABLE " + Quote(table) + " ADD COLUMN " + Quote(EncodeColumn(f)) + " BLOB", nullptr)) {
        return false;
      }
      added = true;
      auto copy = std::make_shared<TableSchema>(*schema);
      copy->columns.push_back(EncodeColumn(f));
      copy->fields.emplace_back(f);
      schema = copy;
    }
    if (added) schema = LoadSchema(table, &error);
    if (schema == nullptr) return false;
    tables_[std::string(table)] = schema;
    version_.fetch_add(1, std::memory_order_acq_rel);
    return true;
  }

 private:
  static std::string QuoteString(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
      if (c == '\'') out.push_back('\'');
      out.push_back(c);
    }
    out.push_back('\'');
    return out;
  }

  // Reads the table's columns from the database (nullptr when the table does
  // not exist; *error on failure or when it has no YCSB_KEY column).
  std::shared_ptr<TableSchema> LoadSchema(std::string_view table, bool* error) {
    Stmt s = Prepare(admin_, "SELECT name FROM pragma_table_info(" + QuoteString(table) + ") ORDER BY cid");
    if (!s) {
      *error = true;
      return nullptr;
    }
    auto schema = std::make_shared<TableSchema>();
    schema->name = std::string(table);
    bool has_key = false;
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      std::string col(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0)));
      if (sqlite3_stricmp(col.c_str(), "YCSB_KEY") == 0) {  // the key column itself, not an encoded field
        has_key = true;
        continue;
      }
      schema->fields.push_back(DecodeColumn(col));
      schema->columns.push_back(std::move(col));
    }
    if (rc != SQLITE_DONE) {
      *error = true;
      return nullptr;
    }
    if (!has_key) {
      *error = !schema->columns.empty();  // a table without YCSB_KEY is not ours
      return nullptr;
    }
    return schema;
  }

  SqliteOptions opts_;
  std::mutex schema_mu_;  // guards admin_ and tables_
  sqlite3* admin_ = nullptr;
  std::map<std::string, std::shared_ptr<const TableSchema>, std::less<>> tables_;
  std::atomic<std::uint64_t> version_{1};
  std::mutex write_mu_;
};

// ---- The session -----------------------------------------------------------

// A prepared statement for one column list (selected reads, scans, updates).
struct CachedStmt {
  std::vector<int> columns;
  Stmt stmt;
};

// A session's prepared statements for one table, valid for one schema version.
struct TableState {
  std::shared_ptr<const TableSchema> schema;
  Stmt insert, read_all, scan_all, remove;
  std::vector<CachedStmt> reads, scans, updates;
};

class SqliteSession final : public Session {
 public:
  explicit SqliteSession(SqliteStore* store) : store_(store) {
    db_ = OpenConnection(store->options(), false);
  }
  ~SqliteSession() override {
    tables_.clear();  // finalize every statement first
    sql_cache_.clear();
    begin_ = Stmt();
    commit_ = Stmt();
    rollback_ = Stmt();
    sqlite3_close_v2(db_);  // rolls back a transaction left open
  }

  Status Begin(const TxOptions&) override {
    return Guard([&] {
      if (in_tx_) return Status::Error();
      tx_lock_ = store_->WriteLock();
      const int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
      if (rc != SQLITE_OK) {
        tx_lock_ = std::unique_lock<std::mutex>();
        return FromCode(rc);
      }
      in_tx_ = true;
      return Status::Ok();
    });
  }
  Status Commit() override {
    return Guard([&] {
      if (!in_tx_) return Status::Error();
      const int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
      if (rc != SQLITE_OK) return FromCode(rc);  // still open: Abort rolls it back
      in_tx_ = false;
      tx_lock_ = std::unique_lock<std::mutex>();
      return Status::Ok();
    });
  }
  // workload=sqlquery's statements: INSERT/UPDATE/DELETE/SELECT prepared
  // once per session (keyed by their text); anything else (DDL) prepared,
  // run and finalized. Writes take the process's write lock as above.
  Status Sql(std::string_view sql, std::span<const SqlParam> params, std::uint64_t* rows) override {
    return Guard([&] {
      *rows = 0;
      const bool dml = sql.starts_with("SELECT") || sql.starts_with("INSERT") || sql.starts_with("UPDATE") ||
                       sql.starts_with("DELETE");
      Stmt once;
      sqlite3_stmt* s = nullptr;
      if (dml) {
        for (auto& [text, stmt] : sql_cache_) {
          if (text == sql) s = stmt.get();
        }
        if (s == nullptr) {
          Stmt p = Prepare(db_, std::string(sql));
          if (!p) return Status::Error();
          s = p.get();
          sql_cache_.emplace_back(std::string(sql), std::move(p));
        }
      } else {
        once = Prepare(db_, std::string(sql));
        if (!once) return Status::Error();
        s = once.get();
      }
      ResetOnExit reset(s);
      for (std::size_t i = 0; i < params.size(); ++i) {
        const int n = static_cast<int>(i) + 1;
        const int rc = params[i].is_text
                           ? sqlite3_bind_text64(s, n, params[i].text.data(), params[i].text.size(), SQLITE_STATIC,
                                                 SQLITE_UTF8)
                           : sqlite3_bind_int64(s, n, params[i].i);
        if (rc != SQLITE_OK) return Status::Error();
      }
      const bool read_only = sqlite3_stmt_readonly(s) != 0;
      std::unique_lock lock = read_only || in_tx_ ? std::unique_lock<std::mutex>() : store_->WriteLock();
      int rc;
      std::uint64_t n = 0;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) ++n;
      if (rc != SQLITE_DONE) return FromCode(rc);
      *rows = dml && !sql.starts_with("SELECT") ? static_cast<std::uint64_t>(sqlite3_changes(db_)) : n;
      return Status::Ok();
    });
  }

  Status Abort() override {
    return Guard([&] {
      if (!in_tx_) return Status::Ok();
      in_tx_ = false;
      if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      tx_lock_ = std::unique_lock<std::mutex>();
      return Status::Ok();
    });
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      sqlite3_stmt* s = fields.all ? AllStmt(t, &t->read_all, false) : SelectedStmt(t, fields, false);
      if (s == nullptr) return Status::Error();
      ResetOnExit reset(s);
      if (BindBytes(s, 1, key) != SQLITE_OK) return Status::Error();
      int rc = sqlite3_step(s);
      if (rc == SQLITE_DONE) return Status::NotFound();
      if (rc != SQLITE_ROW) return FromCode(rc);
      out->BeginRecord(key);
      AddFields(t, s, fields.all, out);
      return Status::Ok();
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Status::Error() : Status::Ok();  // no table: no records
      if (count == 0) return Status::Ok();
      sqlite3_stmt* s = fields.all ? AllStmt(t, &t->scan_all, true) : SelectedStmt(t, fields, true);
      if (s == nullptr) return Status::Error();
      ResetOnExit reset(s);
      if (BindBytes(s, 1, start_key) != SQLITE_OK ||
          sqlite3_bind_int64(s, 2, static_cast<sqlite3_int64>(std::min<std::uint64_t>(count, INT64_MAX))) !=
              SQLITE_OK) {
        return Status::Error();
      }
      int rc;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        out->BeginRecord(ColumnBytes(s, 0));
        AddFields(t, s, fields.all, out);
      }
      if (rc != SQLITE_DONE) {
        out->Clear();
        return FromCode(rc);
      }
      return Status::Ok();
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      if (values.empty()) return Exists(t, key);
      if (!MapFields(&t, table, values)) return Status::Error();
      sqlite3_stmt* s = UpdateStmt(t);
      if (s == nullptr) return Status::Error();
      ResetOnExit reset(s);
      int i = 1;
      for (const Field& f : values) {
        if (BindBytes(s, i++, f.value) != SQLITE_OK) return Status::Error();
      }
      if (BindBytes(s, i, key) != SQLITE_OK) return Status::Error();
      int changes = 0;
      Status st = StepWrite(s, &changes);
      if (!st.ok()) return st;
      return changes == 0 ? Status::NotFound() : Status::Ok();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      TableState* t = Table(table, true);
      if (t == nullptr) return Status::Error();
      if (!MapFields(&t, table, values)) return Status::Error();
      sqlite3_stmt* s = InsertStmt(t);
      if (s == nullptr) return Status::Error();
      ResetOnExit reset(s);  // clears the bindings too: absent fields are NULL
      if (BindBytes(s, 1, key) != SQLITE_OK) return Status::Error();
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (BindBytes(s, columns_[i] + 2, values[i].value) != SQLITE_OK) return Status::Error();
      }
      int changes = 0;
      return StepWrite(s, &changes);
    });
  }

  // Every record with Insert's statement in one transaction (BEGIN
  // IMMEDIATE ... COMMIT, under the process's write lock): all or nothing,
  // one commit. Missing columns are added before the transaction begins.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    return Guard([&] {
      if (batch.empty()) return Status::Ok();
      TableState* t = Table(table, true);
      if (t == nullptr) return Status::Error();
      for (std::size_t r = 0; r < batch.size(); ++r) {
        if (!MapFields(&t, table, batch.values(r))) return Status::Error();
      }
      if (!begin_) begin_ = Prepare(db_, "BEGIN IMMEDIATE");
      if (!commit_) commit_ = Prepare(db_, "COMMIT");
      if (!rollback_) rollback_ = Prepare(db_, "ROLLBACK");
      sqlite3_stmt* s = InsertStmt(t);
      if (!begin_ || !commit_ || !rollback_ || s == nullptr) return Status::Error();
      std::unique_lock lock = store_->WriteLock();
      if (int rc = Step(begin_.get()); rc != SQLITE_DONE) return FromCode(rc);
      Status st = Status::Ok();
      for (std::size_t r = 0; r < batch.size() && st.ok(); ++r) {
        std::span<const Field> values = batch.values(r);
        ResetOnExit reset(s);
        if (BindBytes(s, 1, batch.key(r)) != SQLITE_OK) {
          st = Status::Error();
          break;
        }
        for (const Field& f : values) {
          // The columns exist (added above; columns are never dropped).
          const int c = FindColumn(*t->schema, f.name, 0);
          if (c < 0 || BindBytes(s, c + 2, f.value) != SQLITE_OK) {
            st = Status::Error();
            break;
          }
        }
        if (st.ok()) {
          if (int rc = sqlite3_step(s); rc != SQLITE_DONE) st = FromCode(rc);
        }
      }
      if (st.ok()) {
        if (int rc = Step(commit_.get()); rc != SQLITE_DONE) st = FromCode(rc);
      }
      if (!st.ok()) Step(rollback_.get());  // no-op (an error) if COMMIT ended it
      return st;
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      if (!t->remove) {
        t->remove = Prepare(db_, "DELETE FROM " + Quote(t->schema->name) + " WHERE YCSB_KEY=?");
        if (!t->remove) return Status::Error();
      }
      sqlite3_stmt* s = t->remove.get();
      ResetOnExit reset(s);
      if (BindBytes(s, 1, key) != SQLITE_OK) return Status::Error();
      int changes = 0;
      Status st = StepWrite(s, &changes);
      if (!st.ok()) return st;
      return changes == 0 ? Status::NotFound() : Status::Ok();
    });
  }

 private:
  // The statements of `table` for the current schema version; nullptr when
  // the table does not exist and !create, or on failure (table_error_).
  TableState* Table(std::string_view table, bool create) {
    table_error_ = false;
    std::uint64_t v = store_->version();
    if (v != version_) {
      tables_.clear();  // the schema changed: re-prepare everything
      version_ = v;
    }
    for (auto& t : tables_) {
      if (t->schema->name == table) return t.get();
    }
    bool error = false;
    auto schema = store_->GetTable(table, create, &error);
    if (schema == nullptr) {
      table_error_ = error || create;
      return nullptr;
    }
    auto state = std::make_unique<TableState>();
    state->schema = std::move(schema);
    tables_.push_back(std::move(state));
    return tables_.back().get();
  }

  // Column index of `field`, trying `hint` first; -1 when none.
  static int FindColumn(const TableSchema& schema, std::string_view field, std::size_t hint) {
    const auto& fields = schema.fields;
    if (hint < fields.size() && fields[hint] == field) return static_cast<int>(hint);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == field) return static_cast<int>(i);
    }
    return -1;
  }

  // Fills columns_ with the column of each field, adding the missing ones
  // to the table first (then *t is the re-fetched table state).
  bool MapFields(TableState** t, std::string_view table, std::span<const Field> values) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      columns_.clear();
      missing_.clear();
      std::size_t hint = 0;
      for (const Field& f : values) {
        int c = FindColumn(*(*t)->schema, f.name, hint);
        if (c < 0) missing_.push_back(f.name);
        columns_.push_back(c);
        hint = static_cast<std::size_t>(c + 1);
      }
      if (missing_.empty()) return true;
      if (attempt > 0 || !store_->AddColumns(table, missing_)) return false;
      *t = Table(table, false);
      if (*t == nullptr) return false;
    }
    return false;
  }

  // INSERT OR REPLACE INTO t(YCSB_KEY, every column) VALUES(?, ...), prepared once per schema.
  sqlite3_stmt* InsertStmt(TableState* t) {
    if (!t->insert) {
      std::string sql = "INSERT OR REPLACE INTO " + Quote(t->schema->name) + "(YCSB_KEY";
      for (const auto& c : t->schema->columns) sql += ", " + Quote(c);
      sql += ") VALUES(?";
      for (std::size_t i = 0; i < t->schema->columns.size(); ++i) sql += ", ?";
      sql += ")";
      t->insert = Prepare(db_, sql);
    }
    return t->insert.get();
  }

  // Steps a statement that returns no rows and resets it.
  static int Step(sqlite3_stmt* s) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc;
  }

  // "SELECT YCSB_KEY, <cols> FROM t WHERE ..." for reads or scans.
  std::string SelectSql(const TableState* t, const std::vector<int>* cols, bool scan) const {
    std::string sql = "SELECT YCSB_KEY";
    const auto& columns = t->schema->columns;
    if (cols == nullptr) {
      for (const auto& c : columns) sql += ", " + Quote(c);
    } else {
      for (int i : *cols) sql += ", " + Quote(columns[static_cast<std::size_t>(i)]);
    }
    sql += " FROM " + Quote(t->schema->name);
    sql += scan ? " WHERE YCSB_KEY>=? ORDER BY YCSB_KEY LIMIT ?" : " WHERE YCSB_KEY=?";
    return sql;
  }

  sqlite3_stmt* AllStmt(TableState* t, Stmt* slot, bool scan) {
    if (!*slot) *slot = Prepare(db_, SelectSql(t, nullptr, scan));
    return slot->get();
  }

  // The statement selecting the columns named by `fields` (in column
  // order; names that are not columns are ignored). selected_ holds them.
  sqlite3_stmt* SelectedStmt(TableState* t, const FieldSelector& fields, bool scan) {
    selected_.clear();
    for (std::string_view n : fields.names) {
      int c = FindColumn(*t->schema, n, 0);
      if (c >= 0) selected_.push_back(c);
    }
    std::sort(selected_.begin(), selected_.end());
    selected_.erase(std::unique(selected_.begin(), selected_.end()), selected_.end());
    auto& cache = scan ? t->scans : t->reads;
    return Cached(&cache, selected_, [&] { return SelectSql(t, &selected_, scan); });
  }

  // UPDATE t SET c=?, ... WHERE YCSB_KEY=? for the columns in columns_
  // (in the given order: for a repeated field SQLite keeps the last).
  sqlite3_stmt* UpdateStmt(TableState* t) {
    return Cached(&t->updates, columns_, [&] {
      std::string sql = "UPDATE " + Quote(t->schema->name) + " SET ";
      for (std::size_t i = 0; i < columns_.size(); ++i) {
        sql += (i ? ", " : "") + Quote(t->schema->columns[static_cast<std::size_t>(columns_[i])]) + "=?";
      }
      sql += " WHERE YCSB_KEY=?";
      return sql;
    });
  }

  template <typename MakeSql>
  sqlite3_stmt* Cached(std::vector<CachedStmt>* cache, const std::vector<int>& cols, MakeSql make_sql) {
    for (auto& e : *cache) {
      if (e.columns == cols) return e.stmt.get();
    }
    Stmt s = Prepare(db_, make_sql());
    if (!s) return nullptr;
    if (cache->size() >= kStatementCacheSize) cache->erase(cache->begin());
    cache->push_back({cols, std::move(s)});
    return cache->back().stmt.get();
  }

  // Adds the non-NULL columns of the current row (after YCSB_KEY).
  void AddFields(const TableState* t, sqlite3_stmt* s, bool all, RecordSet* out) const {
    const auto& names = t->schema->fields;
    const std::size_t n = all ? names.size() : selected_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const int col = static_cast<int>(i) + 1;
      if (sqlite3_column_type(s, col) == SQLITE_NULL) continue;
      const std::size_t field = all ? i : static_cast<std::size_t>(selected_[i]);
      out->AddField(names[field], ColumnBytes(s, col));
    }
  }

  // Update without fields: NOT_FOUND unless the record exists.
  Status Exists(TableState* t, std::string_view key) {
    selected_.clear();
    sqlite3_stmt* s = Cached(&t->reads, selected_, [&] { return SelectSql(t, &selected_, false); });
    if (s == nullptr) return Status::Error();
    ResetOnExit reset(s);
    if (BindBytes(s, 1, key) != SQLITE_OK) return Status::Error();
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) return Status::Ok();
    return rc == SQLITE_DONE ? Status::NotFound() : FromCode(rc);
  }

  // Steps a write statement under the process's write lock.
  Status StepWrite(sqlite3_stmt* s, int* changes) {
    // A transaction holds the write lock already (tx_lock_).
    std::unique_lock lock = in_tx_ ? std::unique_lock<std::mutex>() : store_->WriteLock();
    int rc = sqlite3_step(s);
    *changes = sqlite3_changes(db_);
    return rc == SQLITE_DONE ? Status::Ok() : FromCode(rc);
  }

  SqliteStore* store_;
  sqlite3* db_ = nullptr;
  std::uint64_t version_ = 0;
  std::vector<std::unique_ptr<TableState>> tables_;
  bool table_error_ = false;
  std::vector<int> columns_;    // column of each field of an insert/update
  std::vector<int> selected_;   // columns of a selected read/scan
  std::vector<std::string_view> missing_;  // fields without a column
  Stmt begin_, commit_, rollback_;          // BatchInsert's transaction
  bool in_tx_ = false;                     // between Begin and Commit/Abort
  std::unique_lock<std::mutex> tx_lock_;   // the process's write lock, held by a transaction
  std::vector<std::pair<std::string, Stmt>> sql_cache_;  // Sql's prepared statements, by text
};

std::unique_ptr<Session> SqliteStore::NewSession(int) {
  {
    std::lock_guard lock(schema_mu_);
    if (admin_ == nullptr) throw SetupError("sqlite: NewSession after Close");
  }
  return std::make_unique<SqliteSession>(this);
}

}  // namespace

const BindingInfo& sqlite_binding() {
  static const BindingInfo info{
      .name = "sqlite",
      .summary = std::string("embedded SQLite ") + sqlite3_libversion() +
                 " (YCSB's JDBC schema: a table per YCSB table, a BLOB column per field; a connection per thread)",
      .properties =
          {
              {"sqlite.dir", kDefaultDir, "directory of the database file (created with its parents if missing)"},
              {"sqlite.file", kDefaultFile, "database file name inside sqlite.dir"},
              {"sqlite.journal_mode", "WAL", "PRAGMA journal_mode: WAL, DELETE, TRUNCATE, PERSIST, MEMORY or OFF"},
              {"sqlite.synchronous", "NORMAL", "PRAGMA synchronous: OFF, NORMAL, FULL or EXTRA"},
              {"sqlite.cache_size", std::to_string(kDefaultCacheSize),
               "PRAGMA cache_size per connection (thread): pages if positive, KiB if negative"},
              {"sqlite.mmap_size", "0", "PRAGMA mmap_size in bytes (k/M/G suffixes; 0 = no memory-mapped I/O)"},
              {"sqlite.busy_timeout_ms", "10000",
               "how long a statement waits for another process's lock before SERVICE_UNAVAILABLE"},
              {"sqlite.serialize_writes", "true",
               "queue this process's writes on a mutex rather than SQLite's sleeping busy handler (one writer anyway)"},
          },
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        SqliteOptions o = ParseOptions(props);
        return std::make_unique<SqliteStore>(o);
      },
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
