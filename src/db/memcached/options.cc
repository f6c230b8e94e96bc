#include "db/memcached/options.h"

#include <cstdlib>

#include "core/error.h"

namespace storebench::memcache {

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
  o.hosts = net::ParseEndpointList(props.GetString("memcached.hosts", std::string(kDefaultHosts)), kDefaultPort,
                                   "memcached.hosts");
  o.timeout_ms = props.GetInt("memcached.timeout_ms", d.timeout_ms, 1, 3'600'000);
  o.pipeline = static_cast<int>(props.GetInt("memcached.pipeline", d.pipeline, 1, 1024));
  o.exptime = props.GetInt("memcached.exptime", d.exptime, 0, 0xffffffffLL);
  o.replace_on_update = props.GetChoice("memcached.update", "merge", {"merge", "replace"}) == "replace";
  const std::string protocol = props.GetChoice("memcached.protocol", "auto", {"auto", "meta", "classic"});
  o.protocol = protocol == "meta" ? Protocol::kMeta : protocol == "classic" ? Protocol::kClassic : Protocol::kAuto;
  o.user = props.GetString("memcached.user", "");
  o.password = props.GetString("memcached.password", "");
  if (o.password.empty()) {
    if (const char* env = std::getenv("STOREBENCH_MEMCACHED_PASSWORD")) o.password = env;
  }
  if (o.user.find_first_of(" \r\n") != std::string::npos) {
    throw ConfigError("property 'memcached.user': must not contain spaces or line breaks");
  }
  if (o.password.find_first_of("\r\n") != std::string::npos) {
    throw ConfigError("memcached password: must not contain line breaks");
  }
  if (!o.password.empty() && o.user.empty()) {
    throw ConfigError("a memcached password is set but 'memcached.user' is not");
  }
  return o;
}

std::vector<PropertySpec> PropertySpecs() {
  const Options& d = Defaults();  // name, default, help
  return {
      {"memcached.hosts", std::string(kDefaultHosts),
       "comma-separated host:port list; keys are spread over them by jump consistent hashing"},
      {"memcached.timeout_ms", std::to_string(d.timeout_ms), "per-operation timeout in milliseconds (connect timeout too)"},
      {"memcached.pipeline", std::to_string(d.pipeline), "clients sharing one connection per host (pipelined requests)"},
      {"memcached.protocol", "auto",
       "meta = mg/ms/md (memcached >= 1.6); classic = get/gets/set/cas/replace/delete (any memcached-compatible "
       "server: ROMA, twemproxy, older memcached); auto = meta when the server answers 'mn', else classic"},
      {"memcached.update", "merge",
       "merge = read with the CAS token (mg / gets), merge the fields, write with CAS (ms C / cas; keeps the other "
       "fields; atomic); replace = one write of the given fields stored only where the key exists (ms MR / replace; "
       "as memtier's set; right when updates write every field, e.g. writeallfields=true)"},
      {"memcached.exptime", std::to_string(d.exptime), "item expiry in seconds (0 = never; > 30 days = a Unix time)"},
      {"memcached.user", "", "user for memcached's ASCII authentication (-Y authfile)"},
      {"memcached.password", "", "password for ASCII authentication (default: env STOREBENCH_MEMCACHED_PASSWORD)"},
  };
}

}  // namespace storebench::memcache
