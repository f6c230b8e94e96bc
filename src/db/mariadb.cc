// Binding "mariadb": a MariaDB (or MySQL) server through MariaDB
// Connector/C (libmariadb), with server-side prepared statements.
//
// Layout: YCSB's JDBC schema, one SQL table per YCSB table in database
// `mariadb.database`, InnoDB:
//   CREATE TABLE IF NOT EXISTS `usertable`(YCSB_KEY VARBINARY(255) PRIMARY KEY,
//       `field0` LONGBLOB, ..., `field9` LONGBLOB) ENGINE=InnoDB
// created on the first insert into the table, with `fieldcount` columns
// named with `fieldnameprefix` (YCSB's core properties, defaults 10 and
// "field"). VARBINARY rather than YCSB's VARCHAR: keys are any bytes, compare
// and scan in memcmp order; values are LONGBLOBs, stored byte for byte. A
// field a record lacks is a NULL column; reads return the non-NULL columns in
// column order (write order for field0..fieldN; a field first written later
// is a column added at the end with ALTER TABLE ... ADD COLUMN IF NOT EXISTS).
// Field names become column names as in the sqlite binding: [a-z0-9_] names
// as is, any other as "x_" + hex of its bytes (MariaDB limits a column name
// to 64 characters, so such a name may have at most 31 bytes).
//
// Connections: one per Session, non-blocking (MYSQL_OPT_NONBLOCK); every
// wait goes through io::WaitFd with the operation's deadline
// (`mariadb.timeout_ms`), so many sessions can share a thread as fibers. At
// the deadline the connection is dropped and the operation returns ERROR;
// a broken connection is reopened by the next operation, with a backoff of
// 10 ms doubling to 1 s between failed attempts (SERVICE_UNAVAILABLE while
// none). Each connection prepares its statements lazily (per table; reads,
// scans and updates per column set, up to 32 each) and again after a
// reconnect or a schema change. The connection uses CLIENT_FOUND_ROWS, so an
// UPDATE that sets the values a row already has still counts it as found.
//
// Operations (each one autocommit statement):
//   Insert = INSERT INTO t(YCSB_KEY, every column) VALUES(...) ON DUPLICATE
//            KEY UPDATE every column: NULL for absent fields
//   Update = UPDATE t SET f=?, ... WHERE YCSB_KEY=?; NOT_FOUND when no row matched
//   Read   = SELECT YCSB_KEY, cols FROM t WHERE YCSB_KEY=?
//   Delete = DELETE FROM t WHERE YCSB_KEY=?; NOT_FOUND when no row existed
//   Scan   = SELECT YCSB_KEY, cols FROM t WHERE YCSB_KEY>=? ORDER BY YCSB_KEY LIMIT ?
// A read, update or delete of a table that does not exist is NOT_FOUND; a
// scan of it returns nothing. Table schemas are cached per store; a table
// dropped or altered by someone else fails one operation (ERROR), after
// which its schema is read again (and the table created again by an insert).
// Transactions (Session::Begin): START TRANSACTION at mariadb.isolation,
// the operations, then COMMIT or ROLLBACK; with TxOptions::lock_reads reads
// inside are SELECT ... FOR UPDATE. A deadlock or lock wait timeout (1213,
// 1205) is ABORTED; a connection lost inside a transaction fails the rest
// of it (ERROR) instead of reconnecting in the middle.
//
// Code layout: the statements' text, the schema registry, the field to
// column mapping, transactions and batch insert are the shared SQL layer
// (src/db/sql/, one Dialect per server); this file keeps the libmariadb calls
// (store, session), and src/db/mariadb/connection.h: the non-blocking MYSQL connection and catalog reads.
#include <mysql.h>
#include <mysqld_error.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/mariadb/connection.h"
#include "db/mariadb/rows.h"
#include "db/sql/schema.h"
#include "db/sql/session.h"
#include "db/sql/statements.h"

namespace storebench {
namespace {

using mariadb::Connection;
using mariadb::LoadSchema;
using mariadb::QuoteString;
using mariadb::MariadbOptions;
using sql::TableSchema;

constexpr std::int64_t kMaxFieldColumns = 4000;  // MariaDB allows 4096 columns per table
constexpr std::size_t kMaxParams = 65535;        // placeholders in one prepared statement

constexpr const sql::Dialect& kDialect = sql::kMariadbDialect;

std::string Quote(std::string_view id) { return sql::Identifier(kDialect, id); }

MariadbOptions ParseOptions(const Properties& props) {
  MariadbOptions o;
  o.host = props.GetString("mariadb.host", "127.0.0.1");
  if (o.host.empty()) throw ConfigError("property 'mariadb.host' is empty: expected a host name or address");
  o.port = static_cast<int>(props.GetInt("mariadb.port", 3306, 1, 65535));
  o.user = props.GetString("mariadb.user", "storebench");
  const char* env = std::getenv("STOREBENCH_MARIADB_PASSWORD");
  o.password = props.GetString("mariadb.password", env != nullptr ? env : "");
  o.database = props.GetString("mariadb.database", "storebench");
  if (o.database.empty()) throw ConfigError("property 'mariadb.database' is empty: expected a database name");
  o.timeout_ms = props.GetInt("mariadb.timeout_ms", 5000, 0, 24LL * 3600 * 1000);
  std::string iso = props.GetChoice("mariadb.isolation", "repeatable-read",
                                    {"read-uncommitted", "read-committed", "repeatable-read", "serializable"});
  for (char& c : iso) c = c == '-' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  o.isolation = iso;
  o.fieldcount = props.GetInt("fieldcount", 10, 1, kMaxFieldColumns);
  o.fieldnameprefix = props.GetString("fieldnameprefix", "field");
  return o;
}

// ---- The store -------------------------------------------------------------

class MariadbStore final : public Store {
 public:
  explicit MariadbStore(const MariadbOptions& o) : opts_(o), admin_(&opts_) {
    admin_.StartOp();
    std::string error;
    if (!admin_.Connect(&error)) {
      throw SetupError("mariadb: cannot connect to " + opts_.Endpoint() + " as user '" + opts_.user + "' (database '" +
                       opts_.database + "'): " + error);
    }
    server_version_ = mysql_get_server_info(admin_.get());
  }

  std::unique_ptr<Session> NewSession(int) override;

  // BEGIN ... COMMIT at the isolation level; multi-row INSERTs; non-blocking.
  Capabilities capabilities() const override { return sql::SqlCapabilities(true); }

  // data_length + index_length of the tables this process used (of the
  // whole database if none), after ANALYZE TABLE so InnoDB's figures are
  // current.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    std::lock_guard lock(mu_);
    if (!AdminReady()) return std::nullopt;
    std::string names;
    for (const auto& name : tables_.Names()) {
      names += (names.empty() ? "" : ",") + QuoteString(name);
      admin_.Query("ANALYZE TABLE " + Quote(name));
    }
    std::string sql =
        "SELECT SUM(DATA_LENGTH + INDEX_LENGTH) FROM information_schema.TABLES WHERE TABLE_SCHEMA=DATABASE()";
    if (!names.empty()) sql += " AND TABLE_NAME IN (" + names + ")";
    std::string v;
    if (!QueryText(sql, &v) || v.empty()) return std::nullopt;
    return std::strtoull(v.c_str(), nullptr, 10);
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("mariadb.server_version", server_version_);
    out.emplace_back("mariadb.client_version", mysql_get_client_info());
    std::lock_guard lock(mu_);
    if (!AdminReady()) return out;
    std::string v;
    for (const auto& name : tables_.Names()) {
      if (QueryText("SELECT COUNT(*) FROM " + Quote(name), &v)) out.emplace_back("mariadb." + name + ".rows", v);
    }
    if (QueryText("SELECT @@innodb_buffer_pool_size", &v)) out.emplace_back("mariadb.innodb_buffer_pool_size", v);
    out.emplace_back("mariadb.unavailable_ops", std::to_string(unavailable_ops_.load()));
    return out;
  }

  void Close() override {
    std::lock_guard lock(mu_);
    admin_.Disconnect(false);
  }

  // --- used by sessions ---

  const MariadbOptions& options() const { return opts_; }
  sql::SchemaRegistry& tables() { return tables_; }
  void CountUnavailable() { unavailable_ops_.fetch_add(1, std::memory_order_relaxed); }

 private:
  bool AdminReady() {
    admin_.StartOp();
    if (admin_.connected()) return true;
    std::string error;
    return admin_.Connect(&error);
  }
  bool QueryText(const std::string& sql, std::string* out) {
    admin_.StartOp();
    MYSQL_RES* res = nullptr;
    if (!admin_.QueryResult(sql, &res) || res == nullptr) return false;
    out->clear();
    if (MYSQL_ROW row = mysql_fetch_row(res); row != nullptr && row[0] != nullptr) out->assign(row[0]);
    mysql_free_result(res);
    return true;
  }

  MariadbOptions opts_;
  std::mutex mu_;  // guards admin_
  Connection admin_;
  std::string server_version_;
  sql::SchemaRegistry tables_;
  std::atomic<std::uint64_t> unavailable_ops_{0};  // SERVICE_UNAVAILABLE: no connection
};

// ---- The session -----------------------------------------------------------

// Owns a prepared statement (closed without a round trip when its
// connection is gone: mysql_close detached it).
struct CloseStmt {
  void operator()(MYSQL_STMT* s) const { mysql_stmt_close(s); }
};
using Stmt = std::unique_ptr<MYSQL_STMT, CloseStmt>;
using CachedStmts = std::vector<sql::CachedStmt<Stmt>>;

// A session's prepared statements for one table, valid for one connection
// and schema version.
struct TableState {
  std::shared_ptr<const TableSchema> schema;
  Stmt insert, read_all, scan_all, remove, read_all_locked;
  CachedStmts reads, scans, updates, reads_locked;
  CachedStmts batch_inserts;  // multi-row inserts, keyed by {row count}
};

class MariadbSession final : public Session, sql::TxDriver, sql::BatchDriver {
 public:
  explicit MariadbSession(MariadbStore* store) : store_(store), conn_(&store->options()) {
    conn_.StartOp();
    bool reconnected = false;
    conn_.Ensure(&reconnected);  // a failure is retried by the first operation
  }
  ~MariadbSession() override {
    tables_.Clear();
    sql_stmts_.clear();
    conn_.Disconnect(false);
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      Status st = Begin();
      if (!st.ok()) return st;
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Errored() : Status::NotFound();
      const bool lock = tx_.lock_reads();
      MYSQL_STMT* s = fields.all ? AllStmt(t, lock ? &t->read_all_locked : &t->read_all, false, lock)
                                 : SelectedStmt(t, fields, false, lock);
      if (s == nullptr) return Errored();
      ResetParams(1);
      BindBytes(0, key);
      if (!Execute(t, s)) return Errored();
      st = FetchRows(t, s, fields.all, false, key, out);
      if (!st.ok()) return st;
      return out->record_count() == 0 ? Status::NotFound() : Status::Ok();
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      Status st = Begin();
      if (!st.ok()) return st;
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Errored() : Status::Ok();  // no table: no records
      if (count == 0) return Status::Ok();
      MYSQL_STMT* s = fields.all ? AllStmt(t, &t->scan_all, true) : SelectedStmt(t, fields, true);
      if (s == nullptr) return Errored();
      ResetParams(2);
      BindBytes(0, start_key);
      limit_ = static_cast<unsigned long long>(std::min<std::uint64_t>(count, INT64_MAX));
      params_[1].buffer_type = MYSQL_TYPE_LONGLONG;
      params_[1].buffer = &limit_;
      params_[1].is_unsigned = 1;
      if (!Execute(t, s)) return Errored();
      return FetchRows(t, s, fields.all, true, {}, out);
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      Status st = Begin();
      if (!st.ok()) return st;
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Errored() : Status::NotFound();
      if (values.empty()) return Exists(t, key);
      if (!MapFields(&t, table, values).ok()) return Errored();
      MYSQL_STMT* s =
          Cached(t, &t->updates, map_.columns, [&] { return sql::UpdateSql(kDialect, *t->schema, map_.columns); });
      if (s == nullptr) return Errored();
      ResetParams(values.size() + 1);
      for (std::size_t i = 0; i < values.size(); ++i) BindBytes(i, values[i].value);
      BindBytes(values.size(), key);
      if (!Execute(t, s)) return Errored();
      return mysql_stmt_affected_rows(s) == 0 ? Status::NotFound() : Status::Ok();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      Status st = Begin();
      if (!st.ok()) return st;
      TableState* t = Table(table, true);
      if (t == nullptr) return Errored();
      if (!MapFields(&t, table, values).ok()) return Errored();
      if (!t->insert) {
        t->insert = Prepare(t->schema->name, sql::InsertSql(kDialect, *t->schema));
        if (!t->insert) return Errored();
      }
      ResetParams(t->schema->columns.size() + 1);  // every column NULL unless given
      BindBytes(0, key);
      for (std::size_t i = 0; i < values.size(); ++i) {
        BindBytes(static_cast<std::size_t>(map_.columns[i]) + 1, values[i].value);
      }
      if (!Execute(t, t->insert.get())) return Errored();
      return Status::Ok();
    });
  }

  // Multi-row INSERT ... VALUES (...), (...) ... ON DUPLICATE KEY UPDATE
  // every column (Insert's semantics per row): one statement (atomic under
  // InnoDB) for up to 65535 placeholders' worth of rows; a larger batch is
  // several such statements in one transaction. Missing columns are added
  // first.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    if (batch.empty()) return Status::Ok();
    return Guard([&] {
      Status st = Begin();
      if (!st.ok()) return st;
      TableState* t = Table(table, true);
      if (t == nullptr) return Errored();
      for (std::size_t r = 0; r < batch.size(); ++r) {
        if (!MapFields(&t, table, batch.values(r)).ok()) return Errored();
      }
      batch_ = {&batch, table, t, t->schema->columns.size() + 1};
      st = sql::InsertInChunks(*this, batch.size(), batch_.per_row, kMaxParams);
      return st.ok() ? st : Errored();
    });
  }

  Status Begin(const TxOptions& options) override { return Guard([&] { return tx_.Begin(*this, options); }); }
  // COMMIT with no transaction open is an error; ROLLBACK is a no-op.
  Status Commit() override { return Guard([&] { return tx_.Commit(*this); }); }
  Status Abort() override { return Guard([&] { return tx_.Abort(*this); }); }

  // workload=sqlquery's statements: SELECT/INSERT/UPDATE/DELETE prepared
  // once per connection (keyed by their text); anything else (DDL) run as a
  // plain query.
  Status Sql(std::string_view sql, std::span<const SqlParam> params, std::uint64_t* rows) override {
    return Guard([&] {
      *rows = 0;
      if (Status st = Begin(); !st.ok()) return st;
      const bool select = sql.starts_with("SELECT");
      const bool dml = select || sql.starts_with("INSERT") || sql.starts_with("UPDATE") || sql.starts_with("DELETE");
      if (!dml) return conn_.Query(std::string(sql)) ? Status::Ok() : Errored();
      MYSQL_STMT* s = nullptr;
      for (auto& [text, stmt] : sql_stmts_) {
        if (text == sql) s = stmt.get();
      }
      if (s == nullptr) {
        Stmt p = Prepare("", std::string(sql));
        if (!p) return Errored();
        s = p.get();
        sql_stmts_.emplace_back(std::string(sql), std::move(p));
      }
      ResetParams(params.size());
      if (sql_ints_.size() < params.size()) sql_ints_.resize(params.size());
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (params[i].is_text) {
          BindBytes(i, params[i].text);
          params_[i].buffer_type = MYSQL_TYPE_STRING;
        } else {
          sql_ints_[i] = params[i].i;
          params_[i].buffer_type = MYSQL_TYPE_LONGLONG;
          params_[i].buffer = &sql_ints_[i];
        }
      }
      if (!params.empty() && mysql_stmt_bind_param(s, params_.data()) != 0) {
        conn_.Failed(mysql_stmt_errno(s));
        return Errored();
      }
      if (!Call(s, false)) return Errored();
      if (!select) {
        *rows = mysql_stmt_affected_rows(s);
        return Status::Ok();
      }
      if (!Call(s, true)) return Errored();
      *rows = mysql_stmt_num_rows(s);
      mysql_stmt_free_result(s);
      return Status::Ok();
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      Status st = Begin();
      if (!st.ok()) return st;
      TableState* t = Table(table, false);
      if (t == nullptr) return table_error_ ? Errored() : Status::NotFound();
      if (!t->remove) {
        t->remove = Prepare(t->schema->name, sql::DeleteSql(kDialect, t->schema->name));
        if (!t->remove) return Errored();
      }
      ResetParams(1);
      BindBytes(0, key);
      if (!Execute(t, t->remove.get())) return Errored();
      return mysql_stmt_affected_rows(t->remove.get()) == 0 ? Status::NotFound() : Status::Ok();
    });
  }

 private:
  // Starts an operation: its deadline, and a connection (statements are
  // re-prepared after a reconnect).
  Status Begin() {
    conn_.StartOp();
    if (tx_.open() && !conn_.connected()) return Status::Error();  // the transaction went with the connection
    bool reconnected = false;
    Status st = conn_.Ensure(&reconnected);
    if (!st.ok()) store_->CountUnavailable();
    if (!st.ok() || reconnected) {
      tables_.Clear();
      sql_stmts_.clear();
    }
    return st;
  }

  // ---- sql::TxDriver ----
  Status StartTransaction() override {
    if (Status st = Begin(); !st.ok()) return st;
    return conn_.Query("START TRANSACTION") ? Status::Ok() : Errored();
  }
  // With none open, nothing is sent (Transaction's rules).
  Status EndTransaction(bool commit) override {
    conn_.StartOp();
    if (!conn_.connected() || !conn_.Query(commit ? "COMMIT" : "ROLLBACK")) return Errored();
    return Status::Ok();
  }

  // ---- sql::BatchDriver: the batch being inserted (BatchInsert); ERROR here, Errored() after ----
  struct Batch {
    const RecordBatch* records = nullptr;
    std::string_view table;
    TableState* state = nullptr;
    std::size_t per_row = 0;  // placeholders per record: the key and every column
  };
  Status BeginBatch() override { return conn_.Query("START TRANSACTION") ? Status::Ok() : Status::Error(); }
  Status InsertRows(std::size_t first, std::size_t rows) override {
    TableState* t = batch_.state;
    const std::size_t per_row = batch_.per_row;
    batch_rows_.assign(1, static_cast<int>(rows));
    MYSQL_STMT* s = Cached(t, &t->batch_inserts, batch_rows_,
                           [&] { return sql::BatchInsertSql(kDialect, *t->schema, rows); });
    if (s == nullptr) return Status::Error();
    ResetParams(rows * per_row);  // every column NULL unless given
    for (std::size_t i = 0; i < rows; ++i) {
      std::span<const Field> values = batch_.records->values(first + i);
      // Only maps: the columns exist now.
      if (!MapFields(&batch_.state, batch_.table, values).ok()) return Status::Error();
      BindBytes(i * per_row, batch_.records->key(first + i));
      for (std::size_t f = 0; f < values.size(); ++f) {
        const auto c = static_cast<std::size_t>(map_.columns[f]) + 1;
        if (c >= per_row) return Status::Error();  // the schema grew meanwhile
        BindBytes(i * per_row + c, values[f].value);
      }
    }
    return Execute(t, s) ? Status::Ok() : Status::Error();
  }
  Status CommitBatch() override { return conn_.Query("COMMIT") ? Status::Ok() : Status::Error(); }
  void RollbackBatch() override {
    if (conn_.connected()) conn_.Query("ROLLBACK");
  }

  // ERROR after a failure; when it broke the connection, the statements go
  // with it (detached by mysql_close, freed here without a round trip).
  Status Errored() {
    if (!conn_.connected()) {
      tables_.Clear();
      sql_stmts_.clear();
    }
    const unsigned int err = conn_.last_errno();
    if (err == ER_LOCK_DEADLOCK || err == ER_LOCK_WAIT_TIMEOUT) return Status(Status::kAborted);
    return Status::Error();
  }

  // The statements of `table` for the current schema version; nullptr when
  // the table does not exist and !create, or on failure (table_error_).
  TableState* Table(std::string_view table, bool create) {
    table_error_ = false;
    sql::SchemaRegistry& registry = store_->tables();
    if (TableState* t = tables_.Find(table, registry.version())) return t;
    auto schema = registry.Find(table);
    if (schema == nullptr) {
      bool error = false;
      std::shared_ptr<TableSchema> loaded = LoadSchema(&conn_, table, &error);
      if (loaded == nullptr && !error && create) {
        const auto& o = store_->options();
        if (conn_.Query(sql::CreateTableSql(kDialect, table, sql::FieldColumns(o.fieldcount, o.fieldnameprefix)))) {
          loaded = LoadSchema(&conn_, table, &error);
        } else {
          error = true;
        }
      }
      if (loaded == nullptr) {
        table_error_ = error || create;
        return nullptr;
      }
      registry.Put(loaded, false);
      schema = std::move(loaded);
    }
    return tables_.Add(std::move(schema));
  }

  // Maps the fields to columns (map_), adding the missing ones to the table
  // first (then *t is the re-fetched table state).
  Status MapFields(TableState** t, std::string_view table, std::span<const Field> values) {
    return sql::MapFields(t, values, &map_, [&](TableState** state) {
      if (!AddColumns(table)) return Status::Error();
      *state = Table(table, false);
      return *state != nullptr ? Status::Ok() : Status::Error();
    });
  }

  // ALTER TABLE t ADD COLUMN IF NOT EXISTS for map_.missing (idempotent, so
  // sessions and processes racing to add the same field all succeed), then
  // reloads and publishes the schema.
  bool AddColumns(std::string_view table) {
    if (!conn_.Query(sql::AddColumnsSql(kDialect, table, map_.MissingColumns()))) return false;
    bool error = false;
    auto schema = LoadSchema(&conn_, table, &error);
    if (schema == nullptr) return false;
    store_->tables().Put(schema, true);
    return true;
  }

  // A statement's failure with `err`: a table dropped or altered behind our
  // back makes every session read its schema again.
  void Forget(std::string_view table, unsigned int err) {
    if (err == ER_NO_SUCH_TABLE || err == ER_BAD_FIELD_ERROR) store_->tables().Forget(table, true);
  }

  Stmt Prepare(std::string_view table, const std::string& sql) {
    if (!conn_.connected()) return Stmt();
    MYSQL_STMT* s = mysql_stmt_init(conn_.get());
    if (s == nullptr) return Stmt();
    Stmt stmt(s);
    int ret = 0;
    int status = mysql_stmt_prepare_start(&ret, s, sql.data(), sql.size());
    if (!conn_.Drive(status, [&](int r) { return mysql_stmt_prepare_cont(&ret, s, r); })) {
      conn_.TimedOut();
      return Stmt();
    }
    if (ret != 0) {
      const unsigned int err = mysql_stmt_errno(s);
      Forget(table, err);
      conn_.Failed(err);
      return Stmt();
    }
    return stmt;
  }

  MYSQL_STMT* AllStmt(TableState* t, Stmt* slot, bool scan, bool lock = false) {
    if (!*slot) *slot = Prepare(t->schema->name, sql::SelectSql(kDialect, *t->schema, nullptr, scan, lock));
    return slot->get();
  }

  // The statement selecting the columns named by `fields` (in column
  // order; names that are not columns are ignored). selected_ holds them.
  MYSQL_STMT* SelectedStmt(TableState* t, const FieldSelector& fields, bool scan, bool lock = false) {
    sql::SelectColumns(*t->schema, fields, &selected_);
    auto& cache = scan ? t->scans : lock ? t->reads_locked : t->reads;
    return Cached(t, &cache, selected_, [&] { return sql::SelectSql(kDialect, *t->schema, &selected_, scan, lock); });
  }

  template <typename MakeSql>
  MYSQL_STMT* Cached(const TableState* t, CachedStmts* cache, const std::vector<int>& cols, MakeSql make_sql) {
    Stmt* s = sql::CachedStatement(cache, cols, [&] { return Prepare(t->schema->name, make_sql()); });
    return s != nullptr ? s->get() : nullptr;
  }

  // Update without fields: NOT_FOUND unless the record exists.
  Status Exists(TableState* t, std::string_view key) {
    selected_.clear();
    MYSQL_STMT* s =
        Cached(t, &t->reads, selected_, [&] { return sql::SelectSql(kDialect, *t->schema, &selected_, false); });
    if (s == nullptr) return Errored();
    ResetParams(1);
    BindBytes(0, key);
    if (!Execute(t, s)) return Errored();
    scratch_.Clear();
    Status st = FetchRows(t, s, false, false, key, &scratch_);
    if (!st.ok()) return st;
    return scratch_.record_count() == 0 ? Status::NotFound() : Status::Ok();
  }

  // ---- parameters and results ----

  void ResetParams(std::size_t n) {
    if (params_.size() < n) params_.resize(n);
    std::memset(params_.data(), 0, n * sizeof(MYSQL_BIND));
    for (std::size_t i = 0; i < n; ++i) params_[i].buffer_type = MYSQL_TYPE_NULL;
  }
  // Binds bytes as a BLOB (an empty one, not NULL, for no bytes).
  void BindBytes(std::size_t i, std::string_view v) {
    static char empty = 0;
    MYSQL_BIND& b = params_[i];
    b.buffer_type = MYSQL_TYPE_BLOB;
    b.buffer = v.empty() ? &empty : const_cast<char*>(v.data());
    b.buffer_length = v.size();
  }

  // mysql_stmt_execute (or, `store`, mysql_stmt_store_result) driven to
  // its end. False on failure (the connection recorded it, and is dropped
  // when broken or timed out); *err the statement's error (0: timed out).
  bool Call(MYSQL_STMT* s, bool store, unsigned int* err = nullptr) {
    unsigned int ignored = 0;
    if (err == nullptr) err = &ignored;
    *err = 0;
    int ret = 0;
    const int status = store ? mysql_stmt_store_result_start(&ret, s) : mysql_stmt_execute_start(&ret, s);
    if (!conn_.Drive(status, [&](int r) {
          return store ? mysql_stmt_store_result_cont(&ret, s, r) : mysql_stmt_execute_cont(&ret, s, r);
        })) {
      return conn_.TimedOut();
    }
    if (ret == 0) return true;
    *err = mysql_stmt_errno(s);
    return conn_.Failed(*err);
  }

  // Binds params_ and executes. False on failure (the connection is dropped
  // when broken or timed out).
  bool Execute(const TableState* t, MYSQL_STMT* s) {
    if (mysql_stmt_bind_param(s, params_.data()) != 0) return conn_.Failed(mysql_stmt_errno(s));
    unsigned int err = 0;
    if (Call(s, false, &err)) return true;
    Forget(t->schema->name, err);
    return false;
  }

  // Reads the executed statement's rows (YCSB_KEY, then the selected
  // columns) into out, skipping NULL columns. For a read, `key` is the
  // record's key as given.
  Status FetchRows(const TableState* t, MYSQL_STMT* s, bool all, bool scan, std::string_view key, RecordSet* out) {
    if (!Call(s, true)) return Errored();
    if (!rows_.Bind(s)) return Errored();
    return rows_.Fetch(s, t->schema->fields, all ? nullptr : &selected_, scan, key, out);
  }

  MariadbStore* store_;
  Connection conn_;
  sql::TableStates<TableState> tables_;
  bool table_error_ = false;
  sql::FieldMap map_;            // the fields of an insert/update and their columns
  std::vector<int> selected_;    // columns of a selected read/scan
  std::vector<int> batch_rows_;  // the batch insert statements' cache key: {rows}
  Batch batch_;                  // during BatchInsert
  std::vector<MYSQL_BIND> params_;
  unsigned long long limit_ = 0;
  mariadb::RowReader rows_;
  RecordSet scratch_;
  sql::Transaction tx_;  // between Begin and Commit/Abort
  std::vector<std::pair<std::string, Stmt>> sql_stmts_;  // Sql's statements, by their text
  std::vector<long long> sql_ints_;                      // Sql's integer parameters
};

std::unique_ptr<Session> MariadbStore::NewSession(int) { return std::make_unique<MariadbSession>(this); }

}  // namespace

const BindingInfo& mariadb_binding() {
  static const BindingInfo info{
      .name = "mariadb",
      .summary = std::string("MariaDB/MySQL server through MariaDB Connector/C ") + mysql_get_client_info() +
                 " (YCSB's JDBC schema, InnoDB, prepared statements; non-blocking: many clients per thread)",
      .properties =
          {
              {"mariadb.host", "127.0.0.1", "server host name or address (\"localhost\": the default Unix socket)"},
              {"mariadb.port", "3306", "server TCP port"},
              {"mariadb.user", "storebench", "user name"},
              {"mariadb.password", "",
               "password (when unset: environment variable STOREBENCH_MARIADB_PASSWORD); never printed"},
              {"mariadb.database", "storebench", "database holding the tables (must exist)"},
              {"mariadb.timeout_ms", "5000",
               "per-operation (and connect) timeout in ms; at it the connection is dropped and the op is ERROR (0 = none)"},
              {"mariadb.isolation", "repeatable-read",
               "transaction isolation: read-uncommitted, read-committed, repeatable-read or serializable"},
          },
      .open = sql::OpenStore<MariadbStore, ParseOptions>,
      .server = true,
  };
  return info;
}

}  // namespace storebench
