// The memcached binding's options: the memcached.* properties (and
// STOREBENCH_MEMCACHED_PASSWORD), parsed and checked once when the store
// opens, and their documentation for `storebench list`. Plain values;
// read-only afterwards.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/properties.h"
#include "db/binding.h"
#include "net/socket.h"

namespace storebench::memcache {

inline constexpr int kDefaultPort = 11211;
inline constexpr std::string_view kDefaultHosts = "127.0.0.1:11211";

// Which text protocol the sessions speak (memcached.protocol).
enum class Protocol {
  kMeta,     // mg / ms / md (memcached >= 1.6)
  kClassic,  // get / gets / set / cas / replace / delete (every memcached-compatible server)
  kAuto,     // probed at open: meta when the server answers `mn`, else classic
};

// The in-class values are the defaults, for parsing and for the docs alike.
struct Options {
  std::vector<net::Endpoint> hosts;  // default: kDefaultHosts
  std::int64_t timeout_ms = 5000;
  int pipeline = 1;
  std::int64_t exptime = 0;
  std::string user;
  std::string password;
  bool replace_on_update = false;  // memcached.update=replace
  Protocol protocol = Protocol::kAuto;
};

// Reads the memcached.* properties. Throws ConfigError for a bad value.
Options ParseOptions(const Properties& props);

// The memcached.* properties, documented.
std::vector<PropertySpec> PropertySpecs();

}  // namespace storebench::memcache
