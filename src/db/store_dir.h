// Helpers for bindings that keep their data in a directory (`NAME.dir`):
// creating it and measuring what it holds on disk. Shared so every embedded
// binding reports setup errors and disk usage the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace storebench {

// Creates `dir` with its parents and checks it is a writable directory.
// Throws SetupError naming `property` (e.g. "leveldb.dir") and the path.
void PrepareStoreDir(const std::string& property, const std::string& dir);

// What the regular files under a path occupy.
struct PathUsage {
  std::uint64_t file_bytes = 0;       // sum of the files' sizes (what `ls -l` adds up)
  std::uint64_t allocated_bytes = 0;  // blocks allocated to them (st_blocks x 512: what `du` shows)
};

// Measures `path` (a directory, searched recursively, or a single file);
// nullopt if it cannot be read. Symbolic links are not followed.
std::optional<PathUsage> MeasurePath(const std::string& path);

// The on-disk size every binding reports as DiskUsageBytes: the allocated
// bytes of MeasurePath. Sparse files (Groonga's, LMDB's with writemap) count
// only the blocks they really occupy, as `du` counts them.
std::optional<std::uint64_t> DiskBytes(const std::string& path);

}  // namespace storebench
