// The file-system calls storebench makes (the `storebench fs` suite, and the
// files and gluster bindings), behind one small interface so that they run on a mounted directory (PosixBackend)
// and on a GlusterFS volume through gfapi (GlusterBackend, vfs/gluster.h), and
// so that a test can wrap a backend to inject faults (a corrupted read, ENOSPC),
// as LevelDB's EnvWrapper does.
//
// Paths are relative to the backend's root ("data", "files/00000001abc").
// Calls return >= 0 on success and -errno on failure (never throw).
// Implementations are safe for concurrent use by several threads, each with
// its own handles.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace storebench::vfs {

struct FsSpace {
  std::uint64_t total_bytes = 0;
  std::uint64_t available_bytes = 0;  // to an unprivileged user (statvfs f_bavail)
};

class FsBackend {
 public:
  virtual ~FsBackend() = default;
  // What it measures, for the report: "/mnt/x (ext4)" or "gluster://host/vol".
  virtual std::string Describe() const = 0;
  // Open flags as open(2): O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC, ...; a handle or -errno.
  virtual int Open(const std::string& path, int flags, mode_t mode = 0644) = 0;
  virtual ssize_t Read(int h, void* buf, std::size_t n) = 0;
  virtual ssize_t Write(int h, const void* buf, std::size_t n) = 0;
  virtual ssize_t PRead(int h, void* buf, std::size_t n, off_t off) = 0;
  virtual ssize_t PWrite(int h, const void* buf, std::size_t n, off_t off) = 0;
  virtual int Fsync(int h) = 0;
  virtual int Ftruncate(int h, off_t length) = 0;
  virtual int Fstat(int h, struct stat* st) = 0;
  virtual int Close(int h) = 0;
  virtual int Stat(const std::string& path, struct stat* st) = 0;
  virtual int Rename(const std::string& from, const std::string& to) = 0;
  // Makes a directory's entries (creations, renames, unlinks) durable. A
  // backend that cannot (gfapi has no directory fsync) returns 0 and says
  // so in its documentation.
  virtual int SyncDir(const std::string& path) = 0;
  // Makes everything written so far durable (syncfs); 0 when the backend cannot.
  virtual int SyncAll() = 0;
  virtual int Unlink(const std::string& path) = 0;
  virtual int Mkdir(const std::string& path) = 0;
  virtual int Rmdir(const std::string& path) = 0;
  // The names in a directory (without "." and ".."), in the order the file system returns them.
  virtual int ListDir(const std::string& path, std::vector<std::string>* names) = 0;
  virtual std::optional<FsSpace> Space() = 0;
};

// A mounted directory: plain POSIX calls relative to a descriptor of `root`
// (openat and friends), so a call builds no path string.
class PosixBackend : public FsBackend {
 public:
  // Opens `root`; if that fails, every call returns the error (see ok()).
  explicit PosixBackend(std::string root);
  ~PosixBackend() override;
  PosixBackend(const PosixBackend&) = delete;
  PosixBackend& operator=(const PosixBackend&) = delete;
  // 0, or -errno when the root could not be opened.
  int ok() const { return root_fd_ >= 0 ? 0 : root_fd_; }
  std::string Describe() const override;
  int Open(const std::string& path, int flags, mode_t mode) override;
  ssize_t Read(int h, void* buf, std::size_t n) override;
  ssize_t Write(int h, const void* buf, std::size_t n) override;
  ssize_t PRead(int h, void* buf, std::size_t n, off_t off) override;
  ssize_t PWrite(int h, const void* buf, std::size_t n, off_t off) override;
  int Fsync(int h) override;
  int Ftruncate(int h, off_t length) override;
  int Fstat(int h, struct stat* st) override;
  int Close(int h) override;
  int Stat(const std::string& path, struct stat* st) override;
  int Rename(const std::string& from, const std::string& to) override;
  int SyncDir(const std::string& path) override;
  int SyncAll() override;
  int Unlink(const std::string& path) override;
  int Mkdir(const std::string& path) override;
  int Rmdir(const std::string& path) override;
  int ListDir(const std::string& path, std::vector<std::string>* names) override;
  std::optional<FsSpace> Space() override;

 private:
  // The path for the *at() calls: "." for the root itself.
  static const char* Rel(const std::string& path) { return path.empty() ? "." : path.c_str(); }
  std::string root_;
  int root_fd_;
};

// Forwards every call to another backend; a test overrides the calls it
// wants to break.
class FsBackendWrapper : public FsBackend {
 public:
  explicit FsBackendWrapper(FsBackend* target) : t_(target) {}
  std::string Describe() const override { return t_->Describe(); }
  int Open(const std::string& p, int f, mode_t m) override { return t_->Open(p, f, m); }
  ssize_t Read(int h, void* b, std::size_t n) override { return t_->Read(h, b, n); }
  ssize_t Write(int h, const void* b, std::size_t n) override { return t_->Write(h, b, n); }
  ssize_t PRead(int h, void* b, std::size_t n, off_t o) override { return t_->PRead(h, b, n, o); }
  ssize_t PWrite(int h, const void* b, std::size_t n, off_t o) override { return t_->PWrite(h, b, n, o); }
  int Fsync(int h) override { return t_->Fsync(h); }
  int Ftruncate(int h, off_t n) override { return t_->Ftruncate(h, n); }
  int Fstat(int h, struct stat* st) override { return t_->Fstat(h, st); }
  int Close(int h) override { return t_->Close(h); }
  int Stat(const std::string& p, struct stat* st) override { return t_->Stat(p, st); }
  int Rename(const std::string& f, const std::string& t) override { return t_->Rename(f, t); }
  int SyncDir(const std::string& p) override { return t_->SyncDir(p); }
  int SyncAll() override { return t_->SyncAll(); }
  int Unlink(const std::string& p) override { return t_->Unlink(p); }
  int Mkdir(const std::string& p) override { return t_->Mkdir(p); }
  int Rmdir(const std::string& p) override { return t_->Rmdir(p); }
  int ListDir(const std::string& p, std::vector<std::string>* n) override { return t_->ListDir(p, n); }
  std::optional<FsSpace> Space() override { return t_->Space(); }

 private:
  FsBackend* t_;
};

}  // namespace storebench::vfs
