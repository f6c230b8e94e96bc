// Byte-level I/O on an FsBackend for the fs suite's phases (src/fs/suite.cc):
// the error that stops the suite, whole reads and writes that retry short
// transfers and EINTR, a handle closed on scope exit, and the putc/getc-sized
// buffered writer and reader of the per-character phases.
//
// Errors: the write helpers, Handle and CharReader throw Stop (the errno and
// a one-line "what: strerror") on an I/O error; ReadAll returns it as a
// negative errno instead. Not thread-safe: each object belongs to one
// thread. The backend is borrowed and must outlive them.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <utility>

#include "vfs/backend.h"

namespace storebench::fs_suite {

using vfs::FsBackend;

// stdio's buffer on a 4 KiB-block file system: the per-character phases' buffer.
constexpr std::size_t kCharBufferBytes = 4096;

// An I/O error that stops the suite.
struct Stop {
  int err;  // errno
  std::string what;
};

// Throws Stop for -neg_errno, its text "what: strerror".
[[noreturn]] void Fail(int neg_errno, const std::string& what);

// Reads all of n bytes (less only at end of file); a negative errno on error.
ssize_t ReadAll(FsBackend* b, int h, char* buf, std::size_t n);
// Writes all of n bytes at the file position; throws Stop (ENOSPC for a write of 0).
void WriteAll(FsBackend* b, int h, const char* buf, std::size_t n, const std::string& what);
// Writes all of n bytes at offset `off_bytes`; throws Stop as WriteAll.
void PWriteAll(FsBackend* b, int h, const char* buf, std::size_t n, off_t off_bytes,
               const std::string& what);

// A handle closed on scope exit (errors of an explicit Close are reported).
class Handle {
 public:
  // Opens `path` (mode 0644 when created); throws Stop "what: open PATH: ...".
  Handle(FsBackend* b, const std::string& path, int flags, const std::string& what);
  ~Handle() {
    if (h_ >= 0) b_->Close(h_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  int get() const { return h_; }
  // Closes; throws Stop "what: close: ...".
  void Close(const std::string& what);
  // Ends a written file: fsync(2) first when `fsync` (throws Stop "what:
  // fsync: ..."), then Close.
  void Finish(bool fsync, const std::string& what);

 private:
  FsBackend* b_;
  int h_ = -1;
};

// What CharWriter and CharReader keep: the file, the error context and a
// buffer of `capacity` bytes (1: one system call per byte, as bonnie++ 2 does).
class CharBuffer {
 protected:
  CharBuffer(FsBackend* b, int h, std::string what, std::size_t capacity)
      : b_(b), h_(h), what_(std::move(what)), cap_(capacity) {}

  FsBackend* b_;
  int h_;
  std::string what_;
  std::size_t cap_;
  char buf_[kCharBufferBytes];
};

// putc-sized writes through a user-space buffer, as stdio does. Put is kept
// out of line, like glibc's putc, so each byte costs a call.
class CharWriter : private CharBuffer {
 public:
  CharWriter(FsBackend* b, int h, std::string what, std::size_t capacity)
      : CharBuffer(b, h, std::move(what), capacity) {}
  [[gnu::noinline]] void Put(char c) {
    buf_[n_++] = c;
    if (n_ == cap_) Flush();
  }
  void Flush() {
    if (n_ > 0) WriteAll(b_, h_, buf_, n_, what_);
    n_ = 0;
  }

 private:
  std::size_t n_ = 0;
};

// getc-sized reads through a user-space buffer; Get returns -1 at end of file.
class CharReader : private CharBuffer {
 public:
  CharReader(FsBackend* b, int h, std::string what, std::size_t capacity)
      : CharBuffer(b, h, std::move(what), capacity) {}
  [[gnu::noinline]] int Get() {
    if (pos_ == len_) {
      ssize_t r = ReadAll(b_, h_, buf_, cap_);
      if (r < 0) Fail(static_cast<int>(r), what_);
      len_ = static_cast<std::size_t>(r);
      pos_ = 0;
      if (len_ == 0) return -1;
    }
    return static_cast<unsigned char>(buf_[pos_++]);
  }

 private:
  std::size_t pos_ = 0, len_ = 0;
};

}  // namespace storebench::fs_suite
