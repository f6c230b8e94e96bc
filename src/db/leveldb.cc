// Binding "leveldb": an embedded LevelDB (the system's libleveldb).
//
// One leveldb::DB is opened per process by the Store and shared by every
// Session (LevelDB's DB is thread-safe; writes from many threads are grouped
// by LevelDB itself). Each Session owns its reusable buffers (the prefixed
// key, the value of the last Get, the encoded record), so an operation
// allocates nothing beyond what LevelDB itself does (a scan's iterator).
// Sessions never throw and never crash on LevelDB errors: they return
// Status::Error().
//
// Layout: LevelDB has no column families, so all tables share one key space
// and each table's keys carry a prefix: the table name and one NUL byte,
// i.e. "usertable\0user123" (10 bytes per key for YCSB's one table). A
// table's keys are therefore contiguous and sorted by the YCSB key, and no
// table's range overlaps another's (NUL sorts first; a table name that
// itself contains a NUL byte is refused with BAD_REQUEST). The value is the
// record in the shared record codec (db/record_codec.h). A read, update or
// delete of a table that was never written is NOT_FOUND (a scan returns
// nothing); tables need no creation.
//
// Operations, as in YCSB's LevelDB/RocksDB bindings:
//   Insert = Put(encoded record) (creates or overwrites)
//   Update = Get + MergeRecord + Put (read-modify-write, not atomic against
//            a concurrent update of the same key); NOT_FOUND if missing
//   Read   = Get + DecodeRecord; NOT_FOUND if missing
//   Delete = Delete (blind: OK whether or not the key existed)
//   Scan   = iterator Seek(prefix + start_key), then up to `count` records
//            in key order, stopping at the end of the table's prefix
//
// Not supported: transactions (LevelDB has batches but no read-modify-write
// isolation), compression other than snappy (LevelDB 1.23 has no other).
//
// DiskUsageBytes() measures the directory as it is (SST files, the log,
// MANIFEST, LOG): LevelDB has no flush API, and forcing the memtable out
// with CompactRange would rewrite the whole database and distort the run.
// What is still in the memtable is on disk in the write-ahead log file.
//
// Setup errors (ConfigError for a bad property; SetupError for a directory
// that cannot be created, a database locked by another process or another
// store in this process, a database that cannot be opened) are thrown from
// `open`, with a one-line message naming leveldb.dir and the path. Close()
// deletes the DB (LevelDB's only way to close it; it cannot fail).
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/write_batch.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/record_codec.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

constexpr char kDefaultDir[] = "storebench-data/leveldb";
// LevelDB 1.23's own defaults (its internal block cache is 8 MiB too), but
// with a bloom filter: LevelDB has none by default, and without one every
// read of a missing key (and every level probed) costs a block read.
constexpr std::uint64_t kDefaultCacheSize = 8ull << 20;
constexpr std::uint64_t kDefaultWriteBufferSize = 4ull << 20;
constexpr std::uint64_t kDefaultBlockSize = 4ull << 10;
constexpr int kDefaultBloomBits = 10;
constexpr int kDefaultMaxOpenFiles = 1000;
// The ranges LevelDB would silently clip to (db_impl.cc SanitizeOptions):
// refused here instead, so that what is asked is what runs.
constexpr std::uint64_t kMinWriteBufferSize = 64ull << 10, kMaxWriteBufferSize = 1ull << 30;
constexpr std::uint64_t kMinBlockSize = 1ull << 10, kMaxBlockSize = 4ull << 20;
constexpr int kMinOpenFiles = 74, kMaxOpenFiles = 50000;
constexpr int kLevels = 7;  // leveldb::config::kNumLevels

constexpr char kSeparator = '\0';  // between the table name and the key

// Typed options, read and validated once.
struct LevelOptions {
  std::string dir;
  std::uint64_t cache_size = kDefaultCacheSize;
  std::uint64_t write_buffer_size = kDefaultWriteBufferSize;
  std::uint64_t block_size = kDefaultBlockSize;
  int bloom_bits = kDefaultBloomBits;
  int max_open_files = kDefaultMaxOpenFiles;
  bool snappy = true;
  bool sync = false;
  bool destroy = false;
};

std::uint64_t GetSizeIn(const Properties& props, const std::string& key, std::uint64_t def, std::uint64_t min,
                        std::uint64_t max, const char* range) {
  std::uint64_t v = props.GetSize(key, def);
  if (v < min || v > max) {
    throw ConfigError("property '" + key + "' = '" + props.Get(key).value_or("") + "' (" +
                      props.OriginOf(key) + "): expected " + range);
  }
  return v;
}

LevelOptions ParseOptions(const Properties& props) {
  LevelOptions o;
  o.dir = props.GetString("leveldb.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'leveldb.dir' is empty: expected a directory");
  o.cache_size = props.GetSize("leveldb.cache_size", kDefaultCacheSize);
  o.write_buffer_size = GetSizeIn(props, "leveldb.write_buffer_size", kDefaultWriteBufferSize,
                                  kMinWriteBufferSize, kMaxWriteBufferSize, "64k to 1G");
  o.block_size =
      GetSizeIn(props, "leveldb.block_size", kDefaultBlockSize, kMinBlockSize, kMaxBlockSize, "1k to 4M");
  o.bloom_bits = static_cast<int>(props.GetInt("leveldb.bloom_bits", kDefaultBloomBits, 0, 64));
  o.max_open_files = static_cast<int>(
      props.GetInt("leveldb.max_open_files", kDefaultMaxOpenFiles, kMinOpenFiles, kMaxOpenFiles));
  o.snappy = props.GetChoice("leveldb.compression", "snappy", {"none", "snappy"}) == "snappy";
  o.sync = props.GetBool("leveldb.sync", false);
  o.destroy = props.GetBool("leveldb.destroy", false);
  return o;
}

// LevelDB's PosixEnv reports a LOCK file held by another process as
// "IO error: lock DIR/LOCK: Resource temporarily unavailable" and one held
// in this process as "IO error: lock DIR/LOCK: already held by process".
bool IsLockError(const leveldb::Status& s) {
  if (!s.IsIOError()) return false;
  const std::string msg = s.ToString();
  return msg.rfind("IO error: lock ", 0) == 0 && msg.find("/LOCK") != std::string::npos;
}

leveldb::Slice ToSlice(std::string_view s) { return leveldb::Slice(s.data(), s.size()); }
std::string_view View(const leveldb::Slice& s) { return std::string_view(s.data(), s.size()); }

class LevelSession final : public Session {
 public:
  LevelSession(leveldb::DB* db, bool sync) : db_(db) { write_options_.sync = sync; }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      if (!SetKey(table, key)) return Status(Status::kBadRequest);
      leveldb::Status s = db_->Get(read_options_, ToSlice(key_), &value_);
      if (s.IsNotFound()) return Status::NotFound();
      if (!s.ok()) return Status::Error();
      return DecodeReadResult(key, value_, fields, out);
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
              const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      if (!SetKey(table, start_key)) return Status(Status::kBadRequest);
      if (count == 0) return Status::Ok();
      std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(read_options_));
      const std::size_t plen = prefix_.size();
      std::uint64_t n = 0;
      for (it->Seek(ToSlice(key_)); n < count && it->Valid(); it->Next(), ++n) {
        std::string_view k = View(it->key());
        if (k.size() < plen || std::memcmp(k.data(), prefix_.data(), plen) != 0) break;  // past the table
        out->BeginRecord(k.substr(plen));
        if (!DecodeRecord(View(it->value()), fields, out)) return Status::Error();
      }
      if (!it->status().ok()) return Status::Error();
      return Status::Ok();
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      if (!SetKey(table, key)) return Status(Status::kBadRequest);
      leveldb::Status s = db_->Get(read_options_, ToSlice(key_), &value_);
      if (s.IsNotFound()) return Status::NotFound();
      if (!s.ok()) return Status::Error();
      if (!MergeRecord(value_, values, &buf_)) return Status::Error();
      return Put();
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      if (!SetKey(table, key)) return Status(Status::kBadRequest);
      EncodeRecord(values, &buf_);
      return Put();
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      if (!SetKey(table, key)) return Status(Status::kBadRequest);
      return db_->Delete(write_options_, ToSlice(key_)).ok() ? Status::Ok() : Status::Error();
    });
  }

  // One WriteBatch (reused: it keeps its buffer) written at once: atomic.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    return Guard([&] {
      if (batch.empty()) return Status::Ok();
      write_batch_.Clear();
      for (std::size_t i = 0; i < batch.size(); ++i) {
        if (!SetKey(table, batch.key(i))) return Status(Status::kBadRequest);
        EncodeRecord(batch.values(i), &buf_);
        write_batch_.Put(ToSlice(key_), leveldb::Slice(buf_));
      }
      return db_->Write(write_options_, &write_batch_).ok() ? Status::Ok() : Status::Error();
    });
  }

 private:
  // key_ = table + NUL + key, reusing the buffer; the prefix is rebuilt only
  // when the table changes. False for a table name containing NUL (its
  // range would overlap another table's).
  bool SetKey(std::string_view table, std::string_view key) {
    if (prefix_.size() != table.size() + 1 || std::string_view(prefix_).substr(0, table.size()) != table) {
      if (table.find(kSeparator) != std::string_view::npos) return false;
      prefix_.assign(table.data(), table.size());
      prefix_.push_back(kSeparator);
    }
    key_.assign(prefix_);
    key_.append(key.data(), key.size());
    return true;
  }

  Status Put() {
    return db_->Put(write_options_, ToSlice(key_), leveldb::Slice(buf_)).ok() ? Status::Ok()
                                                                              : Status::Error();
  }

  leveldb::DB* db_;
  leveldb::ReadOptions read_options_;
  leveldb::WriteOptions write_options_;
  std::string prefix_;  // table + NUL of the last operation
  std::string key_;     // prefix_ + key
  std::string value_;   // value of the last Get
  std::string buf_;     // encoded or merged record
  leveldb::WriteBatch write_batch_;  // BatchInsert's, reused
};

class LevelStore final : public Store {
 public:
  explicit LevelStore(const LevelOptions& o) : opts_(o) {
    // Checked before DestroyDB, so that a store locked elsewhere is reported
    // as locked and never wiped (DestroyDB takes the lock too).
    PrepareStoreDir("leveldb.dir", o.dir);
    cache_.reset(leveldb::NewLRUCache(static_cast<std::size_t>(o.cache_size)));
    if (o.bloom_bits > 0) filter_.reset(leveldb::NewBloomFilterPolicy(o.bloom_bits));
    leveldb::Options options;
    options.create_if_missing = true;
    options.block_cache = cache_.get();  // capacity 0 caches nothing (LevelDB 1.23's LRUCache)
    options.filter_policy = filter_.get();
    options.write_buffer_size = static_cast<std::size_t>(o.write_buffer_size);
    options.block_size = static_cast<std::size_t>(o.block_size);
    options.max_open_files = o.max_open_files;
    options.compression = o.snappy ? leveldb::kSnappyCompression : leveldb::kNoCompression;
    if (o.destroy) {
      leveldb::Status s = leveldb::DestroyDB(o.dir, options);
      if (!s.ok()) {
        if (IsLockError(s)) throw LockedError(s);
        throw SetupError("leveldb.dir '" + o.dir +
                         "': cannot destroy the database (leveldb.destroy=true): " + s.ToString());
      }
      PrepareStoreDir("leveldb.dir", o.dir);  // DestroyDB removes the directory
    }
    leveldb::DB* db = nullptr;
    leveldb::Status s = leveldb::DB::Open(options, o.dir, &db);
    if (!s.ok()) {
      if (IsLockError(s)) throw LockedError(s);
      throw SetupError("leveldb.dir '" + o.dir + "': cannot open the database: " + s.ToString());
    }
    db_.reset(db);
  }

  ~LevelStore() override { db_.reset(); }  // before the cache and filter it uses

  std::unique_ptr<Session> NewSession(int) override {
    if (!db_) throw SetupError("leveldb: NewSession after Close");
    return std::make_unique<LevelSession>(db_.get(), opts_.sync);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.native_batch_insert = true;  // one WriteBatch
    c.atomic_update = false;  // read-merge-write, as YCSB's binding
    return c;
  }

  // The directory as it is: SST files plus the write-ahead log that holds
  // the memtable's contents (see the header comment for why no flush).
  std::optional<std::uint64_t> DiskUsageBytes() override { return DiskBytes(opts_.dir); }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("leveldb.version",
                     std::to_string(leveldb::kMajorVersion) + "." + std::to_string(leveldb::kMinorVersion));
    if (!db_) return out;
    std::string v;
    if (db_->GetProperty("leveldb.approximate-memory-usage", &v))
      out.emplace_back("leveldb.approximate-memory-usage", v);
    for (int level = 0; level < kLevels; ++level) {
      const std::string p = "leveldb.num-files-at-level" + std::to_string(level);
      if (db_->GetProperty(p, &v)) out.emplace_back(p, v);
    }
    if (db_->GetProperty("leveldb.sstables", &v)) {
      auto [files, bytes] = SummarizeSstables(v);
      out.emplace_back("leveldb.sstables.count", std::to_string(files));
      out.emplace_back("leveldb.sstables.bytes", std::to_string(bytes));
    }
    std::string tables;
    for (const std::string& t : Tables()) {
      tables += (tables.empty() ? "" : ",") + t;
      // The SST bytes of the table's key range (the memtable is not counted).
      std::string start = t + kSeparator, limit = t + static_cast<char>(kSeparator + 1);
      leveldb::Range r(start, limit);
      std::uint64_t size = 0;
      db_->GetApproximateSizes(&r, 1, &size);
      out.emplace_back("leveldb.approximate-size." + t, std::to_string(size));
    }
    out.emplace_back("leveldb.tables", tables);
    if (db_->GetProperty("leveldb.stats", &v)) out.emplace_back("leveldb.stats", v);
    return out;
  }

  void Close() override { db_.reset(); }

 private:
  SetupError LockedError(const leveldb::Status& s) const {
    return SetupError(
        "leveldb.dir '" + opts_.dir +
        "': the database is locked, in use by another process or another store in this process (" +
        s.ToString() + ")");
  }

  // The tables present: one Seek per table, skipping each one's range.
  std::vector<std::string> Tables() {
    std::vector<std::string> out;
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(leveldb::ReadOptions()));
    for (it->SeekToFirst(); it->Valid();) {
      std::string_view k = View(it->key());
      std::size_t sep = k.find(kSeparator);
      if (sep == std::string_view::npos) break;  // not written by storebench
      std::string table(k.substr(0, sep));
      out.push_back(table);
      it->Seek(table + static_cast<char>(kSeparator + 1));
    }
    return out;
  }

  // "leveldb.sstables" lists one line per file, " NUMBER:SIZE[...]", under
  // "--- level N ---" headings: the number of files and their total size.
  static std::pair<std::uint64_t, std::uint64_t> SummarizeSstables(const std::string& text) {
    std::uint64_t files = 0, bytes = 0;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("---", 0) == 0) continue;
      std::size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      ++files;
      bytes += std::strtoull(line.c_str() + colon + 1, nullptr, 10);
    }
    return {files, bytes};
  }

  LevelOptions opts_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;  // declared last: destroyed first
};

}  // namespace

const BindingInfo& leveldb_binding() {
  static const BindingInfo info{
      .name = "leveldb",
      .summary = "embedded LevelDB " + std::to_string(leveldb::kMajorVersion) + "." +
                 std::to_string(leveldb::kMinorVersion) +
                 " (one shared DB, per-thread sessions; tables as key prefixes, records in the shared codec)",
      .properties =
          {
              {"leveldb.dir", kDefaultDir, "database directory (created with its parents if missing)"},
              {"leveldb.cache_size", "8M",
               "LRU block cache size in bytes (k/M/G suffixes; 0 = no block cache)"},
              {"leveldb.write_buffer_size", "4M",
               "memtable size in bytes before it is written out (64k to 1G)"},
              {"leveldb.bloom_bits", "10",
               "bloom filter bits per key (0 = no filter, LevelDB's own default)"},
              {"leveldb.compression", "snappy", "block compression: none or snappy"},
              {"leveldb.sync", "false", "sync every write to disk (WriteOptions::sync)"},
              {"leveldb.max_open_files", "1000", "files LevelDB keeps open (table cache; 74 to 50000)"},
              {"leveldb.block_size", "4k", "uncompressed bytes per data block (1k to 4M)"},
              {"leveldb.destroy", "false", "wipe the database before opening it (a clean load)"},
          },
      .open = OpenStore<LevelStore, ParseOptions>,
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
