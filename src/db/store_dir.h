// Helpers for bindings that keep their data in a directory (`NAME.dir`):
// creating it and measuring what it holds on disk. Shared so every embedded
// binding reports setup errors and disk usage the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace storebench {

// Creates `dir` with its parents and checks it is a writable directory.
// Throws SetupError naming `property` (e.g. "leveldb.dir") and the path.
void PrepareStoreDir(const std::string& property, const std::string& dir);

// A store directory claimed by one Store of this process, for engines whose
// own locks do not stop the process that holds them from opening the same
// files again (LMDB; Kyoto and Tokyo Cabinet's fcntl locks). Keyed by the
// canonical path, so another spelling of the directory is caught too.
// Thread-safe; the claim ends with Release() or the destructor.
class DirClaim {
 public:
  DirClaim() = default;
  // Claims `dir`; throws SetupError "PROPERTY 'DIR': the database is locked,
  // in use by another store in this process" when it is claimed already.
  DirClaim(const std::string& property, const std::string& dir);
  ~DirClaim() { Release(); }
  DirClaim(DirClaim&& other) noexcept : key_(std::move(other.key_)) { other.key_.clear(); }
  DirClaim& operator=(DirClaim&& other) noexcept;
  DirClaim(const DirClaim&) = delete;
  DirClaim& operator=(const DirClaim&) = delete;
  void Release();

 private:
  std::string key_;  // canonical path; empty when nothing is claimed
};

// True when `name` (a table name) is safe as a file name inside a store
// directory: 1 to 200 of [A-Za-z0-9_.-], not starting with '.'.
bool IsSafeFileName(std::string_view name);

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
