#include "fs/io.h"

#include <cerrno>
#include <cstring>

namespace storebench::fs_suite {

namespace {

// Writes all of n bytes with `write(done)` (which writes from byte `done`
// on), retrying short writes and EINTR.
template <typename W>
void WriteFully(std::size_t n, const std::string& what, W&& write) {
  std::size_t done = 0;
  while (done < n) {
    ssize_t r = write(done);
    if (r == -EINTR) continue;
    if (r < 0) Fail(static_cast<int>(r), what);
    if (r == 0) Fail(-ENOSPC, what);
    done += static_cast<std::size_t>(r);
  }
}

}  // namespace

void Fail(int neg_errno, const std::string& what) {
  const int e = -neg_errno;
  throw Stop{e, what + ": " + std::strerror(e)};
}

ssize_t ReadAll(FsBackend* b, int h, char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = b->Read(h, buf + got, n - got);
    if (r == -EINTR) continue;
    if (r < 0) return r;
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return static_cast<ssize_t>(got);
}

void WriteAll(FsBackend* b, int h, const char* buf, std::size_t n, const std::string& what) {
  WriteFully(n, what, [&](std::size_t done) { return b->Write(h, buf + done, n - done); });
}

void PWriteAll(FsBackend* b, int h, const char* buf, std::size_t n, off_t off_bytes,
               const std::string& what) {
  WriteFully(n, what, [&](std::size_t done) {
    return b->PWrite(h, buf + done, n - done, off_bytes + static_cast<off_t>(done));
  });
}

Handle::Handle(FsBackend* b, const std::string& path, int flags, const std::string& what) : b_(b) {
  h_ = b->Open(path, flags, 0644);
  if (h_ < 0) Fail(h_, what + ": open " + path);
}

void Handle::Close(const std::string& what) {
  int r = b_->Close(h_);
  h_ = -1;
  if (r < 0) Fail(r, what + ": close");
}

void Handle::Finish(bool fsync, const std::string& what) {
  if (fsync) {
    int r = b_->Fsync(h_);
    if (r < 0) Fail(r, what + ": fsync");
  }
  Close(what);
}

}  // namespace storebench::fs_suite
