// The ignite binding's options: the ignite.* properties (and the workload's
// fieldcount / fieldnameprefix, which name the SQL columns of a table the
// binding creates), parsed and checked once when the store opens, and their
// documentation for `storebench list`. Plain values; read-only afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/properties.h"
#include "db/binding.h"
#include "db/ignite/cache_ops.h"
#include "net/socket.h"

namespace storebench::ignite {

// How Update writes (see db/ignite/session.h).
enum class UpdateMode { kAuto, kPut };

// The in-class values are the defaults, for parsing and for the docs alike.
struct Options {
  std::vector<net::Endpoint> hosts{{"127.0.0.1", 10800}};  // thin-client ports of the nodes
  std::string user;
  std::string password;
  std::int64_t timeout_ms = 10000;  // per operation, and connect
  // The table's cache, when the binding creates it (an existing cache is used as it is).
  Atomicity atomicity = Atomicity::kAtomic;
  int backups = 0;
  WriteSync write_sync = WriteSync::kPrimarySync;
  std::string cache_group;  // "" = a group of its own
  std::string key_column = "ycsb_key";
  std::vector<std::string> field_names;  // the SQL columns: fieldnameprefix + 0 .. fieldcount-1
  bool partition_awareness = true;
  int pipeline = 1;                 // clients sharing one connection per node
  UpdateMode update = UpdateMode::kAuto;
  TxConcurrency tx_concurrency = TxConcurrency::kPessimistic;
  TxIsolation tx_isolation = TxIsolation::kRepeatableRead;
  std::int64_t tx_timeout_ms = 5000;
  int sql_page_size = 1024;
  std::string table = "usertable";  // the workload's table (created at open)
};

// Reads the ignite.* properties (and STOREBENCH_IGNITE_PASSWORD). Throws
// ConfigError for a bad value or combination.
Options ParseOptions(const Properties& props);

// The ignite.* properties, documented.
std::vector<PropertySpec> PropertySpecs();

}  // namespace storebench::ignite
