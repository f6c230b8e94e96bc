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
//
// Code layout: the statements' text, the schema registry, the field to
// column mapping, transactions and batch insert are the shared SQL layer
// (src/db/sql/, one Dialect per server); this file keeps the libsqlite3 calls
// (store, session), and src/db/sqlite/driver.h: owned statements, options, opening a connection.
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
#include "db/sqlite/driver.h"
#include "db/sql/schema.h"
#include "db/sql/session.h"
#include "db/sql/statements.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

using sql::TableSchema;
using namespace sqlite_driver;  // NOLINT: this binding's driver helpers

constexpr char kDefaultDir[] = "storebench-data/sqlite";
constexpr char kDefaultFile[] = "storebench.db";
constexpr std::int64_t kDefaultCacheSize = -2000;  // SQLite's own default: 2000 KiB per connection
constexpr std::int64_t kMaxFieldColumns = 1999;    // SQLITE_MAX_COLUMN (2000) minus the key

constexpr const sql::Dialect& kDialect = sql::kSqliteDialect;

std::string Quote(std::string_view id) { return sql::Identifier(kDialect, id); }
std::string QuoteString(std::string_view s) { return sql::Enclose(s, '\''); }


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

// ---- The store -------------------------------------------------------------

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

  // BEGIN IMMEDIATE ... COMMIT; a batch is one transaction.
  Capabilities capabilities() const override { return sql::SqlCapabilities(false); }

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
  std::uint64_t version() const { return tables_.version(); }

  // Holds this process's write lock (when sqlite.serialize_writes).
  std::unique_lock<std::mutex> WriteLock() {
    return opts_.serialize_writes ? std::unique_lock(write_mu_) : std::unique_lock<std::mutex>();
  }

  // The schema of `table`; creates the table when `create`. nullptr when it
  // does not exist (and !create) or on failure (*error set).
  std::shared_ptr<const TableSchema> GetTable(std::string_view table, bool create, bool* error) {
    *error = false;
    std::lock_guard lock(schema_mu_);
    if (auto known = tables_.Find(table)) return known;
    if (admin_ == nullptr) {
      *error = true;
      return nullptr;
    }
    auto schema = LoadSchema(table, error);
    if (schema == nullptr && !*error && create) {
      const std::string sql =
          sql::CreateTableSql(kDialect, table, sql::FieldColumns(opts_.fieldcount, opts_.fieldnameprefix));
      std::unique_lock writes = WriteLock();
      if (!Exec(admin_, sql, nullptr)) {
        *error = true;
        return nullptr;
      }
      writes.unlock();
      schema = LoadSchema(table, error);
    }
    if (schema == nullptr) return nullptr;
    tables_.Put(schema, false);  // no session has state for it: no version change
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
      const std::vector<std::string> column{sql::EncodeColumn(f)};
      if (!Exec(admin_, sql::AddColumnsSql(kDialect, table, column), nullptr)) return false;
      added = true;
      auto copy = std::make_shared<TableSchema>(*schema);
      copy->columns.push_back(column[0]);
      copy->fields.emplace_back(f);
      schema = copy;
    }
    if (added) schema = LoadSchema(table, &error);
    if (schema == nullptr) return false;
    tables_.Put(schema, true);
    return true;
  }

 private:
  // Reads the table's columns from the database (nullptr when the table does
  // not exist; *error on failure or when it has no YCSB_KEY column).
  std::shared_ptr<TableSchema> LoadSchema(std::string_view table, bool* error) {
    Stmt s = Prepare(admin_, "SELECT name FROM pragma_table_info(" + QuoteString(table) + ") ORDER BY cid");
    if (!s) {
      *error = true;
      return nullptr;
    }
    std::vector<std::string> names;
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0)));
    }
    if (rc != SQLITE_DONE) {
      *error = true;
      return nullptr;
    }
    return sql::SchemaFromColumns(table, std::move(names), error);  // a table without YCSB_KEY is not ours
  }

  SqliteOptions opts_;
  std::mutex schema_mu_;  // guards admin_ (and makes GetTable/AddColumns atomic)
  sqlite3* admin_ = nullptr;
  sql::SchemaRegistry tables_;
  std::mutex write_mu_;
};

// ---- The session -----------------------------------------------------------

using CachedStmts = std::vector<sql::CachedStmt<Stmt>>;

// A session's prepared statements for one table, valid for one schema version.
struct TableState {
  std::shared_ptr<const TableSchema> schema;
  Stmt insert, read_all, scan_all, remove;
  CachedStmts reads, scans, updates;
};

class SqliteSession final : public Session, sql::TxDriver, sql::BatchDriver {
 public:
  explicit SqliteSession(SqliteStore* store) : store_(store) {
    db_ = OpenConnection(store->options(), false);
  }
  ~SqliteSession() override {
    tables_.Clear();  // finalize every statement first
    sql_cache_.clear();
    begin_ = Stmt();
    commit_ = Stmt();
    rollback_ = Stmt();
    sqlite3_close_v2(db_);  // rolls back a transaction left open
  }

  // A transaction holds the process's write lock from BEGIN IMMEDIATE to
  // COMMIT or ROLLBACK; a COMMIT that fails (BUSY) leaves it open for Abort.
  Status Begin(const TxOptions& options) override { return Guard([&] { return tx_.Begin(*this, options); }); }
  Status Commit() override { return Guard([&] { return tx_.Commit(*this); }); }
  Status Abort() override { return Guard([&] { return tx_.Abort(*this); }); }

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
      std::unique_lock lock = read_only || tx_.open() ? std::unique_lock<std::mutex>() : store_->WriteLock();
      int rc;
      std::uint64_t n = 0;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW) ++n;
      if (rc != SQLITE_DONE) return FromCode(rc);
      *rows = dml && !sql.starts_with("SELECT") ? static_cast<std::uint64_t>(sqlite3_changes(db_)) : n;
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
      if (!MapFields(&t, table, values).ok()) return Status::Error();
      sqlite3_stmt* s =
          Cached(&t->updates, map_.columns, [&] { return sql::UpdateSql(kDialect, *t->schema, map_.columns); });
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
      if (!MapFields(&t, table, values).ok()) return Status::Error();
      sqlite3_stmt* s = InsertStmt(t);
      if (s == nullptr) return Status::Error();
      ResetOnExit reset(s);  // clears the bindings too: absent fields are NULL
      if (BindBytes(s, 1, key) != SQLITE_OK) return Status::Error();
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (BindBytes(s, map_.columns[i] + 2, values[i].value) != SQLITE_OK) return Status::Error();
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
        if (!MapFields(&t, table, batch.values(r)).ok()) return Status::Error();
      }
      if (!begin_) begin_ = Prepare(db_, "BEGIN IMMEDIATE");
      if (!commit_) commit_ = Prepare(db_, "COMMIT");
      if (!rollback_) rollback_ = Prepare(db_, "ROLLBACK");
      sqlite3_stmt* s = InsertStmt(t);
      if (!begin_ || !commit_ || !rollback_ || s == nullptr) return Status::Error();
      batch_ = {&batch, t, s};
      Status st = sql::InsertInChunks(*this, batch.size(), 1, batch.size(), /*always_transaction=*/true);
      batch_lock_ = std::unique_lock<std::mutex>();
      return st;
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      if (!t->remove) {
        t->remove = Prepare(db_, sql::DeleteSql(kDialect, t->schema->name));
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
  // ---- sql::TxDriver ----
  Status StartTransaction() override {
    tx_lock_ = store_->WriteLock();
    const int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      tx_lock_ = std::unique_lock<std::mutex>();
      return FromCode(rc);
    }
    return Status::Ok();
  }
  Status EndTransaction(bool commit) override {
    if (commit) {
      const int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
      if (rc != SQLITE_OK) return FromCode(rc);  // still open: Abort rolls it back
    } else if (sqlite3_get_autocommit(db_) == 0) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    tx_lock_ = std::unique_lock<std::mutex>();
    return Status::Ok();
  }

  // ---- sql::BatchDriver: every record with Insert's statement in one
  // transaction (BEGIN IMMEDIATE ... COMMIT, under the process's write lock).
  struct Batch {
    const RecordBatch* records = nullptr;
    TableState* state = nullptr;
    sqlite3_stmt* insert = nullptr;
  };
  Status BeginBatch() override {
    batch_lock_ = store_->WriteLock();
    if (int rc = Step(begin_.get()); rc != SQLITE_DONE) return FromCode(rc);
    return Status::Ok();
  }
  Status InsertRows(std::size_t first, std::size_t rows) override {
    sqlite3_stmt* s = batch_.insert;
    Status st = Status::Ok();
    for (std::size_t r = first; r < first + rows && st.ok(); ++r) {
      std::span<const Field> values = batch_.records->values(r);
      ResetOnExit reset(s);
      if (BindBytes(s, 1, batch_.records->key(r)) != SQLITE_OK) return Status::Error();
      for (const Field& f : values) {
        // The columns exist (added above; columns are never dropped).
        const int c = sql::FindColumn(*batch_.state->schema, f.name);
        if (c < 0 || BindBytes(s, c + 2, f.value) != SQLITE_OK) return Status::Error();
      }
      if (int rc = sqlite3_step(s); rc != SQLITE_DONE) st = FromCode(rc);
    }
    return st;
  }
  Status CommitBatch() override {
    if (int rc = Step(commit_.get()); rc != SQLITE_DONE) {
      Step(rollback_.get());
      return FromCode(rc);
    }
    return Status::Ok();
  }
  void RollbackBatch() override { Step(rollback_.get()); }  // no-op (an error) if COMMIT ended it

  // The statements of `table` for the current schema version; nullptr when
  // the table does not exist and !create, or on failure (table_error_).
  TableState* Table(std::string_view table, bool create) {
    table_error_ = false;
    if (TableState* t = tables_.Find(table, store_->version())) return t;
    bool error = false;
    auto schema = store_->GetTable(table, create, &error);
    if (schema == nullptr) {
      table_error_ = error || create;
      return nullptr;
    }
    return tables_.Add(std::move(schema));
  }

  // Maps the fields to columns (map_), adding the missing ones to the table
  // first (then *t is the re-fetched table state).
  Status MapFields(TableState** t, std::string_view table, std::span<const Field> values) {
    return sql::MapFields(t, values, &map_, [&](TableState** state) {
      if (!store_->AddColumns(table, map_.missing)) return Status::Error();
      *state = Table(table, false);
      return *state != nullptr ? Status::Ok() : Status::Error();
    });
  }

  // INSERT OR REPLACE INTO t(YCSB_KEY, every column) VALUES(?, ...), prepared once per schema.
  sqlite3_stmt* InsertStmt(TableState* t) {
    if (!t->insert) t->insert = Prepare(db_, sql::InsertSql(kDialect, *t->schema));
    return t->insert.get();
  }

  // Steps a statement that returns no rows and resets it.
  static int Step(sqlite3_stmt* s) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc;
  }

  sqlite3_stmt* AllStmt(TableState* t, Stmt* slot, bool scan) {
    if (!*slot) *slot = Prepare(db_, sql::SelectSql(kDialect, *t->schema, nullptr, scan));
    return slot->get();
  }

  // The statement selecting the columns named by `fields` (in column
  // order; names that are not columns are ignored). selected_ holds them.
  sqlite3_stmt* SelectedStmt(TableState* t, const FieldSelector& fields, bool scan) {
    sql::SelectColumns(*t->schema, fields, &selected_);
    return Cached(scan ? &t->scans : &t->reads, selected_,
                  [&] { return sql::SelectSql(kDialect, *t->schema, &selected_, scan); });
  }

  template <typename MakeSql>
  sqlite3_stmt* Cached(CachedStmts* cache, const std::vector<int>& cols, MakeSql make_sql) {
    Stmt* s = sql::CachedStatement(cache, cols, [&] { return Prepare(db_, make_sql()); });
    return s != nullptr ? s->get() : nullptr;
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
    sqlite3_stmt* s =
        Cached(&t->reads, selected_, [&] { return sql::SelectSql(kDialect, *t->schema, &selected_, false); });
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
    std::unique_lock lock = tx_.open() ? std::unique_lock<std::mutex>() : store_->WriteLock();
    int rc = sqlite3_step(s);
    *changes = sqlite3_changes(db_);
    return rc == SQLITE_DONE ? Status::Ok() : FromCode(rc);
  }

  SqliteStore* store_;
  sqlite3* db_ = nullptr;
  sql::TableStates<TableState> tables_;
  bool table_error_ = false;
  sql::FieldMap map_;                      // the fields of an insert/update and their columns
  std::vector<int> selected_;              // columns of a selected read/scan
  Stmt begin_, commit_, rollback_;         // BatchInsert's transaction
  Batch batch_;                            // during BatchInsert
  std::unique_lock<std::mutex> batch_lock_;  // the process's write lock, held by BatchInsert
  sql::Transaction tx_{/*failed_commit_stays_open=*/true};
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
      .open = sql::OpenStore<SqliteStore, ParseOptions>,
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
