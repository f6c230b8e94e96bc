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
#include "db/sql_columns.h"
#include "net/io.h"
#include "measure/clock.h"

namespace storebench {
namespace {

using sql::DecodeColumn;
using sql::EncodeColumn;

constexpr std::int64_t kFirstBackoffNs = 10'000'000;
constexpr std::int64_t kMaxBackoffNs = 1'000'000'000;
constexpr std::size_t kStatementCacheSize = 32;  // per session, table and kind
constexpr std::size_t kMaxParams = 65535;        // bind parameters in one statement (the protocol's limit)
constexpr std::size_t kMaxIdentifier = 63;       // NAMEDATALEN - 1
constexpr std::int64_t kMaxFieldColumns = 1599;  // MaxHeapAttributeNumber (1600) minus the key

struct PgOptions {
  std::string host;
  int port = 5432;
  std::string dbname;
  std::string user;
  std::string password;
  std::int64_t timeout_ms = 5000;
  std::string isolation;
  bool synchronous_commit = true;
  std::string sslmode;
  std::int64_t fieldcount = 10;
  std::string fieldnameprefix = "field";
  std::string table;

  std::string Where() const { return host + ":" + std::to_string(port); }
};

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

std::int64_t Now() { return SteadyClock::Now(); }
std::int64_t DeadlineAfter(std::int64_t ms) { return Now() + ms * 1'000'000; }

// ---- SQL identifiers (field <-> column names: db/sql_columns.h) ----------

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

// A table name PostgreSQL can take as an identifier (no NUL, not too long).
bool ValidTableName(std::string_view t) {
  return !t.empty() && t.size() <= kMaxIdentifier && t.find('\0') == std::string_view::npos;
}

// libpq's message on one line, without the "connection to server at ...
// failed: " preamble (the caller names host:port itself).
std::string OneLine(const char* msg) {
  std::string s = msg != nullptr ? msg : "";
  const std::string_view failed = "failed: ";
  if (s.rfind("connection to server", 0) == 0) {
    auto p = s.find(failed);
    if (p != std::string::npos) s.erase(0, p + failed.size());
  }
  for (char& c : s) {  // control bytes too: libpq may quote what a server sent
    if ((c >= 0 && c < 0x20) || c == 0x7f) c = ' ';
  }
  if (s.rfind("FATAL:  ", 0) == 0) s.erase(0, 8);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  auto dbl = s.find("  ");
  while (dbl != std::string::npos) {
    s.erase(dbl, 1);
    dbl = s.find("  ");
  }
  return s.empty() ? "unknown error" : s;
}

// Forgets a descriptor libpq is about to close (PQfinish closes it, not us),
// so the fiber scheduler drops the fd before the number can be reused.
void ForgetFd(int fd) { io::Forget(fd); }

// Owns a PGresult.
class Result {
 public:
  Result() = default;
  ~Result() { Reset(); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  void Reset(PGresult* r = nullptr) {
    if (r_ != nullptr) PQclear(r_);
    r_ = r;
  }
  PGresult* get() const { return r_; }
  PGresult* release() {
    PGresult* r = r_;
    r_ = nullptr;
    return r;
  }

 private:
  PGresult* r_ = nullptr;
};

// ---- One connection ----------------------------------------------------------

// A libpq connection that waits only through io.h. Not thread-safe.
class Connection {
 public:
  explicit Connection(const PgOptions* o) : o_(o) {}
  ~Connection() { Drop(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects now (dropping any current connection), waiting until the
  // deadline; false and *error ("<reason>") on failure.
  bool Connect(std::int64_t deadline, std::string* error) {
    Drop();
    const std::string port = std::to_string(o_->port);
    const std::string options = "-c default_transaction_isolation=" + Escape(o_->isolation) +
                                " -c synchronous_commit=" + (o_->synchronous_commit ? "on" : "off") +
                                " -c statement_timeout=" + std::to_string(o_->timeout_ms);
    const char* keys[] = {"host",    "port", "dbname", "user", "password", "sslmode", "application_name",
                          "options", nullptr};
    const char* values[] = {o_->host.c_str(),
                            port.c_str(),
                            o_->dbname.c_str(),
                            o_->user.c_str(),
                            o_->password.empty() ? nullptr : o_->password.c_str(),
                            o_->sslmode.c_str(),
                            "storebench",
                            options.c_str(),
                            nullptr};
    conn_ = PQconnectStartParams(keys, values, 0);
    if (conn_ == nullptr) {
      *error = "out of memory";
      return false;
    }
    if (PQstatus(conn_) == CONNECTION_BAD) return Fail(error);
    PostgresPollingStatusType poll = PGRES_POLLING_WRITING;
    for (;;) {
      if (poll == PGRES_POLLING_OK) break;
      if (poll == PGRES_POLLING_FAILED) return Fail(error);
      const int fd = PQsocket(conn_);
      if (fd < 0) return Fail(error);
      fd_ = fd;
      if (io::WaitFd(fd, poll == PGRES_POLLING_WRITING, deadline) == io::WaitResult::kTimeout) {
        Drop();
        *error = "timed out after " + std::to_string(o_->timeout_ms) + " ms (postgresql.timeout_ms)";
        return false;
      }
      poll = PQconnectPoll(conn_);
      // libpq may have closed this socket and opened another (the next
      // address of the host), possibly with the same number: the
      // scheduler must watch whatever PQsocket is now afresh.
      ForgetFd(fd);
    }
    fd_ = PQsocket(conn_);
    if (PQsetnonblocking(conn_, 1) != 0) return Fail(error);
    // libpq prints notices and errors that arrive between queries (e.g.
    // "terminating connection due to administrator command") to stderr by
    // default; they would break the status lines. The op's status says it.
    PQsetNoticeProcessor(
        conn_, [](void*, const char*) {}, nullptr);
    ++generation_;
    backoff_ns_ = 0;
    next_attempt_ns_ = 0;
    return true;
  }

  // Connected, or reconnected now when the backoff allows it (waiting for
  // the next attempt when it falls before the deadline). OK or
  // SERVICE_UNAVAILABLE.
  Status Ensure(std::int64_t deadline) {
    if (conn_ != nullptr) return Status::Ok();
    std::int64_t now = Now();
    if (next_attempt_ns_ > now) {
      if (next_attempt_ns_ >= deadline) return Status(Status::kServiceUnavailable);
      io::SleepUntil(next_attempt_ns_);
    }
    std::string error;
    if (Connect(deadline, &error)) return Status::Ok();
    ++failed_connects_;
    backoff_ns_ = backoff_ns_ == 0 ? kFirstBackoffNs : std::min(backoff_ns_ * 2, kMaxBackoffNs);
    next_attempt_ns_ = Now() + backoff_ns_;
    return Status(Status::kServiceUnavailable);
  }

  void Drop() {
    if (conn_ == nullptr) return;
    if (fd_ >= 0) ForgetFd(fd_);
    PQfinish(conn_);
    conn_ = nullptr;
    fd_ = -1;
  }

  // Waits for the reply to the query just sent: flushes, then reads until
  // libpq has every result; *out holds the first error result or else the
  // last result. ERROR (connection dropped) on a timeout or a broken
  // connection; otherwise OK (the caller checks the result's status).
  Status Finish(std::int64_t deadline, Result* out) {
    out->Reset();
    for (;;) {
      const int rc = PQflush(conn_);
      if (rc == 0) break;
      if (rc < 0) return Broken();
      if (io::WaitFd(fd_, true, deadline) == io::WaitResult::kTimeout) return TimedOut();
    }
    for (;;) {
      if (PQconsumeInput(conn_) == 0) return Broken();
      while (PQisBusy(conn_) == 0) {
        PGresult* r = PQgetResult(conn_);
        if (r == nullptr) {
          if (out->get() == nullptr) return Broken();
          return Status::Ok();
        }
        // Keep the first error, else the last result.
        if (out->get() != nullptr && PQresultStatus(out->get()) == PGRES_FATAL_ERROR) {
          PQclear(r);
        } else {
          out->Reset(r);
        }
      }
      // PQconsumeInput may leave bytes in the socket (it stops after a read
      // that filled its buffer); an edge-triggered wait would sleep until the
      // timeout, so read on while there are any.
      if (io::ReadableNow(fd_)) continue;
      if (io::WaitFd(fd_, false, deadline) == io::WaitResult::kTimeout) return TimedOut();
    }
  }

  // A query's result status turned into a Status (OK for `want`).
  Status Check(const Result& r, ExecStatusType want) {
    const ExecStatusType st = PQresultStatus(r.get());
    if (st == want) return Status::Ok();
    if (PQstatus(conn_) == CONNECTION_BAD) {
      Drop();
      return Status::Error();
    }
    const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
    if (state != nullptr && (std::strcmp(state, "40001") == 0 || std::strcmp(state, "40P01") == 0)) {
      return Status(Status::kAborted);
    }
    return Status::Error();
  }

  PGconn* get() const { return conn_; }
  bool connected() const { return conn_ != nullptr; }
  // Bumped by every successful connect: statements prepared on an older
  // generation must be prepared again.
  std::uint64_t generation() const { return generation_; }
  std::uint64_t failed_connects() const { return failed_connects_; }
  std::uint64_t timeouts() const { return timeouts_; }

 private:
  bool Fail(std::string* error) {
    *error = OneLine(PQerrorMessage(conn_));
    Drop();
    return false;
  }
  Status Broken() {
    Drop();
    return Status::Error();
  }
  Status TimedOut() {
    ++timeouts_;
    // Cancel the statement before dropping the connection: a backend that
    // waits on a lock does not notice its client left, and would apply a
    // timed-out (counted as failed) write once the lock is released.
    if (conn_ != nullptr) {
      if (PGcancel* cancel = PQgetCancel(conn_)) {
        char why[256];
        PQcancel(cancel, why, sizeof why);
        PQfreeCancel(cancel);
      }
    }
    Drop();
    return Status::Error();
  }
  // Backslash before spaces and backslashes: one value inside `options`.
  static std::string Escape(const std::string& v) {
    std::string out;
    for (char c : v) {
      if (c == ' ' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    return out;
  }

  const PgOptions* o_;
  PGconn* conn_ = nullptr;
  int fd_ = -1;
  std::uint64_t generation_ = 0;
  std::int64_t backoff_ns_ = 0;
  std::int64_t next_attempt_ns_ = 0;
  std::uint64_t failed_connects_ = 0;
  std::uint64_t timeouts_ = 0;
};

std::string ConnectError(const PgOptions& o, const std::string& reason) {
  return "postgresql: cannot connect to " + o.Where() + " as user '" + o.user + "' (database '" + o.dbname +
         "'): " + reason;
}

// Runs a parameterless text query to completion; false on any failure.
bool RunSimple(Connection* c, const std::string& sql, std::int64_t deadline, Result* out,
               ExecStatusType want = PGRES_COMMAND_OK) {
  if (!c->connected()) return false;
  if (PQsendQueryParams(c->get(), sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) {
    c->Drop();
    return false;
  }
  if (!c->Finish(deadline, out).ok()) return false;
  return c->Check(*out, want).ok();
}

// Runs a query with text parameters and a text result.
bool RunText(Connection* c, const std::string& sql, const std::vector<std::string>& params,
             std::int64_t deadline, Result* out) {
  if (!c->connected()) return false;
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p.c_str());
  if (PQsendQueryParams(c->get(), sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                        nullptr, nullptr, 0) == 0) {
    c->Drop();
    return false;
  }
  if (!c->Finish(deadline, out).ok()) return false;
  return c->Check(*out, PGRES_TUPLES_OK).ok();
}

// ---- Schema ------------------------------------------------------------------

// One table's columns: field names (decoded) and column names (as in SQL).
struct TableSchema {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::string> fields;
};

// Reads `table`'s columns. Returns false on failure; *schema null when the
// table does not exist. A table without a YCSB_KEY column is a failure.
bool LoadSchema(Connection* c, std::string_view table, std::int64_t deadline,
                std::shared_ptr<TableSchema>* schema) {
  Result r;
  schema->reset();
  if (!RunText(c,
               "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 "
               "AND NOT a.attisdropped ORDER BY a.attnum",
               {Quote(table)}, deadline, &r)) {
    return false;
  }
  const int n = PQntuples(r.get());
  if (n == 0) return true;
  auto s = std::make_shared<TableSchema>();
  s->name = std::string(table);
  bool has_key = false;
  for (int i = 0; i < n; ++i) {
    std::string col = PQgetvalue(r.get(), i, 0);
    std::string lower = col;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "ycsb_key") {
      has_key = true;
      continue;
    }
    s->fields.push_back(DecodeColumn(col));
    s->columns.push_back(std::move(col));
  }
  if (!has_key) return false;
  *schema = std::move(s);
  return true;
}

// Loads `table`, creating it first when it does not exist. False on failure.
bool LoadOrCreate(Connection* c, const PgOptions& o, std::string_view table, std::int64_t deadline,
                  std::shared_ptr<TableSchema>* schema) {
  if (!ValidTableName(table)) return false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!LoadSchema(c, table, deadline, schema)) return false;
    if (*schema != nullptr) return true;
    std::string sql = "CREATE TABLE IF NOT EXISTS " + Quote(table) + "(YCSB_KEY BYTEA PRIMARY KEY";
    for (std::int64_t i = 0; i < o.fieldcount; ++i) {
      std::string col = EncodeColumn(o.fieldnameprefix + std::to_string(i));
      if (col.size() > kMaxIdentifier) return false;
      sql += ", " + Quote(col) + " BYTEA";
    }
    sql += ")";
    Result r;
    // Two sessions creating the same table at once may collide in the
    // catalog (a unique violation): the table exists then, load it again.
    RunSimple(c, sql, deadline, &r);
    if (!c->connected()) return false;
  }
  return LoadSchema(c, table, deadline, schema) && *schema != nullptr;
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
    tables_.emplace(opts_.table, std::move(schema));
  }

  std::unique_ptr<Session> NewSession(int) override;

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.atomic_update = true;  // one UPDATE statement
    c.waits_through_io = true;
    c.native_batch_insert = true;  // multi-row INSERT ... ON CONFLICT
    c.transactions = true;   // BEGIN ... COMMIT at postgresql.isolation
    c.sql = true;            // Session::Sql (workload=sqlquery)
    return c;
  }

  // pg_total_relation_size (heap, TOAST and index) of every table this
  // process used.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    std::vector<std::string> names = TableNames();
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
    std::vector<std::string> names = TableNames();
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
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }

  std::shared_ptr<const TableSchema> Cached(std::string_view table) {
    std::lock_guard lock(mu_);
    auto it = tables_.find(table);
    return it == tables_.end() ? nullptr : it->second;
  }
  // Records what a session read from the server. A schema that differs from
  // the cached one bumps the version, so that every session re-prepares.
  std::shared_ptr<const TableSchema> Publish(std::shared_ptr<const TableSchema> s) {
    std::lock_guard lock(mu_);
    auto it = tables_.find(s->name);
    if (it != tables_.end()) {
      if (it->second->columns == s->columns) return it->second;
      it->second = s;
      version_.fetch_add(1, std::memory_order_acq_rel);
      return s;
    }
    tables_.emplace(s->name, s);
    return s;
  }
  // Forgets a table (dropped behind our back): every session re-reads it.
  void Forget(std::string_view table) {
    std::lock_guard lock(mu_);
    auto it = tables_.find(table);
    if (it == tables_.end()) return;
    tables_.erase(it);
    version_.fetch_add(1, std::memory_order_acq_rel);
  }
  void AddCounters(std::uint64_t failed_connects, std::uint64_t timeouts) {
    failed_connects_ += failed_connects;
    timeouts_ += timeouts;
  }

 private:
  std::vector<std::string> TableNames() {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& [name, _] : tables_) out.push_back(name);
    return out;
  }

  PgOptions opts_;
  std::mutex admin_mu_;  // guards admin_ (Stats, DiskUsageBytes, Close)
  Connection admin_;
  std::string server_version_;
  std::mutex mu_;  // guards tables_
  std::map<std::string, std::shared_ptr<const TableSchema>, std::less<>> tables_;
  std::atomic<std::uint64_t> version_{1};
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

// A statement for one column list (selected reads, scans, updates).
struct CachedStmt {
  std::vector<int> columns;
  Stmt stmt;
};

// A session's statements for one table, valid for one schema version.
struct TableState {
  std::shared_ptr<const TableSchema> schema;
  Stmt insert, read_all, scan_all, remove, exists, read_all_locked;
  std::vector<CachedStmt> reads, scans, updates, reads_locked;
  std::vector<CachedStmt> batch_inserts;  // multi-row inserts, keyed by {row count}
};

class PgSession final : public Session {
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
      const bool lock = in_tx_ && lock_reads_;
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
      values_.push_back(limit_);
      lengths_.push_back(0);
      formats_.push_back(0);  // text
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
      if (Status st = Table(table, deadline, &t); !st.ok()) return st;
      if (Status st = MapFields(&t, table, values, deadline); !st.ok()) return st;
      Stmt* s = nullptr;
      Begin();
      if (assigned_.empty()) {  // no fields: just whether the record exists
        if (!t->exists) {
          t->exists.sql = "SELECT 1 FROM " + Quote(t->schema->name) + " WHERE YCSB_KEY=$1";
          t->exists.params = 1;
        }
        s = &t->exists;
      } else {
        s = UpdateStmt(t);
        for (int c : assigned_)
          Bytes(values[static_cast<std::size_t>(value_of_column_[static_cast<std::size_t>(c)])].value);
      }
      Bytes(key);
      Status st = Execute(s, deadline, assigned_.empty() ? PGRES_TUPLES_OK : PGRES_COMMAND_OK, table);
      if (!st.ok()) return st;
      return Affected() == 0 ? Status::NotFound() : Status::Ok();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      const std::int64_t deadline = DeadlineAfter(o_.timeout_ms);
      TableState* t = nullptr;
      if (Status st = Table(table, deadline, &t); !st.ok()) return st;
      if (Status st = MapFields(&t, table, values, deadline); !st.ok()) return st;
      const auto& columns = t->schema->columns;
      if (!t->insert) {
        std::string sql = "INSERT INTO " + Quote(t->schema->name) + "(YCSB_KEY";
        for (const auto& c : columns) sql += ", " + Quote(c);
        sql += ") VALUES($1";
        for (std::size_t i = 0; i < columns.size(); ++i) sql += ", $" + std::to_string(i + 2);
        sql += ") ON CONFLICT (YCSB_KEY) DO UPDATE SET ";
        for (std::size_t i = 0; i < columns.size(); ++i) {
          sql += (i ? ", " : "") + Quote(columns[i]) + "=EXCLUDED." + Quote(columns[i]);
        }
        t->insert.sql = std::move(sql);
        t->insert.params = static_cast<int>(columns.size()) + 1;
      }
      Begin();
      Bytes(key);
      for (std::size_t c = 0; c < columns.size(); ++c) {
        const int v = value_of_column_[c];
        if (v < 0) {
          values_.push_back(nullptr);  // NULL: the record does not have this field
          lengths_.push_back(0);
          formats_.push_back(1);
        } else {
          Bytes(values[static_cast<std::size_t>(v)].value);
        }
      }
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
      const std::size_t per_row = t->schema->columns.size() + 1;
      const std::size_t max_rows = std::max<std::size_t>(1, kMaxParams / per_row);
      const bool several = batch.size() > max_rows;
      Result r;
      if (several) {
        if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
        if (!RunSimple(&conn_, "BEGIN", deadline, &r)) return Status::Error();
      }
      Status result = Status::Ok();
      for (std::size_t first = 0; first < batch.size() && result.ok(); first += max_rows) {
        const std::size_t rows = std::min(max_rows, batch.size() - first);
        Begin();
        for (std::size_t i = first; i < first + rows && result.ok(); ++i) {
          // The columns exist now (added above): this only maps.
          result = MapFields(&t, table, batch.values(i), deadline);
          Bytes(batch.key(i));
          for (std::size_t c = 0; c + 1 < per_row; ++c) {
            const int v = c < value_of_column_.size() ? value_of_column_[c] : -1;
            if (v < 0) {
              values_.push_back(nullptr);
              lengths_.push_back(0);
              formats_.push_back(1);
            } else {
              Bytes(batch.values(i)[static_cast<std::size_t>(v)].value);
            }
          }
        }
        if (!result.ok()) break;
        if (values_.size() != rows * per_row) {  // the schema grew meanwhile
          result = Status::Error();
          break;
        }
        result = Execute(BatchInsertStmt(t, rows), deadline, PGRES_COMMAND_OK, table);
      }
      if (several) {
        if (result.ok() && conn_.connected()) {
          if (!RunSimple(&conn_, "COMMIT", deadline, &r)) result = Status::Error();
        } else if (conn_.connected()) {
          RunSimple(&conn_, "ROLLBACK", deadline, &r);
        }
      }
      return result;
    });
  }

  Status Begin(const TxOptions& options) override {
    return Guard([&] {
      if (in_tx_) return Status::Error();
      if (Status st = conn_.Ensure(DeadlineAfter(o_.timeout_ms)); !st.ok()) return st;
      tx_generation_ = conn_.generation();
      if (Status st = TxCommand("BEGIN"); !st.ok()) return st;
      in_tx_ = true;
      lock_reads_ = options.lock_reads;
      return Status::Ok();
    });
  }

  Status Commit() override {
    return Guard([&] {
      if (!in_tx_) return Status::Error();
      in_tx_ = false;
      Status st = TxCommand("COMMIT");
      // A transaction that had failed reports ROLLBACK to its COMMIT.
      if (st.ok() && std::strcmp(PQcmdStatus(result_.get()), "COMMIT") != 0) st = Status(Status::kAborted);
      return st;
    });
  }

  Status Abort() override {
    return Guard([&] {
      if (!in_tx_) return Status::Ok();
      in_tx_ = false;
      return TxCommand("ROLLBACK");
    });
  }

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
        if (in_tx_ && !InTxConnection()) return Status::Error();
        if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
        result_.Reset();
        const std::string text(sql);
        if (PQsendQueryParams(conn_.get(), text.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) {
          conn_.Drop();
          return Status::Error();
        }
        if (Status st = conn_.Finish(deadline, &result_); !st.ok()) return st;
        return conn_.Check(result_, PGRES_COMMAND_OK);
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
      for (std::size_t i = 0; i < params.size(); ++i) {
        values_.push_back(sql_params_[i].c_str());
        lengths_.push_back(0);
        formats_.push_back(0);  // text
      }
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
        t->remove.sql = "DELETE FROM " + Quote(t->schema->name) + " WHERE YCSB_KEY=$1";
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
  // Still on the connection the transaction began on.
  bool InTxConnection() const { return conn_.connected() && conn_.generation() == tx_generation_; }

  // BEGIN, COMMIT or ROLLBACK on the transaction's connection.
  Status TxCommand(const char* sql) {
    result_.Reset();
    if (!InTxConnection()) return Status::Error();
    if (PQsendQueryParams(conn_.get(), sql, 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) {
      conn_.Drop();
      return Status::Error();
    }
    if (Status st = conn_.Finish(DeadlineAfter(o_.timeout_ms), &result_); !st.ok()) return st;
    return conn_.Check(result_, PGRES_COMMAND_OK);
  }

  // The statements of `table` for the current schema version, loading (and
  // creating) the table on its first use.
  Status Table(std::string_view table, std::int64_t deadline, TableState** out) {
    const std::uint64_t v = store_->version();
    if (v != version_) {
      tables_.clear();  // the schema changed: prepare everything again
      version_ = v;
    }
    for (auto& t : tables_) {
      if (t->schema->name == table) {
        *out = t.get();
        return Status::Ok();
      }
    }
    std::shared_ptr<const TableSchema> schema = store_->Cached(table);
    if (schema == nullptr) {
      if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
      std::shared_ptr<TableSchema> loaded;
      if (!LoadOrCreate(&conn_, o_, table, deadline, &loaded)) return Status::Error();
      schema = store_->Publish(std::move(loaded));
      if (store_->version() != version_) {
        tables_.clear();
        version_ = store_->version();
      }
    }
    auto state = std::make_unique<TableState>();
    state->schema = std::move(schema);
    tables_.push_back(std::move(state));
    *out = tables_.back().get();
    return Status::Ok();
  }

  static int FindColumn(const TableSchema& schema, std::string_view field, std::size_t hint) {
    const auto& fields = schema.fields;
    if (hint < fields.size() && fields[hint] == field) return static_cast<int>(hint);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (fields[i] == field) return static_cast<int>(i);
    }
    return -1;
  }

  // Maps the fields to columns: value_of_column_[c] = index of the value
  // for column c (the last one when a field repeats) or -1, and assigned_ =
  // the columns given, in the order first given. Adds missing columns first.
  Status MapFields(TableState** t, std::string_view table, std::span<const Field> values,
                   std::int64_t deadline) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      const TableSchema& schema = *(*t)->schema;
      value_of_column_.assign(schema.columns.size(), -1);
      assigned_.clear();
      missing_.clear();
      std::size_t hint = 0;
      for (std::size_t i = 0; i < values.size(); ++i) {
        const int c = FindColumn(schema, values[i].name, hint);
        if (c < 0) {
          missing_.push_back(values[i].name);
          continue;
        }
        if (value_of_column_[static_cast<std::size_t>(c)] < 0) assigned_.push_back(c);
        value_of_column_[static_cast<std::size_t>(c)] = static_cast<int>(i);
        hint = static_cast<std::size_t>(c) + 1;
      }
      if (missing_.empty()) return Status::Ok();
      if (attempt > 0) return Status::Error();
      if (Status st = AddColumns(**t, deadline); !st.ok()) return st;
      if (Status st = Table(table, deadline, t); !st.ok()) return st;
    }
    return Status::Error();
  }

  // ALTER TABLE ... ADD COLUMN IF NOT EXISTS for missing_, then publishes
  // the table's new schema (which re-prepares every session's statements).
  Status AddColumns(const TableState& t, std::int64_t deadline) {
    std::string sql = "ALTER TABLE " + Quote(t.schema->name);
    std::size_t added = 0;
    for (std::size_t i = 0; i < missing_.size(); ++i) {
      if (std::find(missing_.begin(), missing_.begin() + static_cast<std::ptrdiff_t>(i), missing_[i]) !=
          missing_.begin() + static_cast<std::ptrdiff_t>(i)) {
        continue;  // repeated
      }
      std::string col = EncodeColumn(missing_[i]);
      if (col.size() > kMaxIdentifier) return Status::Error();
      sql += std::string(added++ ? "," : "") + " ADD COLUMN IF NOT EXISTS " + Quote(col) + " BYTEA";
    }
    if (t.schema->columns.size() + added > static_cast<std::size_t>(kMaxFieldColumns)) return Status::Error();
    if (Status st = conn_.Ensure(deadline); !st.ok()) return st;
    Result r;
    if (!RunSimple(&conn_, sql, deadline, &r)) return Status::Error();
    std::shared_ptr<TableSchema> loaded;
    if (!LoadSchema(&conn_, t.schema->name, deadline, &loaded) || loaded == nullptr) return Status::Error();
    store_->Publish(std::move(loaded));
    return Status::Ok();
  }

  // "SELECT YCSB_KEY, <cols> FROM t WHERE ..." for reads or scans.
  std::string SelectSql(const TableState* t, const std::vector<int>* cols, bool scan, bool lock = false) const {
    std::string sql = "SELECT YCSB_KEY";
    const auto& columns = t->schema->columns;
    if (cols == nullptr) {
      for (const auto& c : columns) sql += ", " + Quote(c);
    } else {
      for (int i : *cols) sql += ", " + Quote(columns[static_cast<std::size_t>(i)]);
    }
    sql += " FROM " + Quote(t->schema->name);
    sql += scan ? " WHERE YCSB_KEY>=$1 ORDER BY YCSB_KEY LIMIT $2" : " WHERE YCSB_KEY=$1";
    if (lock) sql += " FOR UPDATE";
    return sql;
  }

  Stmt* AllStmt(TableState* t, Stmt* slot, bool scan, bool lock = false) {
    if (!*slot) {
      slot->sql = SelectSql(t, nullptr, scan, lock);
      slot->params = scan ? 2 : 1;
    }
    return slot;
  }

  // The statement selecting the columns named by `fields` (in column
  // order; names that are not columns are ignored); selected_ holds them.
  Stmt* SelectedStmt(TableState* t, const FieldSelector& fields, bool scan, bool lock = false) {
    selected_.clear();
    for (std::string_view n : fields.names) {
      int c = FindColumn(*t->schema, n, 0);
      if (c >= 0) selected_.push_back(c);
    }
    std::sort(selected_.begin(), selected_.end());
    selected_.erase(std::unique(selected_.begin(), selected_.end()), selected_.end());
    auto& cache = scan ? t->scans : lock ? t->reads_locked : t->reads;
    return Cached(&cache, selected_, scan ? 2 : 1, [&] { return SelectSql(t, &selected_, scan, lock); });
  }

  // UPDATE t SET c=$1, ... WHERE YCSB_KEY=$n for the columns in assigned_.
  Stmt* UpdateStmt(TableState* t) {
    return Cached(&t->updates, assigned_, static_cast<int>(assigned_.size()) + 1, [&] {
      std::string sql = "UPDATE " + Quote(t->schema->name) + " SET ";
      for (std::size_t i = 0; i < assigned_.size(); ++i) {
        sql += (i ? ", " : "") + Quote(t->schema->columns[static_cast<std::size_t>(assigned_[i])]) + "=$" +
               std::to_string(i + 1);
      }
      sql += " WHERE YCSB_KEY=$" + std::to_string(assigned_.size() + 1);
      return sql;
    });
  }

  // INSERT INTO t(YCSB_KEY, every column) VALUES (...) x rows ON CONFLICT
  // (YCSB_KEY) DO UPDATE SET every column = EXCLUDED's.
  Stmt* BatchInsertStmt(TableState* t, std::size_t rows) {
    batch_rows_.assign(1, static_cast<int>(rows));
    const auto& columns = t->schema->columns;
    const std::size_t per_row = columns.size() + 1;
    return Cached(&t->batch_inserts, batch_rows_, static_cast<int>(rows * per_row), [&] {
      std::string sql = "INSERT INTO " + Quote(t->schema->name) + "(YCSB_KEY";
      for (const auto& c : columns) sql += ", " + Quote(c);
      sql += ") VALUES";
      for (std::size_t r = 0; r < rows; ++r) {
        sql += r ? ", (" : " (";
        for (std::size_t i = 0; i < per_row; ++i) sql += (i ? ", $" : "$") + std::to_string(r * per_row + i + 1);
        sql += ")";
      }
      sql += " ON CONFLICT (YCSB_KEY) DO UPDATE SET ";
      for (std::size_t i = 0; i < columns.size(); ++i) {
        sql += (i ? ", " : "") + Quote(columns[i]) + "=EXCLUDED." + Quote(columns[i]);
      }
      return sql;
    });
  }

  template <typename MakeSql>
  Stmt* Cached(std::vector<CachedStmt>* cache, const std::vector<int>& cols, int params, MakeSql make_sql) {
    for (auto& e : *cache) {
      if (e.columns == cols) return &e.stmt;
    }
    if (cache->size() >= kStatementCacheSize) cache->erase(cache->begin());
    CachedStmt e;
    e.columns = cols;
    e.stmt.sql = make_sql();
    e.stmt.params = params;
    cache->push_back(std::move(e));
    return &cache->back().stmt;
  }

  // Parameters of the next statement.
  void Begin() {
    values_.clear();
    lengths_.clear();
    formats_.clear();
  }
  void Bytes(std::string_view v) {
    values_.push_back(v.empty() ? "" : v.data());  // never null: an empty BYTEA, not NULL
    lengths_.push_back(static_cast<int>(v.size()));
    formats_.push_back(1);  // binary
  }

  // Prepares `s` on the current connection if needed, then executes it
  // with the parameters in values_ and waits for the result (result_).
  Status Execute(Stmt* s, std::int64_t deadline, ExecStatusType want, std::string_view table) {
    result_.Reset();
    if (in_tx_ && !InTxConnection()) return Status::Error();
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
      store_->Forget(table);
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
  std::uint64_t version_ = 0;
  std::vector<std::unique_ptr<TableState>> tables_;
  std::uint64_t statement_counter_ = 0;
  Result result_;
  std::vector<const char*> values_;
  std::vector<int> lengths_, formats_;
  char limit_[24] = {};
  std::vector<int> value_of_column_;       // per column: index of its value in an insert/update, or -1
  std::vector<int> assigned_;              // columns an update sets
  std::vector<int> selected_;              // columns of a selected read/scan
  std::vector<std::string_view> missing_;  // fields without a column
  std::vector<int> batch_rows_;            // BatchInsertStmt's cache key: {rows}
  bool in_tx_ = false;                     // between Begin and Commit/Abort
  bool lock_reads_ = false;                // the transaction's reads are SELECT ... FOR UPDATE
  std::uint64_t tx_generation_ = 0;        // the connection it began on
  std::vector<std::pair<std::string, Stmt>> sql_stmts_;  // Sql's statements, by their text
  std::vector<std::string> sql_params_;    // Sql's parameters as text
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
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        PgOptions o = ParseOptions(props);
        return std::make_unique<PgStore>(o);
      },
      .server = true,
  };
  return info;
}

}  // namespace storebench
