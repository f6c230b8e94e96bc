// Binding "gluster": the files binding's store (db/files_store.h: one file
// per record, hash fan-out directories, write + rename) on a GlusterFS volume
// through gfapi, without a FUSE mount. Each process opens one gfapi client
// (glfs_init) shared by its sessions; gfapi calls are thread-safe.
//
// gluster.host/port/volume name the volume server (glusterd: gfapi fetches
// the volume file from it, then talks to the bricks); gluster.dir is the
// directory inside the volume that holds the tables (created if missing).
// Built with gfapi when CMake finds it (Debian: libglusterfs-dev); without
// it, opening the store is a SetupError that says so.
//
// Differences from "files", from gfapi: no directory fsync and no syncfs,
// so gluster.fsync=per-op fsyncs each record file and =end adds nothing;
// DiskUsageBytes is not measured (the bricks are on the servers).
// Records are rewritten in place (O_TRUNC + write) under per-key
// reader/writer locks instead of temp file + rename: after a rename over a
// name, GlusterFS 10.3's client kept resolving the name to the replaced gfid
// (ESTALE) for up to seconds, even with 5 retries 50-250 ms apart (an
// update-heavy test took 230 s and still saw errors). So readers in this
// process never see a torn record, but readers in other processes can. A
// read that still meets ENOENT/ESTALE (a delete and re-insert) is retried.
// glfs_fini, at Close, takes about 10 s (GlusterFS issue #2606, "wontfix").
#include <memory>
#include <string>

#include "core/error.h"
#include "db/binding.h"
#include "db/files_store.h"
#include "vfs/gluster.h"

namespace storebench {

const BindingInfo& gluster_binding() {
  static const BindingInfo info{
      .name = "gluster",
      .summary = std::string("one file per record on a GlusterFS volume through gfapi") +
                 (vfs::GlusterAvailable() ? "" : " (this build has no gfapi: opening fails)"),
      .properties =
          [] {
            std::vector<PropertySpec> p = {
                {"gluster.host", "localhost", "volume server (glusterd) host"},
                {"gluster.port", "24007", "glusterd port"},
                {"gluster.volume", "sbvol", "volume name"},
                {"gluster.dir", "storebench", "directory inside the volume for the tables (created if missing)"},
            };
            for (auto& spec : FilesStoreProperties("gluster")) {
              if (spec.name == "gluster.fsync") {  // gfapi has no directory fsync and no syncfs
                spec.help = "none (the servers' caches decide), per-op (fsync each record file before its rename), "
                            "end (nothing more than closing: gfapi has no syncfs)";
              }
              p.push_back(spec);
            }
            return p;
          }(),
      .open = [](const Properties& props, const OpenContext&) -> std::unique_ptr<Store> {
        const std::string host = props.GetString("gluster.host", "localhost");
        const int port = static_cast<int>(props.GetInt("gluster.port", 24007, 1, 65535));
        const std::string volume = props.GetString("gluster.volume", "sbvol");
        const std::string dir = props.GetString("gluster.dir", "storebench");
        if (host.empty() || volume.empty()) throw ConfigError("gluster.host and gluster.volume must not be empty");
        FilesStoreOptions o = ParseFilesStoreOptions(props, "gluster");
        o.stale_retries = 5;
        o.in_place = true;
        o.where = "gluster volume " + host + ":" + std::to_string(port) + "/" + volume + "/" + dir;
        return OpenFilesStore(o, vfs::OpenGlusterBackend(host, port, volume, dir));
      },
      .server = true,
  };
  return info;
}

}  // namespace storebench
