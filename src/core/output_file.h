// Writing result files without harming what a path points at. Every file
// storebench writes for a user (JSON and text results, HdrHistogram logs,
// HTML reports, plan indexes) goes through OutputFile or WriteOutputFile.
//
// What a path gets, decided from what it names:
// - a new path, or a regular file (also behind symlinks): written
//   atomically. A temporary file is made in the target's folder, written,
//   fsynced and renamed over the target, so a reader sees the old file or the
//   whole new one. A symlink stays a link and its target is replaced. The
//   replaced file keeps its permission bits (and, when run as root, its
//   owner); a new one gets 0666 less the umask. A regular file with other
//   hard links is written in place instead, so every name sees the result.
// - /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N: written through
//   this process's own descriptor, at its current offset (a shell's
//   `> out.txt` keeps what the program printed before). std::cout and
//   std::cerr are flushed first, so the order holds.
// - anything else that is not a folder (a character device such as /dev/null
//   or a terminal, a FIFO, a Unix socket): opened and written in place,
//   never replaced, never truncated.
// - a folder, a block device, a missing parent folder, a place that cannot
//   be written: refused with a one-line ConfigError naming the path and why.
//
// No temporary file is left behind: one that is not committed is removed by
// the destructor, and a process ended by a second SIGINT/SIGTERM removes the
// open ones first (RemoveUncommittedOutputs, async-signal-safe).
//
// Errors: ConfigError for a path refused before anything is written;
// SetupError for a write that fails once under way. Not thread-safe: one
// OutputFile is used by one thread; different ones are independent.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace storebench {

// How a path is written (see above).
enum class OutputKind {
  kAtomic,      // temporary file in the folder, renamed over the target
  kDescriptor,  // one of this process's open descriptors
  kInPlace,     // opened and written where it is
};

// Decides how `path` would be written and checks that it can be, without
// changing anything (a new or replaced file is probed by creating and
// removing a temporary file beside it; a FIFO is not opened). `what` names
// the output in messages ("the JSON result"). Throws ConfigError: "cannot
// write the JSON result 'x/y.json': folder 'x' does not exist".
OutputKind CheckOutputPath(const std::string& path, const std::string& what);

// One output, written as a stream and made visible by Commit().
class OutputFile {
 public:
  // Opens the output (for kAtomic: the temporary file). Throws ConfigError
  // when the path is refused or cannot be opened.
  OutputFile(const std::string& path, std::string what);
  // Not committed: the temporary file is removed, the target left as it was.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // The stream to write to. Buffered; written out by Flush and Commit.
  std::ostream& stream();
  // Writes out what is buffered; throws SetupError if any write failed.
  void Flush();
  // Flushes, syncs and makes the result visible (the rename, for kAtomic);
  // throws SetupError on failure, having removed the temporary file.
  void Commit();

  OutputKind kind() const;
  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The whole of `content` to `path`, as OutputFile does, in one call.
// SIGINT and SIGTERM are held back while it runs, so a Ctrl-C cannot leave
// a temporary file or half a result behind.
void WriteOutputFile(const std::string& path, std::string_view content, const std::string& what);

// Removes the temporary files of outputs not yet committed. Async-signal-safe:
// for a signal handler that is about to end the process.
void RemoveUncommittedOutputs() noexcept;

}  // namespace storebench
