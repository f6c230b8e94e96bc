// Binding "postgresql": a PostgreSQL server through libpq, one connection
// per client, prepared statements, non-blocking I/O through net/io.h.
//
// Layout: YCSB's JDBC schema, one SQL table per YCSB table:
//   CREATE TABLE IF NOT EXISTS "usertable"(YCSB_KEY BYTEA PRIMARY KEY,
//                                           "field0" BYTEA, ..., "field9" BYTEA)
// with `fieldcount` columns named with `fieldnameprefix` (YCSB's core
// properties). Unlike YCSB's VARCHAR(255)/TEXT columns, keys and values are
// BYTEA and travel as binary parameters and binary results, so any byte
// (NUL, invalid UTF-8) is stored as is and keys order byte-wise (memcmp),
// whatever the database's collation. Field names become column names as in
// the sqlite binding: [a-z0-9_] names (not "ycsb_key", not starting with
// "x_") as is, any other name "x_" + hex of its bytes; a column name longer
// than PostgreSQL's 63 bytes is refused (ERROR). A field that is not a
// column yet is added with ALTER TABLE ... ADD COLUMN IF NOT EXISTS; the
// store's schema version then changes and every session re-prepares. A
// field a record does not have is a NULL column; reads return the non-NULL
// columns in column order (write order for YCSB's field0..fieldN).
//
// The table named by `table` is created when the store opens; any other
// table the first time a session uses it (any operation).
//
// Operations (one autocommit statement each, prepared once per connection):
//   Insert = INSERT ... ON CONFLICT (YCSB_KEY) DO UPDATE SET every column,
//            NULL for absent fields: the record has exactly these fields
//   Update = UPDATE t SET given columns WHERE YCSB_KEY=$n; NOT_FOUND when
//            no row changed
//   Read   = SELECT YCSB_KEY, cols FROM t WHERE YCSB_KEY=$1
//   Delete = DELETE FROM t WHERE YCSB_KEY=$1; NOT_FOUND when no row existed
//   Scan   = SELECT YCSB_KEY, cols FROM t WHERE YCSB_KEY>=$1
//            ORDER BY YCSB_KEY LIMIT $2
//
// Waiting: connections are non-blocking (PQconnectStartParams/PQconnectPoll,
// PQsendQueryPrepared/PQflush/PQconsumeInput), and every wait is an
// io::WaitFd on the connection's socket with the operation's deadline
// (postgresql.timeout_ms), so the runner may host many clients per thread.
// libpq resolves a host *name* (not an address) blocking, inside connect.
// On a timeout the connection is dropped (a cancel request would block) and
// the operation returns ERROR; the server also cancels the statement itself
// (statement_timeout = postgresql.timeout_ms). A broken connection returns
// ERROR; the next operation reconnects, and while connecting fails it
// returns SERVICE_UNAVAILABLE with a backoff of 10 ms doubling to 1 s
// between attempts. Serialization failures and deadlocks (SQLSTATE 40001,
// 40P01) return ABORTED.
//
// Transactions (Session::Begin): BEGIN at the connection's
// default_transaction_isolation (postgresql.isolation), the operations, then
// COMMIT or ROLLBACK. With TxOptions::lock_reads, reads inside take
// SELECT ... FOR UPDATE. A serialization failure or deadlock (in a statement
// or at COMMIT) is ABORTED; a connection lost inside a transaction fails
// the rest of it (ERROR) instead of reconnecting in the middle.
//
// Setup errors (thrown from `open` and NewSession): "postgresql: cannot
// connect to HOST:PORT as user USER: <libpq's reason>". The password comes
// from postgresql.password or STOREBENCH_POSTGRESQL_PASSWORD and is never
// printed.
//
// Code layout: the statements' text, the schema registry, the field to
// column mapping, transactions and batch insert are the shared SQL layer
// (src/db/sql/, one Dialect per server); this file keeps the libpq calls
// (store, session), and src/db/postgresql/connection.h: the non-blocking libpq connection.
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <climits>
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
#include "db/postgresql/connection.h"
#include "db/sql/schema.h"
#include "db/sql/session.h"
#include "db/sql/statements.h"

namespace storebench {
namespace {

using namespace pg;  // NOLINT: this binding's connection
using sql::TableSchema;

constexpr const sql::Dialect& kDialect = sql::kPostgresqlDialect;

std::string Quote(std::string_view id) { return sql::Identifier(kDialect, id); }

constexpr std::size_t kMaxParams = 65535;        // bind parameters in one statement (the protocol's limit)
constexpr std::int64_t kMaxFieldColumns = 1599;  // MaxHeapAttributeNumber (1600) minus the key

std::string DefaultUser() {
  const char* u = std::getenv("USER");
  return u != nullptr && *u != '\0' ? u : "postgres";
}

PgOptions ParseOptions(const Properties& props) {
  PgOptions o;
  o.host = props.GetString("postgresql.host", "127.0.0.1");
  if (o.host.empty()) throw ConfigError("property 'postgresql.host' is empty");
  o.port = static_cast<int>(props.GetInt("postgresql.port", 5432, 1, 65535));
  o.dbname = props.GetString("postgresql.dbname", "storebench");
  o.user = props.GetString("postgresql.user", "");
  if (o.user.empty()) o.user = DefaultUser();
  o.password = props.GetString("postgresql.password", "");
  if (o.password.empty()) {
    if (const char* p = std::getenv("STOREBENCH_POSTGRESQL_PASSWORD")) o.password = p;
  }
  o.timeout_ms = props.GetInt("postgresql.timeout_ms", 5000, 1, INT_MAX);
  o.isolation = props.GetChoice("postgresql.isolation", "read committed",
                                {"read committed", "repeatable read", "serializable", "read_committed",
                                 "repeatable_read"});
  std::replace(o.isolation.begin(), o.isolation.end(), '_', ' ');
  o.synchronous_commit = props.GetBool("postgresql.synchronous_commit", true);
  o.sslmode = props.GetChoice("postgresql.sslmode", "disable", {"disable", "prefer", "require"});
  o.fieldcount = props.GetInt("fieldcount", 10, 1, kMaxFieldColumns);
  o.fieldnameprefix = props.GetString("fieldnameprefix", "field");
  o.table = props.GetString("table", "usertable");
  return o;
}

// ---- The store -----------------------------------------------------------------

class PgStore final : public Store {
 public:
  explicit PgStore(const PgOptions& o) : opts_(o), admin_(&opts_) {
    if (!ValidTableName(opts_.table)) {
      throw ConfigError("property 'table' = '" + opts_.table +
                        "': not a PostgreSQL table name (1 to 63 bytes, no NUL)");
    }
    std::string error;
    if (!admin_.Connect(DeadlineAfter(opts_.timeout_ms), &error))
      throw SetupError(ConnectError(opts_, error));
    server_version_ = PQparameterStatus(admin_.get(), "server_version") != nullptr
                          ? PQparameterStatus(admin_.get(), "server_version")
                          : "";
    std::shared_ptr<TableSchema> schema;
    if (!LoadOrCreate(&admin_, opts_, opts_.table, DeadlineAfter(opts_.timeout_ms), &schema)) {
      std::string why = admin_.connected() ? OneLine(PQerrorMessage(admin_.get())) : "connection lost";
      throw SetupError("postgresql: cannot create or read table '" + opts_.table + "' on " + opts_.Where() +
                       ": " + why);
    }
    tables_.Publish(std::move(schema));
  }

  std::unique_ptr<Session> NewSession(int) override;

  // BEGIN ... COMMIT at the isolation level; multi-row INSERTs; non-blocking.
  Capabilities capabilities() const override { return sql::SqlCapabilities(true); }

  // pg_total_relation_size (heap, TOAST and index) of every table this
  // process used.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    std::vector<std::string> names = tables_.Names();
    std::lock_guard lock(admin_mu_);
    if (admin_.Ensure(DeadlineAfter(opts_.timeout_ms)) != Status::Ok()) return std::nullopt;
    std::uint64_t total = 0;
    for (const auto& n : names) {
      Result r;
      if (!RunText(&admin_, "SELECT coalesce(pg_total_relation_size(to_regclass($1)), 0)", {Quote(n)},
                   DeadlineAfter(opts_.timeout_ms), &r) ||
          PQntuples(r.get()) != 1) {
        return std::nullopt;
      }
      total += std::strtoull(PQgetvalue(r.get(), 0, 0), nullptr, 10);
    }
    return total;
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("postgresql.server_version", server_version_);
    out.emplace_back("postgresql.libpq_version", std::to_string(PQlibVersion()));
    out.emplace_back("postgresql.failed_connects", std::to_string(failed_connects_.load()));
    out.emplace_back("postgresql.timeouts", std::to_string(timeouts_.load()));
    std::vector<std::string> names = tables_.Names();
    std::lock_guard lock(admin_mu_);
    if (admin_.Ensure(DeadlineAfter(opts_.timeout_ms)) != Status::Ok()) return out;
    for (const auto& n : names) {
      Result r;
      // An estimate (the statistics collector's live tuples, or the
      // planner's count), not a scan of the table.
      if (RunText(&admin_,
                  "SELECT greatest(coalesce((SELECT n_live_tup FROM pg_stat_all_tables WHERE relid = "
                  "to_regclass($1)), 0), coalesce((SELECT reltuples::bigint FROM pg_class WHERE oid = "
                  "to_regclass($1)), 0))",
                  {Quote(n)}, DeadlineAfter(opts_.timeout_ms), &r) &&
          PQntuples(r.get()) == 1) {
        out.emplace_back("postgresql." + n + ".rows_estimate", PQgetvalue(r.get(), 0, 0));
      }
    }
    return out;
  }

  void Close() override {
    std::lock_guard lock(admin_mu_);
    admin_.Drop();
  }

  // --- used by sessions ---
  const PgOptions& options() const { return opts_; }
  sql::SchemaRegistry& tables() { return tables_; }
  void AddCounters(std::uint64_t failed_connects, std::uint64_t timeouts) {
    failed_connects_ += failed_connects;
    timeouts_ += timeouts;
  }

 private:
  PgOptions opts_;
  std::mutex admin_mu_;  // guards admin_ (Stats, DiskUsageBytes, Close)
  Connection admin_;
  std::string server_version_;
  sql::SchemaRegistry tables_;
  std::atomic<std::uint64_t> failed_connects_{0};
  std::atomic<std::uint64_t> timeouts_{0};
};

// ---- The session ---------------------------------------------------------------

// A statement prepared (lazily) on the session's connection.
struct Stmt {
  std::string sql;
  int params = 0;
  std::string name;       // its name on the connection of generation `gen`
  std::uint64_t gen = 0;  // 0: not prepared yet
  explicit operator bool() const { return !sql.empty(); }
};
using CachedStmts = std::vector<sql::CachedStmt<Stmt>>;

// A session's statements for one table, valid for one schema version.
struct TableState {
  std::shared_ptr<const TableSchema> schema;
  Stmt insert, read_all, scan_all, remove, exists, read_all_locked;
  CachedStmts reads, scans, updates, reads_locked;
  CachedStmts batch_inserts;  // multi-row inserts, keyed by {row count}
};

class PgSession final : public Session, sql::TxDriver, sql::BatchDriver {
 public:
  explicit PgSession(PgStore* store) : store_(store), o_(store->options()), conn_(&o_) {
    std::string error;
    if (!conn_.Connect(DeadlineAfter(o_.timeout_ms), &error)) throw SetupError(ConnectError(o_, error));
  }
  ~PgSession() override { store_->AddCounters(conn_.failed_connects(), conn_.timeouts()); }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = Table(table, deadline, &t); !st.ok()) return st;
      const bool lock = tx_.lock_reads();
      Stmt* s = fields.all ? AllStmt(t, lock ? &t->read_all_locked : &t->read_all, false, lock)
                           : SelectedStmt(t, fields, false, lock);
      Begin();
      Bytes(key);
      Status st = Execute(s, deadline, PGRES_TUPLES_OK, table);
      if (!st.ok()) return st;
      if (PQntuples(result_.get()) == 0) return Status::NotFound();
      AddRow(t, 0, fields.all, out);
      return Status::Ok();
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
              const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      if (count == 0) return Status::Ok();
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = Table(table, deadline, &t); !st.ok()) return st;
      Stmt* s = fields.all ? AllStmt(t, &t->scan_all, true) : SelectedStmt(t, fields, true);
      Begin();
      Bytes(start_key);
      auto [end, ec] = std::to_chars(limit_, limit_ + sizeof limit_ - 1,
                                     std::min<std::uint64_t>(count, static_cast<std::uint64_t>(INT64_MAX)));
      *end = '\0';
      Text(limit_);
      Status st = Execute(s, deadline, PGRES_TUPLES_OK, table);
      if (!st.ok()) return st;
      const int n = PQntuples(result_.get());
      for (int r = 0; r < n; ++r) AddRow(t, r, fields.all, out);
      return Status::Ok();
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = MappedTable(table, values, deadline, &t); !st.ok()) return st;
      Stmt* s = nullptr;
      Begin();
      const std::vector<int>& assigned = map_.assigned;
      if (assigned.empty()) {  // no fields: just whether the record exists
        if (!t->exists) {
          t->exists.sql = "SELECT 1 FROM " + Quote(t->schema->name) + " WHERE YCSB_KEY=$1";
          t->exists.params = 1;
        }
        s = &t->exists;
      } else {
        s = Cached(&t->updates, assigned, static_cast<int>(assigned.size()) + 1,
                   [&] { return sql::UpdateSql(kDialect, *t->schema, assigned); });
        for (int c : assigned) BindColumn(values, static_cast<std::size_t>(c));
      }
      Bytes(key);
      Status st = Execute(s, deadline, assigned.empty() ? PGRES_TUPLES_OK : PGRES_COMMAND_OK, table);
      if (!st.ok()) return st;
      return Affected() == 0 ? Status::NotFound() : Status::Ok();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = MappedTable(table, values, deadline, &t); !st.ok()) return st;
      const std::size_t columns = t->schema->columns.size();
      if (!t->insert) {
        t->insert.sql = sql::InsertSql(kDialect, *t->schema);
        t->insert.params = static_cast<int>(columns) + 1;
      }
      Begin();
      Bytes(key);
      for (std::size_t c = 0; c < columns; ++c) BindColumn(values, c);
      return Execute(&t->insert, deadline, PGRES_COMMAND_OK, table);
    });
  }

  // Multi-row upserts: INSERT ... VALUES (...), (...) ... ON CONFLICT
  // (YCSB_KEY) DO UPDATE SET every column (Insert's semantics per row), one
  // statement (atomic) for up to 65535 parameters' worth of rows; a larger
  // batch is several such statements in one transaction (BEGIN ... COMMIT).
  // A key given twice in one batch is an ERROR (PostgreSQL refuses to
  // update a row twice in one statement). Missing columns are added first.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    if (batch.empty()) return Status::Ok();
    return Guard([&] {
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = Table(table, deadline, &t); !st.ok()) return st;
      for (std::size_t r = 0; r < batch.size(); ++r) {
        if (Status st = MapFields(&t, table, batch.values(r), deadline); !st.ok()) return st;
      }
      batch_ = {&batch, table, t, t->schema->columns.size() + 1, deadline};
      return sql::InsertInChunks(*this, batch.size(), batch_.per_row, kMaxParams);
    });
  }

  Status Begin(const TxOptions& options) override { return Guard([&] { return tx_.Begin(*this, options); }); }
  Status Commit() override { return Guard([&] { return tx_.Commit(*this); }); }
  Status Abort() override { return Guard([&] { return tx_.Abort(*this); }); }

  // workload=sqlquery's statements: SELECT/INSERT/UPDATE/DELETE prepared
  // once per connection (keyed by their text, `?` turned into $n, text
  // parameters whose types the server infers); anything else (DDL) run as a
  // plain query.
  Status Sql(std::string_view sql, std::span<const SqlParam> params, std::uint64_t* rows) override {
    return Guard([&] {
      *rows = 0;
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      const bool select = sql.starts_with("SELECT");
      const bool dml = select || sql.starts_with("INSERT") || sql.starts_with("UPDATE") || sql.starts_with("DELETE");
      if (!dml) {
        if (tx_.open() && !InTxConnection()) return Status::Error();
        if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
        return Simple(std::string(sql).c_str(), deadline);
      }
      Stmt* s = nullptr;
      for (auto& [text, stmt] : sql_stmts_) {
        if (text == sql) s = &stmt;
      }
      if (s == nullptr) {
        Stmt stmt;
        int n = 0;
        for (char c : sql) {
          if (c == '?') {
            stmt.sql += "$" + std::to_string(++n);
          } else {
            stmt.sql += c;
          }
        }
        stmt.params = n;
        sql_stmts_.emplace_back(std::string(sql), std::move(stmt));
        s = &sql_stmts_.back().second;
      }
      Begin();
      if (sql_params_.size() < params.size()) sql_params_.resize(params.size());
      for (std::size_t i = 0; i < params.size(); ++i) {
        if (params[i].is_text) {
          sql_params_[i].assign(params[i].text);
        } else {
          char buf[24];
          auto [end, ec] = std::to_chars(buf, buf + sizeof buf, params[i].i);
          sql_params_[i].assign(buf, static_cast<std::size_t>(end - buf));
        }
      }
      for (std::size_t i = 0; i < params.size(); ++i) Text(sql_params_[i].c_str());
      Status st = Execute(s, deadline, select ? PGRES_TUPLES_OK : PGRES_COMMAND_OK, "");
      if (!st.ok()) return st;
      *rows = Affected();
      return Status::Ok();
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = Table(table, deadline, &t); !st.ok()) return st;
      if (!t->remove) {
        t->remove.sql = sql::DeleteSql(kDialect, t->schema->name);
        t->remove.params = 1;
      }
      Begin();
      Bytes(key);
      Status st = Execute(&t->remove, deadline, PGRES_COMMAND_OK, table);
      if (!st.ok()) return st;
      return Affected() == 0 ? Status::NotFound() : Status::Ok();
    });
  }

 private:
  // ---- sql::TxDriver: BEGIN, COMMIT or ROLLBACK on the transaction's connection ----
  Status StartTransaction() override {
    if (Status st = conn_.Ensure(DeadlineAfter(o_.timeout_ms)); !st.ok()) return st;
    tx_generation_ = conn_.generation();
    return TxCommand("BEGIN");
  }
  Status EndTransaction(bool commit) override {
    if (!commit) return TxCommand("ROLLBACK");
    Status st = TxCommand("COMMIT");
    // A transaction that had failed reports ROLLBACK to its COMMIT.
    if (st.ok() && std::strcmp(PQcmdStatus(result_.get()), "COMMIT") != 0) st = Status(Status::kAborted);
    return st;
  }

  // Still on the connection the transaction began on.
  bool InTxConnection() const { return conn_.connected() && conn_.generation() == tx_generation_; }

  Status TxCommand(const char* sql) {
    result_.Reset();
    if (!InTxConnection()) return Status::Error();
    return Simple(sql, DeadlineAfter(o_.timeout_ms));
  }

  // Runs a parameterless statement on the connection; its result in result_.
  Status Simple(const char* sql, std::int64_t deadline) {
    result_.Reset();
    if (Status st = conn_.Send(sql); !st.ok()) return st;
    if (Status st = conn_.Finish(deadline, &result_); !st.ok()) return st;
    return conn_.Check(result_, PGRES_COMMAND_OK);
  }

  // ---- sql::BatchDriver: the batch being inserted (BatchInsert) ----
  struct Batch {
    const RecordBatch* records = nullptr;
    std::string_view table;
    TableState* state = nullptr;
    std::size_t per_row = 0;  // parameters per record: the key and every column
    std::int64_t deadline = 0;
  };
  Status BeginBatch() override {
    if (Status st = conn_.Ensure(batch_.deadline); !st.ok()) return st;
    Result r;
    return RunSimple(&conn_, "BEGIN", batch_.deadline, &r) ? Status::Ok() : Status::Error();
  }
  Status InsertRows(std::size_t first, std::size_t rows) override {
    const RecordBatch& batch = *batch_.records;
    Status result = Status::Ok();
    Begin();
    for (std::size_t i = first; i < first + rows && result.ok(); ++i) {
      // The columns exist now (added before): this only maps.
      result = MapFields(&batch_.state, batch_.table, batch.values(i), batch_.deadline);
      Bytes(batch.key(i));
      for (std::size_t c = 0; c + 1 < batch_.per_row; ++c) BindColumn(batch.values(i), c);
    }
    if (!result.ok()) return result;
    if (values_.size() != rows * batch_.per_row) return Status::Error();  // the schema grew meanwhile
    TableState* t = batch_.state;
    batch_rows_.assign(1, static_cast<int>(rows));
    Stmt* s = Cached(&t->batch_inserts, batch_rows_, static_cast<int>(rows * batch_.per_row),
                     [&] { return sql::BatchInsertSql(kDialect, *t->schema, rows); });
    return Execute(s, batch_.deadline, PGRES_COMMAND_OK, batch_.table);
  }
  Status CommitBatch() override {
    if (!conn_.connected()) return Status::Ok();
    Result r;
    return RunSimple(&conn_, "COMMIT", batch_.deadline, &r) ? Status::Ok() : Status::Error();
  }
  void RollbackBatch() override {
    Result r;
    if (conn_.connected()) RunSimple(&conn_, "ROLLBACK", batch_.deadline, &r);
  }

  // The statements of `table` for the current schema version, loading (and
  // creating) the table on its first use.
  Status Table(std::string_view table, std::int64_t deadline, TableState** out) {
    sql::SchemaRegistry& registry = store_->tables();
    if ((*out = tables_.Find(table, registry.version())) != nullptr) return Status::Ok();
    std::shared_ptr<const TableSchema> schema = registry.Find(table);
    if (schema == nullptr) {
      if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
      std::shared_ptr<TableSchema> loaded;
      if (!LoadOrCreate(&conn_, o_, table, deadline, &loaded)) return Status::Error();
      schema = registry.Publish(std::move(loaded));
      tables_.Sync(registry.version());
    }
    *out = tables_.Add(std::move(schema));
    return Status::Ok();
  }

  // The statements of `table` with `values` mapped to its columns (map_).
  Status MappedTable(std::string_view table, std::span<const Field> values, std::int64_t deadline, TableState** t) {
    if (Status st = Table(table, deadline, t); !st.ok()) return st;
    return MapFields(t, table, values, deadline);
  }

  // Maps the fields to columns (map_), adding missing columns first.
  Status MapFields(TableState** t, std::string_view table, std::span<const Field> values, std::int64_t deadline) {
    return sql::MapFields(t, values, &map_, [&](TableState** state) {
      if (Status st = AddColumns(**state, deadline); !st.ok()) return st;
      return Table(table, deadline, state);
    });
  }

  // ALTER TABLE ... ADD COLUMN IF NOT EXISTS for map_.missing, then publishes
  // the table's new schema (which re-prepares every session's statements).
  Status AddColumns(const TableState& t, std::int64_t deadline) {
    const std::vector<std::string> columns = map_.MissingColumns();
    for (const auto& col : columns) {
      if (col.size() > kMaxIdentifier) return Status::Error();
    }
    if (t.schema->columns.size() + columns.size() > static_cast<std::size_t>(kMaxFieldColumns)) return Status::Error();
    if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
    Result r;
    if (!RunSimple(&conn_, sql::AddColumnsSql(kDialect, t.schema->name, columns), deadline, &r)) return Status::Error();
    std::shared_ptr<TableSchema> loaded;
    if (!LoadSchema(&conn_, t.schema->name, deadline, &loaded) || loaded == nullptr) return Status::Error();
    store_->tables().Publish(std::move(loaded));
    return Status::Ok();
  }

  Stmt* AllStmt(TableState* t, Stmt* slot, bool scan, bool lock = false) {
    if (!*slot) {
      slot->sql = sql::SelectSql(kDialect, *t->schema, nullptr, scan, lock);
      slot->params = scan ? 2 : 1;
    }
    return slot;
  }

  // The statement selecting the columns named by `fields` (in column
  // order; names that are not columns are ignored); selected_ holds them.
  Stmt* SelectedStmt(TableState* t, const FieldSelector& fields, bool scan, bool lock = false) {
    sql::SelectColumns(*t->schema, fields, &selected_);
    auto& cache = scan ? t->scans : lock ? t->reads_locked : t->reads;
    return Cached(&cache, selected_, scan ? 2 : 1,
                  [&] { return sql::SelectSql(kDialect, *t->schema, &selected_, scan, lock); });
  }

  template <typename MakeSql>
  static Stmt* Cached(CachedStmts* cache, const std::vector<int>& cols, int params, MakeSql make_sql) {
    return sql::CachedStatement(cache, cols, [&] {
      Stmt s;
      s.sql = make_sql();
      s.params = params;
      return s;
    });
  }

  // Parameters of the next statement.
  void Begin() {
    values_.clear();
    lengths_.clear();
    formats_.clear();
  }
  void Param(const char* value, int length, int format) {
    values_.push_back(value);
    lengths_.push_back(length);
    formats_.push_back(format);
  }
  // Binary bytes; never null: an empty BYTEA, not NULL.
  void Bytes(std::string_view v) { Param(v.empty() ? "" : v.data(), static_cast<int>(v.size()), 1); }
  void Text(const char* v) { Param(v, 0, 0); }
  // Column c's value from `values` (map_), NULL when the record lacks it.
  void BindColumn(std::span<const Field> values, std::size_t c) {
    const int v = c < map_.value_of_column.size() ? map_.value_of_column[c] : -1;
    if (v < 0) {
      Param(nullptr, 0, 1);
    } else {
      Bytes(values[static_cast<std::size_t>(v)].value);
    }
  }

  // Prepares `s` on the current connection if needed, then executes it
  // with the parameters in values_ and waits for the result (result_).
  Status Execute(Stmt* s, std::int64_t deadline, ExecStatusType want, std::string_view table) {
    result_.Reset();
    if (tx_.open() && !InTxConnection()) return Status::Error();
    if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
    if (s->gen != conn_.generation()) {
      s->name = "sb" + std::to_string(++statement_counter_);
      if (PQsendPrepare(conn_.get(), s->name.c_str(), s->sql.c_str(), s->params, nullptr) == 0) {
        conn_.Drop();
        return Status::Error();
      }
      if (Status st = conn_.Finish(deadline, &result_); !st.ok()) return st;
      if (Status st = conn_.Check(result_, PGRES_COMMAND_OK); !st.ok()) return Failed(table, st);
      s->gen = conn_.generation();
    }
    if (PQsendQueryPrepared(conn_.get(), s->name.c_str(), static_cast<int>(values_.size()), values_.data(),
                            lengths_.data(), formats_.data(), 1) == 0) {
      conn_.Drop();
      return Status::Error();
    }
    if (Status st = conn_.Finish(deadline, &result_); !st.ok()) return st;
    if (Status st = conn_.Check(result_, want); !st.ok()) return Failed(table, st);
    return Status::Ok();
  }

  // A failed statement: a table or column dropped behind our back makes
  // every session read the schema again.
  Status Failed(std::string_view table, Status st) {
    const char* state =
        result_.get() != nullptr ? PQresultErrorField(result_.get(), PG_DIAG_SQLSTATE) : nullptr;
    if (state != nullptr && (std::strcmp(state, "42P01") == 0 || std::strcmp(state, "42703") == 0)) {
      store_->tables().Forget(table, false);
    }
    return st;
  }

  // Rows changed by the last command (rows returned by a SELECT).
  std::uint64_t Affected() const {
    if (PQresultStatus(result_.get()) == PGRES_TUPLES_OK)
      return static_cast<std::uint64_t>(PQntuples(result_.get()));
    return std::strtoull(PQcmdTuples(result_.get()), nullptr, 10);
  }

  // Adds row r of result_ (YCSB_KEY, then the selected columns' non-NULL values).
  void AddRow(const TableState* t, int r, bool all, RecordSet* out) const {
    PGresult* res = result_.get();
    out->BeginRecord(
        std::string_view(PQgetvalue(res, r, 0), static_cast<std::size_t>(PQgetlength(res, r, 0))));
    const auto& names = t->schema->fields;
    const std::size_t n = all ? names.size() : selected_.size();
    for (std::size_t i = 0; i < n; ++i) {
      const int col = static_cast<int>(i) + 1;
      if (PQgetisnull(res, r, col)) continue;
      const std::size_t field = all ? i : static_cast<std::size_t>(selected_[i]);
      out->AddField(names[field], std::string_view(PQgetvalue(res, r, col),
                                                   static_cast<std::size_t>(PQgetlength(res, r, col))));
    }
  }

  PgStore* store_;
  const PgOptions& o_;
  Connection conn_;
  sql::TableStates<TableState> tables_;
  std::uint64_t statement_counter_ = 0;
  Result result_;
  std::vector<const char*> values_;
  std::vector<int> lengths_, formats_;
  char limit_[24] = {};
  sql::FieldMap map_;                     // the fields of an insert/update and their columns
  std::vector<int> selected_;             // columns of a selected read/scan
  std::vector<int> batch_rows_;           // the batch insert statements' cache key: {rows}
  Batch batch_;                           // during BatchInsert
  sql::Transaction tx_;                   // between Begin and Commit/Abort
  std::uint64_t tx_generation_ = 0;       // the connection it began on
  std::vector<std::pair<std::string, Stmt>> sql_stmts_;  // Sql's statements, by their text
  std::vector<std::string> sql_params_;   // Sql's parameters as text
};

std::unique_ptr<Session> PgStore::NewSession(int) { return std::make_unique<PgSession>(this); }

}  // namespace

const BindingInfo& postgresql_binding() {
  static const BindingInfo info{
      .name = "postgresql",
      .summary = "PostgreSQL server through libpq " + std::to_string(PQlibVersion() / 10000) + "." +
                 std::to_string(PQlibVersion() % 10000) +
                 " (YCSB's JDBC schema with BYTEA columns; prepared statements, a connection per client, "
                 "non-blocking)",
      .properties =
          {
              {"postgresql.host", "127.0.0.1", "server host (name or address)"},
              {"postgresql.port", "5432", "server port"},
              {"postgresql.dbname", "storebench", "database (must exist)"},
              {"postgresql.user", "", "user name (empty: $USER, else postgres)"},
              {"postgresql.password", "",
               "password; when empty, the environment variable STOREBENCH_POSTGRESQL_PASSWORD (never "
               "printed)"},
              {"postgresql.timeout_ms", "5000",
               "per-operation and connect timeout (the connection is dropped and the op is ERROR; also the "
               "server's statement_timeout)"},
              {"postgresql.isolation", "read committed",
               "default_transaction_isolation: read committed, repeatable read or serializable (also "
               "read_committed, repeatable_read); the level of workload=closedeconomy's transactions"},
              {"postgresql.synchronous_commit", "true", "synchronous_commit on (true) or off (false)"},
              {"postgresql.sslmode", "disable", "libpq sslmode: disable, prefer or require"},
          },
      .open = sql::OpenStore<PgStore, ParseOptions>,
      .server = true,
  };
  return info;
}

}  // namespace storebench
