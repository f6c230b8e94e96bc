// Binding "kyotocabinet": embedded Kyoto Cabinet (the system's
// libkyotocabinet), a file B+ tree (kc::TreeDB, the default) or a file hash
// (kc::HashDB).
//
// Layout: one database file per table (YCSB's `table`, "usertable" by
// default) inside kyotocabinet.dir: TABLE.kct for type=tree, TABLE.kch for
// type=hash (the extensions Kyoto Cabinet's own tools and PolyDB use). A
// record is one KC record: the key as given, the value in the shared record
// codec (db/record_codec.h). Table names are limited to [A-Za-z0-9_.-], not
// starting with '.', so that they are file names inside the directory; any
// other name makes the operation ERROR. Every table file already in the
// directory is opened when the store opens (so a file locked by another
// process is reported at once); a new table's file is created on the first
// insert into it. A read, update or delete of a table that was never written
// is NOT_FOUND (a scan returns nothing) and creates nothing.
//
// Concurrency: KC's databases are thread-safe (a global reader/writer lock
// plus per-record or per-page locks), so all sessions share one database
// object per table, found in a table map under a mutex; each session caches
// the last table it used (a string compare per operation) and keeps one KC
// cursor for scans on that table. Nothing is allocated per operation by
// this binding: reads and updates use KC's visitor interface, which hands
// the stored value to the binding in place (KC's get() would copy it into a
// new[] buffer), and the session reuses its encode/merge buffer.
//
// Operations:
//   Insert = set(encoded record) (creates or overwrites)
//   Update = accept() with a writable visitor: the stored record is merged
//            with the new fields (MergeRecord) and replaced while KC holds
//            the record's lock, so a concurrent update of the same key
//            cannot be lost (atomic read-modify-write); NOT_FOUND if missing
//   Read   = accept() with a read-only visitor + DecodeRecord; NOT_FOUND if
//            missing
//   Delete = remove(); NOT_FOUND if missing
//   Scan   = (tree only) the session's cursor jump(start_key), then up to
//            `count` records in key order (accept with step); fewer at the
//            end of the key space. type=hash keeps no key order: the store
//            declares scan=false and the CLI refuses a scan workload.
//
// Setup errors (thrown from `open`): ConfigError for a bad property or a
// combination that makes no sense (kyotocabinet.pccap with type=hash, a
// compressor this library lacks, a directory holding the other type's
// files); SetupError naming the path for a directory that cannot be
// created, a table file that cannot be opened, or one locked by another
// process (KC's fcntl lock, taken with OTRYLOCK, so the open fails at once
// instead of waiting) or by another store of this process (fcntl locks do
// not exclude the process that holds them, so stores register their
// directory in a process-wide set). Close() synchronizes and closes every
// table file; it throws SetupError if that fails.
#include <kccompress.h>
#include <kcdb.h>
#include <kchashdb.h>
#include <kcplantdb.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/property_choice.h"
#include "db/record_codec.h"
#include "db/store_dir.h"
#include "db/table_files.h"

namespace storebench {
namespace {

namespace kc = kyotocabinet;

constexpr char kDefaultDir[] = "storebench-data/kyotocabinet";
constexpr std::uint64_t kDefaultMsiz = 64ull << 20;   // KC's default mmap size (both types)
constexpr std::uint64_t kDefaultPccap = 64ull << 20;  // KC's default TreeDB page cache

enum class KcType { kTree, kHash };

// The compressors KC offers; each is stateless, so one static instance
// serves every database.
kc::ZLIBCompressor<kc::ZLIB::RAW> zlib_compressor;
kc::LZOCompressor<kc::LZO::RAW> lzo_compressor;
kc::LZMACompressor<kc::LZMA::RAW> lzma_compressor;

const NamedValue<kc::Compressor*> kCompressors[] = {  // null for none
    {"none", nullptr},
    {"zlib", &zlib_compressor},
    {"lzo", &lzo_compressor},
    {"lzma", &lzma_compressor},
};

// True when this libkyotocabinet was built with the compressor (KC's
// compress() returns NULL for one that was left out).
bool CompressorWorks(kc::Compressor* c) {
  static const char kProbe[] = "storebench probe storebench probe";
  std::size_t zsize = 0;
  char* z = c->compress(kProbe, sizeof kProbe, &zsize);
  if (z == nullptr) return false;
  std::size_t size = 0;
  char* back = c->decompress(z, zsize, &size);
  bool ok = back != nullptr && size == sizeof kProbe && std::equal(kProbe, kProbe + size, back);
  delete[] z;
  delete[] back;
  return ok;
}

// Typed options, read and validated once.
struct KcOptions {
  std::string dir;
  KcType type = KcType::kTree;
  std::int64_t bnum = 0;  // 0 = KC's default for the type
  std::int64_t msiz = static_cast<std::int64_t>(kDefaultMsiz);
  std::int64_t pccap = static_cast<std::int64_t>(kDefaultPccap);
  std::string compress = "none";
  kc::Compressor* compressor = nullptr;
  bool sync = false;
  bool destroy = false;

  const char* extension() const { return type == KcType::kTree ? ".kct" : ".kch"; }
  const char* other_extension() const { return type == KcType::kTree ? ".kch" : ".kct"; }
  const char* type_name() const { return type == KcType::kTree ? "tree" : "hash"; }
};

KcOptions ParseOptions(const Properties& props) {
  KcOptions o;
  o.dir = props.GetString("kyotocabinet.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'kyotocabinet.dir' is empty: expected a directory");
  o.type = props.GetChoice("kyotocabinet.type", "tree", {"tree", "hash"}) == "hash" ? KcType::kHash : KcType::kTree;
  o.bnum = props.GetInt("kyotocabinet.bnum", 0, 0, INT64_C(1) << 40);
  auto size_prop = [&](const char* name, std::uint64_t def, std::uint64_t max) {
    std::uint64_t v = props.GetSize(name, def);
    if (v > max) {
      throw ConfigError(std::string("property '") + name + "' = '" + props.Get(name).value_or("") + "' (" +
                        props.OriginOf(name) + "): expected at most " + std::to_string(max >> 30) + "G");
    }
    return static_cast<std::int64_t>(v);
  };
  o.msiz = size_prop("kyotocabinet.msiz", kDefaultMsiz, 1ull << 40);
  o.pccap = size_prop("kyotocabinet.pccap", kDefaultPccap, 1ull << 40);
  if (o.type == KcType::kHash && props.Has("kyotocabinet.pccap")) {
    throw ConfigError("property 'kyotocabinet.pccap' (" + props.OriginOf("kyotocabinet.pccap") +
                      ") is the tree page cache: it has no effect with kyotocabinet.type=hash");
  }
  const auto& compressor = ChoiceProperty(props, "kyotocabinet.compress", "none", kCompressors);
  o.compress = compressor.name;
  o.compressor = compressor.value;
  if (o.compressor != nullptr && !CompressorWorks(o.compressor)) {
    const std::string have = AvailableChoices(kCompressors, CompressorWorks);
    throw ConfigError("property 'kyotocabinet.compress' = '" + o.compress + "' (" +
                      props.OriginOf("kyotocabinet.compress") +
                      "): this Kyoto Cabinet was built without it; available: " + have);
  }
  o.sync = props.GetBool("kyotocabinet.sync", false);
  o.destroy = props.GetBool("kyotocabinet.destroy", false);
  return o;
}

std::string ErrorText(kc::BasicDB* db) {
  kc::BasicDB::Error e = db->error();
  return std::string(e.name()) + ": " + e.message();
}

bool IsNoRecord(kc::BasicDB* db) { return db->error().code() == kc::BasicDB::Error::NOREC; }

// The visitors run inside KC with the record (or page) locked: they must not
// throw, so each catches and records the failure.

// Read: decodes the stored record into the caller's RecordSet.
class ReadVisitor final : public kc::DB::Visitor {
 public:
  ReadVisitor(const FieldSelector& fields, RecordSet* out, bool with_key) : fields_(fields), out_(out), with_key_(with_key) {}
  bool found = false;
  bool failed = false;

 private:
  const char* visit_full(const char* kbuf, std::size_t ksiz, const char* vbuf, std::size_t vsiz,
                         std::size_t*) override {
    found = true;
    try {
      if (with_key_) out_->BeginRecord(std::string_view(kbuf, ksiz));
      if (!DecodeRecord(std::string_view(vbuf, vsiz), fields_, out_)) failed = true;
    } catch (...) {
      failed = true;
    }
    return NOP;
  }
  const FieldSelector& fields_;
  RecordSet* out_;
  bool with_key_;
};

// Update: replaces the stored record with the merge, under the record lock.
class UpdateVisitor final : public kc::DB::Visitor {
 public:
  UpdateVisitor(std::span<const Field> values, std::string* buf) : values_(values), buf_(buf) {}
  bool found = false;
  bool failed = false;

 private:
  const char* visit_full(const char*, std::size_t, const char* vbuf, std::size_t vsiz, std::size_t* sp) override {
    found = true;
    try {
      if (!MergeRecord(std::string_view(vbuf, vsiz), values_, buf_)) {
        failed = true;
        return NOP;
      }
    } catch (...) {
      failed = true;
      return NOP;
    }
    *sp = buf_->size();
    return buf_->data();
  }
  std::span<const Field> values_;
  std::string* buf_;
};

// One table: its file and the KC database shared by every session.
struct Table {
  std::string name;
  std::string path;
  std::unique_ptr<kc::BasicDB> db;
};

class KcStore;

class KcSession final : public Session {
 public:
  explicit KcSession(KcStore* store) : store_(store) {}
  ~KcSession() override { delete cursor_; }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      Table* t = FindTable(table, false);
      if (t == nullptr) return tables_.Missing();
      out->BeginRecord(key);
      ReadVisitor v(fields, out, false);
      if (!t->db->accept(key.data(), key.size(), &v, false) || v.failed) {
        out->Clear();
        return Status::Error();
      }
      if (!v.found) {
        out->Clear();
        return Status::NotFound();
      }
      return Status::Ok();
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override;

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      Table* t = FindTable(table, false);
      if (t == nullptr) return tables_.Missing();
      UpdateVisitor v(values, &buf_);
      if (!t->db->accept(key.data(), key.size(), &v, true) || v.failed) return Status::Error();
      return v.found ? Status::Ok() : Status::NotFound();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      Table* t = FindTable(table, true);
      if (t == nullptr) return Status::Error();
      EncodeRecord(values, &buf_);
      return t->db->set(key.data(), key.size(), buf_.data(), buf_.size()) ? Status::Ok() : Status::Error();
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      Table* t = FindTable(table, false);
      if (t == nullptr) return tables_.Missing();
      if (t->db->remove(key.data(), key.size())) return Status::Ok();
      return IsNoRecord(t->db.get()) ? Status::NotFound() : Status::Error();
    });
  }

 private:
  Table* FindTable(std::string_view table, bool create);

  KcStore* store_;
  TableCache<Table> tables_;
  kc::DB::Cursor* cursor_ = nullptr;  // on the cached table's database, created by the first scan
  std::string buf_;  // encoded or merged record
};

class KcStore final : public Store {
 public:
  explicit KcStore(const KcOptions& o)
      : opts_(o),
        files_({"kyotocabinet", o.dir, o.extension(), o.other_extension(), o.type_name(),
                o.type == KcType::kTree ? "hash" : "tree"},
               [this](const std::string& name, const std::string& path, bool fresh, std::string* why) {
                 return OpenTable(name, path, fresh, why);
               },
               [](Table& t, std::string* why) {
                 if (t.db->close()) return true;
                 *why = ErrorText(t.db.get());
                 return false;
               }) {
    files_.Open(opts_.destroy);
  }

  std::unique_ptr<Session> NewSession(int) override {
    files_.CheckOpen();
    return std::make_unique<KcSession>(this);
  }

  // Atomic updates: the merge runs in a visitor, under the record lock.
  Capabilities capabilities() const override { return files_.capabilities(opts_.type == KcType::kTree); }

  // Writes every table's dirty pages and metadata to the files (without
  // fsync), then sums the sizes of the files in the directory.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    for (Table* t : files_.All()) t->db->synchronize(false);
    return DiskBytes(opts_.dir);
  }

  // Summed over the tables: records and file bytes (KC's count() and size());
  // then each table's bnum, msiz, pccap (tree) and opts.
  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("kyotocabinet.version", kc::VERSION);
    out.emplace_back("kyotocabinet.type", opts_.type_name());
    if (files_.closed()) return out;
    std::int64_t count = 0, size = 0;
    for (Table* t : files_.All()) {
      count += std::max<std::int64_t>(t->db->count(), 0);
      size += std::max<std::int64_t>(t->db->size(), 0);
    }
    out.emplace_back("kyotocabinet.tables", files_.Names());
    out.emplace_back("kyotocabinet.count", std::to_string(count));
    out.emplace_back("kyotocabinet.size", std::to_string(size));
    out.emplace_back("kyotocabinet.compress", opts_.compress);
    // Each table's tuning as KC reports it: for a file that existed before,
    // bnum and opts are what it was created with, whatever the properties say.
    for (Table* t : files_.All()) {
      std::map<std::string, std::string> status;
      if (!t->db->status(&status)) continue;
      for (const char* k : {"bnum", "msiz", "pccap", "opts"}) {
        auto it = status.find(k);
        if (it != status.end()) out.emplace_back("kyotocabinet." + t->name + "." + k, it->second);
      }
    }
    return out;
  }

  void Close() override { files_.Close(); }

 private:
  // Opens one table file (cleared when `fresh`: kyotocabinet.destroy); on
  // failure returns nullptr and a one-line reason.
  std::unique_ptr<Table> OpenTable(const std::string& name, const std::string& path, bool fresh,
                                   std::string* why) {
    auto t = std::make_unique<Table>();
    t->name = name;
    t->path = path;
    std::int8_t kc_opts = opts_.compressor != nullptr ? kc::HashDB::TCOMPRESS : 0;
    if (opts_.type == KcType::kTree) {
      auto db = std::make_unique<kc::TreeDB>();
      db->tune_options(kc_opts);
      if (opts_.bnum > 0) db->tune_buckets(opts_.bnum);
      db->tune_map(opts_.msiz);
      db->tune_page_cache(opts_.pccap);
      if (opts_.compressor != nullptr) db->tune_compressor(opts_.compressor);
      t->db = std::move(db);
    } else {
      auto db = std::make_unique<kc::HashDB>();
      db->tune_options(kc_opts);
      if (opts_.bnum > 0) db->tune_buckets(opts_.bnum);
      db->tune_map(opts_.msiz);
      if (opts_.compressor != nullptr) db->tune_compressor(opts_.compressor);
      t->db = std::move(db);
    }
    std::uint32_t mode = kc::BasicDB::OWRITER | kc::BasicDB::OCREATE | kc::BasicDB::OTRYLOCK;
    if (opts_.sync) mode |= kc::BasicDB::OAUTOSYNC;
    if (!t->db->open(t->path, mode)) {
      kc::BasicDB::Error e = t->db->error();
      if (e.code() == kc::BasicDB::Error::SYSTEM && std::string_view(e.message()).find("fcntl") != std::string::npos) {
        *why = "the database is locked, in use by another process (" + std::string(e.name()) + ": " + e.message() +
               ")";
      } else {
        *why = "cannot open it as a kyotocabinet.type=" + std::string(opts_.type_name()) + " database (" +
               std::string(e.name()) + ": " + e.message() + ")";
      }
      return nullptr;
    }
    if (fresh && !t->db->clear()) {
      throw SetupError("kyotocabinet.dir '" + opts_.dir + "': cannot clear " + t->path +
                       " (kyotocabinet.destroy=true): " + ErrorText(t->db.get()));
    }
    return t;
  }

  KcOptions opts_;
  TableFiles<Table> files_;

  friend class KcSession;
};

Table* KcSession::FindTable(std::string_view table, bool create) {
  bool switched = false;
  Table* t = tables_.Find(store_->files_, table, create, &switched);
  if (switched) {
    delete cursor_;  // it belongs to the previous table's database
    cursor_ = nullptr;
  }
  return t;
}

Status KcSession::Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
                       const FieldSelector& fields, RecordSet* out) {
  return Guard([&] {
    out->Clear();
    if (store_->opts_.type != KcType::kTree) return Status::Error();  // capabilities().scan is false
    Table* t = FindTable(table, false);
    if (t == nullptr) return tables_.MissingScan();  // no table: no records
    if (count == 0) return Status::Ok();
    if (cursor_ == nullptr) cursor_ = t->db->cursor();
    if (!cursor_->jump(start_key.data(), start_key.size())) {
      return IsNoRecord(t->db.get()) ? Status::Ok() : Status::Error();  // nothing at or after start_key
    }
    ReadVisitor v(fields, out, true);
    for (std::uint64_t n = 0; n < count; ++n) {
      if (!cursor_->accept(&v, false, true)) {
        if (IsNoRecord(t->db.get())) break;  // the end of the table
        out->Clear();
        return Status::Error();
      }
      if (v.failed) {
        out->Clear();
        return Status::Error();
      }
    }
    return Status::Ok();
  });
}

}  // namespace

const BindingInfo& kyotocabinet_binding() {
  static const BindingInfo info{
      .name = "kyotocabinet",
      .summary = std::string("embedded Kyoto Cabinet ") + kc::VERSION +
                 " (file B+ tree or hash, one file per table; records in the shared codec)",
      .properties =
          {
              {"kyotocabinet.dir", kDefaultDir,
               "directory of the table files TABLE.kct/.kch (created with its parents if missing)"},
              {"kyotocabinet.type", "tree", "tree (TreeDB, ordered: scans) or hash (HashDB: no key order, no scans)"},
              {"kyotocabinet.bnum", "0",
               "hash buckets of a new file (0 = KC's default: 1048583 for hash, 65536 for tree)"},
              {"kyotocabinet.msiz", "64M", "size of the memory-mapped region of each file (k/M/G suffixes)"},
              {"kyotocabinet.pccap", "64M", "tree page cache per table in bytes (type=tree only)"},
              {"kyotocabinet.compress", "none",
               "record (hash) or page (tree) compression of a new file: none, zlib, lzo or lzma"},
              {"kyotocabinet.sync", "false", "synchronize every update to the device (OAUTOSYNC)"},
              {"kyotocabinet.destroy", "false", "clear every table before use (a clean load)"},
          },
      .open = OpenStore<KcStore, ParseOptions>,
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
