// The aerospike binding's options: the aerospike.* properties (and the
// workload's table, which is the set), parsed and checked once when the
// store opens, and their documentation for `storebench list`. Plain values;
// read-only afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/properties.h"
#include "db/binding.h"
#include "net/socket.h"

namespace storebench::aerospike {

// What Insert does when the record exists (db/aerospike/session.h).
enum class InsertMode { kReplace, kCreateOnly };
// What Update does (db/aerospike/session.h).
enum class UpdateMode { kUpdateOnly, kReplaceOnly };

// The in-class values are the defaults, for parsing and for the docs alike.
struct Options {
  std::vector<net::Endpoint> seeds{{"127.0.0.1", 3000}};  // aerospike.host (a list) and aerospike.port
  std::string ns = "test";                                // aerospike.namespace
  std::string set = "usertable";                          // the workload's table
  std::int64_t timeout_ms = 10000;  // aerospike.timeout: per operation (client and server side), connect
  InsertMode insert = InsertMode::kReplace;
  UpdateMode update = UpdateMode::kUpdateOnly;
  bool send_key = false;                 // aerospike.sendkey: store the key with the record
  bool blob_bins = false;                // aerospike.bintype=blob (default string)
  int pipeline = 1;                      // clients sharing one connection per node
  std::int64_t tend_interval_ms = 1000;  // how often the cluster's nodes and partitions are checked
};

// Reads the aerospike.* properties. Throws ConfigError for a bad value.
Options ParseOptions(const Properties& props);

// The aerospike.* properties, documented.
std::vector<PropertySpec> PropertySpecs();

}  // namespace storebench::aerospike
