// Binding "rocksdb": an embedded RocksDB (the system's librocksdb).
//
// One rocksdb::DB is opened per process by the Store and shared by every
// Session (RocksDB's DB is thread-safe). Each Session owns its reusable
// buffers (the encoded record, a PinnableSlice for reads), so an operation
// allocates nothing beyond what RocksDB itself does. Sessions never throw and
// never crash on RocksDB errors: they return Status::Error().
//
// Records are stored with the shared record codec (db/record_codec.h) under
// the key as given, in one column family per table (YCSB's `table`,
// "usertable" by default), created on the first write to that table and
// opened again, with the same options, when the database is reopened. A
// read, update or delete of a table that was never written is NOT_FOUND (a
// scan returns nothing). Sessions remember the last table's handle, so the
// lookup costs a string compare.
//
// Operations, as in YCSB's RocksDB binding:
//   Insert = Put(encoded record) (creates or overwrites)
//   Update = Get + MergeRecord + Put (read-modify-write, not atomic against
//            a concurrent update of the same key); NOT_FOUND if missing.
//            With rocksdb.transactiondb=true the database is a pessimistic
//            TransactionDB and an update is GetForUpdate + Put + Commit in
//            one transaction: atomic (a concurrent update of the same key
//            waits for its lock, then is ABORTED after the lock timeout,
//            1 s by default).
//   Read   = Get + DecodeRecord; NOT_FOUND if missing
//   Transactions (Session::Begin, workload=closedeconomy) need
//            rocksdb.transactions=pessimistic (a TransactionDB, the same as
//            rocksdb.transactiondb=true: reads inside are GetForUpdate and
//            lock the key; a lock not had within the lock timeout is
//            ABORTED) or optimistic (an OptimisticTransactionDB: reads are
//            GetForUpdate and tracked, and Commit fails with ABORTED when a
//            key read was written by someone else since). Writes inside
//            are buffered in the transaction until Commit.
//   Delete = Delete (blind: OK whether or not the key existed)
//   Scan   = iterator Seek(start_key), then up to `count` records in key
//            order; fewer at the end of the key space
//
// With rocksdb.statistics=true, RocksDB's own tickers and histograms are
// collected (a few percent of throughput, RocksDB's own estimate) and
// reported in Stats(), i.e. in the JSON result's store_stats.
//
// Setup errors (ConfigError for a bad property, SetupError for a directory
// that cannot be created, an options file that cannot be loaded, a database
// locked by another process or store) are thrown from `open`, with a
// one-line message naming the path. Close() flushes the memtables and closes
// the database; it throws SetupError if that fails (data may be lost).
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/statistics.h>
#include <rocksdb/utilities/optimistic_transaction_db.h>
#include <rocksdb/utilities/options_util.h>
#include <rocksdb/utilities/transaction.h>
#include <rocksdb/utilities/transaction_db.h>
#include <rocksdb/version.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/property_choice.h"
#include "db/record_codec.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

constexpr char kDefaultDir[] = "storebench-data/rocksdb";
// RocksDB 7.8's own defaults: an 8 MiB LRU block cache is what the
// block-based table creates when none is given; 64 MiB memtables.
constexpr std::uint64_t kDefaultCacheSize = 8ull << 20;
constexpr std::uint64_t kDefaultWriteBufferSize = 64ull << 20;

constexpr NamedValue<rocksdb::CompressionType> kCompressions[] = {
    {"none", rocksdb::kNoCompression},
    {"snappy", rocksdb::kSnappyCompression},
    {"lz4", rocksdb::kLZ4Compression},
    {"zstd", rocksdb::kZSTD},
};

// Typed options, read and validated once.
struct RocksOptions {
  std::string dir;
  std::string options_file;                 // "" = none
  std::optional<std::uint64_t> cache_size;  // set when given or no options file
  std::optional<rocksdb::CompressionType> compression;
  std::optional<std::uint64_t> write_buffer_size;
  bool sync = false;
  bool destroy = false;
  bool transactiondb = false;  // pessimistic TransactionDB: atomic read-modify-write updates
  std::string transactions = "none";  // none | pessimistic | optimistic
  bool statistics = false;     // rocksdb::Statistics, reported in Stats()
};

RocksOptions ParseOptions(const Properties& props) {
  RocksOptions o;
  o.dir = props.GetString("rocksdb.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'rocksdb.dir' is empty: expected a directory");
  o.options_file = props.GetString("rocksdb.optionsfile", "");
  // With an options file, only properties given explicitly override it.
  const bool defaults_apply = o.options_file.empty();

  const bool cache_given = props.Has("rocksdb.cache_size");
  auto cache = props.GetSize("rocksdb.cache_size", kDefaultCacheSize);
  if (cache_given || defaults_apply) o.cache_size = cache;

  const bool wbs_given = props.Has("rocksdb.write_buffer_size");
  auto wbs = props.GetSize("rocksdb.write_buffer_size", kDefaultWriteBufferSize);
  if (wbs < (64u << 10)) {
    throw ConfigError("property 'rocksdb.write_buffer_size' = '" + props.Get("rocksdb.write_buffer_size").value_or("") +
                      "' (" + props.OriginOf("rocksdb.write_buffer_size") + "): expected at least 64k");
  }
  if (wbs_given || defaults_apply) o.write_buffer_size = wbs;

  const bool comp_given = props.Has("rocksdb.compression");
  const auto& chosen = ChoiceProperty(props, "rocksdb.compression", "snappy", kCompressions);
  const std::string comp = chosen.name;
  const rocksdb::CompressionType type = chosen.value;
  const auto supported = rocksdb::GetSupportedCompressions();
  auto compiled_in = [&](rocksdb::CompressionType t) {
    return std::find(supported.begin(), supported.end(), t) != supported.end();
  };
  if ((comp_given || defaults_apply) && type != rocksdb::kNoCompression && !compiled_in(type)) {
    const std::string have = AvailableChoices(kCompressions, compiled_in);
    throw ConfigError("property 'rocksdb.compression' = '" + comp + "' (" +
                      (comp_given ? props.OriginOf("rocksdb.compression") : std::string("default")) +
                      "): this RocksDB was built without it; available: " + have);
  }
  if (comp_given || defaults_apply) o.compression = type;

  o.sync = props.GetBool("rocksdb.sync", false);
  o.destroy = props.GetBool("rocksdb.destroy", false);
  o.transactiondb = props.GetBool("rocksdb.transactiondb", false);
  o.transactions = props.GetChoice("rocksdb.transactions", o.transactiondb ? "pessimistic" : "none",
                                   {"none", "pessimistic", "optimistic"});
  if (o.transactiondb && o.transactions != "pessimistic") {
    throw ConfigError("property 'rocksdb.transactiondb' = true (" + props.OriginOf("rocksdb.transactiondb") +
                      ") opens a pessimistic TransactionDB, but rocksdb.transactions = " + o.transactions);
  }
  o.transactiondb = o.transactions == "pessimistic";
  o.statistics = props.GetBool("rocksdb.statistics", false);
  return o;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// RocksDB's PosixEnv reports a LOCK file held by another process as "While
// lock file: DIR/LOCK: ..." and one held in this process as "lock hold by
// current process ...". (Matching just "lock" would misread a path such as
// /data/blocks.)
bool IsLockError(const rocksdb::Status& s) {
  if (!s.IsIOError()) return false;
  std::string msg = Lower(s.ToString());
  return msg.find("while lock file") != std::string::npos || msg.find("lock hold by") != std::string::npos;
}

rocksdb::Options BuildOptions(const RocksOptions& o) {
  rocksdb::Options options;
  if (!o.options_file.empty()) {
    rocksdb::ConfigOptions cfg;
    cfg.ignore_unknown_options = false;
    cfg.input_strings_escaped = true;
    cfg.env = rocksdb::Env::Default();
    rocksdb::DBOptions db_options;
    std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
    rocksdb::Status s = rocksdb::LoadOptionsFromFile(cfg, o.options_file, &db_options, &cfs);
    if (!s.ok()) {
      throw SetupError("rocksdb.optionsfile '" + o.options_file + "': cannot load: " + s.ToString());
    }
    rocksdb::ColumnFamilyOptions cf_options;
    for (const auto& cf : cfs) {
      if (cf.name == rocksdb::kDefaultColumnFamilyName) cf_options = cf.options;
    }
    options = rocksdb::Options(db_options, cf_options);
  }
  options.create_if_missing = true;
  if (o.statistics) options.statistics = rocksdb::CreateDBStatistics();
  if (o.write_buffer_size) options.write_buffer_size = static_cast<std::size_t>(*o.write_buffer_size);
  if (o.compression) {
    options.compression = *o.compression;
    options.compression_per_level.clear();  // so the choice applies to every level
  }
  if (o.cache_size) {
    rocksdb::BlockBasedTableOptions table;
    if (options.table_factory) {
      if (const auto* old = options.table_factory->GetOptions<rocksdb::BlockBasedTableOptions>()) table = *old;
    }
    if (*o.cache_size == 0) {
      table.no_block_cache = true;
      table.block_cache = nullptr;
    } else {
      table.no_block_cache = false;
      table.block_cache = rocksdb::NewLRUCache(static_cast<std::size_t>(*o.cache_size));
    }
    options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  }
  return options;
}

class RocksStore;

// One column family per table, created on first write and found again on
// reopen. Lookups take a shared lock; creation takes the exclusive one.
class ColumnFamilies {
 public:
  // The handle for `table`, or nullptr if it does not exist and `create` is
  // false (or creating it failed: *error is set then).
  rocksdb::ColumnFamilyHandle* Find(std::string_view table, bool create, rocksdb::Status* error) {
    {
      std::shared_lock lock(mu_);
      for (const auto& e : tables_) {
        if (e.first == table) return e.second;
      }
    }
    if (!create) return nullptr;
    std::unique_lock lock(mu_);
    for (const auto& e : tables_) {
      if (e.first == table) return e.second;
    }
    rocksdb::ColumnFamilyHandle* h = nullptr;
    *error = db_->CreateColumnFamily(cf_options_, std::string(table), &h);
    if (!error->ok()) return nullptr;
    tables_.emplace_back(std::string(table), h);
    return h;
  }
  void Adopt(rocksdb::DB* db, const rocksdb::ColumnFamilyOptions& cf_options,
             const std::vector<rocksdb::ColumnFamilyHandle*>& handles) {
    db_ = db;
    cf_options_ = cf_options;
    for (auto* h : handles) tables_.emplace_back(h->GetName(), h);
  }
  std::vector<rocksdb::ColumnFamilyHandle*> All() {
    std::shared_lock lock(mu_);
    std::vector<rocksdb::ColumnFamilyHandle*> out;
    for (const auto& e : tables_) out.push_back(e.second);
    return out;
  }
  // Destroys every handle (before the DB is closed).
  void Release() {
    std::unique_lock lock(mu_);
    for (auto& e : tables_) db_->DestroyColumnFamilyHandle(e.second);
    tables_.clear();
  }

 private:
  std::shared_mutex mu_;
  rocksdb::DB* db_ = nullptr;
  rocksdb::ColumnFamilyOptions cf_options_;
  std::vector<std::pair<std::string, rocksdb::ColumnFamilyHandle*>> tables_;
};

class RocksSession final : public Session {
 public:
  RocksSession(rocksdb::DB* db, rocksdb::TransactionDB* txn_db, rocksdb::OptimisticTransactionDB* otxn_db,
               ColumnFamilies* tables, bool sync)
      : db_(db), txn_db_(txn_db), otxn_db_(otxn_db), tables_(tables) {
    write_options_.sync = sync;
  }
  ~RocksSession() override {
    if (in_tx_) user_txn_->Rollback();
    delete user_txn_;
    delete txn_;
  }

  Status Begin(const TxOptions&) override {
    return Guard([&] {
      if (in_tx_) return Status::Error();
      if (txn_db_ != nullptr) {
        user_txn_ = txn_db_->BeginTransaction(write_options_, txn_options_, user_txn_);  // reuses the object
      } else if (otxn_db_ != nullptr) {
        user_txn_ = otxn_db_->BeginTransaction(write_options_, rocksdb::OptimisticTransactionOptions(), user_txn_);
      } else {
        return Status::NotImplemented();
      }
      in_tx_ = true;
      return Status::Ok();
    });
  }
  Status Commit() override {
    return Guard([&] {
      if (!in_tx_) return Status::Error();
      in_tx_ = false;
      return TxStatus(user_txn_->Commit());
    });
  }
  Status Abort() override {
    return Guard([&] {
      if (!in_tx_) return Status::Ok();
      in_tx_ = false;
      return user_txn_->Rollback().ok() ? Status::Ok() : Status::Error();
    });
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      rocksdb::ColumnFamilyHandle* cf = Table(table, false);
      if (cf == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      pin_.Reset();
      rocksdb::Status s = in_tx_ ? user_txn_->GetForUpdate(read_options_, cf, Slice(key), &pin_)
                                 : db_->Get(read_options_, cf, Slice(key), &pin_);
      if (s.IsNotFound()) return Status::NotFound();
      if (!s.ok()) return TxStatus(s);
      Status st = DecodeReadResult(key, View(pin_), fields, out);
      pin_.Reset();  // release a pinned block at once
      return st;
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      rocksdb::ColumnFamilyHandle* cf = Table(table, false);
      if (cf == nullptr) return table_error_ ? Status::Error() : Status::Ok();  // no table: no records
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(read_options_, cf));
      std::uint64_t n = 0;
      for (it->Seek(Slice(start_key)); n < count && it->Valid(); it->Next(), ++n) {
        out->BeginRecord(View(it->key()));
        if (!DecodeRecord(View(it->value()), fields, out)) return Status::Error();
      }
      if (!it->status().ok()) return Status::Error();
      return Status::Ok();
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      rocksdb::ColumnFamilyHandle* cf = Table(table, false);
      if (cf == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      if (in_tx_) {
        pin_.Reset();
        rocksdb::Status s = user_txn_->GetForUpdate(read_options_, cf, Slice(key), &pin_);
        if (s.IsNotFound()) return Status::NotFound();
        if (!s.ok()) return TxStatus(s);
        bool ok = MergeRecord(View(pin_), values, &buf_);
        pin_.Reset();
        if (!ok) return Status::Error();
        return TxStatus(user_txn_->Put(cf, Slice(key), rocksdb::Slice(buf_)));
      }
      if (txn_db_ != nullptr) return TransactionalUpdate(cf, key, values);
      pin_.Reset();
      rocksdb::Status s = db_->Get(read_options_, cf, Slice(key), &pin_);
      if (s.IsNotFound()) return Status::NotFound();
      if (!s.ok()) return Status::Error();
      bool ok = MergeRecord(View(pin_), values, &buf_);
      pin_.Reset();
      if (!ok) return Status::Error();
      return Put(cf, key);
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      rocksdb::ColumnFamilyHandle* cf = Table(table, true);
      if (cf == nullptr) return Status::Error();
      EncodeRecord(values, &buf_);
      return Put(cf, key);
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      rocksdb::ColumnFamilyHandle* cf = Table(table, false);
      if (cf == nullptr) return table_error_ ? Status::Error() : Status::Ok();
      if (in_tx_) return TxStatus(user_txn_->Delete(cf, Slice(key)));
      return db_->Delete(write_options_, cf, Slice(key)).ok() ? Status::Ok() : Status::Error();
    });
  }

  // One WriteBatch (reused: it keeps its buffer) written at once: atomic.
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override {
    return Guard([&] {
      if (batch.empty()) return Status::Ok();
      rocksdb::ColumnFamilyHandle* cf = Table(table, true);
      if (cf == nullptr) return Status::Error();
      write_batch_.Clear();
      for (std::size_t i = 0; i < batch.size(); ++i) {
        EncodeRecord(batch.values(i), &buf_);
        if (!write_batch_.Put(cf, Slice(batch.key(i)), rocksdb::Slice(buf_)).ok()) return Status::Error();
      }
      return db_->Write(write_options_, &write_batch_).ok() ? Status::Ok() : Status::Error();
    });
  }

 private:
  static rocksdb::Slice Slice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
  static std::string_view View(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

  // The column family of `table`, remembered for the next call (YCSB uses
  // one table, so the lookup is a string compare). nullptr when it does not
  // exist and !create; table_error_ tells a failed creation apart.
  rocksdb::ColumnFamilyHandle* Table(std::string_view table, bool create) {
    table_error_ = false;
    if (cached_cf_ != nullptr && table == cached_table_) return cached_cf_;
    rocksdb::Status error;
    rocksdb::ColumnFamilyHandle* cf = tables_->Find(table, create, &error);
    if (cf == nullptr) {
      table_error_ = !error.ok();
      return nullptr;
    }
    cached_table_.assign(table.data(), table.size());
    cached_cf_ = cf;
    return cf;
  }

  // A transaction's status: a lock not had in time, a conflict found at
  // commit (optimistic) or a deadlock is ABORTED.
  static Status TxStatus(const rocksdb::Status& s) {
    if (s.ok()) return Status::Ok();
    if (s.IsBusy() || s.IsTimedOut() || s.IsTryAgain() || s.IsDeadlock()) return Status(Status::kAborted);
    return Status::Error();
  }

  Status Put(rocksdb::ColumnFamilyHandle* cf, std::string_view key) {
    if (in_tx_) return TxStatus(user_txn_->Put(cf, Slice(key), rocksdb::Slice(buf_)));
    return db_->Put(write_options_, cf, Slice(key), rocksdb::Slice(buf_)).ok() ? Status::Ok() : Status::Error();
  }

  // Get-for-update, merge and put in one pessimistic transaction: atomic
  // against concurrent updates of the same key (the second waits for the
  // key's lock, up to the lock timeout, then is ABORTED: the transaction
  // gave up and changed nothing).
  Status TransactionalUpdate(rocksdb::ColumnFamilyHandle* cf, std::string_view key, std::span<const Field> values) {
    txn_ = txn_db_->BeginTransaction(write_options_, txn_options_, txn_);  // reuses the object
    pin_.Reset();
    rocksdb::Status s = txn_->GetForUpdate(read_options_, cf, Slice(key), &pin_);
    if (!s.ok()) {
      txn_->Rollback();
      if (s.IsNotFound()) return Status::NotFound();
      return s.IsTimedOut() || s.IsBusy() ? Status(Status::kAborted) : Status::Error();
    }
    bool ok = MergeRecord(View(pin_), values, &buf_);
    pin_.Reset();
    if (!ok || !txn_->Put(cf, Slice(key), rocksdb::Slice(buf_)).ok()) {
      txn_->Rollback();
      return Status::Error();
    }
    return txn_->Commit().ok() ? Status::Ok() : Status::Error();
  }

  rocksdb::DB* db_;
  rocksdb::TransactionDB* txn_db_;  // null unless rocksdb.transactiondb
  rocksdb::OptimisticTransactionDB* otxn_db_;  // null unless rocksdb.transactions=optimistic
  ColumnFamilies* tables_;
  rocksdb::ReadOptions read_options_;
  rocksdb::WriteOptions write_options_;
  rocksdb::TransactionOptions txn_options_;
  rocksdb::Transaction* txn_ = nullptr;  // reused by BeginTransaction
  rocksdb::Transaction* user_txn_ = nullptr;  // Session::Begin's; reused too
  bool in_tx_ = false;
  std::string cached_table_;
  rocksdb::ColumnFamilyHandle* cached_cf_ = nullptr;
  bool table_error_ = false;
  std::string buf_;             // encoded or merged record
  rocksdb::PinnableSlice pin_;  // value of the last Get
  rocksdb::WriteBatch write_batch_;  // BatchInsert's, reused
};

class RocksStore final : public Store {
 public:
  explicit RocksStore(const RocksOptions& o) : opts_(o) {
    PrepareStoreDir("rocksdb.dir", o.dir);
    rocksdb::Options options = BuildOptions(o);
    statistics_ = options.statistics;
    if (o.destroy) {
      rocksdb::Status s = rocksdb::DestroyDB(o.dir, options);
      if (!s.ok()) {
        if (IsLockError(s)) throw LockedError(s);
        throw SetupError("rocksdb.dir '" + o.dir + "': cannot destroy the database (rocksdb.destroy=true): " +
                         s.ToString());
      }
      PrepareStoreDir("rocksdb.dir", o.dir);
    }
    // Every column family the database already has (one per table) is
    // opened with the same options; a new database has just "default".
    std::vector<std::string> names;
    if (!rocksdb::DB::ListColumnFamilies(options, o.dir, &names).ok() || names.empty()) {
      names = {rocksdb::kDefaultColumnFamilyName};
    }
    std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
    for (const auto& n : names) descriptors.emplace_back(n, rocksdb::ColumnFamilyOptions(options));
    std::vector<rocksdb::ColumnFamilyHandle*> handles;
    rocksdb::Status s;
    if (o.transactiondb) {
      rocksdb::TransactionDB* txn_db = nullptr;
      s = rocksdb::TransactionDB::Open(options, rocksdb::TransactionDBOptions(), o.dir, descriptors, &handles,
                                       &txn_db);
      txn_db_ = txn_db;
      db_.reset(txn_db);
    } else if (o.transactions == "optimistic") {
      rocksdb::OptimisticTransactionDB* otxn_db = nullptr;
      s = rocksdb::OptimisticTransactionDB::Open(options, o.dir, descriptors, &handles, &otxn_db);
      otxn_db_ = otxn_db;
      db_.reset(otxn_db);
    } else {
      rocksdb::DB* db = nullptr;
      s = rocksdb::DB::Open(options, o.dir, descriptors, &handles, &db);
      db_.reset(db);
    }
    if (!s.ok()) {
      if (IsLockError(s)) throw LockedError(s);
      throw SetupError("rocksdb.dir '" + o.dir + "': cannot open the database: " + s.ToString());
    }
    tables_.Adopt(db_.get(), rocksdb::ColumnFamilyOptions(options), handles);
  }

  ~RocksStore() override {
    if (db_) {
      tables_.Release();
      db_->Close();  // errors are reported by Close(), not here
    }
  }

  std::unique_ptr<Session> NewSession(int) override {
    if (!db_) throw SetupError("rocksdb: NewSession after Close");
    return std::make_unique<RocksSession>(db_.get(), txn_db_, otxn_db_, &tables_, opts_.sync);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.atomic_update = opts_.transactiondb;  // GetForUpdate + Put + Commit; else read-merge-write
    c.native_batch_insert = true;  // one WriteBatch
    c.transactions = opts_.transactions != "none";
    if (!c.transactions) c.why_no_transactions = "rocksdb.transactions=none; set pessimistic or optimistic";
    return c;
  }

  // Flushes the memtables of every table, so the figure is the on-disk size
  // of what was written, then sums the sizes of all files under the
  // directory (SST files, WAL, MANIFEST, OPTIONS, LOG).
  std::optional<std::uint64_t> DiskUsageBytes() override {
    if (db_) FlushAll();
    return DiskBytes(opts_.dir);
  }

  // Engine figures, summed over every table's column family, then (with
  // rocksdb.statistics=true) every non-zero ticker and the median/p99/count
  // of every non-empty histogram (in RocksDB's units, mostly microseconds).
  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("rocksdb.version", std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) +
                                            "." + std::to_string(ROCKSDB_PATCH));
    if (!db_) return out;
    out.emplace_back("rocksdb.transactiondb", opts_.transactiondb ? "true" : "false");
    std::string tables;
    for (auto* cf : tables_.All()) tables += (tables.empty() ? "" : ",") + cf->GetName();
    out.emplace_back("rocksdb.column-families", tables);
    static const char* const kIntProps[] = {
        "rocksdb.estimate-num-keys",     "rocksdb.total-sst-files-size",
        "rocksdb.live-sst-files-size",   "rocksdb.estimate-live-data-size",
        "rocksdb.cur-size-all-mem-tables", "rocksdb.block-cache-usage",
        "rocksdb.estimate-pending-compaction-bytes", "rocksdb.num-running-compactions",
        "rocksdb.actual-delayed-write-rate",
    };
    for (const char* p : kIntProps) {
      std::uint64_t v = 0;
      if (db_->GetAggregatedIntProperty(p, &v)) out.emplace_back(p, std::to_string(v));
    }
    for (int level = 0; level < 3; ++level) {
      const std::string p = "rocksdb.num-files-at-level" + std::to_string(level);
      std::uint64_t total = 0;
      bool any = false;
      for (auto* cf : tables_.All()) {
        std::string v;
        if (db_->GetProperty(cf, p, &v)) {
          total += std::strtoull(v.c_str(), nullptr, 10);
          any = true;
        }
      }
      if (any) out.emplace_back(p, std::to_string(total));
    }
    if (statistics_) {
      for (const auto& [ticker, name] : rocksdb::TickersNameMap) {
        std::uint64_t v = statistics_->getTickerCount(ticker);
        if (v != 0) out.emplace_back("rocksdb.stat." + name, std::to_string(v));
      }
      for (const auto& [hist, name] : rocksdb::HistogramsNameMap) {
        rocksdb::HistogramData d;
        statistics_->histogramData(hist, &d);
        if (d.count == 0) continue;
        out.emplace_back("rocksdb.stat." + name + ".p50", FormatNumber(d.median));
        out.emplace_back("rocksdb.stat." + name + ".p99", FormatNumber(d.percentile99));
        out.emplace_back("rocksdb.stat." + name + ".count", std::to_string(d.count));
      }
    }
    return out;
  }

  void Close() override {
    if (!db_) return;
    rocksdb::Status flush = FlushAll();
    tables_.Release();
    rocksdb::Status close = db_->Close();
    db_.reset();
    txn_db_ = nullptr;
    if (!flush.ok()) throw SetupError("rocksdb.dir '" + opts_.dir + "': flush on close failed: " + flush.ToString());
    if (!close.ok()) throw SetupError("rocksdb.dir '" + opts_.dir + "': close failed: " + close.ToString());
  }

 private:
  SetupError LockedError(const rocksdb::Status& s) const {
    return SetupError("rocksdb.dir '" + opts_.dir +
                      "': the database is locked, in use by another process or another store in this process (" +
                      s.ToString() + ")");
  }
  rocksdb::Status FlushAll() { return db_->Flush(rocksdb::FlushOptions(), tables_.All()); }
  static std::string FormatNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
  }

  RocksOptions opts_;
  std::unique_ptr<rocksdb::DB> db_;
  rocksdb::TransactionDB* txn_db_ = nullptr;  // db_ itself when rocksdb.transactiondb
  rocksdb::OptimisticTransactionDB* otxn_db_ = nullptr;  // db_ itself when rocksdb.transactions=optimistic
  ColumnFamilies tables_;
  std::shared_ptr<rocksdb::Statistics> statistics_;
};

}  // namespace

const BindingInfo& rocksdb_binding() {
  static const BindingInfo info{
      .name = "rocksdb",
      .summary = "embedded RocksDB " + std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) +
                 " (one shared DB, per-thread sessions; records in the shared codec)",
      .properties =
          {
              {"rocksdb.dir", kDefaultDir, "database directory (created with its parents if missing)"},
              {"rocksdb.optionsfile", "",
               "RocksDB OPTIONS file to start from; rocksdb.* properties given explicitly override it"},
              {"rocksdb.cache_size", "8M", "block cache size in bytes (k/M/G suffixes; 0 = no block cache)"},
              {"rocksdb.compression", "snappy", "block compression: none, snappy, lz4 or zstd"},
              {"rocksdb.sync", "false", "sync every write to disk (WriteOptions::sync)"},
              {"rocksdb.write_buffer_size", "64M", "memtable size in bytes before a flush (at least 64k)"},
              {"rocksdb.destroy", "false", "wipe the database before opening it (a clean load)"},
              {"rocksdb.transactiondb", "false",
               "open a pessimistic TransactionDB: updates are atomic read-modify-write transactions"},
              {"rocksdb.transactions", "none",
               "Session transactions (workload=closedeconomy): none, pessimistic (TransactionDB, key locks; "
               "same as rocksdb.transactiondb=true) or optimistic (OptimisticTransactionDB, conflicts found at "
               "commit)"},
              {"rocksdb.statistics", "false",
               "collect rocksdb::Statistics; tickers and histograms go into the result's store_stats"},
          },
      .open = OpenStore<RocksStore, ParseOptions>,
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
