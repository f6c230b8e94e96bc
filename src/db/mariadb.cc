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
#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <sys/socket.h>

#include <strings.h>

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
#include "db/sql/columns.h"
#include "net/io.h"
#include "net/socket.h"
#include "measure/clock.h"

namespace storebench {
namespace {

using sql::DecodeColumn;
using sql::EncodeColumn;

constexpr std::int64_t kMaxFieldColumns = 4000;  // MariaDB allows 4096 columns per table
constexpr std::size_t kStatementCacheSize = 32;  // per session, table and kind
constexpr std::size_t kMaxParams = 65535;        // placeholders in one prepared statement
constexpr std::int64_t kFirstBackoffNs = 10'000'000;
constexpr std::int64_t kMaxBackoffNs = 1'000'000'000;

struct MariadbOptions {
  std::string host;
  int port = 3306;
  std::string user;
  std::string password;  // never printed
  std::string database;
  std::int64_t timeout_ms = 5000;
  std::string isolation;  // SQL spelling, e.g. "REPEATABLE READ"
  std::int64_t fieldcount = 10;
  std::string fieldnameprefix = "field";

  std::string Endpoint() const { return host + ":" + std::to_string(port); }
};

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

// ---- SQL identifiers (field <-> column names: db/sql/columns.h) ----------

// `name` with embedded backticks doubled: an SQL identifier.
std::string Quote(std::string_view id) {
  std::string out = "`";
  for (char c : id) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

// 'text' as an SQL string literal (NUL, quote and backslash escaped).
std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    switch (c) {
      case '\0': out += "\\0"; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default: out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

// ---- One non-blocking connection -------------------------------------------

// True for errors after which the connection is unusable: client-side
// errors (CR_*: server gone, lost, out of sync) and the server going away.
bool IsConnectionError(unsigned int err) {
  return (err >= CR_MIN_ERROR && err <= CR_MAX_ERROR) || err == ER_SERVER_SHUTDOWN || err == ER_CONNECTION_KILLED ||
         err == ER_NET_READ_ERROR || err == ER_NET_READ_INTERRUPTED || err == ER_NET_ERROR_ON_WRITE ||
         err == ER_NET_WRITE_INTERRUPTED;
}

// A MYSQL handle in non-blocking mode whose calls wait through io.h with a
// deadline. Not thread-safe: one per session (or the store's admin, under
// its mutex).
class Connection {
 public:
  explicit Connection(const MariadbOptions* o) : opts_(o) {}
  ~Connection() { Disconnect(false); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  MYSQL* get() const { return m_; }
  bool connected() const { return m_ != nullptr; }
  std::int64_t deadline() const { return deadline_; }
  void set_deadline(std::int64_t d) { deadline_ = d; }
  void StartOp() {
    deadline_ = net::DeadlineAfterMs(opts_->timeout_ms);
    last_errno_ = 0;
  }
  // The server's error number of the last failure of this operation (0: none).
  unsigned int last_errno() const { return last_errno_; }
  std::uint64_t reconnects() const { return failed_connects_; }

  // Connects until the deadline; false and *error ("<reason>") on failure.
  bool Connect(std::string* error) {
    Disconnect(false);
    m_ = mysql_init(nullptr);
    if (m_ == nullptr) {
      *error = "out of memory";
      return false;
    }
    mysql_options(m_, MYSQL_OPT_NONBLOCK, nullptr);
    const unsigned int protocol = MYSQL_PROTOCOL_TCP;
    if (opts_->host != "localhost") mysql_options(m_, MYSQL_OPT_PROTOCOL, &protocol);
    MYSQL* ret = nullptr;
    int status = mysql_real_connect_start(&ret, m_, opts_->host.c_str(), opts_->user.c_str(),
                                          opts_->password.c_str(), opts_->database.c_str(),
                                          static_cast<unsigned int>(opts_->port), nullptr, CLIENT_FOUND_ROWS);
    if (!Drive(status, [&](int s) { return mysql_real_connect_cont(&ret, m_, s); })) {
      *error = "timed out after " + std::to_string(opts_->timeout_ms) + " ms";
      Disconnect(true);
      return false;
    }
    if (ret == nullptr) {
      *error = mysql_error(m_);
      Disconnect(true);
      return false;
    }
    std::string set = "SET SESSION TRANSACTION ISOLATION LEVEL " + opts_->isolation;
    if (!Query(set)) {
      *error = "cannot set mariadb.isolation: " + LastError();
      Disconnect(true);
      return false;
    }
    return true;
  }

  // Connected, or reconnected when the backoff allows it before the
  // deadline (sleeping until then). OK or SERVICE_UNAVAILABLE; *reconnected
  // when a new connection was made.
  Status Ensure(bool* reconnected) {
    *reconnected = false;
    if (m_ != nullptr) return Status::Ok();
    const std::int64_t now = SteadyClock::Now();
    if (next_attempt_ns_ > now) {
      if (next_attempt_ns_ > deadline_) {
        if (deadline_ != io::kNoDeadline) io::SleepUntil(deadline_);
        return Status(Status::kServiceUnavailable);
      }
      io::SleepUntil(next_attempt_ns_);
    }
    std::string error;
    if (Connect(&error)) {
      backoff_ns_ = 0;
      next_attempt_ns_ = 0;
      *reconnected = true;
      return Status::Ok();
    }
    failed_connects_++;
    backoff_ns_ = backoff_ns_ == 0 ? kFirstBackoffNs : std::min(kMaxBackoffNs, backoff_ns_ * 2);
    next_attempt_ns_ = SteadyClock::Now() + backoff_ns_;
    return Status(Status::kServiceUnavailable);
  }

  // Closes the connection. `abort`: it may be mid-operation or dead, so the
  // socket is shut down first and mysql_close's goodbye fails at once
  // instead of waiting. The fiber scheduler forgets the descriptor before
  // libmariadb closes it.
  void Disconnect(bool abort) {
    if (m_ == nullptr) return;
    const int fd = static_cast<int>(mysql_get_socket(m_));
    if (fd >= 0) {
      if (abort) ::shutdown(fd, SHUT_RDWR);
      ForgetFd(fd);
    }
    mysql_close(m_);  // also detaches (but does not free) its statements
    m_ = nullptr;
  }

  // Runs a non-blocking call to the end: `status` is what its _start
  // returned, `cont(ready)` calls its _cont. False when the deadline passed
  // (the connection is then mid-call: the caller drops it).
  template <typename Cont>
  bool Drive(int status, Cont&& cont) {
    while (status != 0) {
      const int fd = static_cast<int>(mysql_get_socket(m_));
      std::int64_t wait_until = deadline_;
      if (status & MYSQL_WAIT_TIMEOUT) {
        const std::int64_t lib = SteadyClock::Now() + std::int64_t{mysql_get_timeout_value_ms(m_)} * 1'000'000;
        wait_until = std::min(wait_until, lib);
      }
      int ready = 0;
      if (status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE | MYSQL_WAIT_EXCEPT)) {
        const bool for_write = (status & MYSQL_WAIT_WRITE) != 0 && (status & MYSQL_WAIT_READ) == 0;
        switch (io::WaitFd(fd, for_write, wait_until)) {
          case io::WaitResult::kReady:
            ready = status & (for_write ? MYSQL_WAIT_WRITE : MYSQL_WAIT_READ);
            break;
          case io::WaitResult::kError:  // let libmariadb's read/write find out what
            ready = status & (MYSQL_WAIT_READ | MYSQL_WAIT_WRITE | MYSQL_WAIT_EXCEPT);
            break;
          case io::WaitResult::kTimeout:
            break;
        }
      } else if (wait_until != io::kNoDeadline) {
        io::SleepUntil(wait_until);
      }
      if (ready == 0) {
        if (SteadyClock::Now() >= deadline_) return false;
        ready = MYSQL_WAIT_TIMEOUT;
      }
      status = cont(ready);
    }
    return true;
  }

  // Runs SQL on the connection and drops any result; false on failure
  // (LastError() says why; a broken or timed-out connection is dropped).
  bool Query(const std::string& sql) {
    MYSQL_RES* res = nullptr;
    if (!QueryResult(sql, &res)) return false;
    if (res != nullptr) mysql_free_result(res);
    return true;
  }

  // Runs SQL and stores its result (*res may be null for statements
  // without one); the caller frees it.
  bool QueryResult(const std::string& sql, MYSQL_RES** res) {
    *res = nullptr;
    if (m_ == nullptr) return Fail("not connected");
    int ret = 0;
    int status = mysql_real_query_start(&ret, m_, sql.data(), sql.size());
    if (!Drive(status, [&](int s) { return mysql_real_query_cont(&ret, m_, s); })) return TimedOut();
    if (ret != 0) return Failed(mysql_errno(m_));
    status = mysql_store_result_start(res, m_);
    if (!Drive(status, [&](int s) { return mysql_store_result_cont(res, m_, s); })) return TimedOut();
    if (*res == nullptr && mysql_field_count(m_) != 0) return Failed(mysql_errno(m_));
    return true;
  }

  // After a failed call with error `err`: drops the connection when it is
  // broken. Returns false (for `return Failed(...)`).
  bool Failed(unsigned int err) {
    last_error_ = m_ != nullptr ? mysql_error(m_) : "not connected";
    last_errno_ = err;
    if (IsConnectionError(err)) Disconnect(true);
    return false;
  }
  bool TimedOut() {
    last_error_ = "timed out after " + std::to_string(opts_->timeout_ms) + " ms";
    Disconnect(true);
    return false;
  }
  bool Fail(const char* why) {
    last_error_ = why;
    return false;
  }
  const std::string& LastError() const { return last_error_; }

 private:
  // The fiber scheduler must forget a descriptor that libmariadb is about
  // to close (io::Close would close it twice).
  static void ForgetFd(int fd) { io::Forget(fd); }

  const MariadbOptions* opts_;
  MYSQL* m_ = nullptr;
  std::int64_t deadline_ = io::kNoDeadline;
  std::int64_t next_attempt_ns_ = 0;
  std::int64_t backoff_ns_ = 0;
  std::uint64_t failed_connects_ = 0;
  std::string last_error_;
  unsigned int last_errno_ = 0;
};

// ---- Schema ----------------------------------------------------------------

// One table's columns: field names (decoded) and column names (as in SQL).
struct TableSchema {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::string> fields;
};

// Reads `table`'s columns over `c`. nullptr when the table does not exist
// (*error false) or on failure (*error true; also for a table without
// YCSB_KEY, which is not ours).
std::shared_ptr<TableSchema> LoadSchema(Connection* c, std::string_view table, bool* error) {
  *error = false;
  MYSQL_RES* res = nullptr;
  if (!c->QueryResult("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA=DATABASE() AND "
                      "TABLE_NAME=" +
                          QuoteString(table) + " ORDER BY ORDINAL_POSITION",
                      &res) ||
      res == nullptr) {
    *error = true;
    return nullptr;
  }
  auto schema = std::make_shared<TableSchema>();
  schema->name = std::string(table);
  bool has_key = false, any = false;
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    unsigned long* len = mysql_fetch_lengths(res);
    std::string col(row[0] != nullptr ? row[0] : "", row[0] != nullptr ? len[0] : 0);
    any = true;
    if (strcasecmp(col.c_str(), "YCSB_KEY") == 0) {
      has_key = true;
      continue;
    }
    schema->fields.push_back(DecodeColumn(col));
    schema->columns.push_back(std::move(col));
  }
  mysql_free_result(res);
  if (!has_key) {
    *error = any;
    return nullptr;
  }
  return schema;
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

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.atomic_update = true;  // one UPDATE statement
    c.waits_through_io = true;
    c.native_batch_insert = true;  // multi-row INSERT ... ON DUPLICATE KEY UPDATE
    c.transactions = true;  // START TRANSACTION ... COMMIT at mariadb.isolation
    c.sql = true;           // Session::Sql (workload=sqlquery)
    return c;
  }

  // data_length + index_length of the tables this process used (of the
  // whole database if none), after ANALYZE TABLE so InnoDB's figures are
  // current.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    std::lock_guard lock(mu_);
    if (!AdminReady()) return std::nullopt;
    std::string names;
    for (const auto& [name, schema] : tables_) {
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
    for (const auto& [name, schema] : tables_) {
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
  std::uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void CountUnavailable() { unavailable_ops_.fetch_add(1, std::memory_order_relaxed); }

  std::shared_ptr<const TableSchema> Cached(std::string_view table) {
    std::lock_guard lock(mu_);
    auto it = tables_.find(table);
    return it == tables_.end() ? nullptr : it->second;
  }
  // Publishes a schema a session loaded; `changed` (columns were added)
  // makes every session re-prepare its statements.
  // Forgets a table whose statements no longer prepare (dropped or altered
  // by someone else): the sessions then read its schema again.
  void Invalidate(std::string_view table) {
    std::lock_guard lock(mu_);
    auto it = tables_.find(table);
    if (it != tables_.end()) tables_.erase(it);
    version_.fetch_add(1, std::memory_order_acq_rel);
  }
  void Publish(std::shared_ptr<const TableSchema> schema, bool changed) {
    std::lock_guard lock(mu_);
    tables_[schema->name] = std::move(schema);
    if (changed) version_.fetch_add(1, std::memory_order_acq_rel);
  }

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
  std::mutex mu_;  // guards admin_ and tables_
  Connection admin_;
  std::string server_version_;
  std::map<std::string, std::shared_ptr<const TableSchema>, std::less<>> tables_;
  std::atomic<std::uint64_t> version_{1};
  std::atomic<std::uint64_t> unavailable_ops_{0};  // SERVICE_UNAVAILABLE: no connection
};

// ---- The session -----------------------------------------------------------

// Owns a prepared statement (closed without a round trip when its
// connection is gone: mysql_close detached it).
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(MYSQL_STMT* s) : s_(s) {}
  Stmt(Stmt&& o) noexcept : s_(o.s_) { o.s_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept {
    if (this != &o) {
      if (s_ != nullptr) mysql_stmt_close(s_);
      s_ = o.s_;
      o.s_ = nullptr;
    }
    return *this;
  }
  ~Stmt() {
    if (s_ != nullptr) mysql_stmt_close(s_);
  }
  MYSQL_STMT* get() const { return s_; }
  explicit operator bool() const { return s_ != nullptr; }

 private:
  MYSQL_STMT* s_ = nullptr;
};

struct CachedStmt {
  std::vector<int> columns;
  Stmt stmt;
};

// A session's prepared statements for one table, valid for one connection
// and schema version.
struct TableState {
  std::shared_ptr<const TableSchema> schema;
  Stmt insert, read_all, scan_all, remove, read_all_locked;
  std::vector<CachedStmt> reads, scans, updates, reads_locked;
  std::vector<CachedStmt> batch_inserts;  // multi-row inserts, keyed by {row count}
};

class MariadbSession final : public Session {
 public:
  explicit MariadbSession(MariadbStore* store) : store_(store), conn_(&store->options()) {
    conn_.StartOp();
    bool reconnected = false;
    conn_.Ensure(&reconnected);  // a failure is retried by the first operation
  }
  ~MariadbSession() override {
    tables_.clear();
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
      const bool lock = in_tx_ && lock_reads_;
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
      if (!MapFields(&t, table, values)) return Errored();
      MYSQL_STMT* s = UpdateStmt(t);
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
      if (!MapFields(&t, table, values)) return Errored();
      const auto& columns = t->schema->columns;
      if (!t->insert) {
        std::string sql = "INSERT INTO " + Quote(t->schema->name) + "(YCSB_KEY";
        for (const auto& c : columns) sql += ", " + Quote(c);
        sql += ") VALUES(?";
        for (std::size_t i = 0; i < columns.size(); ++i) sql += ", ?";
        sql += ") ON DUPLICATE KEY UPDATE ";
        for (std::size_t i = 0; i < columns.size(); ++i) {
          sql += (i ? ", " : "") + Quote(columns[i]) + "=VALUES(" + Quote(columns[i]) + ")";
        }
        t->insert = Prepare(t->schema->name, sql);
        if (!t->insert) return Errored();
      }
      ResetParams(columns.size() + 1);  // every column NULL unless given
      BindBytes(0, key);
      for (std::size_t i = 0; i < values.size(); ++i) {
        BindBytes(static_cast<std::size_t>(columns_[i]) + 1, values[i].value);
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
        if (!MapFields(&t, table, batch.values(r))) return Errored();
      }
      const std::size_t per_row = t->schema->columns.size() + 1;
      const std::size_t max_rows = std::max<std::size_t>(1, kMaxParams / per_row);
      const bool several = batch.size() > max_rows;
      if (several && !conn_.Query("START TRANSACTION")) return Errored();
      bool ok = true;
      for (std::size_t first = 0; first < batch.size() && ok; first += max_rows) {
        const std::size_t rows = std::min(max_rows, batch.size() - first);
        MYSQL_STMT* s = BatchInsertStmt(t, rows);
        if (s == nullptr) {
          ok = false;
          break;
        }
        ResetParams(rows * per_row);  // every column NULL unless given
        for (std::size_t i = 0; i < rows && ok; ++i) {
          std::span<const Field> values = batch.values(first + i);
          ok = MapFields(&t, table, values);  // only maps: the columns exist now
          BindBytes(i * per_row, batch.key(first + i));
          for (std::size_t f = 0; ok && f < values.size(); ++f) {
            const auto c = static_cast<std::size_t>(columns_[f]) + 1;
            if (c >= per_row) {
              ok = false;  // the schema grew meanwhile
              break;
            }
            BindBytes(i * per_row + c, values[f].value);
          }
        }
        if (ok) ok = Execute(t, s);
      }
      if (several) {
        if (ok) {
          ok = conn_.Query("COMMIT");
        } else if (conn_.connected()) {
          conn_.Query("ROLLBACK");
        }
      }
      return ok ? Status::Ok() : Errored();
    });
  }

  Status Begin(const TxOptions& options) override {
    return Guard([&] {
      if (in_tx_) return Status::Error();
      if (Status st = Begin(); !st.ok()) return st;
      if (!conn_.Query("START TRANSACTION")) return Errored();
      in_tx_ = true;
      lock_reads_ = options.lock_reads;
      return Status::Ok();
    });
  }

  // COMMIT with no transaction open is an error; ROLLBACK is a no-op.
  Status Commit() override { return EndTransaction("COMMIT", Status::Error()); }
  Status Abort() override { return EndTransaction("ROLLBACK", Status::Ok()); }

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
      int ret = 0;
      int status = mysql_stmt_execute_start(&ret, s);
      if (!conn_.Drive(status, [&](int r) { return mysql_stmt_execute_cont(&ret, s, r); })) {
        conn_.TimedOut();
        return Errored();
      }
      if (ret != 0) {
        conn_.Failed(mysql_stmt_errno(s));
        return Errored();
      }
      if (!select) {
        *rows = mysql_stmt_affected_rows(s);
        return Status::Ok();
      }
      status = mysql_stmt_store_result_start(&ret, s);
      if (!conn_.Drive(status, [&](int r) { return mysql_stmt_store_result_cont(&ret, s, r); })) {
        conn_.TimedOut();
        return Errored();
      }
      if (ret != 0) {
        conn_.Failed(mysql_stmt_errno(s));
        return Errored();
      }
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
        t->remove = Prepare(t->schema->name, "DELETE FROM " + Quote(t->schema->name) + " WHERE YCSB_KEY=?");
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
    if (in_tx_ && !conn_.connected()) return Status::Error();  // the transaction went with the connection
    bool reconnected = false;
    Status st = conn_.Ensure(&reconnected);
    if (!st.ok()) {
      store_->CountUnavailable();
      tables_.clear();
      sql_stmts_.clear();
      return st;
    }
    if (reconnected) {
      tables_.clear();
      sql_stmts_.clear();
    }
    return Status::Ok();
  }

  // Ends the open transaction with `sql` (COMMIT or ROLLBACK); with none
  // open, returns `if_none` and sends nothing.
  Status EndTransaction(const char* sql, Status if_none) {
    return Guard([&] {
      if (!in_tx_) return if_none;
      in_tx_ = false;
      conn_.StartOp();
      if (!conn_.connected() || !conn_.Query(sql)) return Errored();
      return Status::Ok();
    });
  }

  // ERROR after a failure; when it broke the connection, the statements go
  // with it (detached by mysql_close, freed here without a round trip).
  Status Errored() {
    if (!conn_.connected()) {
      tables_.clear();
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
    std::uint64_t v = store_->version();
    if (v != version_) {
      tables_.clear();  // the schema changed: re-prepare everything
      version_ = v;
    }
    for (auto& t : tables_) {
      if (t->schema->name == table) return t.get();
    }
    auto schema = store_->Cached(table);
    if (schema == nullptr) {
      bool error = false;
      std::shared_ptr<TableSchema> loaded = LoadSchema(&conn_, table, &error);
      if (loaded == nullptr && !error && create) {
        std::string sql = "CREATE TABLE IF NOT EXISTS " + Quote(table) + "(YCSB_KEY VARBINARY(255) PRIMARY KEY";
        const auto& o = store_->options();
        for (std::int64_t i = 0; i < o.fieldcount; ++i) {
          sql += ", " + Quote(EncodeColumn(o.fieldnameprefix + std::to_string(i))) + " LONGBLOB";
        }
        sql += ") ENGINE=InnoDB";
        if (conn_.Query(sql)) loaded = LoadSchema(&conn_, table, &error);
        else error = true;
      }
      if (loaded == nullptr) {
        table_error_ = error || create;
        return nullptr;
      }
      store_->Publish(loaded, false);
      schema = std::move(loaded);
    }
    auto state = std::make_unique<TableState>();
    state->schema = std::move(schema);
    tables_.push_back(std::move(state));
    return tables_.back().get();
  }

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
        if (c < 0 && std::find(missing_.begin(), missing_.end(), f.name) == missing_.end()) missing_.push_back(f.name);
        columns_.push_back(c);
        hint = static_cast<std::size_t>(c + 1);
      }
      if (missing_.empty()) return true;
      if (attempt > 0 || !AddColumns(table)) return false;
      *t = Table(table, false);
      if (*t == nullptr) return false;
    }
    return false;
  }

  // ALTER TABLE t ADD COLUMN IF NOT EXISTS for missing_ (idempotent, so
  // sessions and processes racing to add the same field all succeed), then
  // reloads and publishes the schema.
  bool AddColumns(std::string_view table) {
    std::string sql = "ALTER TABLE " + Quote(table);
    for (std::size_t i = 0; i < missing_.size(); ++i) {
      sql += (i ? ", " : " ") + std::string("ADD COLUMN IF NOT EXISTS ") + Quote(EncodeColumn(missing_[i])) +
             " LONGBLOB";
    }
    if (!conn_.Query(sql)) return false;
    bool error = false;
    auto schema = LoadSchema(&conn_, table, &error);
    if (schema == nullptr) return false;
    store_->Publish(schema, true);
    return true;
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
      if (err == ER_NO_SUCH_TABLE || err == ER_BAD_FIELD_ERROR) store_->Invalidate(table);
      conn_.Failed(err);
      return Stmt();
    }
    return stmt;
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
    sql += scan ? " WHERE YCSB_KEY>=? ORDER BY YCSB_KEY LIMIT ?" : " WHERE YCSB_KEY=?";
    if (lock) sql += " FOR UPDATE";
    return sql;
  }

  MYSQL_STMT* AllStmt(TableState* t, Stmt* slot, bool scan, bool lock = false) {
    if (!*slot) *slot = Prepare(t->schema->name, SelectSql(t, nullptr, scan, lock));
    return slot->get();
  }

  // The statement selecting the columns named by `fields` (in column
  // order; names that are not columns are ignored). selected_ holds them.
  MYSQL_STMT* SelectedStmt(TableState* t, const FieldSelector& fields, bool scan, bool lock = false) {
    selected_.clear();
    for (std::string_view n : fields.names) {
      int c = FindColumn(*t->schema, n, 0);
      if (c >= 0) selected_.push_back(c);
    }
    std::sort(selected_.begin(), selected_.end());
    selected_.erase(std::unique(selected_.begin(), selected_.end()), selected_.end());
    auto& cache = scan ? t->scans : lock ? t->reads_locked : t->reads;
    return Cached(t, &cache, selected_, [&] { return SelectSql(t, &selected_, scan, lock); });
  }

  MYSQL_STMT* UpdateStmt(TableState* t) {
    return Cached(t, &t->updates, columns_, [&] {
      std::string sql = "UPDATE " + Quote(t->schema->name) + " SET ";
      for (std::size_t i = 0; i < columns_.size(); ++i) {
        sql += (i ? ", " : "") + Quote(t->schema->columns[static_cast<std::size_t>(columns_[i])]) + "=?";
      }
      sql += " WHERE YCSB_KEY=?";
      return sql;
    });
  }

  // INSERT INTO t(YCSB_KEY, every column) VALUES (...) x rows ON DUPLICATE
  // KEY UPDATE every column.
  MYSQL_STMT* BatchInsertStmt(TableState* t, std::size_t rows) {
    batch_rows_.assign(1, static_cast<int>(rows));
    return Cached(t, &t->batch_inserts, batch_rows_, [&] {
      const auto& columns = t->schema->columns;
      std::string row = "(?";
      for (std::size_t i = 0; i < columns.size(); ++i) row += ", ?";
      row += ")";
      std::string sql = "INSERT INTO " + Quote(t->schema->name) + "(YCSB_KEY";
      for (const auto& c : columns) sql += ", " + Quote(c);
      sql += ") VALUES ";
      for (std::size_t r = 0; r < rows; ++r) sql += (r ? ", " : "") + row;
      sql += " ON DUPLICATE KEY UPDATE ";
      for (std::size_t i = 0; i < columns.size(); ++i) {
        sql += (i ? ", " : "") + Quote(columns[i]) + "=VALUES(" + Quote(columns[i]) + ")";
      }
      return sql;
    });
  }

  template <typename MakeSql>
  MYSQL_STMT* Cached(const TableState* t, std::vector<CachedStmt>* cache, const std::vector<int>& cols,
                     MakeSql make_sql) {
    for (auto& e : *cache) {
      if (e.columns == cols) return e.stmt.get();
    }
    Stmt s = Prepare(t->schema->name, make_sql());
    if (!s) return nullptr;
    if (cache->size() >= kStatementCacheSize) cache->erase(cache->begin());
    cache->push_back({cols, std::move(s)});
    return cache->back().stmt.get();
  }

  // Update without fields: NOT_FOUND unless the record exists.
  Status Exists(TableState* t, std::string_view key) {
    selected_.clear();
    MYSQL_STMT* s = Cached(t, &t->reads, selected_, [&] { return SelectSql(t, &selected_, false); });
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

  // Binds params_ and executes. False on failure (the connection is dropped
  // when broken or timed out).
  bool Execute(const TableState* t, MYSQL_STMT* s) {
    if (mysql_stmt_bind_param(s, params_.data()) != 0) return conn_.Failed(mysql_stmt_errno(s));
    int ret = 0;
    int status = mysql_stmt_execute_start(&ret, s);
    if (!conn_.Drive(status, [&](int r) { return mysql_stmt_execute_cont(&ret, s, r); })) return conn_.TimedOut();
    if (ret != 0) {
      const unsigned int err = mysql_stmt_errno(s);
      if (err == ER_NO_SUCH_TABLE || err == ER_BAD_FIELD_ERROR) store_->Invalidate(t->schema->name);
      return conn_.Failed(err);
    }
    return true;
  }

  // Reads the executed statement's rows (YCSB_KEY, then the selected
  // columns) into out, skipping NULL columns. For a read, `key` is the
  // record's key as given.
  Status FetchRows(const TableState* t, MYSQL_STMT* s, bool all, bool scan, std::string_view key, RecordSet* out) {
    int ret = 0;
    int status = mysql_stmt_store_result_start(&ret, s);
    if (!conn_.Drive(status, [&](int r) { return mysql_stmt_store_result_cont(&ret, s, r); })) {
      conn_.TimedOut();
      return Errored();
    }
    if (ret != 0) {
      conn_.Failed(mysql_stmt_errno(s));
      return Errored();
    }
    const std::size_t n = mysql_stmt_field_count(s);
    if (results_.size() < n) {
      results_.resize(n);
      buffers_.resize(n);
      lengths_.resize(n);
      nulls_.resize(n);
      truncated_.resize(n);
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (buffers_[i].size() < 64) buffers_[i].resize(64);
    }
    BindResults(n);
    if (mysql_stmt_bind_result(s, results_.data()) != 0) {
      mysql_stmt_free_result(s);
      return Errored();
    }
    const auto& names = t->schema->fields;
    Status result = Status::Ok();
    for (;;) {
      int rc = mysql_stmt_fetch(s);  // from the stored result: no I/O
      if (rc == MYSQL_NO_DATA) break;
      if (rc == 1) {
        result = Status::Error();
        out->Clear();
        break;
      }
      // MYSQL_DATA_TRUNCATED or not: grow the short buffers and fetch those columns again.
      bool grown = false;
      for (std::size_t i = 0; i < n && result.ok(); ++i) {
        if (nulls_[i] || lengths_[i] <= buffers_[i].size()) continue;
        buffers_[i].resize(std::max<std::size_t>(lengths_[i], buffers_[i].size() * 2));
        BindResults(n);
        grown = true;
        if (mysql_stmt_fetch_column(s, &results_[i], static_cast<unsigned int>(i), 0) != 0) result = Status::Error();
      }
      if (grown && result.ok() && mysql_stmt_bind_result(s, results_.data()) != 0) result = Status::Error();
      if (!result.ok()) {
        out->Clear();
        break;
      }
      out->BeginRecord(scan ? Column(0) : key);
      for (std::size_t i = 1; i < n; ++i) {
        if (nulls_[i]) continue;
        const std::size_t field = all ? i - 1 : static_cast<std::size_t>(selected_[i - 1]);
        out->AddField(names[field], Column(i));
      }
    }
    mysql_stmt_free_result(s);
    return result;
  }

  void BindResults(std::size_t n) {
    std::memset(results_.data(), 0, n * sizeof(MYSQL_BIND));
    for (std::size_t i = 0; i < n; ++i) {
      MYSQL_BIND& b = results_[i];
      b.buffer_type = MYSQL_TYPE_BLOB;
      b.buffer = buffers_[i].data();
      b.buffer_length = buffers_[i].size();
      b.length = &lengths_[i];
      b.is_null = &nulls_[i];
      b.error = &truncated_[i];
    }
  }

  std::string_view Column(std::size_t i) const {
    return std::string_view(buffers_[i].data(), std::min<std::size_t>(lengths_[i], buffers_[i].size()));
  }

  MariadbStore* store_;
  Connection conn_;
  std::uint64_t version_ = 0;
  std::vector<std::unique_ptr<TableState>> tables_;
  bool table_error_ = false;
  std::vector<int> columns_;               // column of each field of an insert/update
  std::vector<int> selected_;              // columns of a selected read/scan
  std::vector<std::string_view> missing_;  // fields without a column
  std::vector<int> batch_rows_;            // BatchInsertStmt's cache key: {rows}
  std::vector<MYSQL_BIND> params_;
  unsigned long long limit_ = 0;
  std::vector<MYSQL_BIND> results_;
  std::vector<std::string> buffers_;
  std::vector<unsigned long> lengths_;
  std::vector<my_bool> nulls_;
  std::vector<my_bool> truncated_;
  RecordSet scratch_;
  bool in_tx_ = false;       // between Begin and Commit/Abort
  bool lock_reads_ = false;  // the transaction's reads are SELECT ... FOR UPDATE
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
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        MariadbOptions o = ParseOptions(props);
        return std::make_unique<MariadbStore>(o);
      },
      .server = true,
  };
  return info;
}

}  // namespace storebench
