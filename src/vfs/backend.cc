#include "vfs/backend.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace storebench::vfs {

namespace {
ssize_t Ret(ssize_t r) { return r < 0 ? -errno : r; }
int Ret(int r) { return r < 0 ? -errno : r; }

// The file system type of `path` from /proc/self/mountinfo (longest mount
// point that is a prefix), or "" when unknown.
std::string FsType(const std::string& path) {
  char real[4096];
  if (realpath(path.c_str(), real) == nullptr) return "";
  const std::string p = real;
  std::ifstream in("/proc/self/mountinfo");
  std::string line, best_type;
  std::size_t best = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string id, parent, dev, root, mount, tok;
    ls >> id >> parent >> dev >> root >> mount;
    while (ls >> tok && tok != "-") {
    }
    std::string type;
    ls >> type;
    const bool prefix = p == mount || mount == "/" ||
                        (p.rfind(mount, 0) == 0 && p.size() > mount.size() && p[mount.size()] == '/');
    if (prefix && mount.size() >= best) {
      best = mount.size();
      best_type = type;
    }
  }
  return best_type;
}
}  // namespace

PosixBackend::PosixBackend(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  root_fd_ = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd_ < 0) root_fd_ = -errno;
}

PosixBackend::~PosixBackend() {
  if (root_fd_ >= 0) ::close(root_fd_);
}

std::string PosixBackend::Describe() const {
  const std::string type = FsType(root_);
  return type.empty() ? root_ : root_ + " (" + type + ")";
}

int PosixBackend::Open(const std::string& path, int flags, mode_t mode) {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::openat(root_fd_, Rel(path), flags | O_CLOEXEC, mode));
}
ssize_t PosixBackend::Read(int h, void* buf, std::size_t n) { return Ret(::read(h, buf, n)); }
ssize_t PosixBackend::Write(int h, const void* buf, std::size_t n) { return Ret(::write(h, buf, n)); }
ssize_t PosixBackend::PRead(int h, void* buf, std::size_t n, off_t off) { return Ret(::pread(h, buf, n, off)); }
ssize_t PosixBackend::PWrite(int h, const void* buf, std::size_t n, off_t off) {
  return Ret(::pwrite(h, buf, n, off));
}
int PosixBackend::Fsync(int h) { return Ret(::fsync(h)); }
int PosixBackend::Ftruncate(int h, off_t length) { return Ret(::ftruncate(h, length)); }
int PosixBackend::Fstat(int h, struct stat* st) { return Ret(::fstat(h, st)); }
int PosixBackend::Close(int h) { return Ret(::close(h)); }
int PosixBackend::Stat(const std::string& path, struct stat* st) {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::fstatat(root_fd_, Rel(path), st, 0));
}
int PosixBackend::Rename(const std::string& from, const std::string& to) {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::renameat(root_fd_, Rel(from), root_fd_, Rel(to)));
}
int PosixBackend::SyncDir(const std::string& path) {
  if (root_fd_ < 0) return root_fd_;
  const int fd = ::openat(root_fd_, Rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -errno;
  const int r = Ret(::fsync(fd));
  ::close(fd);
  return r;
}
int PosixBackend::SyncAll() {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::syncfs(root_fd_));
}
int PosixBackend::Unlink(const std::string& path) {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::unlinkat(root_fd_, Rel(path), 0));
}
int PosixBackend::Mkdir(const std::string& path) {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::mkdirat(root_fd_, Rel(path), 0755));
}
int PosixBackend::Rmdir(const std::string& path) {
  if (root_fd_ < 0) return root_fd_;
  return Ret(::unlinkat(root_fd_, Rel(path), AT_REMOVEDIR));
}

int PosixBackend::ListDir(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  if (root_fd_ < 0) return root_fd_;
  const int fd = ::openat(root_fd_, Rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -errno;
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    const int e = errno;
    ::close(fd);
    return -e;
  }
  errno = 0;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names->push_back(n);
  }
  const int err = errno;
  ::closedir(d);
  return err ? -err : 0;
}

std::optional<FsSpace> PosixBackend::Space() {
  struct statvfs v;
  if (::statvfs(root_.c_str(), &v) != 0) return std::nullopt;
  return FsSpace{static_cast<std::uint64_t>(v.f_blocks) * v.f_frsize,
                 static_cast<std::uint64_t>(v.f_bavail) * v.f_frsize};
}

}  // namespace storebench::vfs
