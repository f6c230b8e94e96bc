#include "vfs/gluster.h"

#include <string>
#include <vector>

#include "core/error.h"

#ifdef STOREBENCH_GLUSTER
#include <dirent.h>
#include <fcntl.h>
#include <glusterfs/api/glfs.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>
#endif

namespace storebench::vfs {

namespace {

struct GlusterSpec {
  std::string host;
  int port = 24007;
  std::string volume;
  std::string subdir;  // "" or "bench/x"
};

GlusterSpec ParseSpec(const std::string& spec) {
  GlusterSpec g;
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t c = spec.find(':', start);
    parts.push_back(spec.substr(start, c == std::string::npos ? std::string::npos : c - start));
    if (c == std::string::npos) break;
    start = c + 1;
  }
  std::string vol;
  if (parts.size() == 2) {
    g.host = parts[0];
    vol = parts[1];
  } else if (parts.size() == 3) {
    g.host = parts[0];
    try {
      g.port = std::stoi(parts[1]);
    } catch (...) {
      g.port = -1;
    }
    vol = parts[2];
  }
  const std::size_t slash = vol.find('/');
  g.volume = vol.substr(0, slash);
  if (slash != std::string::npos) g.subdir = vol.substr(slash + 1);
  while (!g.subdir.empty() && g.subdir.back() == '/') g.subdir.pop_back();
  if (g.host.empty() || g.volume.empty() || g.port <= 0 || g.port > 65535) {
    throw ConfigError("gluster '" + spec + "': expected HOST[:PORT]:VOLUME[/SUBDIR], e.g. myhost:vol0");
  }
  return g;
}

#ifdef STOREBENCH_GLUSTER

class GlusterBackend final : public FsBackend {
 public:
  explicit GlusterBackend(const GlusterSpec& g) : g_(g) {
    fs_ = glfs_new(g.volume.c_str());
    if (fs_ == nullptr) throw SetupError("gluster volume '" + g.volume + "': glfs_new failed: " + std::strerror(errno));
    glfs_set_logging(fs_, "/dev/null", 0);
    if (glfs_set_volfile_server(fs_, "tcp", g.host.c_str(), g.port) != 0) {
      const int e = errno;
      glfs_fini(fs_);
      throw SetupError("gluster " + Where() + ": glfs_set_volfile_server: " + std::strerror(e));
    }
    if (glfs_init(fs_) != 0) {
      const int e = errno;
      glfs_fini(fs_);
      throw SetupError("gluster " + Where() + ": glfs_init failed (is glusterd running and the volume started?): " +
                       std::strerror(e));
    }
    if (!g.subdir.empty()) {
      std::string p;
      std::size_t start = 0;
      while (start <= g.subdir.size()) {
        std::size_t s = g.subdir.find('/', start);
        p = g.subdir.substr(0, s);
        if (glfs_mkdir(fs_, ("/" + p).c_str(), 0755) != 0 && errno != EEXIST) {
          const int e = errno;
          glfs_fini(fs_);
          throw SetupError("gluster " + Where() + ": mkdir /" + p + ": " + std::strerror(e));
        }
        if (s == std::string::npos) break;
        start = s + 1;
      }
    }
  }
  ~GlusterBackend() override {
    for (glfs_fd_t* fd : fds_) {
      if (fd != nullptr) glfs_close(fd);
    }
    glfs_fini(fs_);
  }

  std::string Describe() const override { return "gluster://" + Where(); }

  int Open(const std::string& path, int flags, mode_t mode) override {
    glfs_fd_t* fd = (flags & O_CREAT) ? glfs_creat(fs_, Full(path).c_str(), flags, mode)
                                      : glfs_open(fs_, Full(path).c_str(), flags);
    if (fd == nullptr) return -Errno();
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < fds_.size(); ++i) {
      if (fds_[i] == nullptr) {
        fds_[i] = fd;
        return static_cast<int>(i);
      }
    }
    fds_.push_back(fd);
    return static_cast<int>(fds_.size() - 1);
  }
  ssize_t Read(int h, void* buf, std::size_t n) override { return Ret(glfs_read(Fd(h), buf, n, 0)); }
  ssize_t Write(int h, const void* buf, std::size_t n) override { return Ret(glfs_write(Fd(h), buf, n, 0)); }
  ssize_t PRead(int h, void* buf, std::size_t n, off_t off) override {
    return Ret(glfs_pread(Fd(h), buf, n, off, 0, nullptr));
  }
  ssize_t PWrite(int h, const void* buf, std::size_t n, off_t off) override {
    return Ret(glfs_pwrite(Fd(h), buf, n, off, 0, nullptr, nullptr));
  }
  int Fsync(int h) override { return static_cast<int>(Ret(glfs_fsync(Fd(h), nullptr, nullptr))); }
  int Ftruncate(int h, off_t length) override {
    return static_cast<int>(Ret(glfs_ftruncate(Fd(h), length, nullptr, nullptr)));
  }
  int Fstat(int h, struct stat* st) override { return static_cast<int>(Ret(glfs_fstat(Fd(h), st))); }
  int Rename(const std::string& from, const std::string& to) override {
    return static_cast<int>(Ret(glfs_rename(fs_, Full(from).c_str(), Full(to).c_str())));
  }
  // gfapi has no directory fsync nor syncfs: a rename or unlink is durable
  // as the bricks' file systems make it.
  int SyncDir(const std::string&) override { return 0; }
  int SyncAll() override { return 0; }
  int Close(int h) override {
    glfs_fd_t* fd;
    {
      std::lock_guard lock(mu_);
      fd = fds_[static_cast<std::size_t>(h)];
      fds_[static_cast<std::size_t>(h)] = nullptr;
    }
    return static_cast<int>(Ret(glfs_close(fd)));
  }
  int Stat(const std::string& path, struct stat* st) override {
    return static_cast<int>(Ret(glfs_stat(fs_, Full(path).c_str(), st)));
  }
  int Unlink(const std::string& path) override { return static_cast<int>(Ret(glfs_unlink(fs_, Full(path).c_str()))); }
  int Mkdir(const std::string& path) override {
    return static_cast<int>(Ret(glfs_mkdir(fs_, Full(path).c_str(), 0755)));
  }
  int Rmdir(const std::string& path) override { return static_cast<int>(Ret(glfs_rmdir(fs_, Full(path).c_str()))); }
  int ListDir(const std::string& path, std::vector<std::string>* names) override {
    names->clear();
    glfs_fd_t* d = glfs_opendir(fs_, Full(path).c_str());
    if (d == nullptr) return -Errno();
    struct dirent entry, *res = nullptr;
    int r;
    while ((r = glfs_readdir_r(d, &entry, &res)) == 0 && res != nullptr) {
      const std::string n = res->d_name;
      if (n != "." && n != "..") names->push_back(n);
    }
    glfs_closedir(d);
    return r == 0 ? 0 : -(r > 0 ? r : EIO);
  }
  std::optional<FsSpace> Space() override {
    struct statvfs v;
    if (glfs_statvfs(fs_, Full("").c_str(), &v) != 0) return std::nullopt;
    return FsSpace{static_cast<std::uint64_t>(v.f_blocks) * v.f_frsize,
                   static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize};
  }

 private:
  static int Errno() { return errno ? errno : EIO; }
  static ssize_t Ret(ssize_t r) { return r < 0 ? -Errno() : r; }
  std::string Where() const { return g_.host + ":" + std::to_string(g_.port) + "/" + g_.volume + (g_.subdir.empty() ? "" : "/" + g_.subdir); }
  std::string Full(const std::string& path) const {
    std::string p = "/" + g_.subdir;
    if (!path.empty()) p += (p.back() == '/' ? "" : "/") + path;
    return p;
  }
  glfs_fd_t* Fd(int h) {
    std::lock_guard lock(mu_);
    return fds_[static_cast<std::size_t>(h)];
  }

  GlusterSpec g_;
  glfs_t* fs_ = nullptr;
  std::mutex mu_;
  std::vector<glfs_fd_t*> fds_;
};

#endif

}  // namespace

bool GlusterAvailable() {
#ifdef STOREBENCH_GLUSTER
  return true;
#else
  return false;
#endif
}

std::unique_ptr<FsBackend> OpenGlusterBackend(const std::string& host, int port, const std::string& volume,
                                              const std::string& subdir) {
  GlusterSpec g{host, port, volume, subdir};
  while (!g.subdir.empty() && g.subdir.front() == '/') g.subdir.erase(0, 1);
  while (!g.subdir.empty() && g.subdir.back() == '/') g.subdir.pop_back();
#ifdef STOREBENCH_GLUSTER
  return std::make_unique<GlusterBackend>(g);
#else
  throw SetupError("gluster volume '" + volume + "': this storebench was built without gfapi (Debian: libglusterfs-dev)");
#endif
}

std::unique_ptr<FsBackend> OpenGlusterBackend(const std::string& spec) {
  const GlusterSpec g = ParseSpec(spec);
#ifdef STOREBENCH_GLUSTER
  return std::make_unique<GlusterBackend>(g);
#else
  throw SetupError("gluster '" + spec + "': this storebench was built without gfapi (Debian: libglusterfs-dev)");
#endif
}

}  // namespace storebench::vfs
