// Binding "wiredtiger": an embedded WiredTiger (the system's libwiredtiger).
//
// One WT_CONNECTION is opened per process by the Store (wiredtiger_open,
// thread-safe) and each Session owns one WT_SESSION with one cursor per
// table, opened on first use and reused (WT sessions and cursors are
// single-threaded); a cursor is reset after every operation, so it pins no
// page or snapshot between operations. Records are stored with the shared
// record codec (db/record_codec.h) under the key as given, in one WiredTiger
// table per YCSB table ("table:usertable", key_format=u, value_format=u:
// raw bytes, keys ordered by memcmp), created on the first write to it
// (WT_SESSION::create is idempotent). A read, update or delete of a table that
// does not exist is NOT_FOUND; a scan of it returns nothing.
//
// Operations:
//   Insert = cursor insert (overwrite=true: creates or overwrites)
//   Update = search + MergeRecord + update in one snapshot transaction:
//            atomic; a write conflict with a concurrent transaction
//            (WT_ROLLBACK) is retried (a few yields, then sleeps growing
//            to 1 ms: the other transaction's thread may be preempted) for
//            up to 1 s, then ABORTED. NOT_FOUND if the record is missing.
//   Read   = search + DecodeRecord; NOT_FOUND if missing
//   Delete = remove (blind: OK whether or not the key existed)
//   Scan   = search_near(start_key), stepping forward if it landed before
//            it, then next: up to `count` records in key order, read in one
//            snapshot transaction
// An insert or delete that hits WT_ROLLBACK (a conflict, or a cache too full
// to make progress) is retried the same way.
//
// Durability: WiredTiger writes data at checkpoints. By default only at
// close (and before DiskUsageBytes); wiredtiger.checkpoint=N adds one every N
// seconds, wiredtiger.log=true a write-ahead log (records since the last
// checkpoint survive a crash), wiredtiger.sync=true an fsync of the log at
// every commit. Block compression (wiredtiger.block_compressor) uses the
// snappy and zlib extension libraries Debian ships next to libwiredtiger;
// both are always loaded, so a table created with either can be reopened
// whatever the current choice, which applies to tables created from then on.
//
// WiredTiger's error and informational messages go to an event handler, not
// to stderr: the open errors become part of the SetupError, the last
// operation error is in Stats(). Setup errors (ConfigError for a bad
// property or a raw config string WiredTiger rejects, SetupError for a
// directory that cannot be created or a database that cannot be opened,
// e.g. one locked by another process or store) are thrown from `open` with
// a one-line message naming the property and path. Close() closes the
// connection, which writes a final checkpoint; it throws SetupError if that
// fails.
#include <dlfcn.h>
#include <wiredtiger.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/record_codec.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

constexpr char kDefaultDir[] = "storebench-data/wiredtiger";
// WiredTiger's own default cache (wiredtiger_open cache_size=100MB), kept so
// that out-of-the-box figures are the engine's out-of-the-box behaviour (as
// the rocksdb binding keeps RocksDB's defaults).
constexpr std::uint64_t kDefaultCacheSize = 100ull << 20;
// An operation that hits WT_ROLLBACK (a write conflict) is retried for up
// to this long before it returns ABORTED.
constexpr auto kRetryBudget = std::chrono::seconds(1);

// Compressors that may exist as extension libraries beside libwiredtiger.
constexpr const char* kCompressors[] = {"snappy", "zlib"};

struct WtOptions {
  std::string dir;
  std::uint64_t cache_size = kDefaultCacheSize;
  std::int64_t checkpoint_secs = 0;
  bool log = false;
  bool sync = false;
  std::string block_compressor;  // "none" or a name from kCompressors
  bool statistics = false;
  std::string config;        // raw wiredtiger_open config, appended
  std::string table_config;  // raw WT_SESSION::create config, appended
};

// The directory libwiredtiger was loaded from: its extensions live there.
std::string LibraryDir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&wiredtiger_open), &info) == 0 || info.dli_fname == nullptr) return "";
  return std::filesystem::path(info.dli_fname).parent_path().string();
}

// Extension library of a compressor, or "" when this system has none.
std::string ExtensionPath(const std::string& compressor) {
  std::string dir = LibraryDir();
  if (dir.empty()) return "";
  std::string path = dir + "/libwiredtiger_" + compressor + ".so";
  std::error_code ec;
  return std::filesystem::exists(path, ec) ? path : "";
}

// Collects WiredTiger's error messages instead of printing them.
struct ErrorSink {
  std::mutex mu;
  std::vector<std::string> messages;  // since the last Take()
  std::string last;
  std::uint64_t count = 0;

  // Drops WiredTiger's "[time][pid:thread], " prefix.
  static std::string Strip(const char* msg) {
    std::string_view m = msg != nullptr ? msg : "";
    if (!m.empty() && m[0] == '[') {
      auto p = m.find("], ");
      if (p != std::string_view::npos) m.remove_prefix(p + 3);
    }
    return std::string(m);
  }
  void Add(const char* msg) {
    std::lock_guard lock(mu);
    last = Strip(msg);
    if (messages.size() < 8) messages.push_back(last);
    ++count;
  }
  // The messages since the last call, joined with "; ".
  std::string Take() {
    std::lock_guard lock(mu);
    std::string out;
    for (const auto& m : messages) out += (out.empty() ? "" : "; ") + m;
    messages.clear();
    return out;
  }
};

// A WT_EVENT_HANDLER that forwards to an ErrorSink (standard layout, so the
// handler pointer WiredTiger passes back is the struct's address).
struct Handler {
  WT_EVENT_HANDLER wt;
  ErrorSink* sink;
};

int OnError(WT_EVENT_HANDLER* h, WT_SESSION*, int, const char* message) {
  reinterpret_cast<Handler*>(h)->sink->Add(message);
  return 0;
}
int OnMessage(WT_EVENT_HANDLER*, WT_SESSION*, const char*) { return 0; }  // informational: dropped

WtOptions ParseOptions(const Properties& props, ErrorSink* sink, WT_EVENT_HANDLER* handler) {
  WtOptions o;
  o.dir = props.GetString("wiredtiger.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'wiredtiger.dir' is empty: expected a directory");
  o.cache_size = props.GetSize("wiredtiger.cache_size", kDefaultCacheSize);
  if (o.cache_size < (1ull << 20)) {
    throw ConfigError("property 'wiredtiger.cache_size' = '" + props.Get("wiredtiger.cache_size").value_or("") +
                      "' (" + props.OriginOf("wiredtiger.cache_size") + "): expected at least 1M");
  }
  o.checkpoint_secs = props.GetInt("wiredtiger.checkpoint", 0, 0, 100000);
  o.log = props.GetBool("wiredtiger.log", false);
  o.sync = props.GetBool("wiredtiger.sync", false);
  if (o.sync && !o.log) {
    throw ConfigError("property 'wiredtiger.sync' = 'true' (" + props.OriginOf("wiredtiger.sync") +
                      "): needs wiredtiger.log=true (without the log, data is written only at checkpoints)");
  }
  std::vector<std::string> choices = {"none"};
  for (const char* c : kCompressors) choices.emplace_back(c);
  o.block_compressor = props.GetChoice("wiredtiger.block_compressor", "none", choices);
  for (char& c : o.block_compressor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (o.block_compressor != "none" && ExtensionPath(o.block_compressor).empty()) {
    std::string have = "none";
    for (const char* c : kCompressors) {
      if (!ExtensionPath(c).empty()) have += std::string(", ") + c;
    }
    throw ConfigError("property 'wiredtiger.block_compressor' = '" + o.block_compressor + "' (" +
                      props.OriginOf("wiredtiger.block_compressor") + "): no libwiredtiger_" + o.block_compressor +
                      ".so beside libwiredtiger; available: " + have);
  }
  o.statistics = props.GetBool("wiredtiger.statistics", false);
  o.config = props.GetString("wiredtiger.config", "");
  o.table_config = props.GetString("wiredtiger.table_config", "");
  // Raw strings are checked by WiredTiger itself, before anything is opened.
  for (auto [key, value, method] : {std::tuple{"wiredtiger.config", &o.config, "wiredtiger_open"},
                                    std::tuple{"wiredtiger.table_config", &o.table_config, "WT_SESSION.create"}}) {
    if (value->empty()) continue;
    sink->Take();
    if (wiredtiger_config_validate(nullptr, handler, method, value->c_str()) != 0) {
      throw ConfigError(std::string("property '") + key + "' = '" + *value + "' (" + props.OriginOf(key) +
                        "): WiredTiger rejects it: " + sink->Take());
    }
  }
  return o;
}

// Paces the retries of an operation that hit WT_ROLLBACK: a few yields, then
// sleeps doubling from 10 us to 1 ms; Wait() is false once kRetryBudget is spent.
class Backoff {
 public:
  bool Wait() {
    const auto now = std::chrono::steady_clock::now();
    if (attempt_ == 0) start_ = now;
    if (now - start_ > kRetryBudget) return false;
    if (attempt_ < 8) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 10 << std::min(attempt_ - 8, 7))));
    }
    ++attempt_;
    return true;
  }

 private:
  int attempt_ = 0;
  std::chrono::steady_clock::time_point start_;
};

WT_ITEM Item(std::string_view s) {
  WT_ITEM item{};
  item.data = s.data();
  item.size = s.size();
  return item;
}
std::string_view View(const WT_ITEM& item) { return {static_cast<const char*>(item.data), item.size}; }

// Resets a cursor when the operation is over: releases its position, pinned
// page and (outside an explicit transaction) snapshot.
class ResetOnExit {
 public:
  explicit ResetOnExit(WT_CURSOR* c) : c_(c) {}
  ~ResetOnExit() { c_->reset(c_); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  WT_CURSOR* c_;
};

class WtStore;

class WtSession final : public Session {
 public:
  WtSession(WT_SESSION* session, const std::string* table_config) : session_(session), table_config_(table_config) {}
  ~WtSession() override { session_->close(session_, nullptr); }  // closes its cursors too

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      WT_CURSOR* c = Cursor(table, false);
      if (c == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      ResetOnExit reset(c);
      WT_ITEM k = Item(key);
      c->set_key(c, &k);
      int ret = c->search(c);
      if (ret == WT_NOTFOUND) return Status::NotFound();
      WT_ITEM v{};
      if (ret != 0 || c->get_value(c, &v) != 0) return Status::Error();
      return DecodeReadResult(key, View(v), fields, out);
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      WT_CURSOR* c = Cursor(table, false);
      if (c == nullptr) return table_error_ ? Status::Error() : Status::Ok();  // no table: no records
      if (count == 0) return Status::Ok();
      if (session_->begin_transaction(session_, "isolation=snapshot") != 0) return Status::Error();
      Status st = ScanIn(c, start_key, count, fields, out);
      // A read-only transaction: commit just releases the snapshot.
      if (st.ok()) {
        if (session_->commit_transaction(session_, nullptr) != 0) st = Status::Error();
      } else {
        session_->rollback_transaction(session_, nullptr);
      }
      if (!st.ok()) out->Clear();
      return st;
    });
  }

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      WT_CURSOR* c = Cursor(table, false);
      if (c == nullptr) return table_error_ ? Status::Error() : Status::NotFound();
      Backoff backoff;
      for (;;) {
        int ret = UpdateOnce(c, key, values);
        if (ret == 0) return Status::Ok();
        if (ret == WT_NOTFOUND) return Status::NotFound();
        if (ret != WT_ROLLBACK) return Status::Error();
        if (!backoff.Wait()) return Status(Status::kAborted);  // let the conflicting transaction finish
      }
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      WT_CURSOR* c = Cursor(table, true);
      if (c == nullptr) return Status::Error();
      EncodeRecord(values, &buf_);
      return Retry([&] {
        ResetOnExit reset(c);
        WT_ITEM k = Item(key), v = Item(buf_);
        c->set_key(c, &k);
        c->set_value(c, &v);
        return c->insert(c);
      });
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      WT_CURSOR* c = Cursor(table, false);
      if (c == nullptr) return table_error_ ? Status::Error() : Status::Ok();
      return Retry([&] {
        ResetOnExit reset(c);
        WT_ITEM k = Item(key);
        c->set_key(c, &k);
        int ret = c->remove(c);
        return ret == WT_NOTFOUND ? 0 : ret;  // overwrite=true: blind anyway
      });
    });
  }

 private:
  // Runs a one-call autocommit operation, retrying WT_ROLLBACK.
  template <typename Op>
  static Status Retry(Op op) {
    Backoff backoff;
    for (;;) {
      int ret = op();
      if (ret == 0) return Status::Ok();
      if (ret != WT_ROLLBACK) return Status::Error();
      if (!backoff.Wait()) return Status(Status::kAborted);
    }
  }

  // One attempt: 0, WT_NOTFOUND, WT_ROLLBACK (retry) or another error.
  int UpdateOnce(WT_CURSOR* c, std::string_view key, std::span<const Field> values) {
    int ret = session_->begin_transaction(session_, "isolation=snapshot");
    if (ret != 0) return ret;
    WT_ITEM k = Item(key);
    c->set_key(c, &k);
    ret = c->search(c);
    WT_ITEM v{};
    if (ret == 0) ret = c->get_value(c, &v);
    if (ret == 0 && !MergeRecord(View(v), values, &buf_)) ret = EINVAL;  // corrupt record
    if (ret == 0) {
      WT_ITEM merged = Item(buf_);
      c->set_value(c, &merged);
      ret = c->update(c);
    }
    if (ret != 0) {
      session_->rollback_transaction(session_, nullptr);  // also resets the cursor
      return ret;
    }
    ret = session_->commit_transaction(session_, nullptr);  // a failed commit rolls back
    c->reset(c);
    return ret;
  }

  Status ScanIn(WT_CURSOR* c, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
                RecordSet* out) {
    ResetOnExit reset(c);
    int ret;
    if (start_key.empty()) {
      ret = c->next(c);  // from a reset cursor: the first record
    } else {
      WT_ITEM k = Item(start_key);
      c->set_key(c, &k);
      int exact = 0;
      ret = c->search_near(c, &exact);
      if (ret == 0 && exact < 0) ret = c->next(c);  // landed on the key before start_key
    }
    for (std::uint64_t n = 0; n < count && ret == 0; ++n, ret = c->next(c)) {
      WT_ITEM key{}, value{};
      if (c->get_key(c, &key) != 0 || c->get_value(c, &value) != 0) return Status::Error();
      out->BeginRecord(View(key));
      if (!DecodeRecord(View(value), fields, out)) return Status::Error();
    }
    return ret == 0 || ret == WT_NOTFOUND ? Status::Ok() : Status::Error();
  }

  // The cursor of `table`, opened once; with `create`, the table is created
  // when missing. nullptr when it does not exist (and !create) or on
  // failure (table_error_ tells them apart).
  WT_CURSOR* Cursor(std::string_view table, bool create) {
    table_error_ = false;
    if (last_ != nullptr && last_->name == table) return last_->cursor;
    for (auto& t : cursors_) {
      if (t.name == table) {
        last_ = &t;
        return t.cursor;
      }
    }
    std::string uri = "table:" + std::string(table);
    WT_CURSOR* c = nullptr;
    int ret = session_->open_cursor(session_, uri.c_str(), nullptr, nullptr, &c);
    if (ret == ENOENT && create) {
      std::string config = "key_format=u,value_format=u," + *table_config_;
      ret = session_->create(session_, uri.c_str(), config.c_str());
      if (ret == 0) ret = session_->open_cursor(session_, uri.c_str(), nullptr, nullptr, &c);
    }
    if (ret != 0) {
      table_error_ = ret != ENOENT || create;
      return nullptr;
    }
    cursors_.push_back({std::string(table), c});
    last_ = nullptr;  // the vector may have moved
    return c;
  }

  struct TableCursor {
    std::string name;
    WT_CURSOR* cursor;
  };
  WT_SESSION* session_;
  const std::string* table_config_;  // the store's, for tables created here
  std::vector<TableCursor> cursors_;
  TableCursor* last_ = nullptr;
  bool table_error_ = false;
  std::string buf_;  // encoded or merged record
};

class WtStore final : public Store {
 public:
  WtStore(const WtOptions& o, const OpenContext& ctx, std::unique_ptr<ErrorSink> sink, std::unique_ptr<Handler> handler)
      : opts_(o), sink_(std::move(sink)), handler_(std::move(handler)) {
    PrepareStoreDir("wiredtiger.dir", o.dir);
    table_config_ = o.block_compressor == "none" ? "" : "block_compressor=" + o.block_compressor;
    if (!o.table_config.empty()) table_config_ += (table_config_.empty() ? "" : ",") + o.table_config;

    std::string config = "create,cache_size=" + std::to_string(o.cache_size) +
                         ",session_max=" + std::to_string(std::max(100, ctx.thread_count + 50));
    std::string extensions;
    for (const char* c : kCompressors) {
      std::string path = ExtensionPath(c);
      if (!path.empty()) extensions += (extensions.empty() ? "\"" : ",\"") + path + "\"";
    }
    if (!extensions.empty()) config += ",extensions=[" + extensions + "]";
    if (o.checkpoint_secs > 0) config += ",checkpoint=(wait=" + std::to_string(o.checkpoint_secs) + ")";
    if (o.log) config += ",log=(enabled=true)";
    if (o.sync) config += ",transaction_sync=(enabled=true,method=fsync)";
    if (o.statistics) config += ",statistics=(fast)";
    if (!o.config.empty()) config += "," + o.config;  // the user's raw settings win
    config_ = config;

    sink_->Take();
    int ret = wiredtiger_open(o.dir.c_str(), &handler_->wt, config.c_str(), &conn_);
    if (ret != 0) {
      conn_ = nullptr;
      std::string msgs = sink_->Take();
      if (msgs.empty()) msgs = wiredtiger_strerror(ret);
      if (ret == EBUSY || msgs.find("already being used") != std::string::npos) {
        throw SetupError("wiredtiger.dir '" + o.dir +
                         "': the database is locked, in use by another process or another store in this process (" +
                         msgs + ")");
      }
      throw SetupError("wiredtiger.dir '" + o.dir + "': cannot open the database: " + msgs);
    }
    ret = conn_->open_session(conn_, nullptr, nullptr, &admin_);
    if (ret != 0) {
      conn_->close(conn_, nullptr);
      conn_ = nullptr;
      throw SetupError("wiredtiger.dir '" + o.dir + "': cannot open a session: " + wiredtiger_strerror(ret));
    }
  }

  ~WtStore() override {
    if (conn_ != nullptr) conn_->close(conn_, nullptr);  // errors are reported by Close(), not here
  }

  std::unique_ptr<Session> NewSession(int) override {
    std::lock_guard lock(mu_);
    if (conn_ == nullptr) throw SetupError("wiredtiger: NewSession after Close");
    WT_SESSION* s = nullptr;
    int ret = conn_->open_session(conn_, nullptr, nullptr, &s);
    if (ret != 0) {
      throw SetupError("wiredtiger.dir '" + opts_.dir + "': cannot open a session: " + wiredtiger_strerror(ret) +
                       " (" + sink_->Take() + ")");
    }
    return std::make_unique<WtSession>(s, &table_config_);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = true;
    c.persistent = true;
    c.atomic_update = true;  // a snapshot transaction, retried on conflict
    return c;
  }

  // Checkpoints (from the store's own session), so the figure is the on-disk
  // size of everything written, then sums the files under the directory
  // (tables, metadata, turtle file, log files).
  std::optional<std::uint64_t> DiskUsageBytes() override {
    {
      std::lock_guard lock(mu_);
      if (admin_ != nullptr) admin_->checkpoint(admin_, nullptr);
    }
    return DiskBytes(opts_.dir);
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    int major = 0, minor = 0, patch = 0;
    wiredtiger_version(&major, &minor, &patch);
    out.emplace_back("wiredtiger.version",
                     std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch));
    std::lock_guard lock(mu_);
    if (admin_ == nullptr) return out;
    out.emplace_back("wiredtiger.config", config_);
    WT_CURSOR* c = nullptr;
    std::string tables;
    if (admin_->open_cursor(admin_, "metadata:", nullptr, nullptr, &c) == 0) {
      while (c->next(c) == 0) {
        const char* key = nullptr;
        if (c->get_key(c, &key) == 0 && key != nullptr && std::string_view(key).rfind("table:", 0) == 0) {
          tables += (tables.empty() ? "" : ",") + std::string(key + 6);
        }
      }
      c->close(c);
    }
    out.emplace_back("wiredtiger.tables", tables);
    {
      std::lock_guard sink_lock(sink_->mu);
      out.emplace_back("wiredtiger.errors", std::to_string(sink_->count));
      if (!sink_->last.empty()) out.emplace_back("wiredtiger.last_error", sink_->last);
    }
    if (opts_.statistics && admin_->open_cursor(admin_, "statistics:", nullptr, nullptr, &c) == 0) {
      static const char* const kWanted[] = {
          "cache: bytes currently in the cache",     "cache: maximum bytes configured",
          "cache: pages read into cache",            "cache: pages written from cache",
          "cache: unmodified pages evicted",         "cache: modified pages evicted",
          "cache: pages evicted by application threads",
          "block-manager: bytes read",               "block-manager: bytes written",
          "transaction: transactions committed",     "transaction: transactions rolled back",
          "transaction: transaction checkpoints",    "transaction: update conflicts",
          "cursor: cursor search calls",             "cursor: cursor search near calls",
          "cursor: cursor insert calls",             "cursor: cursor update calls",
          "cursor: cursor remove calls",             "log: log bytes written",
      };
      while (c->next(c) == 0) {
        const char* desc = nullptr;
        const char* pvalue = nullptr;
        std::int64_t value = 0;
        if (c->get_value(c, &desc, &pvalue, &value) != 0 || desc == nullptr) continue;
        for (const char* w : kWanted) {
          if (std::string_view(desc) == w) out.emplace_back("wiredtiger.stat." + StatName(desc), std::to_string(value));
        }
      }
      c->close(c);
    }
    return out;
  }

  void Close() override {
    std::lock_guard lock(mu_);
    if (conn_ == nullptr) return;
    sink_->Take();
    int ret = conn_->close(conn_, nullptr);  // closes admin_; writes a final checkpoint
    conn_ = nullptr;
    admin_ = nullptr;
    if (ret != 0) {
      throw SetupError("wiredtiger.dir '" + opts_.dir + "': close failed: " + wiredtiger_strerror(ret) + " (" +
                       sink_->Take() + ")");
    }
  }

 private:
  // "cache: bytes currently in the cache" -> "cache.bytes_currently_in_the_cache"
  static std::string StatName(std::string_view desc) {
    std::string out;
    for (std::size_t i = 0; i < desc.size(); ++i) {
      char ch = desc[i];
      if (ch == ':' && i + 1 < desc.size() && desc[i + 1] == ' ') {
        out.push_back('.');
        ++i;
      } else if (ch == ' ' || ch == '-') {
        out.push_back('_');
      } else {
        out.push_back(ch);
      }
    }
    return out;
  }

  WtOptions opts_;
  std::unique_ptr<ErrorSink> sink_;
  std::unique_ptr<Handler> handler_;  // must outlive conn_
  std::string config_;                // the wiredtiger_open config used
  std::string table_config_;          // WT_SESSION::create config of new tables (after the formats)
  std::mutex mu_;                     // guards conn_ (open/close) and admin_
  WT_CONNECTION* conn_ = nullptr;
  WT_SESSION* admin_ = nullptr;  // checkpoints and statistics
};

}  // namespace

const BindingInfo& wiredtiger_binding() {
  static const BindingInfo info{
      .name = "wiredtiger",
      .summary = "embedded WiredTiger " + std::to_string(WIREDTIGER_VERSION_MAJOR) + "." +
                 std::to_string(WIREDTIGER_VERSION_MINOR) + "." + std::to_string(WIREDTIGER_VERSION_PATCH) +
                 " (one connection, a session per thread; a table per YCSB table, records in the shared codec)",
      .properties =
          {
              {"wiredtiger.dir", kDefaultDir, "database directory (created with its parents if missing)"},
              {"wiredtiger.cache_size", "100M", "cache size in bytes (k/M/G suffixes; WiredTiger's default, at least 1M)"},
              {"wiredtiger.checkpoint", "0", "seconds between automatic checkpoints (0 = only at close and DiskUsage)"},
              {"wiredtiger.log", "false", "write-ahead log: committed writes survive a crash between checkpoints"},
              {"wiredtiger.sync", "false", "fsync the log at every commit (needs wiredtiger.log=true)"},
              {"wiredtiger.block_compressor", "none",
               "compression of tables created from now on: none, snappy or zlib (Debian's extension libraries)"},
              {"wiredtiger.statistics", "false", "statistics=(fast): cache, I/O and transaction counters in store_stats"},
              {"wiredtiger.config", "", "raw wiredtiger_open configuration appended last (overrides the above)"},
              {"wiredtiger.table_config", "", "raw WT_SESSION::create configuration of new tables, appended"},
          },
      .open = [](const Properties& props, const OpenContext& ctx) -> std::unique_ptr<Store> {
        auto sink = std::make_unique<ErrorSink>();
        auto handler = std::make_unique<Handler>();
        handler->wt = WT_EVENT_HANDLER{};
        handler->wt.handle_error = OnError;
        handler->wt.handle_message = OnMessage;
        handler->sink = sink.get();
        WtOptions o = ParseOptions(props, sink.get(), &handler->wt);
        return std::make_unique<WtStore>(o, ctx, std::move(sink), std::move(handler));
      },
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
