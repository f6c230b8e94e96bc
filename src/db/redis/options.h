// The redis binding's options: the redis.* properties, parsed and checked
// once when the store opens, and their documentation for `storebench list`.
// Plain values; copied into each client, read-only afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/properties.h"
#include "db/binding.h"
#include "net/socket.h"

namespace storebench::redis {

// How a record is kept (see db/redis/session.h).
enum class Layout { kHash, kString };

// The in-class values are the defaults, for parsing and for the docs alike.
struct Options {
  net::Endpoint seed{"127.0.0.1", 6379};  // the server, or any node of a cluster
  std::string password;
  std::string user;
  bool cluster = false;
  int database = 0;
  std::int64_t timeout_ms = 5000;  // per operation, and connect
  Layout layout = Layout::kHash;
  bool replace_on_update = false;  // redis.update=replace or set (string layout)
  bool blind_set = false;          // redis.update=set: SET without XX
  int pipeline = 1;                // clients sharing one connection
};

// Reads the redis.* properties (and STOREBENCH_REDIS_PASSWORD). Throws
// ConfigError for a bad value or combination.
Options ParseOptions(const Properties& props);

// The redis.* properties, documented.
std::vector<PropertySpec> PropertySpecs();

}  // namespace storebench::redis
