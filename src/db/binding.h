// The binding SDK: everything a new store binding needs, and nothing else.
//
// A binding is a `Store` (one per process, opened once, shared and
// thread-safe) that hands out `Session`s (one per client thread, used by that
// thread only, never concurrently). Sessions perform operations and return a
// one-byte Status; they never time themselves (the runner's measured wrapper
// does) and never throw on the hot path. Field names and values travel as
// string_views into buffers owned by the caller; results are written into a
// caller-owned RecordSet that is reused across operations, so a session that
// does not allocate itself keeps the hot path allocation-free.
//
// Adding a binding: one file in src/db/ that defines a `BindingInfo` and
// one line `STOREBENCH_BINDING(name)` in src/db/bindings.def.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/properties.h"
#include "core/status.h"

namespace storebench {

// One field of a record: name and value, viewed (not owned).
struct Field {
  std::string_view name;
  std::string_view value;
};

// Which fields a read or scan returns: all of them, or the named ones.
struct FieldSelector {
  bool all = true;
  std::span<const std::string_view> names;  // used when !all

  bool Wants(std::string_view name) const {
    if (all) return true;
    for (auto n : names) {
      if (n == name) return true;
    }
    return false;
  }
};

// Records as spans into one owned arena: keys, field names and values are
// copied into one string that keeps its capacity across Clear(), and each is
// kept as (offset, length), so the arena may grow without invalidating any.
// The shared storage of RecordSet and RecordBatch; not used on its own.
// Not thread-safe.
class RecordArena {
 public:
  std::size_t record_count() const { return records_.size(); }
  std::string_view key(std::size_t r) const { return View(records_[r].key); }
  std::size_t field_count(std::size_t r) const { return records_[r].field_count; }
  Field field(std::size_t r, std::size_t i) const { return field_at(records_[r].first_field + i); }

 protected:
  void ClearArena() {
    arena_.clear();
    fields_.clear();
    records_.clear();
  }
  // Starts a new record with the given key; fields appended next belong to it.
  void AppendRecord(std::string_view key) { records_.push_back({Append(key), fields_.size(), 0}); }
  void AppendField(std::string_view name, std::string_view value) {
    fields_.push_back({Append(name), Append(value)});
    records_.back().field_count++;
  }
  std::size_t total_fields() const { return fields_.size(); }
  // Index of record r's first field among all fields, in order.
  std::size_t first_field(std::size_t r) const { return records_[r].first_field; }
  // The i-th field of all records, in order.
  Field field_at(std::size_t i) const { return {View(fields_[i].name), View(fields_[i].value)}; }
  // The arena's current base: views made before an Append that moves it dangle.
  const char* arena_data() const { return arena_.data(); }

 private:
  struct Span {
    std::size_t off, len;
  };
  struct Rec {
    Span key;
    std::size_t first_field;
    std::size_t field_count;
  };
  struct FieldSpan {
    Span name, value;
  };
  Span Append(std::string_view s) {
    Span sp{arena_.size(), s.size()};
    arena_.append(s.data(), s.size());
    return sp;
  }
  std::string_view View(Span s) const { return std::string_view(arena_).substr(s.off, s.len); }

  std::string arena_;
  std::vector<FieldSpan> fields_;
  std::vector<Rec> records_;
};

// Records returned by read/scan. Owns its bytes in one arena that keeps its
// capacity across Clear(), so steady-state use does not allocate.
// Not thread-safe; one per session/thread.
class RecordSet : public RecordArena {
 public:
  void Clear() { ClearArena(); }
  // Starts a new record with the given key; fields added next belong to it.
  void BeginRecord(std::string_view key) { AppendRecord(key); }
  void AddField(std::string_view name, std::string_view value) {
    if (record_count() == 0) BeginRecord({});
    AppendField(name, value);
  }
  // The value of field `name` in record r, if present.
  std::optional<std::string_view> Find(std::size_t r, std::string_view name) const {
    for (std::size_t i = 0; i < field_count(r); ++i) {
      Field f = field(r, i);
      if (f.name == name) return f.value;
    }
    return std::nullopt;
  }
};

// A batch of records for Session::BatchInsert: keys and fields copied into
// one arena that keeps its capacity across Clear(), so a caller that reuses
// one RecordBatch does not allocate per batch once warm. Field views stay
// valid until the next Add or Clear. Not thread-safe; one per client.
class RecordBatch : public RecordArena {
 public:
  void Clear() {
    ClearArena();
    views_.clear();
  }
  // Appends a record (copies key and values).
  void Add(std::string_view key, std::span<const Field> values) {
    const char* base = arena_data();
    AppendRecord(key);
    for (const Field& f : values) AppendField(f.name, f.value);
    // values() hands out spans of Field, so each field's views are kept too;
    // if the arena moved, every view is rebuilt, else only the new record's.
    const std::size_t from = arena_data() != base ? 0 : views_.size();
    views_.resize(total_fields());
    for (std::size_t i = from; i < views_.size(); ++i) views_[i] = field_at(i);
  }
  std::size_t size() const { return record_count(); }
  bool empty() const { return record_count() == 0; }
  std::span<const Field> values(std::size_t r) const {
    return std::span<const Field>(views_).subspan(first_field(r), field_count(r));
  }

 private:
  std::vector<Field> views_;  // views into the arena, one per field in order
};

// What a transaction asks of the store (Session::Begin).
struct TxOptions {
  // Reads inside the transaction lock the records they return until it
  // ends (SELECT ... FOR UPDATE), for stores whose reads do not lock by
  // themselves at their isolation level. Stores that always lock ignore it.
  bool lock_reads = false;
};

// A parameter of a SQL statement (Session::Sql): an integer, or text.
struct SqlParam {
  std::int64_t i = 0;
  std::string_view text;
  bool is_text = false;
};

// Per-thread connection/handle to a store. Used by one thread at a time.
// Statuses: OK, NOT_FOUND (read/update/delete of a missing key), ERROR, ...
class Session {
 public:
  virtual ~Session() = default;

  // Reads one record into out (cleared first). NOT_FOUND if absent.
  virtual Status Read(std::string_view table, std::string_view key, const FieldSelector& fields,
                      RecordSet* out) = 0;
  // Reads up to `count` records in key order starting at start_key (inclusive).
  virtual Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
                      const FieldSelector& fields, RecordSet* out) = 0;
  // Sets the given fields of an existing record, keeping the others
  // (YCSB semantics). NOT_FOUND when the record does not exist is allowed.
  virtual Status Update(std::string_view table, std::string_view key, std::span<const Field> values) = 0;
  // Creates (or overwrites) a record with exactly these fields.
  virtual Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) = 0;
  virtual Status Delete(std::string_view table, std::string_view key) = 0;
  // Creates (or overwrites, as Insert does) every record of the batch.
  // A native batch (Capabilities::native_batch_insert) that is one write
  // batch or one transaction is all-or-nothing: on failure no record of the
  // batch is written; a pipeline (redis, memcached) is one round trip but
  // best effort. This default loops Insert in order, stops at the first
  // failure and returns its status: the records before it stay written.
  // An empty batch is OK and does nothing.
  virtual Status BatchInsert(std::string_view table, const RecordBatch& batch) {
    for (std::size_t i = 0; i < batch.size(); ++i) {
      Status st = Insert(table, batch.key(i), batch.values(i));
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }

  // Reads the records of `keys` into `out` (cleared first), one record per
  // key found (a key given twice may come back once or twice), in any order
  // (a multi-get answers in the store's): OK when every key was found,
  // NOT_FOUND when some were not (the others are still in `out`), else the
  // first failure. A native batch (Capabilities::native_batch_read) is one
  // request (a multi-get); this default reads key by key, in order.
  virtual Status BatchRead(std::string_view table, std::span<const std::string_view> keys,
                           const FieldSelector& fields, RecordSet* out) {
    out->Clear();
    thread_local RecordSet one;  // (not per call: the hot path does not allocate once warm)
    Status result = Status::Ok();
    for (std::string_view key : keys) {
      const Status st = Read(table, key, fields, &one);
      if (st.code() == Status::kNotFound) {
        result = st;
        continue;
      }
      if (!st.ok()) return st;
      out->BeginRecord(key);
      for (std::size_t i = 0; i < one.field_count(0); ++i) out->AddField(one.field(0, i).name, one.field(0, i).value);
    }
    return result;
  }

  // Transactions, for bindings whose capabilities() say `transactions`.
  // Begin starts one on this session; the Read/Update/Insert/Delete calls
  // that follow belong to it until Commit or Abort (Scan is not promised to).
  // A call inside, or Commit, returns Status::kAborted when the store
  // aborted the transaction (conflict, deadlock, serialization failure); the
  // caller then calls Abort (harmless when the store has already ended the
  // transaction) and may retry from Begin. Any other failure inside is
  // followed by Abort too. Not nestable.
  virtual Status Begin(const TxOptions&) { return Status::NotImplemented(); }
  virtual Status Commit() { return Status::NotImplemented(); }
  virtual Status Abort() { return Status::NotImplemented(); }

  // SQL, for bindings whose capabilities() say `sql` (workload=sqlquery).
  // Runs one statement written with `?` placeholders in the SQL that
  // sqlite, postgresql and mariadb share; *rows = rows returned (SELECT) or
  // changed (INSERT/UPDATE/DELETE), 0 for DDL. The text is a constant of the
  // caller: bindings may prepare it once and key the cache by its text.
  virtual Status Sql(std::string_view, std::span<const SqlParam>, std::uint64_t* rows) {
    *rows = 0;
    return Status::NotImplemented();
  }

  // Sends every write the session still holds back (a binding that buffers
  // writes to send them in batches, e.g. hbase.clientbuffering). The runner
  // calls it exactly once per session, after that client's last operation
  // of the phase (load or run; also when the phase was stopped early),
  // inside the measured window: its time counts in the phase's runtime and
  // throughput, as YCSB times DB.cleanup() as CLEANUP. Afterwards the
  // session holds no unsent write, so its destructor sends nothing. A
  // binding that overrides it says Capabilities::buffers_writes. This
  // default has nothing to send: OK.
  virtual Status Flush() { return Status::Ok(); }
};


// Runs a session operation's body and turns anything it throws (bad_alloc
// from a growing buffer, an engine's C++ exception) into Status::Error(), so
// that operations never throw: `return Guard([&] { ...; return Status::Ok(); });`
template <typename F>
inline Status Guard(F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return Status::Error();
  }
}

// What a store can do; checked before a run so that an unsupported
// operation is reported once, up front, rather than as millions of errors.
struct Capabilities {
  bool scan = true;
  std::string why_no_scan;  // when !scan, a few words for the user, e.g. "kyotocabinet.type=hash keeps no key order"
  bool persistent = false;  // data survives the process (load then run in two processes)
  bool stores_data = true;  // false for `null`: nothing to preload before a run
  // Update is atomic against a concurrent update of the same record: two
  // threads setting different fields of one record never lose either field.
  // False for a plain read-merge-write (YCSB's RocksDB/LevelDB bindings).
  bool atomic_update = false;
  // The sessions wait only through net/io.h (WaitFd, SleepUntil), so the
  // runner may host several clients on one thread as fibers (`connections`
  // > 1, pipelining). False for embedded engines: their calls block the thread.
  bool waits_through_io = false;
  // Clients per connection the binding wants (its NAME.pipeline): the runner
  // hosts connections x pipeline clients per thread, and the binding lets
  // the clients of one ClientSlot{thread, connection} share a connection.
  int pipeline = 1;
  // Session::BatchInsert writes a batch in one native operation (a write
  // batch, one transaction, a pipeline) rather than the default loop.
  bool native_batch_insert = false;
  // Session::BatchRead reads a batch in one request (a multi-get).
  bool native_batch_read = false;
  // Session::Begin/Commit/Abort work (closed economy needs them); when not,
  // a few words for the user, e.g. "rocksdb.transactions=none".
  bool transactions = false;
  std::string why_no_transactions;
  // Session::Sql works (workload=sqlquery needs it).
  bool sql = false;
  // Sessions hold writes back and Session::Flush sends them: the runner
  // then records each session's flush as a CLEANUP operation (its latency
  // and return code); without, only a failed flush is recorded.
  bool buffers_writes = false;
};

// Where a client sits: its thread, its connection on that thread, and its
// place among the pipelined clients of that connection.
struct ClientSlot {
  int thread = 0;
  int connection = 0;
  int slot = 0;
};

// The shared engine handle: opened once per process, thread-safe.
class Store {
 public:
  virtual ~Store() = default;
  // A new session for client thread `thread_id`. Throws SetupError.
  virtual std::unique_ptr<Session> NewSession(int thread_id) = 0;
  // A session for the client at `slot`. Bindings that pipeline override it
  // to give the clients of one {thread, connection} one shared connection;
  // they are all used from that one thread. Throws SetupError.
  virtual std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) { return NewSession(slot.thread); }
  virtual Capabilities capabilities() const { return {}; }
  // Bytes the store occupies on disk, where that means something.
  virtual std::optional<std::uint64_t> DiskUsageBytes() { return std::nullopt; }
  // Flushes and closes. Called once after all sessions are gone.
  virtual void Close() {}
  // Engine-specific figures for the JSON result (name, value).
  virtual std::vector<std::pair<std::string, std::string>> Stats() { return {}; }
};

// A property a binding understands, documented for `storebench list`.
struct PropertySpec {
  std::string name;           // full name, e.g. "rocksdb.dir"
  std::string default_value;  // as text; "" when none
  std::string help;           // one line
};

// How the process will use the store.
struct OpenContext {
  bool loading = false;   // true for `load` (and the load half of `bench`)
  int thread_count = 1;
};

// A registered binding: its name, its documented properties and how to open it.
struct BindingInfo {
  std::string name;
  std::string summary;
  std::vector<PropertySpec> properties;
  // Opens the store. Reads its own properties through the typed getters of
  // `props` (which marks them known). Throws ConfigError for a bad property
  // and SetupError for a store that cannot be opened.
  std::function<std::unique_ptr<Store>(const Properties& props, const OpenContext& ctx)> open;
  // True when the binding keeps data in `NAME.dir` (the CLI supplies the
  // default dir, or a temporary one for `bench`).
  bool uses_dir = false;
  // True when the binding talks to a server (tests then need one running;
  // see tests/test_util.h ServerProperties).
  bool server = false;
};

// The usual BindingInfo::open: parses the binding's typed options once with
// `parse` (Properties -> the options struct, throwing ConfigError) and
// constructs the store from them: `.open = OpenStore<LevelStore, ParseOptions>`.
template <typename StoreT, auto parse>
std::unique_ptr<Store> OpenStore(const Properties& props, const OpenContext&) {
  return std::make_unique<StoreT>(parse(props));
}

}  // namespace storebench
