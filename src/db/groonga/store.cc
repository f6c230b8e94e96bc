// The groonga binding's store: options, name mapping, opening and closing
// the database (see store.h).
#include "db/groonga/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/error.h"
#include "db/property_choice.h"
#include "db/store_dir.h"
#include "db/hex_name.h"

namespace storebench::groonga {
namespace {

namespace fs = std::filesystem;

constexpr NamedValue<grn_builtin_type> kValueTypes[] = {
    {"ShortText", GRN_DB_SHORT_TEXT},
    {"Text", GRN_DB_TEXT},
    {"LongText", GRN_DB_LONG_TEXT},
};

constexpr NamedValue<grn_column_flags> kCompressions[] = {
    {"none", GRN_OBJ_COMPRESS_NONE},
    {"zlib", GRN_OBJ_COMPRESS_ZLIB},
    {"lz4", GRN_OBJ_COMPRESS_LZ4},
    {"zstd", GRN_OBJ_COMPRESS_ZSTD},
};

// grn_init() once per process while any store is open; grn_fin() after the
// last one closes (Groonga may be initialised again afterwards).
class GroongaLibrary {
 public:
  static void Acquire() {
    std::lock_guard lock(mu_);
    if (users_ == 0) {
      grn_rc rc = grn_init();
      if (rc != GRN_SUCCESS) throw SetupError("groonga: grn_init failed (rc " + std::to_string(static_cast<int>(rc)) + ")");
    }
    ++users_;
  }
  static void Release() {
    std::lock_guard lock(mu_);
    if (--users_ == 0) grn_fin();
  }

 private:
  static inline std::mutex mu_;
  static inline int users_ = 0;
};

bool IsOurTableType(const grn_obj* obj) {
  return obj != nullptr &&
         (obj->header.type == GRN_TABLE_PAT_KEY || obj->header.type == GRN_TABLE_HASH_KEY);
}

bool IsPlainName(std::string_view name) {
  if (name.empty() || name[0] == '_' || name.starts_with("x_")) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

GroongaOptions ParseOptions(const Properties& props) {
  GroongaOptions o;
  o.dir = props.GetString("groonga.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'groonga.dir' is empty: expected a directory");
  o.table_type_given = props.Has("groonga.table_type");
  o.hash = props.GetChoice("groonga.table_type", "pat", {"pat", "hash"}) == "hash";
  const auto& value_type = ChoiceProperty(props, "groonga.value_type", "LongText", kValueTypes);
  o.value_type_name = value_type.name;
  o.value_type = value_type.value;
  const auto& compression = ChoiceProperty(props, "groonga.compression", "none", kCompressions);
  o.compression_name = compression.name;
  o.compression = compression.value;
  o.lockfree_reads = props.GetBool("groonga.lockfree_reads", false);
  o.clear_lock = props.GetBool("groonga.clear_lock", false);
  o.destroy = props.GetBool("groonga.destroy", false);
  return o;
}

void EncodeName(std::string_view name, std::string* out) {
  out->clear();
  if (IsPlainName(name)) {
    out->append(name);
  } else {
    AppendHexName(name, out);
  }
}

bool DecodeName(std::string_view column, std::string* out) {
  out->clear();
  if (!column.starts_with("x_")) {
    out->append(column);
    return true;
  }
  return AppendHexBytes(column.substr(2), out);
}

std::string ErrorOf(grn_ctx* ctx) {
  std::string msg = ctx->errbuf;
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  if (msg.empty()) msg = "unknown error";
  return msg + " (rc " + std::to_string(static_cast<int>(ctx->rc)) + ")";
}

GroongaStore::GroongaStore(const GroongaOptions& o) : opts_(o) {
  PrepareStoreDir("groonga.dir", o.dir);
  LockDir();
  try {
    if (o.destroy) Destroy();
    GroongaLibrary::Acquire();
    library_ = true;
    grn_ctx_init(&ctx_, 0);
    ctx_ready_ = true;
    OpenDb();
    CheckLocks();
    LoadTables();
  } catch (...) {
    Shutdown();
    throw;
  }
}

Capabilities GroongaStore::capabilities() const {
  Capabilities c;
  c.scan = !hash_;
  if (!c.scan) {
    c.why_no_scan = opts_.hash ? "groonga.table_type=hash keeps no key order"
                               : "the tables in groonga.dir are hash tables (groonga.table_type=hash), without key order";
  }
  c.persistent = true;
  c.atomic_update = true;  // every write holds the store-wide lock exclusively
  return c;
}

std::optional<std::uint64_t> GroongaStore::DiskUsageBytes() {
  if (db_ != nullptr) {
    std::unique_lock lock(rw_);
    grn_obj_flush_recursive(&ctx_, db_);
  }
  return DiskBytes(opts_.dir);
}

std::vector<std::pair<std::string, std::string>> GroongaStore::Stats() {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("groonga.version", grn_get_version());
  if (db_ == nullptr) return out;
  std::unique_lock lock(rw_);
  out.emplace_back("groonga.table_type", hash_ ? "hash" : "pat");
  out.emplace_back("groonga.value_type", opts_.value_type_name);
  out.emplace_back("groonga.compression", opts_.compression_name);
  out.emplace_back("groonga.lockfree_reads", opts_.lockfree_reads ? "true" : "false");
  if (cleared_lock_) out.emplace_back("groonga.cleared_stale_lock", "true");
  std::string names;
  std::uint64_t records = 0, columns = 0;
  {
    std::lock_guard tl(tables_mu_);
    for (const auto& t : tables_) {
      names += (names.empty() ? "" : ",") + t->name;
      records += grn_table_size(&ctx_, t->table);
      grn_hash* cols = grn_hash_create(&ctx_, nullptr, sizeof(grn_id), 0, GRN_OBJ_TABLE_HASH_KEY | GRN_HASH_TINY);
      if (cols != nullptr) {
        int n = grn_table_columns(&ctx_, t->table, "", 0, reinterpret_cast<grn_obj*>(cols));
        if (n > 0) columns += static_cast<std::uint64_t>(n) - 1;  // not x__fields
        grn_hash_close(&ctx_, cols);
      }
    }
  }
  out.emplace_back("groonga.tables", names);
  out.emplace_back("groonga.records", std::to_string(records));
  out.emplace_back("groonga.field_columns", std::to_string(columns));
  if (auto usage = MeasurePath(opts_.dir)) out.emplace_back("groonga.file_bytes", std::to_string(usage->file_bytes));
  return out;
}

void GroongaStore::Close() {
  if (db_ == nullptr) return;
  std::string error;
  {
    std::unique_lock lock(rw_);
    if (grn_obj_flush_recursive(&ctx_, db_) != GRN_SUCCESS) error = "flush on close failed: " + ErrorOf(&ctx_);
    grn_rc rc = grn_obj_close(&ctx_, db_);
    if (rc != GRN_SUCCESS && error.empty()) error = "close failed: " + ErrorOf(&ctx_);
    db_ = nullptr;
  }
  Shutdown();
  if (!error.empty()) throw SetupError("groonga.dir '" + opts_.dir + "': " + error);
}

TableState* GroongaStore::FindTable(grn_ctx* ctx, std::string_view table, bool create, bool* error) {
  *error = false;
  std::lock_guard lock(tables_mu_);
  for (const auto& t : tables_) {
    if (t->name == table) return t.get();
  }
  if (!create) return nullptr;
  auto t = std::make_unique<TableState>();
  t->name.assign(table);
  EncodeName(table, &t->gname);
  if (grn_ctx_get(ctx, t->gname.data(), static_cast<int>(t->gname.size())) != nullptr) {
    *error = true;  // a Groonga object (built-in or foreign) has the name
    return nullptr;
  }
  t->pat = !hash_;
  t->table = grn_table_create(ctx, t->gname.data(), static_cast<unsigned>(t->gname.size()), nullptr,
                              GRN_OBJ_PERSISTENT | (hash_ ? GRN_OBJ_TABLE_HASH_KEY : GRN_OBJ_TABLE_PAT_KEY),
                              grn_ctx_at(ctx, GRN_DB_SHORT_TEXT), nullptr);
  if (t->table != nullptr) {
    t->fields = grn_column_create(ctx, t->table, kFieldsColumn.data(), static_cast<unsigned>(kFieldsColumn.size()),
                                  nullptr, GRN_OBJ_PERSISTENT | GRN_OBJ_COLUMN_VECTOR,
                                  grn_ctx_at(ctx, GRN_DB_UINT32));
  }
  if (t->table == nullptr || t->fields == nullptr) {
    if (t->table != nullptr) grn_obj_remove(ctx, t->table);
    *error = true;
    return nullptr;
  }
  tables_.push_back(std::move(t));
  return tables_.back().get();
}

void GroongaStore::LockDir() {
  dir_fd_ = ::open(opts_.dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) throw SetupError(What() + "cannot open: " + std::strerror(errno));
  if (::flock(dir_fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(dir_fd_);
    dir_fd_ = -1;
    if (err == EWOULDBLOCK) {
      throw SetupError(What() + "the database is locked, in use by another process or another store in this process");
    }
    throw SetupError(What() + "cannot lock: " + std::strerror(err));
  }
}

void GroongaStore::Destroy() {
  std::error_code ec;
  for (fs::directory_iterator it(opts_.dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name == kDbFile || name.starts_with(std::string(kDbFile) + ".")) {
      std::error_code rec;
      fs::remove_all(it->path(), rec);
      if (rec) throw SetupError(What() + "cannot remove " + it->path().string() + " (groonga.destroy=true): " + rec.message());
    }
  }
  if (ec) throw SetupError(What() + "cannot list (groonga.destroy=true): " + ec.message());
}

void GroongaStore::OpenDb() {
  const std::string path = DbPath();
  std::error_code ec;
  const bool exists = fs::exists(path, ec);
  if (exists && !LooksLikeGroongaFile(path)) {
    // Checked here because grn_db_open leaks on such a file (Groonga 13).
    throw SetupError(What() + "cannot open the Groonga database " + path +
                     ": not a Groonga database (no GROONGA:IO header)");
  }
  db_ = exists ? grn_db_open(&ctx_, path.c_str()) : grn_db_create(&ctx_, path.c_str(), nullptr);
  if (db_ == nullptr || ctx_.rc != GRN_SUCCESS) {
    std::string msg = What() + "cannot " + (exists ? "open" : "create") + " the Groonga database " + path + ": " +
                      ErrorOf(&ctx_);
    if (db_ != nullptr) grn_obj_close(&ctx_, db_);
    db_ = nullptr;
    throw SetupError(msg);
  }
}

bool GroongaStore::LooksLikeGroongaFile(const std::string& path) {
  char head[11] = {};
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  // let grn_db_open report why
  const ssize_t n = ::read(fd, head, sizeof head);
  ::close(fd);
  return n == static_cast<ssize_t>(sizeof head) && std::memcmp(head, "GROONGA:IO:", sizeof head) == 0;
}

template <typename F>
void GroongaStore::ForEachUserObject(F&& f) {
  grn_table_cursor* cur = grn_table_cursor_open(&ctx_, db_, nullptr, 0, nullptr, 0, 0, -1, 0);
  if (cur == nullptr) throw SetupError(What() + "cannot list the database's objects: " + ErrorOf(&ctx_));
  grn_id id;
  while ((id = grn_table_cursor_next(&ctx_, cur)) != GRN_ID_NIL) {
    grn_obj* obj = grn_ctx_at(&ctx_, id);
    if (obj == nullptr) {
      ctx_.rc = GRN_SUCCESS;  // e.g. a plugin that is not installed
      continue;
    }
    if (grn_obj_is_table(&ctx_, obj) || grn_obj_is_column(&ctx_, obj)) f(obj);
  }
  grn_table_cursor_close(&ctx_, cur);
}

std::string GroongaStore::NameOf(grn_obj* obj) {
  char buf[GRN_TABLE_MAX_KEY_SIZE];
  int len = grn_obj_name(&ctx_, obj, buf, sizeof buf);
  return std::string(buf, static_cast<std::size_t>(std::max(len, 0)));
}

void GroongaStore::CheckLocks() {
  std::vector<std::string> locked;
  if (grn_obj_is_locked(&ctx_, db_) != 0) locked.emplace_back("the database");
  ForEachUserObject([&](grn_obj* obj) {
    if (grn_obj_is_locked(&ctx_, obj) != 0) locked.push_back(NameOf(obj));
  });
  if (locked.empty()) return;
  if (!opts_.clear_lock) {
    std::string list;
    for (std::size_t i = 0; i < locked.size() && i < 5; ++i) list += (i ? ", " : "") + locked[i];
    if (locked.size() > 5) list += ", ...";
    throw SetupError(What() + "Groonga objects are locked (" + list +
                     "), left by a process that stopped while writing; if no other process uses the database, "
                     "set groonga.clear_lock=true to clear the locks");
  }
  if (grn_obj_clear_lock(&ctx_, db_) != GRN_SUCCESS) {
    throw SetupError(What() + "cannot clear the stale locks (groonga.clear_lock=true): " + ErrorOf(&ctx_));
  }
  cleared_lock_ = true;
}

void GroongaStore::LoadTables() {
  bool any_pat = false, any_hash = false;
  ForEachUserObject([&](grn_obj* obj) {
    if (!IsOurTableType(obj)) return;
    grn_obj* fields = grn_obj_column(&ctx_, obj, kFieldsColumn.data(), static_cast<unsigned>(kFieldsColumn.size()));
    if (fields == nullptr) return;
    auto t = std::make_unique<TableState>();
    t->gname = NameOf(obj);
    if (!DecodeName(t->gname, &t->name)) return;
    t->table = obj;
    t->fields = fields;
    t->pat = obj->header.type == GRN_TABLE_PAT_KEY;
    (t->pat ? any_pat : any_hash) = true;
    tables_.push_back(std::move(t));
  });
  hash_ = opts_.hash;
  const bool mismatch = opts_.hash ? any_pat : any_hash;
  if (mismatch && opts_.table_type_given) {
    std::string table;
    for (const auto& t : tables_) {
      if (t->pat == opts_.hash) table = t->name;
    }
    throw SetupError("groonga.table_type=" + std::string(opts_.hash ? "hash" : "pat") + " but table '" + table +
                     "' in groonga.dir '" + opts_.dir + "' is a " + (opts_.hash ? "patricia trie (pat)" : "hash") +
                     "; use groonga.table_type=" + (opts_.hash ? "pat" : "hash") + " or groonga.destroy=true");
  }
  if (any_pat && any_hash) {
    throw SetupError(What() + "holds both pat and hash tables; use groonga.destroy=true");
  }
  if (any_pat || any_hash) hash_ = any_hash;
}

void GroongaStore::Shutdown() {
  tables_.clear();
  if (db_ != nullptr) {
    grn_obj_flush_recursive(&ctx_, db_);
    grn_obj_close(&ctx_, db_);
    db_ = nullptr;
  }
  if (ctx_ready_) {
    grn_ctx_fin(&ctx_);
    ctx_ready_ = false;
  }
  if (library_) {
    GroongaLibrary::Release();
    library_ = false;
  }
  if (dir_fd_ >= 0) {
    ::close(dir_fd_);  // releases the flock
    dir_fd_ = -1;
  }
}
}  // namespace storebench::groonga
