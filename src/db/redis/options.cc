#include "db/redis/options.h"

#include <cstdlib>

#include "core/error.h"

namespace storebench::redis {

namespace {
// (A function, not a global: bindings may be listed during static initialisation.)
const Options& Defaults() {
  static const Options d;
  return d;
}
}  // namespace

Options ParseOptions(const Properties& props) {
  const Options& d = Defaults();
  Options o;
  o.seed.host = props.GetString("redis.host", d.seed.host);
  if (o.seed.host.empty()) throw ConfigError("property 'redis.host' is empty: expected a host name or address");
  o.seed.port = static_cast<int>(props.GetInt("redis.port", d.seed.port, 1, 65535));
  o.password = props.GetString("redis.password", "");
  if (o.password.empty()) {
    if (const char* env = std::getenv("STOREBENCH_REDIS_PASSWORD")) o.password = env;
  }
  o.user = props.GetString("redis.user", "");
  if (!o.user.empty() && o.password.empty()) {
    throw ConfigError("property 'redis.user' needs a password (redis.password or STOREBENCH_REDIS_PASSWORD)");
  }
  o.cluster = props.GetBool("redis.cluster", d.cluster);
  o.database = static_cast<int>(props.GetInt("redis.database", d.database, 0, 1 << 20));
  if (o.cluster && o.database != 0) {
    throw ConfigError("property 'redis.database' must be 0 with redis.cluster=true (a cluster has one database)");
  }
  o.timeout_ms = props.GetInt("redis.timeout_ms", d.timeout_ms, 1, std::int64_t{1} << 40);
  o.layout = props.GetChoice("redis.layout", "hash", {"hash", "string"}) == "string" ? Layout::kString : Layout::kHash;
  o.pipeline = static_cast<int>(props.GetInt("redis.pipeline", d.pipeline, 1, 1024));
  const std::string update = props.GetChoice("redis.update", "merge", {"merge", "replace", "set"});
  o.replace_on_update = update != "merge";
  o.blind_set = update == "set";
  if (o.replace_on_update && o.layout != Layout::kString) {
    throw ConfigError("property 'redis.update=" + update +
                      "' needs redis.layout=string (a hash update sets only its fields)");
  }
  return o;
}

std::vector<PropertySpec> PropertySpecs() {
  const Options& d = Defaults();
  // name, default, help
  return {
      {"redis.host", d.seed.host, "server host (in cluster mode: any node)"},
      {"redis.port", std::to_string(d.seed.port), "server port"},
      {"redis.password", "", "AUTH password (default: env STOREBENCH_REDIS_PASSWORD; never printed)"},
      {"redis.user", "", "ACL user name for AUTH user password (needs a password)"},
      {"redis.cluster", d.cluster ? "true" : "false", "Redis Cluster: slot map from CLUSTER SLOTS, MOVED/ASK followed"},
      {"redis.database", std::to_string(d.database), "database number (SELECT); must be 0 in cluster mode"},
      {"redis.timeout_ms", std::to_string(d.timeout_ms), "per-operation (and connect) timeout in milliseconds"},
      {"redis.layout", "hash",
       "hash: a hash per record + a sorted-set index per table (YCSB); string: one encoded value per key "
       "(GET/SET, no scans)"},
      {"redis.pipeline", std::to_string(d.pipeline), "clients sharing one connection (with the runner's connections=N)"},
      {"redis.update", "merge",
       "string layout: merge = GET, merge the fields, SET XX (keeps other fields; two round trips); "
       "replace = one SET XX of the given fields (right when updates write every field, e.g. "
       "writeallfields=true); set = one plain SET, exactly memtier's (also creates a missing record)"},
  };
}

}  // namespace storebench::redis
