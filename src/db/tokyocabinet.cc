// Binding "tokyocabinet": embedded Tokyo Cabinet (the system's
// libtokyocabinet, the engine ROMA ran on), a file B+ tree (TCBDB, the
// default) or a file hash (TCHDB), through its C API.
//
// Layout: one database file per table (YCSB's `table`, "usertable" by
// default) inside tokyocabinet.dir: TABLE.tcb for type=btree, TABLE.tch for
// type=hash (the suffixes TC's abstract database uses). A record is one TC
// record: the key as given, the value in the shared record codec
// (db/record_codec.h). Table names are limited to [A-Za-z0-9_.-], not
// starting with '.', so that they are file names inside the directory; any
// other name makes the operation ERROR. Every table file already in the
// directory is opened when the store opens (so a file locked by another
// process is reported at once); a new table's file is created on the first
// insert into it. A read, update or delete of a table that was never written
// is NOT_FOUND (a scan returns nothing) and creates nothing.
//
// Concurrency: each database object is made thread-safe with
// tcbdbsetmutex/tchdbsetmutex before it is opened (a reader/writer lock over
// the object, plus per-record locks in the hash) and shared by all sessions,
// found in a table map under a mutex; each session caches the last table it
// used and keeps, for the B+ tree, one cursor and two TCXSTR buffers for
// scans. TC keeps its error code per thread once the mutex is set, so
// tcbdbecode/tchdbecode after a failed call are this thread's.
//
// Operations:
//   Insert = tcbdbput/tchdbput(encoded record) (creates or overwrites)
//   Update = tcbdbputproc/tchdbputproc with no value and a callback that
//            merges the new fields into the stored record (MergeRecord):
//            TC calls it with the record locked (the B+ tree's writer lock,
//            the hash's record lock), so the read-modify-write is atomic
//            against a concurrent update of the same key; no record ->
//            TCENOREC -> NOT_FOUND. TC requires the callback's result in a
//            malloc'ed buffer, which it frees: one allocation per update.
//   Read   = B+ tree: tcbdbget, a malloc'ed copy freed at once. Not
//            tcbdbget3: its pointer into the leaf cache is only valid until
//            the next operation of ANY thread (the lock is released when it
//            returns), so with shared objects it can be freed under us; and
//            the alternative that copies into a reusable buffer (cursor jump
//            + tcbdbcurrec) measured some 20% slower than tcbdbget.
//            Hash: tchdbget3 copies into the session's buffer (grown and
//            retried when the value fills it): no allocation.
//            Then DecodeRecord; NOT_FOUND if missing.
//   Delete = tcbdbout/tchdbout; NOT_FOUND if missing
//   Scan   = (B+ tree only) the session's cursor tcbdbcurjump(start_key),
//            then tcbdbcurrec (key and value copied into the session's
//            TCXSTRs under the lock) and tcbdbcurnext for up to `count`
//            records; fewer at the end. Not a snapshot: keys are returned in
//            strictly increasing order even if concurrent writes move the
//            cursor. type=hash keeps no key order: the store declares
//            scan=false and the CLI refuses a scan workload.
//   With tokyocabinet.sync=true every write is followed by tcbdbsync/
//   tchdbsync (dirty pages written and the file fsync'ed).
//
// Setup errors (thrown from `open`): ConfigError for a bad property or a
// combination that makes no sense (a B+ tree tuning with type=hash, a
// directory holding the other type's files); SetupError naming the path for
// a directory that cannot be created, a table file that cannot be opened
// (tcbdberrmsg/tchdberrmsg of the error code), or one locked by another
// process (TC's fcntl lock, taken with BDBOLCKNB/HDBOLCKNB, so the open fails
// at once instead of waiting) or by another store of this process (fcntl
// locks do not exclude the process that holds them, so stores register
// their directory in a process-wide set). Close() closes every table file
// (writing the caches); it throws SetupError if that fails.
#include <tcbdb.h>
#include <tchdb.h>
#include <tcutil.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
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

constexpr char kDefaultDir[] = "storebench-data/tokyocabinet";
constexpr std::uint64_t kDefaultXmsiz = 64ull << 20;  // TC's hash default (its B+ tree default is 0: none)

enum class TcType { kBtree, kHash };

const NamedValue<std::uint8_t> kCompressions[] = {  // BDBT* and HDBT* have the same values
    {"none", 0},
    {"deflate", BDBTDEFLATE},
    {"bzip", BDBTBZIP},
    {"tcbs", BDBTTCBS},
};
static_assert(int{BDBTDEFLATE} == int{HDBTDEFLATE} && int{BDBTBZIP} == int{HDBTBZIP} && int{BDBTTCBS} == int{HDBTTCBS} &&
              int{BDBTLARGE} == int{HDBTLARGE});

// True when this libtokyocabinet can compress with `opt` (TC's codecs
// return NULL when the library was built without them).
bool CompressionWorks(std::uint8_t opt) {
  static const char kProbe[] = "storebench probe storebench probe";
  int zsize = 0;
  char* z = nullptr;
  if (opt == BDBTDEFLATE) z = tcdeflate(kProbe, sizeof kProbe, &zsize);
  if (opt == BDBTBZIP) z = tcbzipencode(kProbe, sizeof kProbe, &zsize);
  if (opt == BDBTTCBS) z = tcbsencode(kProbe, sizeof kProbe, &zsize);
  if (z == nullptr) return false;
  int size = 0;
  char* back = nullptr;
  if (opt == BDBTDEFLATE) back = tcinflate(z, zsize, &size);
  if (opt == BDBTBZIP) back = tcbzipdecode(z, zsize, &size);
  if (opt == BDBTTCBS) back = tcbsdecode(z, zsize, &size);
  bool ok = back != nullptr && size == static_cast<int>(sizeof kProbe) && std::memcmp(kProbe, back, size) == 0;
  std::free(z);
  std::free(back);
  return ok;
}

// Typed options, read and validated once. Zero means TC's own default.
struct TcOptions {
  std::string dir;
  TcType type = TcType::kBtree;
  std::int64_t bnum = 0;
  std::int32_t lmemb = 0, nmemb = 0;  // B+ tree page members
  std::int32_t lcnum = 0, ncnum = 0;  // B+ tree page caches
  std::int64_t xmsiz = static_cast<std::int64_t>(kDefaultXmsiz);
  std::string compress = "none";
  std::uint8_t opts = BDBTLARGE;
  bool sync = false;
  bool destroy = false;

  const char* extension() const { return type == TcType::kBtree ? ".tcb" : ".tch"; }
  const char* other_extension() const { return type == TcType::kBtree ? ".tch" : ".tcb"; }
  const char* type_name() const { return type == TcType::kBtree ? "btree" : "hash"; }
};

TcOptions ParseOptions(const Properties& props) {
  TcOptions o;
  o.dir = props.GetString("tokyocabinet.dir", kDefaultDir);
  if (o.dir.empty()) throw ConfigError("property 'tokyocabinet.dir' is empty: expected a directory");
  o.type = props.GetChoice("tokyocabinet.type", "btree", {"btree", "hash"}) == "hash" ? TcType::kHash : TcType::kBtree;
  o.bnum = props.GetInt("tokyocabinet.bnum", 0, 0, INT64_C(1) << 40);
  o.lmemb = static_cast<std::int32_t>(props.GetInt("tokyocabinet.lmemb", 0, 0, 1 << 20));
  o.nmemb = static_cast<std::int32_t>(props.GetInt("tokyocabinet.nmemb", 0, 0, 1 << 20));
  o.lcnum = static_cast<std::int32_t>(props.GetInt("tokyocabinet.lcnum", 0, 0, 1 << 30));
  o.ncnum = static_cast<std::int32_t>(props.GetInt("tokyocabinet.ncnum", 0, 0, 1 << 30));
  if (o.type == TcType::kHash) {
    for (const char* name : {"tokyocabinet.lmemb", "tokyocabinet.nmemb", "tokyocabinet.lcnum", "tokyocabinet.ncnum"}) {
      if (props.Has(name)) {
        throw ConfigError(std::string("property '") + name + "' (" + props.OriginOf(name) +
                          ") tunes the B+ tree: it has no effect with tokyocabinet.type=hash");
      }
    }
  }
  std::uint64_t xmsiz = props.GetSize("tokyocabinet.xmsiz", kDefaultXmsiz);
  if (xmsiz > (1ull << 40)) {
    throw ConfigError("property 'tokyocabinet.xmsiz' = '" + props.Get("tokyocabinet.xmsiz").value_or("") + "' (" +
                      props.OriginOf("tokyocabinet.xmsiz") + "): expected at most 1024G");
  }
  o.xmsiz = static_cast<std::int64_t>(xmsiz);
  const auto& compression = ChoiceProperty(props, "tokyocabinet.compress", "none", kCompressions);
  o.compress = compression.name;
  const std::uint8_t comp = compression.value;
  if (comp != 0 && !CompressionWorks(comp)) {
    const std::string have = AvailableChoices(kCompressions, CompressionWorks);
    throw ConfigError("property 'tokyocabinet.compress' = '" + o.compress + "' (" +
                      props.OriginOf("tokyocabinet.compress") +
                      "): this Tokyo Cabinet was built without it; available: " + have);
  }
  const bool large = props.GetBool("tokyocabinet.large", true);
  o.opts = static_cast<std::uint8_t>(comp | (large ? BDBTLARGE : 0));
  o.sync = props.GetBool("tokyocabinet.sync", false);
  o.destroy = props.GetBool("tokyocabinet.destroy", false);
  return o;
}

// One table: its file and the TC database (exactly one of bdb/hdb) shared by
// every session.
struct Table {
  std::string name;
  std::string path;
  TCBDB* bdb = nullptr;
  TCHDB* hdb = nullptr;

  ~Table() {
    if (bdb != nullptr) tcbdbdel(bdb);  // closes it if still open
    if (hdb != nullptr) tchdbdel(hdb);
  }
  int ecode() const { return bdb != nullptr ? tcbdbecode(bdb) : tchdbecode(hdb); }
  std::string ErrorText() const {
    int e = ecode();
    return std::string(bdb != nullptr ? tcbdberrmsg(e) : tchdberrmsg(e)) + " (code " + std::to_string(e) + ")";
  }
  bool Sync() { return bdb != nullptr ? tcbdbsync(bdb) : tchdbsync(hdb); }
  bool Close() { return bdb != nullptr ? tcbdbclose(bdb) : tchdbclose(hdb); }
  std::uint64_t rnum() { return bdb != nullptr ? tcbdbrnum(bdb) : tchdbrnum(hdb); }
  std::uint64_t fsiz() { return bdb != nullptr ? tcbdbfsiz(bdb) : tchdbfsiz(hdb); }
};

// The merge callback of an update; TC calls it with the record locked and
// frees what it returns. It must not throw (C code on the stack).
struct MergeOp {
  std::span<const Field> values;
  std::string* buf;
  bool failed = false;
};

void* MergeProc(const void* vbuf, int vsiz, int* sp, void* op) {
  auto* m = static_cast<MergeOp*>(op);
  try {
    if (!MergeRecord(std::string_view(static_cast<const char*>(vbuf), static_cast<std::size_t>(vsiz)), m->values,
                     m->buf)) {
      m->failed = true;
      return nullptr;  // record left unchanged
    }
  } catch (...) {
    m->failed = true;
    return nullptr;
  }
  void* out = std::malloc(m->buf->size() + 1);
  if (out == nullptr) {
    m->failed = true;
    return nullptr;
  }
  std::memcpy(out, m->buf->data(), m->buf->size());
  *sp = static_cast<int>(m->buf->size());
  return out;
}

class TcStore;

class TcSession final : public Session {
 public:
  explicit TcSession(TcStore* store);
  ~TcSession() override {
    if (cursor_ != nullptr) tcbdbcurdel(cursor_);
    tcxstrdel(kx_);
    tcxstrdel(vx_);
  }

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      Table* t = FindTable(table, false);
      if (t == nullptr) return tables_.Missing();
      if (!KeyFits(key)) return Status::Error();
      if (t->bdb != nullptr) {
        int size = 0;
        void* v = tcbdbget(t->bdb, key.data(), static_cast<int>(key.size()), &size);
        if (v == nullptr) return t->ecode() == TCENOREC ? Status::NotFound() : Status::Error();
        Status st = DecodeReadResult(
            key, std::string_view(static_cast<const char*>(v), static_cast<std::size_t>(size)), fields, out);
        std::free(v);
        return st;
      }
      Status st = HashGet(t, key);
      if (!st.ok()) return st;
      return DecodeReadResult(key, std::string_view(read_buf_.data(), read_size_), fields, out);
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override;

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      Table* t = FindTable(table, false);
      if (t == nullptr) return tables_.Missing();
      if (!KeyFits(key)) return Status::Error();
      MergeOp op{values, &buf_};
      const int ksiz = static_cast<int>(key.size());
      bool ok = t->bdb != nullptr ? tcbdbputproc(t->bdb, key.data(), ksiz, nullptr, 0, MergeProc, &op)
                                  : tchdbputproc(t->hdb, key.data(), ksiz, nullptr, 0, MergeProc, &op);
      if (!ok) return !op.failed && t->ecode() == TCENOREC ? Status::NotFound() : Status::Error();
      if (op.failed) return Status::Error();
      return Synced(t);
    });
  }

  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override {
    return Guard([&] {
      Table* t = FindTable(table, true);
      if (t == nullptr || !KeyFits(key)) return Status::Error();
      EncodeRecord(values, &buf_);
      if (buf_.size() > static_cast<std::size_t>(INT32_MAX)) return Status::Error();
      const int ksiz = static_cast<int>(key.size());
      const int vsiz = static_cast<int>(buf_.size());
      bool ok = t->bdb != nullptr ? tcbdbput(t->bdb, key.data(), ksiz, buf_.data(), vsiz)
                                  : tchdbput(t->hdb, key.data(), ksiz, buf_.data(), vsiz);
      if (!ok) return Status::Error();
      return Synced(t);
    });
  }

  Status Delete(std::string_view table, std::string_view key) override {
    return Guard([&] {
      Table* t = FindTable(table, false);
      if (t == nullptr) return tables_.Missing();
      if (!KeyFits(key)) return Status::Error();
      const int ksiz = static_cast<int>(key.size());
      bool ok = t->bdb != nullptr ? tcbdbout(t->bdb, key.data(), ksiz) : tchdbout(t->hdb, key.data(), ksiz);
      if (!ok) return t->ecode() == TCENOREC ? Status::NotFound() : Status::Error();
      return Synced(t);
    });
  }

 private:
  static bool KeyFits(std::string_view key) { return key.size() <= static_cast<std::size_t>(INT32_MAX); }

  Table* FindTable(std::string_view table, bool create);

  // Reads a hash record into read_buf_ (read_size_ bytes): tchdbget3 copies
  // at most the buffer's size, so a value that fills it may be cut short:
  // grow to the record's size and read again.
  Status HashGet(Table* t, std::string_view key) {
    const int ksiz = static_cast<int>(key.size());
    for (int attempt = 0; attempt < 8; ++attempt) {
      const int cap = static_cast<int>(std::min<std::size_t>(read_buf_.size(), INT32_MAX));
      int n = tchdbget3(t->hdb, key.data(), ksiz, read_buf_.data(), cap);
      if (n < 0) return t->ecode() == TCENOREC ? Status::NotFound() : Status::Error();
      if (n < cap) {
        read_size_ = static_cast<std::size_t>(n);
        return Status::Ok();
      }
      int vsiz = tchdbvsiz(t->hdb, key.data(), ksiz);
      if (vsiz < 0) return t->ecode() == TCENOREC ? Status::NotFound() : Status::Error();
      if (vsiz >= INT32_MAX) return Status::Error();
      read_buf_.resize(std::max<std::size_t>(static_cast<std::size_t>(vsiz) + 1, read_buf_.size() * 2));
    }
    return Status::Error();  // the record kept growing under us
  }

  Status Synced(Table* t);

  TcStore* store_;
  TableCache<Table> tables_;
  BDBCUR* cursor_ = nullptr;    // on the cached table's B+ tree, created by the first scan
  TCXSTR* kx_;                  // scan: the current key
  TCXSTR* vx_;                  // scan: the current value
  std::string buf_;             // encoded or merged record
  std::vector<char> read_buf_;  // hash reads (tchdbget3)
  std::size_t read_size_ = 0;
};

class TcStore final : public Store {
 public:
  explicit TcStore(const TcOptions& o)
      : opts_(o),
        files_({"tokyocabinet", o.dir, o.extension(), o.other_extension(), o.type_name(),
                o.type == TcType::kBtree ? "hash" : "btree"},
               [this](const std::string& name, const std::string& path, bool fresh, std::string* why) {
                 return OpenTable(name, path, fresh, why);
               },
               [](Table& t, std::string* why) {
                 if (t.Close()) return true;
                 *why = t.ErrorText();
                 return false;
               }) {
    files_.Open(opts_.destroy);
  }

  std::unique_ptr<Session> NewSession(int) override {
    files_.CheckOpen();
    return std::make_unique<TcSession>(this);
  }

  // Atomic updates: the merge runs in putproc, under the record lock.
  Capabilities capabilities() const override { return files_.capabilities(opts_.type == TcType::kBtree); }

  // Writes every table's cached pages and metadata to its file (tcbdbsync/
  // tchdbsync, which also fsyncs), then sums the sizes of the files.
  std::optional<std::uint64_t> DiskUsageBytes() override {
    for (Table* t : files_.All()) t->Sync();
    return DiskBytes(opts_.dir);
  }

  // Summed over the tables: records (rnum) and file bytes (fsiz); then each
  // table's tuning as TC reports it (for a file that existed before: what it
  // was created with, whatever the properties say).
  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    out.emplace_back("tokyocabinet.version", tcversion);
    out.emplace_back("tokyocabinet.type", opts_.type_name());
    if (files_.closed()) return out;
    std::uint64_t rnum = 0, fsiz = 0;
    for (Table* t : files_.All()) {
      rnum += t->rnum();
      fsiz += t->fsiz();
    }
    out.emplace_back("tokyocabinet.tables", files_.Names());
    out.emplace_back("tokyocabinet.rnum", std::to_string(rnum));
    out.emplace_back("tokyocabinet.fsiz", std::to_string(fsiz));
    out.emplace_back("tokyocabinet.compress", opts_.compress);
    for (Table* t : files_.All()) {
      const std::string p = "tokyocabinet." + t->name + ".";
      if (t->bdb != nullptr) {
        out.emplace_back(p + "bnum", std::to_string(tcbdbbnum(t->bdb)));
        out.emplace_back(p + "lmemb", std::to_string(tcbdblmemb(t->bdb)));
        out.emplace_back(p + "nmemb", std::to_string(tcbdbnmemb(t->bdb)));
        out.emplace_back(p + "lcnum", std::to_string(t->bdb->lcnum));
        out.emplace_back(p + "ncnum", std::to_string(t->bdb->ncnum));
        out.emplace_back(p + "xmsiz", std::to_string(tchdbxmsiz(t->bdb->hdb)));
        out.emplace_back(p + "opts", std::to_string(tcbdbopts(t->bdb)));
        out.emplace_back(p + "leaves", std::to_string(tcbdblnum(t->bdb)));
      } else {
        out.emplace_back(p + "bnum", std::to_string(tchdbbnum(t->hdb)));
        out.emplace_back(p + "xmsiz", std::to_string(tchdbxmsiz(t->hdb)));
        out.emplace_back(p + "opts", std::to_string(tchdbopts(t->hdb)));
      }
    }
    return out;
  }

  void Close() override { files_.Close(); }

  const TcOptions& options() const { return opts_; }
  TableFiles<Table>& files() { return files_; }

 private:
  // Opens one table file (truncating it when `truncate`, after the lock is
  // taken); on failure returns nullptr and a one-line reason.
  std::unique_ptr<Table> OpenTable(const std::string& name, const std::string& path, bool truncate,
                                   std::string* why) {
    auto t = std::make_unique<Table>();
    t->name = name;
    t->path = path;
    bool ok;
    if (opts_.type == TcType::kBtree) {
      t->bdb = tcbdbnew();
      ok = tcbdbsetmutex(t->bdb) && tcbdbtune(t->bdb, opts_.lmemb, opts_.nmemb, opts_.bnum, -1, -1, opts_.opts) &&
           tcbdbsetcache(t->bdb, opts_.lcnum, opts_.ncnum) && tcbdbsetxmsiz(t->bdb, opts_.xmsiz);
      int mode = BDBOWRITER | BDBOCREAT | BDBOLCKNB | (truncate ? BDBOTRUNC : 0);
      ok = ok && tcbdbopen(t->bdb, t->path.c_str(), mode);
    } else {
      t->hdb = tchdbnew();
      ok = tchdbsetmutex(t->hdb) && tchdbtune(t->hdb, opts_.bnum, -1, -1, opts_.opts) &&
           tchdbsetxmsiz(t->hdb, opts_.xmsiz);
      int mode = HDBOWRITER | HDBOCREAT | HDBOLCKNB | (truncate ? HDBOTRUNC : 0);
      ok = ok && tchdbopen(t->hdb, t->path.c_str(), mode);
    }
    if (!ok) {
      if (t->ecode() == TCELOCK) {
        *why = "the database is locked, in use by another process (" + t->ErrorText() + ")";
      } else {
        *why = "cannot open it as a tokyocabinet.type=" + std::string(opts_.type_name()) + " database (" +
               t->ErrorText() + ")";
      }
      return nullptr;
    }
    return t;
  }

  TcOptions opts_;
  TableFiles<Table> files_;
};

TcSession::TcSession(TcStore* store) : store_(store), kx_(tcxstrnew()), vx_(tcxstrnew()), read_buf_(4096) {}

Table* TcSession::FindTable(std::string_view table, bool create) {
  bool switched = false;
  Table* t = tables_.Find(store_->files(), table, create, &switched);
  if (switched && cursor_ != nullptr) {
    tcbdbcurdel(cursor_);  // it belongs to the previous table's database
    cursor_ = nullptr;
  }
  return t;
}

Status TcSession::Synced(Table* t) {
  if (!store_->options().sync) return Status::Ok();
  return t->Sync() ? Status::Ok() : Status::Error();
}

Status TcSession::Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
                       const FieldSelector& fields, RecordSet* out) {
  return Guard([&] {
    out->Clear();
    if (store_->options().type != TcType::kBtree) return Status::Error();  // capabilities().scan is false
    Table* t = FindTable(table, false);
    if (t == nullptr) return tables_.MissingScan();  // no table: no records
    if (count == 0) return Status::Ok();
    if (!KeyFits(start_key)) return Status::Error();
    if (cursor_ == nullptr) cursor_ = tcbdbcurnew(t->bdb);
    if (!tcbdbcurjump(cursor_, start_key.data(), static_cast<int>(start_key.size()))) {
      return t->ecode() == TCENOREC ? Status::Ok() : Status::Error();  // nothing at or after start_key
    }
    std::uint64_t n = 0;
    while (n < count) {
      if (!tcbdbcurrec(cursor_, kx_, vx_)) {
        if (t->ecode() == TCENOREC) break;  // the end, or the cursor's leaf went away
        out->Clear();
        return Status::Error();
      }
      std::string_view key(static_cast<const char*>(tcxstrptr(kx_)), static_cast<std::size_t>(tcxstrsize(kx_)));
      // A concurrent write can move the cursor back: keep keys increasing.
      if (n == 0 || key > out->key(out->record_count() - 1)) {
        out->BeginRecord(key);
        std::string_view value(static_cast<const char*>(tcxstrptr(vx_)), static_cast<std::size_t>(tcxstrsize(vx_)));
        if (!DecodeRecord(value, fields, out)) {
          out->Clear();
          return Status::Error();
        }
        ++n;
      }
      if (n < count && !tcbdbcurnext(cursor_)) {
        if (t->ecode() == TCENOREC) break;
        out->Clear();
        return Status::Error();
      }
    }
    return Status::Ok();
  });
}

}  // namespace

const BindingInfo& tokyocabinet_binding() {
  static const BindingInfo info{
      .name = "tokyocabinet",
      .summary = std::string("embedded Tokyo Cabinet ") + tcversion +
                 " (file B+ tree or hash, one file per table; records in the shared codec)",
      .properties =
          {
              {"tokyocabinet.dir", kDefaultDir,
               "directory of the table files TABLE.tcb/.tch (created with its parents if missing)"},
              {"tokyocabinet.type", "btree", "btree (TCBDB, ordered: scans) or hash (TCHDB: no key order, no scans)"},
              {"tokyocabinet.bnum", "0",
               "bucket array of a new file (0 = TC's default: 32749 pages for btree, 131071 records for hash)"},
              {"tokyocabinet.lmemb", "0", "records per B+ tree leaf page of a new file (0 = TC's default, 128)"},
              {"tokyocabinet.nmemb", "0", "keys per B+ tree non-leaf page of a new file (0 = TC's default, 256)"},
              {"tokyocabinet.lcnum", "0", "B+ tree leaf pages cached per table (0 = TC's default, 1024)"},
              {"tokyocabinet.ncnum", "0", "B+ tree non-leaf pages cached per table (0 = TC's default, 512)"},
              {"tokyocabinet.xmsiz", "64M", "extra memory-mapped region of each file in bytes (0 = none)"},
              {"tokyocabinet.compress", "none",
               "page (btree) or record (hash) compression of a new file: none, deflate, bzip or tcbs"},
              {"tokyocabinet.large", "true", "64-bit bucket array in a new file (TLARGE), for files over 2 GB"},
              {"tokyocabinet.sync", "false", "write the caches and fsync after every write (tcbdbsync/tchdbsync)"},
              {"tokyocabinet.destroy", "false", "truncate every table file when opening it (a clean load)"},
          },
      .open = OpenStore<TcStore, ParseOptions>,
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
