// The `storebench fs` suite on a GlusterFS volume through gfapi (libgfapi:
// no FUSE mount needed). Compiled with gfapi when CMake finds it
// (pkg-config glusterfs-api; Debian: libglusterfs-dev); without it,
// OpenGlusterBackend throws SetupError saying so.
#pragma once

#include <memory>
#include <string>

#include "vfs/backend.h"

namespace storebench::vfs {

// True when this storebench was built with gfapi.
bool GlusterAvailable();

// Connects to `spec` = HOST[:PORT]:VOLUME[/SUBDIR] (port 24007 by default),
// e.g. "myhost:vol0" or "myhost:24007:vol0/bench"; paths are relative to
// SUBDIR (created if missing). Throws ConfigError for a malformed spec and
// SetupError, with gfapi's error, when the volume cannot be reached.
std::unique_ptr<FsBackend> OpenGlusterBackend(const std::string& spec);

// The same from its parts (the gluster binding's properties).
std::unique_ptr<FsBackend> OpenGlusterBackend(const std::string& host, int port, const std::string& volume,
                                              const std::string& subdir);

}  // namespace storebench::vfs
