#include "core/output_file.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <streambuf>
#include <vector>

#include "core/error.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

// ---- the temporary files not yet committed, for a signal handler ----------

constexpr int kMaxTracked = 16;
// Per slot: 0 free, 1 being filled, 2 holds a temporary file's path.
std::array<std::atomic<int>, kMaxTracked> g_tracked_state{};
char g_tracked_path[kMaxTracked][PATH_MAX];

int Track(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kMaxTracked; ++i) {
    int expected = 0;
    if (!g_tracked_state[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_tracked_path[i], path.c_str(), path.size() + 1);
    g_tracked_state[i].store(2);
    return i;
  }
  return -1;  // untracked: still removed by the destructor, not by a signal
}

void Untrack(int slot) {
  if (slot >= 0) g_tracked_state[slot].store(0);
}

// ---- what a path names -------------------------------------------------------

struct Target {
  OutputKind kind = OutputKind::kAtomic;
  std::string file;         // kAtomic: the file to replace or create; else the path to open
  bool exists = false;      // kAtomic: a file is replaced
  struct stat st {};        // kAtomic with exists: the replaced file
  int fd = -1;              // kDescriptor
  bool socket = false;      // kInPlace: a Unix socket, connected to
  bool truncate = false;    // kInPlace: a regular file (hard-linked, or under /proc)
};

[[noreturn]] void Refuse(const std::string& what, const std::string& path, const std::string& why) {
  throw ConfigError("cannot write " + what + " '" + path + "': " + why);
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// This process's descriptor that `p` (absolute, normalised) names, or -1.
int OwnDescriptor(const std::string& p) {
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  if (p == "/dev/stdin") return 0;
  const std::string own = "/proc/" + std::to_string(getpid()) + "/fd/";
  for (const std::string& prefix : {std::string("/dev/fd/"), std::string("/proc/self/fd/"),
                                    std::string("/proc/thread-self/fd/"), own}) {
    if (p.size() > prefix.size() && p.compare(0, prefix.size(), prefix) == 0) {
      const std::string_view n = std::string_view(p).substr(prefix.size());
      if (AllDigits(n) && n.size() < 9) return std::stoi(std::string(n));
    }
  }
  return -1;
}

bool UnderProc(const std::string& p) { return p.rfind("/proc/", 0) == 0; }

std::string ParentOf(const std::string& file) {
  const fs::path parent = fs::path(file).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// A temporary file beside `file`: its descriptor, its name in `tmp`.
int MakeTemporary(const std::string& file, std::string& tmp) {
  const fs::path p(file);
  tmp = (p.parent_path() / ("." + p.filename().string() + ".tmp-XXXXXX")).string();
  std::vector<char> buf(tmp.begin(), tmp.end());
  buf.push_back('\0');
  const int fd = mkostemp(buf.data(), O_CLOEXEC);
  tmp.assign(buf.data());
  return fd;
}

// The folder a new or replaced file goes into: it exists, is a folder, and
// (with `probe`) a file can be made there, tried by making and removing one.
// OutputFile skips the probe: it makes its temporary file there next.
void CheckFolder(const std::string& file, const std::string& what, const std::string& path, bool probe) {
  const std::string dir = ParentOf(file);
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) {
    if (errno == ENOENT) Refuse(what, path, "folder '" + dir + "' does not exist");
    Refuse(what, path, "folder '" + dir + "': " + std::strerror(errno));
  }
  if (!S_ISDIR(st.st_mode)) Refuse(what, path, "'" + dir + "' is not a folder");
  if (!probe) return;
  std::string tmp;
  const int fd = MakeTemporary(file, tmp);
  if (fd < 0) Refuse(what, path, "cannot create a file in folder '" + dir + "': " + std::strerror(errno));
  close(fd);
  unlink(tmp.c_str());
}

// What `path` names and how it is written; refuses what cannot be (see the
// header). `probe`: also try to make a file in the folder of a new or
// replaced file.
Target Resolve(const std::string& path, const std::string& what, bool probe) {
  if (path.empty()) throw ConfigError("cannot write " + what + ": the path is empty");
  std::error_code ec;
  std::string cur = fs::absolute(path, ec).string();
  if (ec) Refuse(what, path, ec.message());
  Target t;
  struct stat st {};
  for (int hops = 0;; ++hops) {
    if (hops > 40) Refuse(what, path, "too many levels of symbolic links");
    const std::string normal = fs::path(cur).lexically_normal().string();
    if (const int fd = OwnDescriptor(normal); fd >= 0) {
      const int fl = fcntl(fd, F_GETFL);
      if (fl < 0) Refuse(what, path, "descriptor " + std::to_string(fd) + " is not open");
      if ((fl & O_ACCMODE) == O_RDONLY) Refuse(what, path, "descriptor " + std::to_string(fd) + " is not open for writing");
      t.kind = OutputKind::kDescriptor;
      t.fd = fd;
      t.file = path;
      return t;
    }
    if (lstat(cur.c_str(), &st) != 0) {
      const int err = errno;
      if (err == ENOTDIR) CheckFolder(cur, what, path, false);  // names the folder that is not one
      if (err != ENOENT) Refuse(what, path, std::strerror(err));
      // A new file (or a dangling link's target, made as a file).
      t.kind = OutputKind::kAtomic;
      t.file = cur;
      CheckFolder(cur, what, path, probe);
      return t;
    }
    if (!S_ISLNK(st.st_mode)) break;
    if (UnderProc(normal)) {
      // A /proc magic link (another process's descriptor): what it reaches, in place.
      if (stat(cur.c_str(), &st) != 0) Refuse(what, path, std::strerror(errno));
      if (S_ISDIR(st.st_mode)) Refuse(what, path, "it is a folder");
      t.kind = OutputKind::kInPlace;
      t.file = cur;
      t.truncate = S_ISREG(st.st_mode);
      t.socket = S_ISSOCK(st.st_mode);
      return t;
    }
    std::vector<char> buf(PATH_MAX + 1);
    const ssize_t n = readlink(cur.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) Refuse(what, path, std::strerror(errno));
    const fs::path link_target(std::string(buf.data(), static_cast<std::size_t>(n)));
    cur = link_target.is_absolute() ? link_target.string() : (fs::path(cur).parent_path() / link_target).string();
  }
  t.file = cur;
  if (S_ISDIR(st.st_mode)) Refuse(what, path, "it is a folder");
  if (S_ISBLK(st.st_mode)) Refuse(what, path, "it is a block device, and results are never written over a disk");
  if (S_ISREG(st.st_mode)) {
    if (access(cur.c_str(), W_OK) != 0) Refuse(what, path, "the file is not writable (" + std::string(std::strerror(errno)) + ")");
    if (st.st_nlink > 1 || UnderProc(cur)) {
      t.kind = OutputKind::kInPlace;  // every hard link sees the result
      t.truncate = true;
      return t;
    }
    t.kind = OutputKind::kAtomic;
    t.exists = true;
    t.st = st;
    CheckFolder(cur, what, path, probe);
    return t;
  }
  // A character device, a FIFO or a socket: written where it is.
  if (access(cur.c_str(), W_OK) != 0) Refuse(what, path, std::strerror(errno));
  t.kind = OutputKind::kInPlace;
  t.socket = S_ISSOCK(st.st_mode);
  return t;
}

mode_t CurrentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::stoul(line.substr(6), nullptr, 8));
  }
  const mode_t m = umask(022);
  umask(m);
  return m;
}

// Writes all of [data, data+n) to fd; false with errno set on failure. A
// reader that went away gives EPIPE, not a SIGPIPE that ends the process.
bool WriteAll(int fd, const char* data, std::size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  bool ok = true;
  while (n > 0) {
    const ssize_t w = write(fd, data, n);
    if (w > 0) {
      data += w;
      n -= static_cast<std::size_t>(w);
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, 1000);
    } else {
      if (w == 0) errno = EIO;
      ok = false;
      break;
    }
  }
  const int saved = errno;
  if (!ok && saved == EPIPE) {
    const timespec zero{0, 0};
    sigtimedwait(&pipe_set, nullptr, &zero);  // the SIGPIPE this write raised
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved;
  return ok;
}

int ConnectUnix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

// A buffer over a descriptor that remembers the first failed write.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(bool flush_std) : buf_(64 * 1024), flush_std_(flush_std) { setp(buf_.data(), buf_.data() + buf_.size()); }
  void set_fd(int fd) { fd_ = fd; }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (sync() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override {
    const std::size_t n = static_cast<std::size_t>(pptr() - pbase());
    if (n == 0) return error_ == 0 ? 0 : -1;
    if (flush_std_) {
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
    }
    if (error_ == 0 && !WriteAll(fd_, pbase(), n)) error_ = errno;
    setp(buf_.data(), buf_.data() + buf_.size());
    return error_ == 0 ? 0 : -1;
  }

 private:
  std::vector<char> buf_;
  bool flush_std_;
  int fd_ = -1;
  int error_ = 0;
};

}  // namespace

struct OutputFile::Impl {
  Target target;
  std::string path;  // as the user gave it
  std::string what;
  std::string tmp;   // kAtomic: the temporary file
  int fd = -1;
  int slot = -1;
  bool done = false;
  FdBuf buf;
  std::ostream out;

  Impl(Target t, std::string p, std::string w)
      : target(std::move(t)), path(std::move(p)), what(std::move(w)),
        buf(target.kind == OutputKind::kDescriptor && target.fd <= 2), out(&buf) {}
  ~Impl() {
    if (!done) Discard();
  }

  [[noreturn]] void Fail(const std::string& why) {
    Discard();
    throw SetupError("cannot write " + what + " '" + path + "': " + why);
  }
  void Discard() noexcept {
    if (target.kind != OutputKind::kDescriptor && fd >= 0) close(fd);
    fd = -1;
    if (!tmp.empty()) unlink(tmp.c_str());
    Untrack(slot);
    slot = -1;
    tmp.clear();
    done = true;
  }
};

OutputKind CheckOutputPath(const std::string& path, const std::string& what) {
  return Resolve(path, what, true).kind;
}

OutputFile::OutputFile(const std::string& path, std::string what) {
  Target t = Resolve(path, what, false);
  impl_ = std::make_unique<Impl>(std::move(t), path, std::move(what));
  Impl& m = *impl_;
  switch (m.target.kind) {
    case OutputKind::kDescriptor:
      m.fd = m.target.fd;
      break;
    case OutputKind::kInPlace:
      m.fd = m.target.socket ? ConnectUnix(m.target.file)
                             : open(m.target.file.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | (m.target.truncate ? O_TRUNC : 0));
      if (m.fd < 0) Refuse(m.what, path, std::strerror(errno));
      break;
    case OutputKind::kAtomic: {
      m.fd = MakeTemporary(m.target.file, m.tmp);
      if (m.fd < 0) Refuse(m.what, path, "cannot create a file in folder '" + ParentOf(m.target.file) + "': " + std::strerror(errno));
      m.slot = Track(m.tmp);
      const mode_t mode = m.target.exists ? (m.target.st.st_mode & 07777) : (0666 & ~CurrentUmask());
      fchmod(m.fd, mode);
      if (m.target.exists && geteuid() == 0) {
        if (fchown(m.fd, m.target.st.st_uid, m.target.st.st_gid) != 0) { /* best effort: keep root's */ }
      }
      break;
    }
  }
  m.buf.set_fd(m.fd);
}

OutputFile::~OutputFile() = default;

std::ostream& OutputFile::stream() { return impl_->out; }
OutputKind OutputFile::kind() const { return impl_->target.kind; }
const std::string& OutputFile::path() const { return impl_->path; }

void OutputFile::Flush() {
  Impl& m = *impl_;
  if (m.done) throw SetupError("cannot write " + m.what + " '" + m.path + "': it was already closed");
  m.out.flush();
  if (m.buf.error() != 0) m.Fail(std::strerror(m.buf.error()));
}

void OutputFile::Commit() {
  Flush();
  Impl& m = *impl_;
  switch (m.target.kind) {
    case OutputKind::kDescriptor:
      break;
    case OutputKind::kInPlace:
      if (close(m.fd) != 0 && errno != EINTR) {
        m.fd = -1;
        m.Fail(std::strerror(errno));
      }
      m.fd = -1;
      break;
    case OutputKind::kAtomic: {
      if (fsync(m.fd) != 0) m.Fail(std::strerror(errno));
      const int fd = m.fd;
      m.fd = -1;
      if (close(fd) != 0) m.Fail(std::strerror(errno));
      if (rename(m.tmp.c_str(), m.target.file.c_str()) != 0) m.Fail(std::strerror(errno));
      Untrack(m.slot);
      m.slot = -1;
      m.tmp.clear();
      // The rename itself made durable.
      const int dir = open(ParentOf(m.target.file).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir >= 0) {
        fsync(dir);
        close(dir);
      }
      break;
    }
  }
  m.done = true;
}

void WriteOutputFile(const std::string& path, std::string_view content, const std::string& what) {
  sigset_t stop, old;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  struct Restore {
    sigset_t* old;
    ~Restore() { pthread_sigmask(SIG_SETMASK, old, nullptr); }
  } restore{&old};
  OutputFile f(path, what);
  f.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  f.Commit();
}

void RemoveUncommittedOutputs() noexcept {
  for (int i = 0; i < kMaxTracked; ++i) {
    if (g_tracked_state[i].load() == 2) unlink(g_tracked_path[i]);
  }
}

}  // namespace storebench
