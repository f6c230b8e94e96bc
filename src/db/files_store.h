// The store behind the "files" and "gluster" bindings: every record is one
// file, written through an vfs::FsBackend (a mounted directory, or a
// GlusterFS volume through gfapi). See src/db/files.cc for the layout and the
// semantics; both bindings share them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/properties.h"
#include "db/binding.h"
#include "vfs/backend.h"

namespace storebench {

enum class FilesFsync { kNone, kPerOp, kEnd };

struct FilesStoreOptions {
  std::string prefix;       // property namespace: "files" or "gluster" (messages, stats)
  std::string where;        // what the backend points at, for messages
  FilesFsync fsync = FilesFsync::kNone;
  bool direct = false;
  bool ordered = false;
  int fanout = 1;
  std::optional<std::string> local_dir;  // measured for DiskUsageBytes (files binding)
  // Reads retried when the file vanishes between lookup and open (ENOENT or
  // ESTALE): GlusterFS resolves a path to a gfid, then opens that gfid, so a
  // reader racing a rename over the record sees the old gfid gone. 0 on a
  // POSIX mount, where rename() makes that impossible. Retry k waits k x 50 ms.
  int stale_retries = 0;
  // Write records in place (O_TRUNC, then write) instead of temp + rename,
  // with readers holding the key's stripe shared and writers exclusive, so
  // readers of this process still never see a torn record. For gfapi:
  // GlusterFS 10.3's client keeps resolving a renamed-over name to the old
  // gfid (ESTALE) for up to seconds. Readers in other processes can see a
  // partly written record.
  bool in_place = false;
};

// Reads PREFIX.fsync, PREFIX.direct, PREFIX.ordered and PREFIX.fanout
// (ConfigError when bad); prefix and where are set by the caller.
FilesStoreOptions ParseFilesStoreOptions(const Properties& props, const std::string& prefix);

// The documentation of those four properties, for a BindingInfo.
std::vector<PropertySpec> FilesStoreProperties(const std::string& prefix);

// Opens the store on `backend` (its root is the store's directory).
// Throws SetupError when O_DIRECT is asked for and refused.
std::unique_ptr<Store> OpenFilesStore(const FilesStoreOptions& options, std::unique_ptr<vfs::FsBackend> backend);

}  // namespace storebench
