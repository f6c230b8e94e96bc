#include "db/ignite/options.h"

#include <cstdlib>

#include "core/error.h"

namespace storebench::ignite {

Options ParseOptions(const Properties& props) {
  const Options d;  // the defaults (a local: bindings may be listed during static initialisation)
  Options o;
  o.hosts = net::ParseEndpointList(props.GetString("ignite.hosts", "127.0.0.1:10800"), 10800, "ignite.hosts");
  if (o.hosts.size() > 256) throw ConfigError("property 'ignite.hosts' lists more than 256 nodes");
  o.password = props.GetString("ignite.password", "");
  if (o.password.empty()) {
    if (const char* env = std::getenv("STOREBENCH_IGNITE_PASSWORD")) o.password = env;
  }
  o.user = props.GetString("ignite.user", "");
  if (!o.user.empty() && o.password.empty()) {
    throw ConfigError("property 'ignite.user' needs a password (ignite.password or STOREBENCH_IGNITE_PASSWORD)");
  }
  o.timeout_ms = props.GetInt("ignite.timeout_ms", d.timeout_ms, 1, std::int64_t{1} << 40);
  o.atomicity = props.GetChoice("ignite.atomicity", "atomic", {"atomic", "transactional"}) == "transactional"
                    ? Atomicity::kTransactional
                    : Atomicity::kAtomic;
  o.backups = static_cast<int>(props.GetInt("ignite.backups", d.backups, 0, 1 << 20));
  const std::string sync = props.GetChoice("ignite.write_sync", "primary_sync", {"primary_sync", "full_sync", "full_async"});
  o.write_sync = sync == "full_sync" ? WriteSync::kFullSync : sync == "full_async" ? WriteSync::kFullAsync
                                                                                    : WriteSync::kPrimarySync;
  o.cache_group = props.GetString("ignite.cache_group", "");
  o.key_column = props.GetString("ignite.key_column", d.key_column);
  if (o.key_column.empty()) throw ConfigError("property 'ignite.key_column' is empty");
  const std::int64_t fields = props.GetInt("fieldcount", 10, 1, 1 << 16);
  const std::string prefix = props.GetString("fieldnameprefix", "field");
  for (std::int64_t i = 0; i < fields; ++i) o.field_names.push_back(prefix + std::to_string(i));
  o.partition_awareness = props.GetBool("ignite.partition_awareness", d.partition_awareness);
  o.pipeline = static_cast<int>(props.GetInt("ignite.pipeline", d.pipeline, 1, 1024));
  o.update = props.GetChoice("ignite.update", "auto", {"auto", "put"}) == "put" ? UpdateMode::kPut : UpdateMode::kAuto;
  o.tx_concurrency = props.GetChoice("ignite.tx.concurrency", "pessimistic", {"pessimistic", "optimistic"}) ==
                             "optimistic"
                         ? TxConcurrency::kOptimistic
                         : TxConcurrency::kPessimistic;
  const std::string iso =
      props.GetChoice("ignite.tx.isolation", "repeatable_read", {"read_committed", "repeatable_read", "serializable"});
  o.tx_isolation = iso == "read_committed" ? TxIsolation::kReadCommitted
                   : iso == "serializable" ? TxIsolation::kSerializable
                                           : TxIsolation::kRepeatableRead;
  o.tx_timeout_ms = props.GetInt("ignite.tx.timeout_ms", d.tx_timeout_ms, 0, std::int64_t{1} << 40);
  o.sql_page_size = static_cast<int>(props.GetInt("ignite.sql.page_size", d.sql_page_size, 1, 1 << 20));
  o.table = props.GetString("table", d.table);
  return o;
}

std::vector<PropertySpec> PropertySpecs() {
  const Options d;  // the defaults (a local: bindings may be listed during static initialisation)
  // name, default, help
  return {
      {"ignite.hosts", "127.0.0.1:10800", "the nodes' thin-client endpoints, comma-separated (host:port; port 10800 if omitted)"},
      {"ignite.user", "", "user name for the handshake (needs a password; the nodes must have authentication on)"},
      {"ignite.password", "", "password (default: env STOREBENCH_IGNITE_PASSWORD; never printed)"},
      {"ignite.timeout_ms", std::to_string(d.timeout_ms), "per-operation (and connect) timeout in milliseconds"},
      {"ignite.atomicity", "atomic",
       "a table the binding creates: atomic (Ignite's default) or transactional (needed by transactions: closed economy)"},
      {"ignite.backups", std::to_string(d.backups), "a table the binding creates: backup copies of each partition"},
      {"ignite.write_sync", "primary_sync",
       "a table the binding creates: write synchronization mode full_sync, primary_sync or full_async (Yardstick's -sm)"},
      {"ignite.cache_group", "",
       "a table the binding creates: its cache group (caches of one group share partitions: many small tables "
       "cost one table's memory); empty: a group of its own"},
      {"ignite.key_column", d.key_column, "a table the binding creates: the SQL column of the key (scans order by it)"},
      {"ignite.partition_awareness", "true",
       "send each key to its primary node (the affinity map from CACHE_PARTITIONS); false: any node, which forwards"},
      {"ignite.pipeline", std::to_string(d.pipeline), "clients sharing one connection per node (with the runner's connections=N)"},
      {"ignite.update", "auto",
       "auto: a record's every field given = one REPLACE (NOT_FOUND if absent), else get + merge + replace-if-equals "
       "(atomic); put: one PUT of the given fields (Yardstick's put; creates a missing record)"},
      {"ignite.tx.concurrency", "pessimistic", "transactions: pessimistic or optimistic"},
      {"ignite.tx.isolation", "repeatable_read", "transactions: read_committed, repeatable_read or serializable"},
      {"ignite.tx.timeout_ms", std::to_string(d.tx_timeout_ms), "transactions: timeout in milliseconds (0: none)"},
      {"ignite.sql.page_size", std::to_string(d.sql_page_size), "rows per page of a SQL query (scans, workload=sqlquery)"},
  };
}

}  // namespace storebench::ignite
