// The postgresql binding's connection: one libpq connection that waits only
// through net/io.h (non-blocking connect, send and receive, each bounded by
// the operation's deadline), with reconnect backoff and the translation of
// libpq's results into Status. Used by src/db/postgresql.cc only.
//
// Not thread-safe: one per session (and one admin connection per store,
// under the store's mutex). Deadlines are SteadyClock nanoseconds.
#pragma once

#include <libpq-fe.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "db/sql/reconnect.h"
#include "db/sql/schema.h"

namespace storebench::pg {

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

std::int64_t Now();
std::int64_t DeadlineAfter(std::int64_t ms);

// libpq's message on one line, without the "connection to server at ...
// failed: " preamble (the caller names host:port itself).
std::string OneLine(const char* msg);

// "postgresql: cannot connect to HOST:PORT as user ...: <reason>".
std::string ConnectError(const PgOptions& o, const std::string& reason);

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

 private:
  PGresult* r_ = nullptr;
};

// A libpq connection that waits only through io.h. Not thread-safe.
class Connection {
 public:
  explicit Connection(const PgOptions* o) : o_(o) {}
  ~Connection() { Drop(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Connects now (dropping any current connection), waiting until the
  // deadline; false and *error ("<reason>") on failure.
  bool Connect(std::int64_t deadline, std::string* error);
  // Connected, or reconnected now when the backoff allows it (waiting for
  // the next attempt when it falls before the deadline). OK or
  // SERVICE_UNAVAILABLE.
  Status Ensure(std::int64_t deadline);
  void Drop();
  // Waits for the reply to the query just sent: flushes, then reads until
  // libpq has every result; *out holds the first error result or else the
  // last result. ERROR (connection dropped) on a timeout or a broken
  // connection; otherwise OK (the caller checks the result's status).
  Status Finish(std::int64_t deadline, Result* out);
  // A query's result status turned into a Status (OK for `want`);
  // serialization failures and deadlocks are ABORTED.
  Status Check(const Result& r, ExecStatusType want);
  // Sends a parameterless text query (no wait); ERROR (dropped) on failure.
  Status Send(const char* sql);

  PGconn* get() const { return conn_; }
  bool connected() const { return conn_ != nullptr; }
  // Bumped by every successful connect: statements prepared on an older
  // generation must be prepared again.
  std::uint64_t generation() const { return generation_; }
  std::uint64_t failed_connects() const { return backoff_.failures(); }
  std::uint64_t timeouts() const { return timeouts_; }

 private:
  bool Fail(std::string* error);
  Status Broken();
  Status TimedOut();

  const PgOptions* o_;
  PGconn* conn_ = nullptr;
  int fd_ = -1;
  std::uint64_t generation_ = 0;
  sql::ReconnectBackoff backoff_;
  std::uint64_t timeouts_ = 0;
};

// Runs a parameterless text query to completion; false on any failure.
bool RunSimple(Connection* c, const std::string& sql, std::int64_t deadline, Result* out,
               ExecStatusType want = PGRES_COMMAND_OK);
// Runs a query with text parameters and a text result.
bool RunText(Connection* c, const std::string& sql, const std::vector<std::string>& params, std::int64_t deadline,
             Result* out);

// ---- The catalog: the YCSB tables' schemas ----

inline constexpr std::size_t kMaxIdentifier = 63;  // NAMEDATALEN - 1

// A table name PostgreSQL can take as an identifier (no NUL, not too long).
bool ValidTableName(std::string_view t);
// Reads `table`'s columns. Returns false on failure; *schema null when the
// table does not exist. A table without a YCSB_KEY column is a failure.
bool LoadSchema(Connection* c, std::string_view table, std::int64_t deadline,
                std::shared_ptr<sql::TableSchema>* schema);
// Loads `table`, creating it first (o.fieldcount columns named
// o.fieldnameprefix0..) when it does not exist. False on failure.
bool LoadOrCreate(Connection* c, const PgOptions& o, std::string_view table, std::int64_t deadline,
                  std::shared_ptr<sql::TableSchema>* schema);

}  // namespace storebench::pg
