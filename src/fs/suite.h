// `storebench fs`: a bonnie++/dd-class file-system suite on any FsBackend.
//
// Phases, in bonnie++'s order (each optional, see FsOptions::groups):
//   seq-write-chr   one byte at a time through a 4 KiB user-space buffer
//                   (putc-sized writes, as stdio does), or with chr_syscall
//                   one write(2) per byte as bonnie++ 2.0 does; op PUTC4K =
//                   one sample per 4096 bytes (timing every byte would cost
//                   more than the putc itself)
//   seq-write-block `chunk`-sized write()s                      op WRITE
//   rewrite         read a chunk, change it, write it back       op REWRITE
//   seq-read-chr    getc-sized reads, every byte checked          op GETC4K
//   seq-read-block  chunk-sized read()s, every chunk checked     op READ
//   random-seeks    `seekers` threads read a random chunk (checked) and
//                   write a tenth of them back changed          ops SEEK, SEEK-WRITE
//   seq-create / seq-stat / seq-delete      `files` files created in name
//                   order, stat'ed (and read and checked when file_size > 0)
//                   and deleted in directory order          ops CREATE, STAT, DELETE
//   rand-create / rand-stat / rand-delete   the same in random order
//   stream-write / stream-read   dd-like: `stream_count` files of
//                   `stream_size` in 1 MiB writes, one after the other (fsync
//                   at each file's end with --fsync, like dd conv=fsync), then read
//                   back and checked; MB/s per file and overall    op WRITE / READ
//
// Every byte written is a function of (seed, chunk index, generation), so
// every read checks what it gets; a mismatch counts as an integrity failure
// of the phase (exit code 1), it does not stop the suite. An error (ENOSPC,
// EIO) stops the suite: the phases done so far, and the partial phase, are
// kept and reported, with the error.
#pragma once

#include <cstdint>
#include <ostream>
#include <functional>
#include <string>
#include <vector>

#include "vfs/backend.h"
#include "measure/result.h"

namespace storebench::fs_suite {

// The backend interface lives in vfs/ (the files and gluster bindings use it too).
using vfs::FsBackend;
using vfs::FsBackendWrapper;
using vfs::FsSpace;
using vfs::PosixBackend;

struct FsOptions {
  std::uint64_t size = 0;          // bytes of the data file (rounded down to chunks)
  std::uint64_t chunk = 8192;      // block size of block, rewrite and seek phases
  std::uint64_t files = 16384;     // files in each file phase
  std::uint64_t file_size = 0;     // bytes per file in the file phases
  int threads = 1;                 // workers in the file phases
  int seekers = 5;                 // workers in random-seeks (bonnie++ 2 starts 5; 1.9x started 3)
  std::uint64_t seeks = 8192;      // random seeks in all
  std::uint64_t stream_count = 0;  // stream phase: files ...
  std::uint64_t stream_size = 0;   // ... of this size
  bool fsync = false;              // fsync at the end of every written file (included in its time)
  bool chr_syscall = false;        // per-char phases: one read()/write() per byte (bonnie++ 2) instead of a buffer
  std::uint64_t seed = 1;
  // Groups to run: chr (seq-write-chr, seq-read-chr), block (seq-write-block,
  // rewrite, seq-read-block), seeks, files, stream.
  std::vector<std::string> groups = {"chr", "block", "seeks", "files"};
  std::string workdir = "storebench-fs";  // created below the backend's root, removed at the end
  // Progress lines ("seq-write-chr...done"), as bonnie++ prints them; may be empty.
  std::function<void(const std::string&)> progress;
};

// One phase's extra figures (beyond PhaseResult).
struct PhaseExtra {
  std::uint64_t bytes = 0;        // payload bytes moved (0 for metadata phases)
  double seconds = 0;
  double cpu_seconds = 0;         // user + system of the whole process during the phase
  double cpu_percent = 0;         // cpu_seconds / seconds * 100 (may exceed 100 with threads)
  double kb_per_s = 0;            // bytes / 1024 / seconds
  std::vector<double> file_mb_per_s;  // stream phases: per file
};

struct FsResult {
  std::vector<PhaseResult> phases;  // also in the JSON result
  std::vector<PhaseExtra> extras;   // parallel to phases
  std::string error;                // empty, or what stopped the suite ("ENOSPC ...")
  bool out_of_space = false;
  std::uint64_t integrity_failures = 0;
  std::uint64_t verified_bytes = 0;
};

// Runs the suite. Throws ConfigError for bad options, SetupError when the
// work directory cannot be created; I/O errors during the phases end up in
// FsResult::error.
FsResult RunSuite(FsBackend* backend, const FsOptions& options);

// The bonnie++-shaped table, then one line per phase and operation with
// percentiles.
void WriteFsTable(const FsResult& r, const FsOptions& o, const std::string& machine, std::ostream& out);

// The bytes the suite writes: a 2 MiB random base (from the seed) copied
// from an offset that depends on (index, generation), with an 8-byte stamp
// of (index, generation, sector) at the start of every 512-byte sector, so
// that a chunk in the wrong place, a stale generation or a flipped byte all
// read back as a mismatch. Copying is cheap next to the I/O it checks.
class Pattern {
 public:
  static constexpr std::size_t kMaxChunk = 1u << 20;
  explicit Pattern(std::uint64_t seed);
  // Fills buf[0..n) (n <= kMaxChunk) with chunk `index` at `generation`.
  void Fill(std::uint64_t index, std::uint8_t generation, char* buf, std::size_t n) const;

 private:
  std::uint64_t seed_;
  std::vector<char> base_;
};

}  // namespace storebench::fs_suite
