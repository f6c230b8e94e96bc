// The mariadb binding's connection: a MYSQL handle (MariaDB Connector/C) in
// non-blocking mode whose calls wait through net/io.h until the operation's
// deadline (mariadb.timeout_ms), with reconnect backoff. Used by
// src/db/mariadb.cc only.
//
// Not thread-safe: one per session (or the store's admin, under its mutex).
// Deadlines are SteadyClock nanoseconds.
#pragma once

#include <mysql.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"
#include "db/sql/reconnect.h"
#include "db/sql/schema.h"

namespace storebench::mariadb {

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

// A MYSQL handle in non-blocking mode whose calls wait through io.h with a
// deadline.
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
  // Starts an operation: its deadline (mariadb.timeout_ms from now).
  void StartOp();
  // The server's error number of the last failure of this operation (0: none).
  unsigned int last_errno() const { return last_errno_; }
  std::uint64_t reconnects() const { return backoff_.failures(); }

  // Connects until the deadline; false and *error ("<reason>") on failure.
  bool Connect(std::string* error);

  // Connected, or reconnected when the backoff allows it before the
  // deadline (sleeping until then). OK or SERVICE_UNAVAILABLE; *reconnected
  // when a new connection was made.
  Status Ensure(bool* reconnected);

  // Closes the connection. `abort`: it may be mid-operation or dead, so the
  // socket is shut down first and mysql_close's goodbye fails at once
  // instead of waiting. The fiber scheduler forgets the descriptor before
  // libmariadb closes it.
  void Disconnect(bool abort);

  // Runs a non-blocking call to the end: `status` is what its _start
  // returned, `cont(ready)` calls its _cont. False when the deadline passed
  // (the connection is then mid-call: the caller drops it).
  template <typename Cont>
  bool Drive(int status, Cont&& cont) {
    while (status != 0) {
      const int ready = Wait(status);
      if (ready < 0) return false;
      status = cont(ready);
    }
    return true;
  }

  // Runs SQL on the connection and drops any result; false on failure
  // (LastError() says why; a broken or timed-out connection is dropped).
  bool Query(const std::string& sql);

  // Runs SQL and stores its result (*res may be null for statements
  // without one); the caller frees it.
  bool QueryResult(const std::string& sql, MYSQL_RES** res);

  // After a failed call with error `err`: drops the connection when it is
  // broken. Returns false (for `return Failed(...)`).
  bool Failed(unsigned int err);
  bool TimedOut();
  bool Fail(const char* why) {
    last_error_ = why;
    return false;
  }
  const std::string& LastError() const { return last_error_; }

 private:
  // Waits until the call that returned `status` (MYSQL_WAIT_*) can go on:
  // what is ready for its _cont, or -1 when the deadline passed.
  int Wait(int status);

  const MariadbOptions* opts_;
  MYSQL* m_ = nullptr;
  std::int64_t deadline_ = INT64_MAX;  // io::kNoDeadline
  sql::ReconnectBackoff backoff_;
  std::string last_error_;
  unsigned int last_errno_ = 0;};

// 'text' as an SQL string literal (NUL, quote and backslash escaped).
std::string QuoteString(std::string_view s);

// Reads `table`'s columns over `c`. nullptr when the table does not exist
// (*error false) or on failure (*error true; also for a table without
// YCSB_KEY, which is not ours).
std::shared_ptr<sql::TableSchema> LoadSchema(Connection* c, std::string_view table, bool* error);

}  // namespace storebench::mariadb
