#include "db/postgresql/connection.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "db/sql/statements.h"
#include "measure/clock.h"
#include "net/io.h"

namespace storebench::pg {
namespace {

// Forgets a descriptor libpq is about to close (PQfinish closes it, not us),
// so the fiber scheduler drops the fd before the number can be reused.
void ForgetFd(int fd) { io::Forget(fd); }

// Backslash before spaces and backslashes: one value inside `options`.
std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == ' ' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::int64_t Now() { return SteadyClock::Now(); }
std::int64_t DeadlineAfter(std::int64_t ms) { return Now() + ms * 1'000'000; }

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

bool Connection::Connect(std::int64_t deadline, std::string* error) {
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
  backoff_.Succeeded();
  return true;
}

Status Connection::Ensure(std::int64_t deadline) {
  if (conn_ != nullptr) return Status::Ok();
  if (!backoff_.AwaitAttempt(deadline, sql::ReconnectBackoff::Late::kReturnAtOnce)) {
    return Status(Status::kServiceUnavailable);
  }
  std::string error;
  if (Connect(deadline, &error)) return Status::Ok();
  backoff_.Failed();
  return Status(Status::kServiceUnavailable);
}

void Connection::Drop() {
  if (conn_ == nullptr) return;
  if (fd_ >= 0) ForgetFd(fd_);
  PQfinish(conn_);
  conn_ = nullptr;
  fd_ = -1;
}

Status Connection::Finish(std::int64_t deadline, Result* out) {
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

Status Connection::Check(const Result& r, ExecStatusType want) {
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

bool Connection::Fail(std::string* error) {
  *error = OneLine(PQerrorMessage(conn_));
  Drop();
  return false;
}

Status Connection::Broken() {
  Drop();
  return Status::Error();
}

Status Connection::TimedOut() {
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

Status Connection::Send(const char* sql) {
  if (PQsendQueryParams(conn_, sql, 0, nullptr, nullptr, nullptr, nullptr, 0) == 0) {
    Drop();
    return Status::Error();
  }
  return Status::Ok();
}

std::string ConnectError(const PgOptions& o, const std::string& reason) {
  return "postgresql: cannot connect to " + o.Where() + " as user '" + o.user + "' (database '" + o.dbname +
         "'): " + reason;
}

bool RunSimple(Connection* c, const std::string& sql, std::int64_t deadline, Result* out, ExecStatusType want) {
  if (!c->connected() || !c->Send(sql.c_str()).ok()) return false;
  if (!c->Finish(deadline, out).ok()) return false;
  return c->Check(*out, want).ok();
}

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

bool ValidTableName(std::string_view t) {
  return !t.empty() && t.size() <= kMaxIdentifier && t.find('\0') == std::string_view::npos;
}

// Reads the column names of `table` (quoted: to_regclass takes SQL syntax).
bool LoadSchema(Connection* c, std::string_view table, std::int64_t deadline,
                std::shared_ptr<sql::TableSchema>* schema) {
  Result r;
  schema->reset();
  if (!RunText(c,
               "SELECT a.attname FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 "
               "AND NOT a.attisdropped ORDER BY a.attnum",
               {sql::Identifier(sql::kPostgresqlDialect, table)}, deadline, &r)) {
    return false;
  }
  std::vector<std::string> names;
  for (int i = 0; i < PQntuples(r.get()); ++i) names.emplace_back(PQgetvalue(r.get(), i, 0));
  bool foreign = false;
  *schema = sql::SchemaFromColumns(table, std::move(names), &foreign);
  return !foreign;
}

bool LoadOrCreate(Connection* c, const PgOptions& o, std::string_view table, std::int64_t deadline,
                  std::shared_ptr<sql::TableSchema>* schema) {
  if (!ValidTableName(table)) return false;
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!LoadSchema(c, table, deadline, schema)) return false;
    if (*schema != nullptr) return true;
    const std::vector<std::string> columns = sql::FieldColumns(o.fieldcount, o.fieldnameprefix);
    for (const auto& col : columns) {
      if (col.size() > kMaxIdentifier) return false;
    }
    Result r;
    // Two sessions creating the same table at once may collide in the
    // catalog (a unique violation): the table exists then, load it again.
    RunSimple(c, sql::CreateTableSql(sql::kPostgresqlDialect, table, columns), deadline, &r);
    if (!c->connected()) return false;
  }
  return LoadSchema(c, table, deadline, schema) && *schema != nullptr;
}

}  // namespace storebench::pg
