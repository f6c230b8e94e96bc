// Binding "files": every record is one file, on any mounted file system
// (local, NFS, GlusterFS or CephFS through their mounts). The store itself
// (db/files_store.h) does its I/O through an vfs::FsBackend, so the
// "gluster" binding (db/gluster.cc) is the same store on a GlusterFS volume
// through gfapi.
//
// Layout under files.dir:
//   DIR/<table>/<h0>/<h1>/k<key>
// <table> and <key> are escaped so that any bytes make a valid, unique file
// name: [A-Za-z0-9_-] stay, every other byte becomes %XX. <h0>, <h1> are
// the first files.fanout bytes (0..3, default 1) of the key's FNV-1a 64 hash
// in hex, 256 subdirectories per level, so a million records do not sit in
// one directory (about 3,900 files per directory at fanout 1 and 10^6
// records). A key whose escaped form exceeds 254 bytes is BAD_REQUEST (file
// systems limit names to 255 bytes).
//
// A file holds the record in the shared codec (db/record_codec.h), nothing
// else: its size is the record's size.
//
// Operations:
//   Insert = encode, write DIR/.../.t<session nonce> (O_CREAT|O_TRUNC), then
//            rename() it over the record's name: readers see the old record
//            or the new one, never a torn one. Subdirectories are created on
//            the first ENOENT.
//   Update = read the file, MergeRecord, then the same write + rename;
//            NOT_FOUND when the file does not exist. Insert, update and
//            delete of one key take one of 1024 striped mutexes, so an update
//            is atomic against other sessions of this process (atomic_update);
//            processes sharing a directory (MPI, several hosts) are not
//            serialised against each other.
//   Read   = open, fstat, read the whole file, DecodeRecord; NOT_FOUND on ENOENT.
//   Delete = unlink; NOT_FOUND when it did not exist.
//   Scan   = only with files.ordered=true: the store keeps an in-memory
//            ordered index (std::set) of each table's keys, built by walking
//            DIR/<table> on the table's first use and kept up to date by this
//            process's inserts and deletes. Files created by another process
//            after that walk are not seen by scans. Without files.ordered,
//            capabilities().scan is false (the CLI refuses scan workloads
//            up front) and Scan returns NOT_IMPLEMENTED.
//
// files.fsync: none (the page cache decides), per-op (fsync the file before
// the rename and the directory after it, and the directory after an unlink:
// the record is durable when the call returns), end (syncfs() of the file
// system at Close). Through gfapi there is no directory fsync nor syncfs:
// per-op fsyncs the file only and end does nothing more than close.
// files.direct=true opens record files with O_DIRECT: writes go from a
// 4 KiB-aligned buffer padded to a multiple of 4 KiB, then the file is
// truncated to the record's size; reads read whole aligned blocks. Checked
// at open: a file system that refuses O_DIRECT (tmpfs) is a SetupError.
//
// Sessions reuse their buffers (paths, the encoded record, the read buffer),
// so the steady state allocates nothing in this binding apart from the
// index's nodes with files.ordered.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/files_store.h"
#include "db/record_codec.h"
#include "db/store_dir.h"
#include "vfs/backend.h"

namespace storebench {
namespace {

using vfs::FsBackend;

constexpr char kDefaultDir[] = "storebench-data/files";
constexpr std::size_t kAlign = 4096;        // O_DIRECT buffer, offset and length alignment
constexpr std::size_t kMaxNameBytes = 255;  // NAME_MAX: the escaped key with its 'k' prefix
constexpr std::size_t kStripes = 1024;

using FsyncMode = FilesFsync;

std::uint64_t Fnv1a64(std::string_view s) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

bool IsPlain(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

constexpr char kHex[] = "0123456789abcdef";

// Appends `s` escaped ([A-Za-z0-9_-] kept, other bytes as %XX) to *out.
void AppendEscaped(std::string_view s, std::string* out) {
  for (unsigned char c : s) {
    if (IsPlain(c)) {
      out->push_back(static_cast<char>(c));
    } else {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The inverse of AppendEscaped; false for a name it could not have written.
bool Unescape(std::string_view s, std::string* out) {
  out->clear();
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      if (!IsPlain(static_cast<unsigned char>(s[i]))) return false;
      out->push_back(s[i]);
      continue;
    }
    if (i + 2 >= s.size()) return false;
    const int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

// A buffer aligned for O_DIRECT that keeps its capacity.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }
  // Makes room for at least n bytes (contents not kept); false if out of memory.
  bool Reserve(std::size_t n) {
    if (n <= cap_) return true;
    std::size_t cap = cap_ ? cap_ : kAlign;
    while (cap < n) cap *= 2;
    void* p = nullptr;
    if (posix_memalign(&p, kAlign, cap) != 0) return false;
    std::free(data_);
    data_ = static_cast<char*>(p);
    cap_ = cap;
    return true;
  }
  char* data() { return data_; }

 private:
  char* data_ = nullptr;
  std::size_t cap_ = 0;
};

std::size_t RoundUp(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

// One table's ordered key index (files.ordered=true).
struct TableIndex {
  std::shared_mutex mu;
  std::set<std::string, std::less<>> keys;
};

class FilesStore;

class FilesSession final : public Session {
 public:
  FilesSession(FilesStore* store, std::uint64_t nonce);

  Status Read(std::string_view table, std::string_view key, const FieldSelector& fields, RecordSet* out) override {
    return Guard([&] {
      out->Clear();
      if (!RecordPath(table, key)) return Status(Status::kBadRequest);
      std::shared_lock<std::shared_mutex> lock;
      if (std::shared_mutex* m = ReadStripe(key)) lock = std::shared_lock(*m);
      Status st = ReadFile(path_);
      if (!st.ok()) return st;
      return DecodeReadResult(key, data_, fields, out);
    });
  }

  Status Scan(std::string_view table, std::string_view start_key, std::uint64_t count, const FieldSelector& fields,
              RecordSet* out) override;

  Status Update(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Insert(std::string_view table, std::string_view key, std::span<const Field> values) override;
  Status Delete(std::string_view table, std::string_view key) override;

 private:
  friend class FilesStore;

  // Sets path_ to the record's file (dir_end_ = length of its directory part).
  // False when the escaped key is too long for a file name.
  bool RecordPath(std::string_view table, std::string_view key);
  // The stripe a reader of `key` holds shared (records written in place), or null.
  std::shared_mutex* ReadStripe(std::string_view key);
  // Reads the whole file at `path` into data_.
  Status ReadFile(const std::string& path);
  Status ReadFileOnce(const std::string& path, int* err);
  // Writes buf_ to a temporary file beside path_ and renames it over path_.
  Status WriteAtomically();
  int OpenTemp();
  bool MakeParents();
  bool SyncDir();
  // The ordered index of `table` (after RecordPath), or null without
  // files.ordered; remembered for the next call.
  TableIndex* IndexOf(std::string_view table);

  FilesStore* store_;
  std::string path_;        // the record's file
  std::size_t dir_end_ = 0;  // path_.substr(0, dir_end_) is its directory
  std::size_t table_end_ = 0;  // path_.substr(0, table_end_) is the table's directory
  std::string tmp_;          // the temporary file
  std::string dir_;          // a directory of path_ (MakeParents, SyncDir)
  std::string buf_;          // encoded / merged record
  std::string data_;         // what a read returned (buffered reads)
  AlignedBuffer aligned_;    // O_DIRECT reads and writes
  std::string nonce_;        // ".t<16 hex digits>": this session's temporary file name
  std::vector<std::string> scan_keys_;
  std::string cached_table_;
  TableIndex* cached_index_ = nullptr;
};

class FilesStore final : public Store {
 public:
  FilesStore(const FilesStoreOptions& o, std::unique_ptr<FsBackend> backend) : opts_(o), fs_(std::move(backend)) {
    if (o.direct) ProbeDirect();
    std::random_device rd;
    seed_ = (static_cast<std::uint64_t>(rd()) << 32) ^ rd() ^ static_cast<std::uint64_t>(getpid());
  }

  std::unique_ptr<Session> NewSession(int thread_id) override {
    if (closed_) throw SetupError(opts_.prefix + ": NewSession after Close");
    const std::uint64_t n = seed_ + static_cast<std::uint64_t>(thread_id) * 0x9E3779B97F4A7C15ull +
                            session_counter_.fetch_add(1) * 0xBF58476D1CE4E5B9ull;
    return std::make_unique<FilesSession>(this, n);
  }

  Capabilities capabilities() const override {
    Capabilities c;
    c.scan = opts_.ordered;
    if (!c.scan) c.why_no_scan = opts_.prefix + " keeps no key order unless " + opts_.prefix + ".ordered=true";
    c.persistent = true;
    c.atomic_update = true;  // striped per-key mutexes (within this process)
    return c;
  }

  std::optional<std::uint64_t> DiskUsageBytes() override {
    if (!opts_.local_dir) return std::nullopt;
    return DiskBytes(*opts_.local_dir);
  }

  std::vector<std::pair<std::string, std::string>> Stats() override {
    std::vector<std::pair<std::string, std::string>> out;
    if (opts_.local_dir) {
      if (auto u = MeasurePath(*opts_.local_dir)) {
        out.emplace_back(opts_.prefix + ".file_bytes", std::to_string(u->file_bytes));
        out.emplace_back(opts_.prefix + ".allocated_bytes", std::to_string(u->allocated_bytes));
      }
    }
    out.emplace_back(opts_.prefix + ".fanout", std::to_string(opts_.fanout));
    out.emplace_back(opts_.prefix + ".backend", fs_->Describe());
    return out;
  }

  void Close() override {
    if (closed_) return;
    closed_ = true;
    if (opts_.fsync == FsyncMode::kEnd) {
      const int r = fs_->SyncAll();
      if (r < 0) {
        throw SetupError(opts_.where + ": syncfs at close failed (" + opts_.prefix + ".fsync=end): " +
                         std::strerror(-r));
      }
    }
  }

  const FilesStoreOptions& opts() const { return opts_; }
  FsBackend* fs() const { return fs_.get(); }
  std::shared_mutex& Stripe(std::uint64_t hash) { return stripes_[hash % kStripes]; }

  // The ordered index of `table` (whose directory is `table_dir`), walking
  // the directory (fanout levels, then the 'k' files) the first time.
  TableIndex* Index(std::string_view table, const std::string& table_dir) {
    std::lock_guard lock(index_mu_);
    auto it = indexes_.find(table);
    if (it != indexes_.end()) return it->second.get();
    auto idx = std::make_unique<TableIndex>();
    Walk(table_dir, opts_.fanout, idx.get());
    TableIndex* raw = idx.get();
    indexes_.emplace(std::string(table), std::move(idx));
    return raw;
  }

 private:
  void Walk(const std::string& dir, int levels, TableIndex* idx) {
    std::vector<std::string> names;
    if (fs_->ListDir(dir, &names) < 0) return;  // no such table yet
    std::string key;
    for (const auto& n : names) {
      if (levels > 0) {
        if (n.size() == 2) Walk(dir + "/" + n, levels - 1, idx);
      } else if (!n.empty() && n[0] == 'k' && Unescape(std::string_view(n).substr(1), &key)) {
        idx->keys.insert(key);
      }
    }
  }

  void ProbeDirect() {
    const std::string probe = ".direct-probe";
    const int h = fs_->Open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    if (h < 0) {
      throw SetupError(opts_.where + ": " + opts_.prefix + ".direct=true but the file system refuses O_DIRECT (" +
                       std::strerror(-h) + ")");
    }
    fs_->Close(h);
    fs_->Unlink(probe);
  }

  FilesStoreOptions opts_;
  std::unique_ptr<FsBackend> fs_;
  std::uint64_t seed_ = 0;
  std::atomic<std::uint64_t> session_counter_{0};
  bool closed_ = false;
  std::array<std::shared_mutex, kStripes> stripes_;
  std::mutex index_mu_;
  std::map<std::string, std::unique_ptr<TableIndex>, std::less<>> indexes_;
};

FilesSession::FilesSession(FilesStore* store, std::uint64_t nonce) : store_(store) {
  nonce_ = ".t";
  for (int i = 15; i >= 0; --i) nonce_.push_back(kHex[(nonce >> (i * 4)) & 15]);
}

bool FilesSession::RecordPath(std::string_view table, std::string_view key) {
  path_.clear();
  AppendEscaped(table, &path_);
  if (table.empty()) path_ = "%";  // a name no other table escapes to
  table_end_ = path_.size();
  const std::uint64_t h = Fnv1a64(key);
  for (int level = 0; level < store_->opts().fanout; ++level) {
    const unsigned byte = static_cast<unsigned>(h >> (56 - 8 * level)) & 0xff;
    path_.push_back('/');
    path_.push_back(kHex[byte >> 4]);
    path_.push_back(kHex[byte & 15]);
  }
  dir_end_ = path_.size();
  path_.append("/k");
  AppendEscaped(key, &path_);
  return path_.size() - dir_end_ - 1 <= kMaxNameBytes;
}

std::shared_mutex* FilesSession::ReadStripe(std::string_view key) {
  return store_->opts().in_place ? &store_->Stripe(Fnv1a64(key)) : nullptr;
}

Status FilesSession::ReadFile(const std::string& path) {
  for (int attempt = 0;; ++attempt) {
    int err = 0;
    Status st = ReadFileOnce(path, &err);
    if (!(err == ENOENT || err == ESTALE) || attempt >= store_->opts().stale_retries) return st;
    // GlusterFS 10.3's client keeps resolving the name to the replaced gfid
    // for a while: back off (50 ms, 100 ms, ...: 750 ms over 5 retries).
    usleep(static_cast<useconds_t>(50000 * (attempt + 1)));
  }
}

// One attempt; *err is the errno of a failed open, fstat or read.
Status FilesSession::ReadFileOnce(const std::string& path, int* err) {
  FsBackend* fs = store_->fs();
  const bool direct = store_->opts().direct;
  const int h = fs->Open(path, O_RDONLY | (direct ? O_DIRECT : 0), 0);
  if (h < 0) {
    *err = -h;
    return h == -ENOENT || h == -ENOTDIR ? Status::NotFound() : Status::Error();
  }
  struct stat st;
  if (const int r = fs->Fstat(h, &st); r < 0) {
    *err = -r;
    fs->Close(h);
    return r == -ENOENT || r == -ESTALE ? Status::NotFound() : Status::Error();
  }
  const std::size_t size = static_cast<std::size_t>(st.st_size);
  char* dst;
  std::size_t want;
  if (direct) {
    // Whole aligned blocks, one more than the size so a file that grew
    // (replaced by a rename meanwhile: we hold the old inode) is still read to its end.
    want = RoundUp(size) + kAlign;
    if (!aligned_.Reserve(want)) {
      fs->Close(h);
      return Status::Error();
    }
    dst = aligned_.data();
  } else {
    data_.resize(size);
    dst = data_.data();
    want = size;
  }
  std::size_t got = 0;
  while (got < want) {
    const ssize_t n = fs->PRead(h, dst + got, want - got, static_cast<off_t>(got));
    if (n == -EINTR) continue;
    if (n < 0) {
      *err = static_cast<int>(-n);
      fs->Close(h);
      return Status::Error();
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (direct && got % kAlign != 0) break;  // a short read: end of file
  }
  fs->Close(h);
  if (got < size) return Status::Error();
  if (direct) data_.assign(aligned_.data(), size);
  return Status::Ok();
}

TableIndex* FilesSession::IndexOf(std::string_view table) {
  if (!store_->opts().ordered) return nullptr;
  if (cached_index_ != nullptr && table == cached_table_) return cached_index_;
  cached_index_ = store_->Index(table, std::string(path_, 0, table_end_));
  cached_table_.assign(table);
  return cached_index_;
}

// Creates the table directory and the fan-out directories of path_.
bool FilesSession::MakeParents() {
  for (std::size_t end = table_end_; end <= dir_end_; end += 3) {
    dir_.assign(path_, 0, end);
    const int r = store_->fs()->Mkdir(dir_);
    if (r < 0 && r != -EEXIST) return false;
  }
  return true;
}

int FilesSession::OpenTemp() {
  tmp_.assign(path_, 0, dir_end_);
  tmp_.push_back('/');
  tmp_.append(nonce_);
  const int flags = O_WRONLY | O_CREAT | O_TRUNC | (store_->opts().direct ? O_DIRECT : 0);
  int h = store_->fs()->Open(tmp_, flags, 0644);
  if (h == -ENOENT && MakeParents()) h = store_->fs()->Open(tmp_, flags, 0644);
  return h;
}

bool FilesSession::SyncDir() {
  dir_.assign(path_, 0, dir_end_);
  return store_->fs()->SyncDir(dir_) == 0;
}

Status FilesSession::WriteAtomically() {
  FsBackend* fs = store_->fs();
  const bool in_place = store_->opts().in_place;
  int h;
  if (in_place) {  // the caller holds the key's stripe exclusively; readers take it shared
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | (store_->opts().direct ? O_DIRECT : 0);
    h = fs->Open(path_, flags, 0644);
    if (h == -ENOENT && MakeParents()) h = fs->Open(path_, flags, 0644);
  } else {
    h = OpenTemp();
  }
  if (h < 0) return Status::Error();
  const bool direct = store_->opts().direct;
  const char* src = buf_.data();
  std::size_t len = buf_.size();
  if (direct) {
    const std::size_t padded = RoundUp(len);
    if (!aligned_.Reserve(padded == 0 ? kAlign : padded)) {
      fs->Close(h);
      if (!in_place) fs->Unlink(tmp_);
      return Status::Error();
    }
    std::memcpy(aligned_.data(), buf_.data(), len);
    std::memset(aligned_.data() + len, 0, padded - len);
    src = aligned_.data();
    len = padded;
  }
  std::size_t done = 0;
  bool ok = true;
  while (done < len) {
    const ssize_t n = fs->PWrite(h, src + done, len - done, static_cast<off_t>(done));
    if (n == -EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (ok && direct && len != buf_.size()) ok = fs->Ftruncate(h, static_cast<off_t>(buf_.size())) == 0;
  if (ok && store_->opts().fsync == FsyncMode::kPerOp) ok = fs->Fsync(h) == 0;
  if (fs->Close(h) != 0) ok = false;
  if (in_place) return ok ? Status::Ok() : Status::Error();
  if (ok) ok = fs->Rename(tmp_, path_) == 0;
  if (!ok) {
    fs->Unlink(tmp_);
    return Status::Error();
  }
  if (store_->opts().fsync == FsyncMode::kPerOp && !SyncDir()) return Status::Error();
  return Status::Ok();
}

Status FilesSession::Insert(std::string_view table, std::string_view key, std::span<const Field> values) {
  return Guard([&] {
    if (!RecordPath(table, key)) return Status(Status::kBadRequest);
    EncodeRecord(values, &buf_);
    TableIndex* idx = IndexOf(table);
    std::unique_lock lock(store_->Stripe(Fnv1a64(key)));
    Status st = WriteAtomically();
    if (st.ok() && idx != nullptr) {
      std::unique_lock ilock(idx->mu);
      if (idx->keys.find(key) == idx->keys.end()) idx->keys.emplace(key);
    }
    return st;
  });
}

Status FilesSession::Update(std::string_view table, std::string_view key, std::span<const Field> values) {
  return Guard([&] {
    if (!RecordPath(table, key)) return Status(Status::kBadRequest);
    std::unique_lock lock(store_->Stripe(Fnv1a64(key)));
    Status st = ReadFile(path_);
    if (!st.ok()) return st;
    if (!MergeRecord(data_, values, &buf_)) return Status::Error();
    return WriteAtomically();
  });
}

Status FilesSession::Delete(std::string_view table, std::string_view key) {
  return Guard([&] {
    if (!RecordPath(table, key)) return Status(Status::kBadRequest);
    TableIndex* idx = IndexOf(table);
    std::unique_lock lock(store_->Stripe(Fnv1a64(key)));
    const int r = store_->fs()->Unlink(path_);
    if (r < 0) return r == -ENOENT || r == -ENOTDIR ? Status::NotFound() : Status::Error();
    if (idx != nullptr) {
      std::unique_lock ilock(idx->mu);
      auto it = idx->keys.find(key);
      if (it != idx->keys.end()) idx->keys.erase(it);
    }
    if (store_->opts().fsync == FsyncMode::kPerOp && !SyncDir()) return Status::Error();
    return Status::Ok();
  });
}

Status FilesSession::Scan(std::string_view table, std::string_view start_key, std::uint64_t count,
                          const FieldSelector& fields, RecordSet* out) {
  return Guard([&] {
    out->Clear();
    if (!store_->opts().ordered) return Status::NotImplemented();
    RecordPath(table, {});
    TableIndex* idx = IndexOf(table);
    // Copy the keys under the lock (reusing the strings' capacity), then
    // read the files without it. A key deleted meanwhile is skipped.
    std::size_t n = 0;
    {
      std::shared_lock lock(idx->mu);
      for (auto it = idx->keys.lower_bound(start_key); it != idx->keys.end() && n < count; ++it, ++n) {
        if (scan_keys_.size() <= n) scan_keys_.emplace_back();
        scan_keys_[n].assign(*it);
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (!RecordPath(table, scan_keys_[i])) return Status::Error();
      std::shared_lock<std::shared_mutex> lock;
      if (std::shared_mutex* m = ReadStripe(scan_keys_[i])) lock = std::shared_lock(*m);
      Status st = ReadFile(path_);
      if (st.IsNotFound()) continue;
      if (!st.ok()) return st;
      out->BeginRecord(scan_keys_[i]);
      if (!DecodeRecord(data_, fields, out)) return Status::Error();
    }
    return Status::Ok();
  });
}

}  // namespace

FilesStoreOptions ParseFilesStoreOptions(const Properties& props, const std::string& prefix) {
  FilesStoreOptions o;
  o.prefix = prefix;
  const std::string mode = props.GetChoice(prefix + ".fsync", "none", {"none", "per-op", "end"});
  o.fsync = mode == "per-op" ? FsyncMode::kPerOp : mode == "end" ? FsyncMode::kEnd : FsyncMode::kNone;
  o.direct = props.GetBool(prefix + ".direct", false);
  o.ordered = props.GetBool(prefix + ".ordered", false);
  o.fanout = static_cast<int>(props.GetInt(prefix + ".fanout", 1, 0, 3));
  return o;
}

std::vector<PropertySpec> FilesStoreProperties(const std::string& prefix) {
  return {
      {prefix + ".fsync", "none",
       "none; per-op (fsync file and directory on every write: durable on return); end (syncfs at close)"},
      {prefix + ".direct", "false", "open record files with O_DIRECT (4 KiB-aligned I/O; SetupError if refused)"},
      {prefix + ".ordered", "false",
       "keep an in-memory ordered key index (walked from the directory at first use) so scans work"},
      {prefix + ".fanout", "1", "levels of 256 hash subdirectories between the table and the files (0-3)"},
  };
}

std::unique_ptr<Store> OpenFilesStore(const FilesStoreOptions& options, std::unique_ptr<FsBackend> backend) {
  return std::make_unique<FilesStore>(options, std::move(backend));
}

const BindingInfo& files_binding() {
  static const BindingInfo info{
      .name = "files",
      .summary = "one file per record on any mounted file system (fan-out directories, atomic rename)",
      .properties =
          [] {
            std::vector<PropertySpec> p = {
                {"files.dir", kDefaultDir, "directory of the records (created with its parents if missing)"}};
            for (auto& spec : FilesStoreProperties("files")) p.push_back(spec);
            return p;
          }(),
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        const std::string dir = props.GetString("files.dir", kDefaultDir);
        if (dir.empty()) throw ConfigError("property 'files.dir' is empty: expected a directory");
        FilesStoreOptions o = ParseFilesStoreOptions(props, "files");
        o.where = "files.dir '" + dir + "'";
        o.local_dir = dir;
        PrepareStoreDir("files.dir", dir);
        auto backend = std::make_unique<vfs::PosixBackend>(dir);
        if (backend->ok() < 0) {
          throw SetupError("files.dir '" + dir + "': cannot open: " + std::strerror(-backend->ok()));
        }
        return OpenFilesStore(o, std::move(backend));
      },
      .uses_dir = true,
  };
  return info;
}

}  // namespace storebench
