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

// Sum of the sizes of the regular files under `path` (a directory, searched
// recursively, or a single file); nullopt if it cannot be read.
std::optional<std::uint64_t> PathSizeBytes(const std::string& path);

}  // namespace storebench
