#include "db/hbase/options.h"

#include <cstdlib>

#include "core/error.h"
#include "db/hbase/presplit.h"

namespace storebench::hbase {

Options ParseOptions(const Properties& props) {
  const Options d;  // the defaults (a local: bindings may be listed during static initialisation)
  Options o;
  const std::string master = props.GetString("hbase.master", "");
  if (master.empty()) {
    throw ConfigError("property 'hbase.master' is required: the master's RPC address host:port "
                      "(scripts/servers/hbase.sh start DIR prints it)");
  }
  o.master = net::ParseEndpoint(master, 16000, "hbase.master");
  o.zookeeper_quorum = props.GetString("hbase.zookeeper.quorum", "");
  o.family = props.GetString("hbase.columnfamily", d.family);
  if (o.family.empty()) throw ConfigError("property 'hbase.columnfamily' is empty");
  o.timeout_ms = props.GetInt("hbase.timeout_ms", d.timeout_ms, 1, std::int64_t{1} << 40);
  const std::string durability = props.GetChoice("hbase.durability", "USE_DEFAULT",
                                                 {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"});
  pb::MutationProto::Durability_Parse(durability, &o.durability);
  o.user = props.GetString("hbase.user", "");
  if (o.user.empty()) {
    const char* env = std::getenv("USER");
    o.user = env != nullptr && *env != '\0' ? env : "storebench";
  }
  o.pipeline = static_cast<int>(props.GetInt("hbase.pipeline", d.pipeline, 1, 1024));
  o.update_put = props.GetChoice("hbase.update", "check", {"check", "put"}) == "put";
  o.insert = props.GetChoice("hbase.insert", "replace", {"replace", "put"}) == "put" ? InsertMode::kPut
                                                                                    : InsertMode::kReplace;
  o.client_buffering = props.GetBool("hbase.clientbuffering", d.client_buffering);
  o.write_buffer_bytes = props.GetInt("hbase.writebuffersize", d.write_buffer_bytes, 1, std::int64_t{1} << 40);
  o.create_table = props.GetBool("hbase.create_table", d.create_table);
  o.presplit_regions = static_cast<int>(props.GetInt("hbase.presplit", d.presplit_regions, 1, kMaxPresplitRegions));
  o.cell_blocks = props.GetBool("hbase.cellblocks", d.cell_blocks);
  o.table = props.GetString("table", d.table);
  return o;
}

std::vector<PropertySpec> PropertySpecs() {
  const Options d;
  // name, default, help
  return {
      {"hbase.master", "", "the master's RPC address host:port (required): the client bootstraps from its "
                           "connection registry (ClientMetaService) and creates missing tables through it"},
      {"hbase.zookeeper.quorum", "", "accepted (scripts/servers/hbase.sh prints it) and not used: the binding "
                                     "bootstraps from hbase.master"},
      {"hbase.columnfamily", d.family, "the column family holding the fields (one column per field, YCSB's hbase2)"},
      {"hbase.timeout_ms", std::to_string(d.timeout_ms), "per-operation (and connect) timeout in milliseconds"},
      {"hbase.durability", "USE_DEFAULT", "the durability of every put and delete: USE_DEFAULT, SKIP_WAL, "
                                          "ASYNC_WAL, SYNC_WAL or FSYNC_WAL"},
      {"hbase.user", "", "the user named in the RPC connection header (default: $USER)"},
      {"hbase.pipeline", std::to_string(d.pipeline),
       "clients sharing one connection per region server (with the runner's connections=N)"},
      {"hbase.insert", "replace",
       "replace: an insert leaves exactly the record's fields (a Get of the row's columns, then one atomic "
       "put + delete of the others when it had more); put: one Put of the fields (YCSB's hbase2 binding)"},
      {"hbase.update", "check",
       "check: an update is a Put made conditional on the row existing (checkAndMutate; a missing row is "
       "NOT_FOUND and stays missing); put: one plain Put, as YCSB's hbase2 binding (a missing row is created)"},
      {"hbase.clientbuffering", "false",
       "buffer inserts and updates in the session and send them as Multi batches of puts once "
       "hbase.writebuffersize bytes are buffered (YCSB's clientbuffering); "
       "they answer BATCHED_OK, reads do not see buffered writes"},
      {"hbase.writebuffersize", std::to_string(d.write_buffer_bytes),
       "the write buffer in bytes (keys, names and values) before a flush (YCSB's writebuffersize)"},
      {"hbase.create_table", "true",
       "create the workload's table (one column family, hbase.presplit regions) when it does not exist"},
      {"hbase.presplit", std::to_string(d.presplit_regions),
       "regions of the table the binding creates, 1 to " + std::to_string(kMaxPresplitRegions) +
           ", split on YCSB's key space at \"user\" + (1000 + i * 8999 / N), i = 1..N-1 (as hbase.sh --presplit)"},
      {"hbase.cellblocks", "true",
       "ask the region servers for cell blocks (KeyValueCodec, as HBase's Java client does): results' cells "
       "come after the response message as KeyValues; false: cells inside the protobuf Results"},
  };
}

}  // namespace storebench::hbase
