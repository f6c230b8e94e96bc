#include "db/store_dir.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
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

std::optional<std::uint64_t> PathSizeBytes(const std::string& path) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    auto size = fs::file_size(path, ec);
    if (ec) return std::nullopt;
    return size;
  }
  std::uint64_t total = 0;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code fec;
    if (it->is_regular_file(fec)) {
      auto size = it->file_size(fec);
      if (!fec) total += size;
    }
  }
  if (ec) return std::nullopt;
  return total;
}

}  // namespace storebench
