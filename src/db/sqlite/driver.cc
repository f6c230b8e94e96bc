#include "db/sqlite/driver.h"

#include "core/error.h"

namespace storebench::sqlite_driver {

Status FromCode(int rc) {
  switch (rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_DONE:
    case SQLITE_ROW:
      return Status::Ok();
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status(Status::kServiceUnavailable);
    default:
      return Status::Error();
  }
}

Stmt Prepare(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size()) + 1, SQLITE_PREPARE_PERSISTENT, &s, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(s);
    return Stmt();
  }
  return Stmt(s);
}

int BindBytes(sqlite3_stmt* s, int i, std::string_view v) {
  if (v.empty()) return sqlite3_bind_zeroblob(s, i, 0);
  return sqlite3_bind_blob64(s, i, v.data(), v.size(), SQLITE_STATIC);
}

std::string_view ColumnBytes(sqlite3_stmt* s, int i) {
  const void* p = sqlite3_column_blob(s, i);
  int n = sqlite3_column_bytes(s, i);
  if (p == nullptr || n <= 0) return {};
  return std::string_view(static_cast<const char*>(p), static_cast<std::size_t>(n));
}

std::string Message(sqlite3* db) { return db != nullptr ? sqlite3_errmsg(db) : "out of memory"; }

bool Exec(sqlite3* db, const std::string& sql, std::string* error) {
  char* msg = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    if (error != nullptr) *error = msg != nullptr ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    return false;
  }
  return true;
}

bool QueryText(sqlite3* db, const std::string& sql, std::string* out) {
  Stmt s = Prepare(db, sql);
  if (!s) return false;
  int rc = sqlite3_step(s.get());
  out->clear();
  if (rc == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(s.get(), 0);
    if (t != nullptr) out->assign(reinterpret_cast<const char*>(t));
    return true;
  }
  return rc == SQLITE_DONE;
}

sqlite3* OpenConnection(const SqliteOptions& o, bool set_journal_mode) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(o.path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = Message(db);
    sqlite3_close_v2(db);
    throw SetupError("sqlite.dir/sqlite.file '" + o.path + "': cannot open the database: " + msg);
  }
  sqlite3_extended_result_codes(db, 0);
  sqlite3_busy_timeout(db, static_cast<int>(o.busy_timeout_ms));
  std::string error;
  auto fail = [&](const std::string& what) {
    sqlite3_close_v2(db);
    throw SetupError("sqlite.dir/sqlite.file '" + o.path + "': " + what + ": " + error);
  };
  // The first statement reads the file: a file that is not a database fails here.
  if (!Exec(db, "PRAGMA synchronous=" + o.synchronous, &error)) fail("cannot set sqlite.synchronous");
  if (!Exec(db, "PRAGMA cache_size=" + std::to_string(o.cache_size), &error)) fail("cannot set sqlite.cache_size");
  if (!Exec(db, "PRAGMA mmap_size=" + std::to_string(o.mmap_size), &error)) fail("cannot set sqlite.mmap_size");
  // WAL is a property of the database file (set once, by the store);
  // the other journal modes are per connection.
  if (set_journal_mode || o.journal_mode != "WAL") {
    std::string mode;
    if (!QueryText(db, "PRAGMA journal_mode=" + o.journal_mode, &mode)) {
      error = Message(db);
      fail("cannot set sqlite.journal_mode");
    }
    for (char& c : mode) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (mode != o.journal_mode) {
      error = "the database stays in journal_mode " + mode + " (leaving WAL needs every other connection closed)";
      fail("cannot set sqlite.journal_mode=" + o.journal_mode);
    }
  }
  return db;
}

}  // namespace storebench::sqlite_driver
