#include "fs/backend.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace storebench::fs_suite {

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
}

std::string PosixBackend::Describe() const {
  const std::string type = FsType(root_);
  return type.empty() ? root_ : root_ + " (" + type + ")";
}

int PosixBackend::Open(const std::string& path, int flags, mode_t mode) {
  return Ret(::open(Full(path).c_str(), flags | O_CLOEXEC, mode));
}
ssize_t PosixBackend::Read(int h, void* buf, std::size_t n) { return Ret(::read(h, buf, n)); }
ssize_t PosixBackend::Write(int h, const void* buf, std::size_t n) { return Ret(::write(h, buf, n)); }
ssize_t PosixBackend::PRead(int h, void* buf, std::size_t n, off_t off) { return Ret(::pread(h, buf, n, off)); }
ssize_t PosixBackend::PWrite(int h, const void* buf, std::size_t n, off_t off) {
  return Ret(::pwrite(h, buf, n, off));
}
int PosixBackend::Fsync(int h) { return Ret(::fsync(h)); }
int PosixBackend::Close(int h) { return Ret(::close(h)); }
int PosixBackend::Stat(const std::string& path, struct stat* st) { return Ret(::stat(Full(path).c_str(), st)); }
int PosixBackend::Unlink(const std::string& path) { return Ret(::unlink(Full(path).c_str())); }
int PosixBackend::Mkdir(const std::string& path) { return Ret(::mkdir(Full(path).c_str(), 0755)); }
int PosixBackend::Rmdir(const std::string& path) { return Ret(::rmdir(Full(path).c_str())); }

int PosixBackend::ListDir(const std::string& path, std::vector<std::string>* names) {
  names->clear();
  DIR* d = ::opendir(Full(path).c_str());
  if (d == nullptr) return -errno;
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

}  // namespace storebench::fs_suite
