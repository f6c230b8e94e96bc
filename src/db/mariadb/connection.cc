#include "db/mariadb/connection.h"

#include <errmsg.h>
#include <mysqld_error.h>
#include <sys/socket.h>

#include <algorithm>

#include "db/sql/schema.h"
#include "measure/clock.h"
#include "net/io.h"
#include "net/socket.h"

namespace storebench::mariadb {
namespace {

// True for errors after which the connection is unusable: client-side
// errors (CR_*: server gone, lost, out of sync) and the server going away.
bool IsConnectionError(unsigned int err) {
  return (err >= CR_MIN_ERROR && err <= CR_MAX_ERROR) || err == ER_SERVER_SHUTDOWN || err == ER_CONNECTION_KILLED ||
         err == ER_NET_READ_ERROR || err == ER_NET_READ_INTERRUPTED || err == ER_NET_ERROR_ON_WRITE ||
         err == ER_NET_WRITE_INTERRUPTED;
}

// The fiber scheduler must forget a descriptor that libmariadb is about to
// close (io::Close would close it twice).
void ForgetFd(int fd) { io::Forget(fd); }

}  // namespace

static_assert(INT64_MAX == io::kNoDeadline);

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

std::shared_ptr<sql::TableSchema> LoadSchema(Connection* c, std::string_view table, bool* error) {
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
  std::vector<std::string> names;
  while (MYSQL_ROW row = mysql_fetch_row(res)) {
    unsigned long* len = mysql_fetch_lengths(res);
    names.emplace_back(row[0] != nullptr ? row[0] : "", row[0] != nullptr ? len[0] : 0);
  }
  mysql_free_result(res);
  return sql::SchemaFromColumns(table, std::move(names), error);
}


void Connection::StartOp() {
  deadline_ = net::DeadlineAfterMs(opts_->timeout_ms);
  last_errno_ = 0;
}

bool Connection::Connect(std::string* error) {
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

Status Connection::Ensure(bool* reconnected) {
  *reconnected = false;
  if (m_ != nullptr) return Status::Ok();
  if (!backoff_.AwaitAttempt(deadline_, sql::ReconnectBackoff::Late::kSleepToDeadline)) {
    return Status(Status::kServiceUnavailable);
  }
  std::string error;
  if (Connect(&error)) {
    backoff_.Succeeded();
    *reconnected = true;
    return Status::Ok();
  }
  backoff_.Failed();
  return Status(Status::kServiceUnavailable);
}

void Connection::Disconnect(bool abort) {
  if (m_ == nullptr) return;
  const int fd = static_cast<int>(mysql_get_socket(m_));
  if (fd >= 0) {
    if (abort) ::shutdown(fd, SHUT_RDWR);
    ForgetFd(fd);
  }
  mysql_close(m_);  // also detaches (but does not free) its statements
  m_ = nullptr;
}

bool Connection::Query(const std::string& sql) {
  MYSQL_RES* res = nullptr;
  if (!QueryResult(sql, &res)) return false;
  if (res != nullptr) mysql_free_result(res);
  return true;
}

bool Connection::QueryResult(const std::string& sql, MYSQL_RES** res) {
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

bool Connection::Failed(unsigned int err) {
  last_error_ = m_ != nullptr ? mysql_error(m_) : "not connected";
  last_errno_ = err;
  if (IsConnectionError(err)) Disconnect(true);
  return false;
}

bool Connection::TimedOut() {
  last_error_ = "timed out after " + std::to_string(opts_->timeout_ms) + " ms";
  Disconnect(true);
  return false;
}

int Connection::Wait(int status) {
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
    if (SteadyClock::Now() >= deadline_) return -1;
    ready = MYSQL_WAIT_TIMEOUT;
  }
  return ready;
}

}  // namespace storebench::mariadb
