// The groonga binding's store: the one Groonga database of groonga.dir,
// opened once per process, and the state its sessions share (see
// src/db/groonga.cc for the layout, the operations and the locking). Here:
// the typed options, the field-name <-> column-name mapping, opening the
// directory (its flock, groonga.destroy, stale-lock checks, the existing
// tables and their type), the table registry and Close.
//
// Thread safety: FindTable may be called from any session's thread (a mutex
// guards the registry); rw() is the store-wide reader/writer lock sessions
// take around every operation. Ownership: the store owns the database, its
// grn_ctx and the TableStates; sessions hold pointers into them until Close.
#pragma once

#include <groonga.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/properties.h"
#include "db/binding.h"

namespace storebench::groonga {

constexpr char kDefaultDir[] = "storebench-data/groonga";
constexpr char kDbFile[] = "db";                // Groonga adds db.0000000, db.001, ...
constexpr std::string_view kFieldsColumn = "x__fields";  // the record's column ids, in order

// Typed options, read and validated once.
struct GroongaOptions {
  std::string dir;
  bool hash = false;            // groonga.table_type=hash
  bool table_type_given = false;
  std::string value_type_name = "LongText";
  grn_builtin_type value_type = GRN_DB_LONG_TEXT;
  std::string compression_name = "none";
  grn_column_flags compression = GRN_OBJ_COMPRESS_NONE;
  bool lockfree_reads = false;
  bool clear_lock = false;
  bool destroy = false;
};

GroongaOptions ParseOptions(const Properties& props);

// Field (or table) name -> Groonga object name, into *out: names of
// [A-Za-z0-9_] not starting with '_' or "x_" stay as they are, every other
// name is "x_" + lowercase hex of its bytes.
void EncodeName(std::string_view name, std::string* out);
// Groonga column name -> field name; false for a name EncodeName never makes.
bool DecodeName(std::string_view column, std::string* out);

// Groonga's last error in `ctx`, on one line.
std::string ErrorOf(grn_ctx* ctx);

struct ColumnRef {
  grn_obj* column = nullptr;
  grn_id id = GRN_ID_NIL;
};

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// One YCSB table: the Groonga table, its presence column and (for writers,
// under the store's write lock) its field columns by field name.
struct TableState {
  std::string name;   // YCSB name
  std::string gname;  // Groonga name
  grn_obj* table = nullptr;
  grn_obj* fields = nullptr;  // x__fields: UInt32 vector of column ids
  bool pat = true;
  std::unordered_map<std::string, ColumnRef, StringHash, std::equal_to<>> columns;  // write lock
};

class GroongaStore final : public Store {
 public:
  explicit GroongaStore(const GroongaOptions& o);

  ~GroongaStore() override { Shutdown(); }

  std::unique_ptr<Session> NewSession(int) override;

  Capabilities capabilities() const override;

  // Flushes every file of the database (msync), then counts the blocks the
  // files in groonga.dir occupy (what du shows). Groonga grows its files by
  // whole segments, so the figure moves in steps, and the files are sparse:
  // Stats() adds groonga.file_bytes, the sum of their sizes, which is larger.
  std::optional<std::uint64_t> DiskUsageBytes() override;

  std::vector<std::pair<std::string, std::string>> Stats() override;

  void Close() override;

  // ---- for sessions ----

  const GroongaOptions& options() const { return opts_; }
  std::shared_mutex& rw() { return rw_; }

  // The state of `table`, or nullptr when it does not exist and !create.
  // Creation (by a writer, which holds the write lock) uses the caller's
  // ctx. *error is set when the table cannot be made or its name is taken.
  TableState* FindTable(grn_ctx* ctx, std::string_view table, bool create, bool* error);

 private:
  std::string DbPath() const { return (std::filesystem::path(opts_.dir) / kDbFile).string(); }
  std::string What() const { return "groonga.dir '" + opts_.dir + "': "; }

  // One store per directory: an exclusive flock on the directory itself.
  void LockDir();

  // groonga.destroy: removes Groonga's files (db and db.*), nothing else.
  void Destroy();

  void OpenDb();

  // Groonga's files start with the 16-byte id string "GROONGA:IO:00001".
  static bool LooksLikeGroongaFile(const std::string& path);

  // Calls f(obj) for every table and column of the database.
  template <typename F>
  void ForEachUserObject(F&& f);

  std::string NameOf(grn_obj* obj);

  // A process that died in the middle of a write leaves Groonga's lock
  // counters set; later writes would wait for them for minutes. Refuse to
  // open such a database unless groonga.clear_lock=true.
  void CheckLocks();

  // Registers the tables this binding made (those with an x__fields column)
  // and settles the table type: an explicit groonga.table_type must match
  // them; by default, the existing tables' type is kept.
  void LoadTables();

  // Releases everything still held (idempotent): database, ctx, library, lock.
  void Shutdown();

  GroongaOptions opts_;
  int dir_fd_ = -1;
  bool library_ = false;
  bool ctx_ready_ = false;
  grn_ctx ctx_;
  grn_obj* db_ = nullptr;
  bool hash_ = false;  // effective table type
  bool cleared_lock_ = false;
  std::shared_mutex rw_;  // writes exclusive; reads shared unless lockfree_reads
  std::mutex tables_mu_;  // tables_
  std::vector<std::unique_ptr<TableState>> tables_;
};

}  // namespace storebench::groonga
