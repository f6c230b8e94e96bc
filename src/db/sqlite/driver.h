// The sqlite binding's driver helpers: what src/db/sqlite.cc needs from
// libsqlite3 beyond single calls (owned statements, binding bytes as BLOBs,
// result codes as Status, opening a connection with the binding's
// pragmas). Used by src/db/sqlite.cc only.
//
// Functions are thread-safe as far as SQLite is for the connection passed
// (one connection per thread: SQLITE_OPEN_NOMUTEX).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace storebench::sqlite_driver {

struct SqliteOptions {
  std::string dir;
  std::string file;
  std::string path;  // dir + "/" + file
  std::string journal_mode;
  std::string synchronous;
  std::int64_t cache_size = -2000;  // KiB when negative: SQLite's own default
  std::uint64_t mmap_size = 0;
  std::int64_t busy_timeout_ms = 10000;
  bool serialize_writes = true;
  std::int64_t fieldcount = 10;
  std::string fieldnameprefix = "field";
};

// Owns a prepared statement.
struct FinalizeStmt {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, FinalizeStmt>;

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

// SQLITE_BUSY/LOCKED: SERVICE_UNAVAILABLE; any other failure ERROR.
Status FromCode(int rc);
// Prepares `sql` (persistent); null on failure.
Stmt Prepare(sqlite3* db, const std::string& sql);
// Binds bytes as a BLOB (a zero-length BLOB, not NULL, for empty data).
int BindBytes(sqlite3_stmt* s, int i, std::string_view v);
std::string_view ColumnBytes(sqlite3_stmt* s, int i);
std::string Message(sqlite3* db);
// Runs SQL that returns no rows (or ignores them); false + *error on failure.
bool Exec(sqlite3* db, const std::string& sql, std::string* error);
// The first column of the first row of `sql`, as text ("" if none).
bool QueryText(sqlite3* db, const std::string& sql, std::string* out);
// Opens a connection and applies the per-connection settings; SetupError.
sqlite3* OpenConnection(const SqliteOptions& o, bool set_journal_mode);

}  // namespace storebench::sqlite_driver
