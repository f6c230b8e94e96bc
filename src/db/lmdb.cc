// Binding "lmdb": an embedded LMDB (the system's liblmdb), a copy-on-write
// B+tree in one memory-mapped file.
//
// One MDB_env is opened per process by the Store (with MDB_NOTLS, so read
// transactions are not tied to threads) and shared by every Session. Each
// table (YCSB's `table`, "usertable" by default) is a named database in the
// environment, created on the first write to it; its handle (dbi) is opened
// once per process, under a mutex (LMDB forbids concurrent mdb_dbi_open),
// cached by the Store for every session and by each Session for its last
// table. The key is the YCSB key as given; the value is the record in the
// shared record codec (db/record_codec.h). A read, update or delete of a
// table that was never written is NOT_FOUND (a scan returns nothing).
//
// Concurrency: LMDB runs one write transaction at a time (process- and
// environment-wide) while readers never block. Each Insert, Update and
// Delete is one write transaction, committed at once. Each Session owns one
// read transaction, begun in NewSession (so it holds one reader slot from
// then on: lmdb.maxreaders must cover the sessions) and kept reset between
// operations: a read or scan renews it (a fresh snapshot), reads, and resets
// it, so no snapshot outlives its operation and no page is pinned. A scan
// reuses the session's cursor (mdb_cursor_renew).
//
// Operations:
//   Insert = mdb_put in a write txn (creates or overwrites)
//   Update = mdb_get + MergeRecord + mdb_put in ONE write txn: atomic, since
//            write txns are serialized; NOT_FOUND if missing
//   Read   = mdb_get in the session's renewed read txn + DecodeRecord
//   Delete = mdb_del in a write txn; NOT_FOUND if the key was not there
//   Scan   = cursor MDB_SET_RANGE(start_key) (MDB_FIRST for an empty start
//            key), then MDB_NEXT, up to `count` records in key order
//
// Errors: a key LMDB cannot store (empty, or longer than
// mdb_env_get_maxkeysize(), 511 bytes) is BAD_REQUEST for every operation
// (a scan from an empty start key starts at the first record). A full map
// (MDB_MAP_FULL, from a put, delete, commit or table creation) aborts the
// transaction and returns ERROR; the Store counts it (Stats:
// lmdb.map_full_errors) and prints one line to stderr the first time. The
// store keeps working: reads still succeed, and writes that fit succeed.
// Any other LMDB error is ERROR.
//
// Setup: several processes may share one environment (LMDB's design: its
// lock file coordinates them), so a second *process* on the same directory
// is not an error. Opening the same environment twice in one process is
// forbidden by LMDB (its locks are per process): a second Store on a
// directory already open in this process is a SetupError, found through a
// process-wide set of open directories. ConfigError for a bad property,
// SetupError for a directory that cannot be created or an environment that
// cannot be opened (e.g. a map size the address space cannot hold), with a
// one-line message naming the property and path. Close() syncs the data
// file (even with lmdb.nosync) and closes the environment; it throws
// SetupError if the sync fails.
#include <lmdb.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/record_codec.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

constexpr char kDefaultDir[] = "storebench-data/lmdb";
// The map is address space, not disk: the file grows only as pages are
// used (sparse with lmdb.writemap), so 16 GiB costs nothing on a 64-bit
// machine and holds about 10 million 1 KB YCSB records.
constexpr std::uint64_t kDefaultMapSize = 16ull << 30;
constexpr std::uint64_t kMinMapSize = 64ull << 10;
constexpr unsigned kMaxDbs = 64;         // tables per environment
constexpr int kDefaultMaxReaders = 126;  // LMDB's own default
constexpr int kReaderMargin = 16;        // slots beyond one per client thread

// Typed options, read and validated once.
struct LmdbOptions {
  std::string dir;
  std::uint64_t mapsize = kDefaultMapSize;
  int maxreaders = 0;  // 0 = automatic
  bool nosync = true;
  bool nometasync = false;
  bool writemap = false;
  bool nordahead = false;
};

LmdbOptions ParseOptions(const Properties& props) {
  LmdbOptions o;
  o.dir = props.GetString("lmdb.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'lmdb.dir' is empty: expected a directory");
  o.mapsize = props.GetSize("lmdb.mapsize", kDefaultMapSize);
  if (o.mapsize < kMinMapSize) {
    throw ConfigError("property 'lmdb.mapsize' = '" + props.Get("lmdb.mapsize").value_or("") + "' (" +
                      props.OriginOf("lmdb.mapsize") + "): expected at least 64k");
  }
  o.maxreaders = static_cast<int>(props.GetInt("lmdb.maxreaders", 0, 0, 1 << 20));
  o.nosync = props.GetBool("lmdb.nosync", true);
  o.nometasync = props.GetBool("lmdb.nometasync", false);
  o.writemap = props.GetBool("lmdb.writemap", false);
  o.nordahead = props.GetBool("lmdb.nordahead", false);
  return o;
}

MDB_val Val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
std::string_view View(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

class LmdbStore;

class LmdbSession final : public Session {
 public:
  LmdbSession(LmdbStore* store, MDB_env* env, MDB_txn* rtxn, std::size_t max_key)
      : store_(store), env_(env), rtxn_(rtxn), max_key_(max_key) {}
  ~LmdbSession() override {
    if (cursor_ != nullptr) mdb_cursor_close(cursor_);
    if (wtxn_ != nullptr) mdb_txn_abort(wtxn_);
    mdb_txn_abort(rtxn_);
  }

  // Transactions: one LMDB write transaction, begun by the first operation
  // after Begin (once its table is known: opening a table takes a write
  // transaction of its own) and committed by Commit. LMDB has one writer at
  // a time, so transactions are serializable and never abort; they wait.
  // A transaction uses one table, the one its first operation names.
  Status Begin(const TxOptions&) override {
    if (in_tx_) return Status::Error();
    in_tx_ = true;
    return Status::Ok();
  }
  Status Commit() override;
  Status Abort() override {
    in_tx_ = false;
    if (wtxn_ != nullptr) mdb_txn_abort(wtxn_);
    wtxn_ = nullptr;
    return Status::Ok();
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
              RecordSet* out) override;
  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
              const FieldSelector& fields, RecordSet* out) override;
  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Delete(std::string_view table, std::string_view key) override;
  // Every record in one write transaction: atomic, one commit (one sync).
  Status BatchInsert(std::string_view table, const RecordBatch& batch) override;

 private:
  // Renews the read txn; resets it when the operation ends, however it ends.
  class Snapshot {
   public:
    explicit Snapshot(MDB_txn* txn) : txn_(txn), rc_(mdb_txn_renew(txn)) {}
    ~Snapshot() {
      if (rc_ == 0) mdb_txn_reset(txn_);
    }
    bool ok() const { return rc_ == 0; }

   private:
    MDB_txn* txn_;
    int rc_;
  };

  bool KeyOk(std::string_view key) const { return !key.empty() && key.size() <= max_key_; }
  // The dbi of `table`, remembered for the next call. False when the table
  // does not exist (and !create) or opening it failed (*status says which).
  bool Table(std::string_view table, bool create, MDB_dbi* dbi, Status* status);
  // Runs body(txn) in one write txn, committed when it returns 0.
  template <typename F>
  Status Write(F&& body);

  LmdbStore* store_;
  MDB_env* env_;
  MDB_txn* rtxn_;                 // reset between operations
  MDB_cursor* cursor_ = nullptr;  // on cursor_dbi_, renewed per scan
  MDB_dbi cursor_dbi_ = 0;
  std::size_t max_key_;
  std::string cached_table_;
  MDB_dbi cached_dbi_ = 0;
  bool have_cached_ = false;
  std::string buf_;  // encoded or merged record
  bool in_tx_ = false;         // between Begin and Commit/Abort
  MDB_txn* wtxn_ = nullptr;    // the transaction's write txn, once begun
  // The transaction's write txn, begun now if needed; null on failure.
  MDB_txn* TxTxn() {
    if (wtxn_ == nullptr && mdb_txn_begin(env_, nullptr, 0, &wtxn_) != 0) wtxn_ = nullptr;
    return wtxn_;
  }
};

class LmdbStore final : public Store {
 public:
  LmdbStore(const LmdbOptions& o, int thread_count) : opts_(o) {
    PrepareStoreDir("lmdb.dir", o.dir);
    // LMDB must not open one environment twice in a process.
    claim_ = DirClaim("lmdb.dir", o.dir);
    try {
      Open(thread_count);
    } catch (...) {
      if (env_ != nullptr) mdb_env_close(env_);
      env_ = nullptr;
      throw;
    }
  }

  ~LmdbStore() override {
    if (env_ != nullptr) {
      mdb_env_close(env_);
    }
  }

  std::unique_ptr<Session> NewSession(int) override {
    if (env_ == nullptr) throw SetupError("lmdb: NewSession after Close");
    MDB_txn* rtxn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, &rtxn);
    if (rc == MDB_READERS_FULL) {
      throw SetupError("lmdb.dir '" + opts_.dir +
                       "': no reader slot left for another session (lmdb.maxreaders=" +
                       std::to_string(maxreaders_) + "): raise lmdb.maxreaders");
    }
    if (rc != 0)
      throw SetupError("lmdb.dir '" + opts_.dir + "': cannot begin a read transaction: " + mdb_strerror(rc));
    mdb_txn_reset(rtxn);  // keeps its reader slot; renewed per read
    return std::make_unique<LmdbSession>(this, env_, rtxn, max_key_);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.atomic_update = true;  // get + merge + put in one write transaction
    c.native_batch_insert = true;  // one write transaction
    c.transactions = true;   // one write transaction (LMDB's single writer)
    return c;
  }

  // The data file's pages up to its high-water mark, (last page + 1) *
  // page size, after a sync: what the file holds, free pages within it
  // included, whether or not it is sparse (with lmdb.writemap its size is
  // the whole map). The lock file is not counted.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    if (env_ == nullptr) return std::nullopt;
    mdb_env_sync(env_, 1);
    MDB_envinfo info;
    MDB_stat st;
    if (mdb_env_info(env_, &info) != 0 || mdb_env_stat(env_, &st) != 0) return std::nullopt;
    return static_cast<std::uint64_t>(info.me_last_pgno + 1) * st.ms_psize;
  }

  std::vector<std::pair<std::string, std::string>> Stats() override;

  void Close() override {
    if (env_ == nullptr) return;
    int rc = mdb_env_sync(env_, 1);
    mdb_env_close(env_);
    env_ = nullptr;
    claim_.Release();
    if (rc != 0) throw SetupError("lmdb.dir '" + opts_.dir + "': sync on close failed: " + mdb_strerror(rc));
  }

  // The dbi of `table`, opening (and with `create`, creating) it once per
  // process. Returns 0, MDB_NOTFOUND (no such table) or an LMDB error.
  int FindTable(std::string_view table, bool create, MDB_dbi* dbi) {
    {
      std::shared_lock lock(tables_mu_);
      for (const auto& e : tables_) {
        if (e.first == table) {
          *dbi = e.second;
          return 0;
        }
      }
    }
    std::unique_lock lock(tables_mu_);  // mdb_dbi_open must not race
    for (const auto& e : tables_) {
      if (e.first == table) {
        *dbi = e.second;
        return 0;
      }
    }
    const std::string name(table);
    if (name.find('\0') != std::string::npos) return MDB_BAD_VALSIZE;  // LMDB names are C strings
    // A write txn even for a lookup: it needs no reader slot (those are
    // the sessions'), and this happens once per table and process.
    MDB_txn* txn = nullptr;
    int rc = mdb_txn_begin(env_, nullptr, 0, &txn);
    if (rc != 0) return rc;
    rc = mdb_dbi_open(txn, name.c_str(), create ? MDB_CREATE : 0, dbi);
    if (rc != 0) {
      mdb_txn_abort(txn);
      return rc;
    }
    rc = mdb_txn_commit(txn);
    if (rc != 0) return rc;
    tables_.emplace_back(name, *dbi);
    return 0;
  }

  // Counts a full map; the first one is reported on stderr.
  void NoteMapFull() {
    if (map_full_errors_.fetch_add(1, std::memory_order_relaxed) == 0) {
      std::fprintf(stderr,
                   "storebench: lmdb: the map is full (lmdb.mapsize=%llu bytes): raise lmdb.mapsize\n",
                   static_cast<unsigned long long>(mapsize_));
    }
  }

 private:
  void Open(int thread_count) {
    int rc = mdb_env_create(&env_);
    if (rc != 0) throw SetupError(std::string("lmdb: cannot create an environment: ") + mdb_strerror(rc));
    maxreaders_ = opts_.maxreaders > 0
                      ? opts_.maxreaders
                      : std::max(kDefaultMaxReaders, std::max(thread_count, 1) + kReaderMargin);
    if ((rc = mdb_env_set_mapsize(env_, static_cast<std::size_t>(opts_.mapsize))) != 0 ||
        (rc = mdb_env_set_maxdbs(env_, kMaxDbs)) != 0 ||
        (rc = mdb_env_set_maxreaders(env_, static_cast<unsigned>(maxreaders_))) != 0) {
      throw SetupError("lmdb.dir '" + opts_.dir + "': cannot configure the environment: " + mdb_strerror(rc));
    }
    unsigned flags = MDB_NOTLS;
    if (opts_.nosync) flags |= MDB_NOSYNC;
    if (opts_.nometasync) flags |= MDB_NOMETASYNC;
    if (opts_.writemap) flags |= MDB_WRITEMAP;
    if (opts_.nordahead) flags |= MDB_NORDAHEAD;
    rc = mdb_env_open(env_, opts_.dir.c_str(), flags, 0644);
    if (rc != 0) {
      std::string what = mdb_strerror(rc);
      if (rc == ENOMEM || rc == EINVAL) what += " (lmdb.mapsize=" + std::to_string(opts_.mapsize) + ")";
      throw SetupError("lmdb.dir '" + opts_.dir + "': cannot open the environment: " + what);
    }
    int dead = 0;
    mdb_reader_check(env_, &dead);  // frees slots of crashed processes
    MDB_envinfo info;
    if (mdb_env_info(env_, &info) == 0) {
      mapsize_ = info.me_mapsize;
      maxreaders_ = static_cast<int>(info.me_maxreaders);  // the lock file may fix it
    }
    max_key_ = static_cast<std::size_t>(mdb_env_get_maxkeysize(env_));
  }

  LmdbOptions opts_;
  DirClaim claim_;  // LMDB allows one open of an environment per process
  MDB_env* env_ = nullptr;
  std::uint64_t mapsize_ = 0;
  int maxreaders_ = 0;
  std::size_t max_key_ = 511;
  std::shared_mutex tables_mu_;
  std::vector<std::pair<std::string, MDB_dbi>> tables_;
  std::atomic<std::uint64_t> map_full_errors_{0};
};

bool LmdbSession::Table(std::string_view table, bool create, MDB_dbi* dbi, Status* status) {
  if (have_cached_ && table == cached_table_) {
    *dbi = cached_dbi_;
    return true;
  }
  if (wtxn_ != nullptr) {  // opening a table would wait for our own write txn
    *status = Status::Error();
    return false;
  }
  int rc = store_->FindTable(table, create, dbi);
  if (rc != 0) {
    if (rc == MDB_MAP_FULL) store_->NoteMapFull();
    *status = rc == MDB_NOTFOUND      ? Status::NotFound()
              : rc == MDB_BAD_VALSIZE ? Status(Status::kBadRequest)
                                      : Status::Error();
    return false;
  }
  cached_table_.assign(table.data(), table.size());
  cached_dbi_ = *dbi;
  have_cached_ = true;
  return true;
}

Status LmdbSession::Commit() {
  if (!in_tx_) return Status::Error();
  in_tx_ = false;
  if (wtxn_ == nullptr) return Status::Ok();  // nothing done
  const int rc = mdb_txn_commit(wtxn_);  // frees it whatever the outcome
  wtxn_ = nullptr;
  if (rc == MDB_MAP_FULL) store_->NoteMapFull();
  return rc == 0 ? Status::Ok() : Status::Error();
}

template <typename F>
Status LmdbSession::Write(F&& body) {
  int rc;
  if (in_tx_) {
    // Inside a transaction: its txn, committed by Commit.
    MDB_txn* t = TxTxn();
    if (t == nullptr) return Status::Error();
    rc = body(t);
  } else {
    MDB_txn* txn = nullptr;
    rc = mdb_txn_begin(env_, nullptr, 0, &txn);
    if (rc == 0) {
      rc = body(txn);
      if (rc != 0) {
        mdb_txn_abort(txn);
      } else {
        rc = mdb_txn_commit(txn);  // frees txn whatever the outcome
      }
    }
  }
  if (rc == 0) return Status::Ok();
  if (rc == MDB_NOTFOUND) return Status::NotFound();
  if (rc == MDB_MAP_FULL) store_->NoteMapFull();
  return Status::Error();
}

Status LmdbSession::Read(std::string_view table, std::string_view key, const FieldSelector& fields,
                         RecordSet* out) {
  return Guard([&] {
    out->Clear();
    if (!KeyOk(key)) return Status(Status::kBadRequest);
    MDB_dbi dbi;
    Status st;
    if (!Table(table, false, &dbi, &st)) return st;
    // Inside a transaction, its own txn (sees its writes); else the renewed
    // read txn, kept alive by `snap` until the value is decoded.
    std::optional<Snapshot> snap;
    MDB_txn* t;
    if (in_tx_) {
      t = TxTxn();
      if (t == nullptr) return Status::Error();
    } else {
      snap.emplace(rtxn_);
      if (!snap->ok()) return Status::Error();
      t = rtxn_;
    }
    MDB_val k = Val(key), v;
    const int rc = mdb_get(t, dbi, &k, &v);
    if (rc == MDB_NOTFOUND) return Status::NotFound();
    if (rc != 0) return Status::Error();
    return DecodeReadResult(key, View(v), fields, out);
  });
}

Status LmdbSession::Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
                         const FieldSelector& fields, RecordSet* out) {
  return Guard([&] {
    out->Clear();
    if (start_key.size() > max_key_) return Status(Status::kBadRequest);
    MDB_dbi dbi;
    Status st;
    if (!Table(table, false, &dbi, &st)) return st.IsNotFound() ? Status::Ok() : st;  // no table: no records
    if (count == 0) return Status::Ok();
    Snapshot snap(rtxn_);
    if (!snap.ok()) return Status::Error();
    int rc;
    if (cursor_ != nullptr && cursor_dbi_ == dbi) {
      rc = mdb_cursor_renew(rtxn_, cursor_);
    } else {
      if (cursor_ != nullptr) mdb_cursor_close(cursor_);
      cursor_ = nullptr;
      rc = mdb_cursor_open(rtxn_, dbi, &cursor_);
      cursor_dbi_ = dbi;
    }
    if (rc != 0) return Status::Error();
    MDB_val k = Val(start_key), v;
    rc = mdb_cursor_get(cursor_, &k, &v, start_key.empty() ? MDB_FIRST : MDB_SET_RANGE);
    for (std::uint64_t n = 0; rc == 0 && n < count; ++n) {
      out->BeginRecord(View(k));
      if (!DecodeRecord(View(v), fields, out)) return Status::Error();
      if (n + 1 < count) rc = mdb_cursor_get(cursor_, &k, &v, MDB_NEXT);
    }
    return rc == 0 || rc == MDB_NOTFOUND ? Status::Ok() : Status::Error();
  });
}

Status LmdbSession::Update(std::string_view table, std::string_view key, std::span<const Field> values) {
  return Guard([&] {
    if (!KeyOk(key)) return Status(Status::kBadRequest);
    MDB_dbi dbi;
    Status st;
    if (!Table(table, false, &dbi, &st)) return st;
    bool corrupt = false;
    Status s = Write([&](MDB_txn* txn) {
      MDB_val k = Val(key), v;
      int rc = mdb_get(txn, dbi, &k, &v);
      if (rc != 0) return rc;
      if (!MergeRecord(View(v), values, &buf_)) {
        corrupt = true;
        return MDB_CORRUPTED;
      }
      MDB_val nv = Val(buf_);
      return mdb_put(txn, dbi, &k, &nv, 0);
    });
    return corrupt ? Status::Error() : s;
  });
}

Status LmdbSession::Insert(std::string_view table, std::string_view key, std::span<const Field> values) {
  return Guard([&] {
    if (!KeyOk(key)) return Status(Status::kBadRequest);
    MDB_dbi dbi;
    Status st;
    if (!Table(table, true, &dbi, &st)) return st.IsNotFound() ? Status::Error() : st;
    EncodeRecord(values, &buf_);
    return Write([&](MDB_txn* txn) {
      MDB_val k = Val(key), v = Val(buf_);
      return mdb_put(txn, dbi, &k, &v, 0);
    });
  });
}

Status LmdbSession::Delete(std::string_view table, std::string_view key) {
  return Guard([&] {
    if (!KeyOk(key)) return Status(Status::kBadRequest);
    MDB_dbi dbi;
    Status st;
    if (!Table(table, false, &dbi, &st)) return st;
    return Write([&](MDB_txn* txn) {
      MDB_val k = Val(key);
      return mdb_del(txn, dbi, &k, nullptr);
    });
  });
}

Status LmdbSession::BatchInsert(std::string_view table, const RecordBatch& batch) {
  return Guard([&] {
    if (batch.empty()) return Status::Ok();
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!KeyOk(batch.key(i))) return Status(Status::kBadRequest);
    }
    MDB_dbi dbi;
    Status st;
    if (!Table(table, true, &dbi, &st)) return st.IsNotFound() ? Status::Error() : st;
    return Write([&](MDB_txn* txn) {
      for (std::size_t i = 0; i < batch.size(); ++i) {
        EncodeRecord(batch.values(i), &buf_);
        MDB_val k = Val(batch.key(i)), v = Val(buf_);
        if (int rc = mdb_put(txn, dbi, &k, &v, 0); rc != 0) return rc;
      }
      return 0;
    });
  });
}

// Environment figures (map size, pages used, readers, flags) and, per table, the
// B-tree's entries, depth and pages; then the map-full count and the data
// file's size and allocated bytes.
std::vector<std::pair<std::string, std::string>> LmdbStore::Stats() {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("lmdb.version", MDB_VERSION_STRING);
  if (env_ == nullptr) return out;
  MDB_envinfo info;
  MDB_stat env_stat;
  if (mdb_env_info(env_, &info) == 0 && mdb_env_stat(env_, &env_stat) == 0) {
    out.emplace_back("lmdb.mapsize", std::to_string(info.me_mapsize));
    out.emplace_back("lmdb.pagesize", std::to_string(env_stat.ms_psize));
    out.emplace_back("lmdb.last_pgno", std::to_string(info.me_last_pgno));
    out.emplace_back("lmdb.used_bytes", std::to_string((info.me_last_pgno + 1) * env_stat.ms_psize));
    out.emplace_back("lmdb.last_txnid", std::to_string(info.me_last_txnid));
    out.emplace_back("lmdb.maxreaders", std::to_string(info.me_maxreaders));
    out.emplace_back("lmdb.numreaders", std::to_string(info.me_numreaders));
  }
  out.emplace_back("lmdb.maxkeysize", std::to_string(max_key_));
  unsigned flags = 0;
  if (mdb_env_get_flags(env_, &flags) == 0) {
    std::string names;
    for (auto [bit, name] : {std::pair{MDB_NOTLS, "NOTLS"}, std::pair{MDB_NOSYNC, "NOSYNC"},
                             std::pair{MDB_NOMETASYNC, "NOMETASYNC"}, std::pair{MDB_WRITEMAP, "WRITEMAP"},
                             std::pair{MDB_NORDAHEAD, "NORDAHEAD"}}) {
      if (flags & static_cast<unsigned>(bit)) names += (names.empty() ? "" : ",") + std::string(name);
    }
    out.emplace_back("lmdb.flags", names);
  }
  // The tables are the keys of the main (unnamed) database.
  std::vector<std::string> names;
  {
    MDB_txn* txn = nullptr;
    if (mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn) == 0) {
      MDB_dbi main_dbi;
      MDB_cursor* cur = nullptr;
      if (mdb_dbi_open(txn, nullptr, 0, &main_dbi) == 0 && mdb_cursor_open(txn, main_dbi, &cur) == 0) {
        MDB_val k, v;
        for (int rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
             rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
          names.emplace_back(View(k));
        }
        mdb_cursor_close(cur);
      }
      mdb_txn_abort(txn);
    }
  }
  std::string tables;
  std::uint64_t entries = 0, branch = 0, leaf = 0, overflow = 0;
  unsigned depth = 0;
  for (const std::string& name : names) {
    MDB_dbi dbi;
    if (FindTable(name, false, &dbi) != 0) continue;
    MDB_txn* txn = nullptr;
    if (mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn) != 0) continue;
    MDB_stat st;
    if (mdb_stat(txn, dbi, &st) == 0) {
      tables += (tables.empty() ? "" : ",") + name;
      out.emplace_back("lmdb.entries." + name, std::to_string(st.ms_entries));
      entries += st.ms_entries;
      branch += st.ms_branch_pages;
      leaf += st.ms_leaf_pages;
      overflow += st.ms_overflow_pages;
      depth = std::max(depth, st.ms_depth);
    }
    mdb_txn_abort(txn);
  }
  out.emplace_back("lmdb.tables", tables);
  out.emplace_back("lmdb.entries", std::to_string(entries));
  out.emplace_back("lmdb.depth", std::to_string(depth));
  out.emplace_back("lmdb.branch_pages", std::to_string(branch));
  out.emplace_back("lmdb.leaf_pages", std::to_string(leaf));
  out.emplace_back("lmdb.overflow_pages", std::to_string(overflow));
  out.emplace_back("lmdb.map_full_errors", std::to_string(map_full_errors_.load()));
  struct stat sb;
  if (::stat((opts_.dir + "/data.mdb").c_str(), &sb) == 0) {
    out.emplace_back("lmdb.file_size", std::to_string(sb.st_size));
    out.emplace_back("lmdb.file_allocated_bytes",
                     std::to_string(static_cast<std::uint64_t>(sb.st_blocks) * 512));
  }
  return out;
}

}  // namespace

const BindingInfo& lmdb_binding() {
  static const BindingInfo info{
      .name = "lmdb",
      .summary = std::string("embedded LMDB ") + std::to_string(MDB_VERSION_MAJOR) + "." +
                 std::to_string(MDB_VERSION_MINOR) + "." + std::to_string(MDB_VERSION_PATCH) +
                 " (one shared environment, a named database per table, one write txn per write)",
      .properties =
          {
              {"lmdb.dir", kDefaultDir,
               "environment directory, holding data.mdb and lock.mdb (created if missing)"},
              {"lmdb.mapsize", "16G",
               "map size in bytes, the most the data file can hold (address space only: the file grows as "
               "used)"},
              {"lmdb.nosync", "true",
               "do not fsync at each commit (MDB_NOSYNC: like rocksdb/leveldb sync=false); Close syncs"},
              {"lmdb.nometasync", "false",
               "fsync data but not the meta page at each commit (MDB_NOMETASYNC)"},
              {"lmdb.writemap", "false", "write through a writable map instead of write() (MDB_WRITEMAP)"},
              {"lmdb.nordahead", "false",
               "no OS readahead on the map (MDB_NORDAHEAD; helps when data > RAM)"},
              {"lmdb.maxreaders", "0",
               "reader slots, one per session plus a margin (0 = max(126, threads + 16))"},
          },
      .open = [](const Properties& props, const OpenContext& ctx) -> std::unique_ptr<Store> {
        LmdbOptions o = ParseOptions(props);
        return std::make_unique<LmdbStore>(o, ctx.thread_count);
      },
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
