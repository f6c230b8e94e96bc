// The hbase binding's options: the hbase.* properties (and the workload's
// table), parsed and checked once when the store opens, and their
// documentation for `storebench list`. Plain values; read-only afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Client.pb.h"
#include "db/hbase/rpc.h"
#include "core/properties.h"
#include "db/binding.h"
#include "net/socket.h"

namespace storebench::hbase {

// What Insert does (db/hbase/session.h).
enum class InsertMode { kReplace, kPut };

// The in-class values are the defaults, for parsing and for the docs alike.
struct Options {
  net::Endpoint master;                // hbase.master: the master's RPC address (required)
  std::string zookeeper_quorum;        // accepted (the server script prints it); not used
  std::string family = "family";       // hbase.columnfamily
  std::int64_t timeout_ms = 10000;     // per operation, and connect
  pb::MutationProto::Durability durability = pb::MutationProto::USE_DEFAULT;
  std::string user;                    // the RPC user (default: $USER, else "storebench")
  int pipeline = 1;                    // clients sharing one connection per region server
  InsertMode insert = InsertMode::kReplace;
  bool update_put = false;             // hbase.update=put: a plain Put (YCSB's hbase2), no existence check
  bool client_buffering = false;               // YCSB's clientbuffering
  std::int64_t write_buffer_bytes = 12 << 20;  // YCSB's writebuffersize (its default, 12 MiB)
  bool create_table = true;            // create the workload's table when it does not exist
  int presplit_regions = 1;            // hbase.presplit: regions of a table the binding creates (presplit.h)
  bool cell_blocks = true;             // responses' cells in KeyValueCodec cell blocks (cells.h)
  std::string table = "usertable";     // the workload's table
};

// Reads the hbase.* properties. Throws ConfigError for a bad value.
Options ParseOptions(const Properties& props);

// The hbase.* properties, documented.
std::vector<PropertySpec> PropertySpecs();

}  // namespace storebench::hbase
