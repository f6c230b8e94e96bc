#include "db/aerospike/options.h"

#include "core/error.h"

namespace storebench::aerospike {

Options ParseOptions(const Properties& props) {
  const Options d;  // the defaults (a local: bindings may be listed during static initialisation)
  Options o;
  const int port = static_cast<int>(props.GetInt("aerospike.port", d.seeds[0].port, 1, 65535));
  o.seeds =
      net::ParseEndpointList(props.GetString("aerospike.host", d.seeds[0].host), port, "aerospike.host");
  o.ns = props.GetString("aerospike.namespace", d.ns);
  if (o.ns.empty() || o.ns.size() > 31)
    throw ConfigError("property 'aerospike.namespace' must be 1 to 31 bytes");
  o.set = props.GetString("table", d.set);
  if (o.set.size() > 63) throw ConfigError("property 'table' is the aerospike set: at most 63 bytes");
  o.timeout_ms = props.GetInt("aerospike.timeout", d.timeout_ms, 1, std::int64_t{1} << 31);
  o.insert = props.GetChoice("aerospike.insert", "replace", {"replace", "create_only"}) == "replace"
                 ? InsertMode::kReplace
                 : InsertMode::kCreateOnly;
  o.update =
      props.GetChoice("aerospike.update", "update_only", {"update_only", "replace_only"}) == "update_only"
          ? UpdateMode::kUpdateOnly
          : UpdateMode::kReplaceOnly;
  o.send_key = props.GetBool("aerospike.sendkey", d.send_key);
  o.blob_bins = props.GetChoice("aerospike.bintype", "string", {"string", "blob"}) == "blob";
  o.pipeline = static_cast<int>(props.GetInt("aerospike.pipeline", d.pipeline, 1, 1024));
  o.tend_interval_ms = props.GetInt("aerospike.tend_interval_ms", d.tend_interval_ms, 10, 3'600'000);
  return o;
}

std::vector<PropertySpec> PropertySpecs() {
  const Options d;
  // name, default, help
  return {
      {"aerospike.host", d.seeds[0].host,
       "seed node(s): host or host:port, comma-separated; the other nodes are found through the seeds"},
      {"aerospike.port", std::to_string(d.seeds[0].port), "the port of a seed given without one"},
      {"aerospike.namespace", d.ns, "the namespace holding the records (the set is the workload's table)"},
      {"aerospike.timeout", std::to_string(d.timeout_ms),
       "per-operation timeout in milliseconds, on the client and sent to the server (and the connect "
       "timeout)"},
      {"aerospike.insert", "replace",
       "replace: an insert creates the record or replaces it whole (CREATE_OR_REPLACE); create_only: an "
       "existing record is not written and the insert fails with UNEXPECTED_STATE (YCSB's aerospike "
       "binding)"},
      {"aerospike.update", "update_only",
       "update_only: an update sets the given bins of an existing record and keeps the others (a missing "
       "record is NOT_FOUND); replace_only: the record is replaced by the given bins (YCSB's aerospike "
       "binding)"},
      {"aerospike.sendkey", "false",
       "store each record's key with it (Aerospike's POLICY_KEY_SEND); "
       "by default only its digest is kept"},
      {"aerospike.bintype", "string", "the bins' particle type: string (as asbench's S:N and YCSB) or blob"},
      {"aerospike.pipeline", std::to_string(d.pipeline),
       "clients sharing one connection per node (with the runner's connections=N)"},
      {"aerospike.tend_interval_ms", std::to_string(d.tend_interval_ms),
       "how often the nodes, peers and partition map are checked (sooner after a failed request)"},
  };
}

}  // namespace storebench::aerospike
