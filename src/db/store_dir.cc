#include "db/store_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>
#include <system_error>

#include "core/error.h"

namespace storebench {

namespace fs = std::filesystem;

void PrepareStoreDir(const std::string& property, const std::string& dir) {
  const std::string what = property + " '" + dir + "': ";
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw SetupError(what + "exists and is not a directory");
  fs::create_directories(dir, ec);
  if (ec) throw SetupError(what + "cannot create directory: " + ec.message());
  if (!fs::is_directory(dir, ec)) throw SetupError(what + "not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) throw SetupError(what + "not writable: " + std::strerror(errno));
}

namespace {
std::mutex g_claims_mu;
std::set<std::string> g_claims;  // canonical paths of the claimed directories
}  // namespace

DirClaim::DirClaim(const std::string& property, const std::string& dir) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(dir, ec);
  std::string key = ec ? dir : canonical.string();
  std::lock_guard lock(g_claims_mu);
  if (!g_claims.insert(key).second) {
    throw SetupError(property + " '" + dir + "': the database is locked, in use by another store in this process");
  }
  key_ = std::move(key);
}

DirClaim& DirClaim::operator=(DirClaim&& other) noexcept {
  if (this != &other) {
    Release();
    key_ = std::move(other.key_);
    other.key_.clear();
  }
  return *this;
}

void DirClaim::Release() {
  if (key_.empty()) return;
  std::lock_guard lock(g_claims_mu);
  g_claims.erase(key_);
  key_.clear();
}

bool IsSafeFileName(std::string_view name) {
  if (name.empty() || name.size() > 200 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

namespace {
void Add(const std::string& file, PathUsage* usage) {
  struct stat st {};
  if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  usage->file_bytes += static_cast<std::uint64_t>(st.st_size);
  usage->allocated_bytes += static_cast<std::uint64_t>(st.st_blocks) * 512;
}
}  // namespace

std::optional<PathUsage> MeasurePath(const std::string& path) {
  std::error_code ec;
  PathUsage usage;
  if (!fs::is_directory(fs::symlink_status(path, ec))) {
    if (!fs::exists(fs::symlink_status(path, ec))) return std::nullopt;
    Add(path, &usage);
    return usage;
  }
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    Add(it->path().string(), &usage);
  }
  if (ec) return std::nullopt;
  return usage;
}

std::optional<std::uint64_t> DiskBytes(const std::string& path) {
  auto usage = MeasurePath(path);
  if (!usage) return std::nullopt;
  return usage->allocated_bytes;
}

}  // namespace storebench
