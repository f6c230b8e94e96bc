#include "cli/args.h"

#include "core/error.h"
#include "core/properties.h"
#include "cli/aerospike_flags.h"
#include "job/part.h"

namespace storebench {

std::string UsageText() {
  return R"(storebench: YCSB-compatible benchmarks for data stores.

Usage:
  storebench load  BINDING [options]   load recordcount records (YCSB's `load`)
  storebench run   BINDING [options]   run operationcount operations (YCSB's `run`)
  storebench bench BINDING [options]   load, then run, in one process; writes a JSON result
  storebench list                      bindings with their properties and defaults
  storebench merge PART.json... -o TOTAL.json
                                       merge the JSON results of client processes (--part) exactly
  storebench fs DIR [options]          bonnie++/dd-class file-system suite (storebench fs --help)
  storebench plan FILE.toml [--resume | --dry-run]
                                       run a study: every run of the plan, one JSON each + index.json
                                       (--dry-run: check the plan and print the commands it would run)
  storebench report RESULTS... -o report.html
                                       one self-contained HTML report (tables, SVG charts) of JSON
                                       results, plan result directories and/or time series CSVs
  storebench compare RESULTS... [--by threads|target|PROPERTY] [--metric throughput|p99|avg]
                    [--format text|markdown|csv]   a table: rows = run labels, columns = the axis
  storebench --help | --version

Options (YCSB's spelling, or the long form):
  -P, --props FILE         read a workload/property file; repeatable, read in order
  -p, --set KEY=VALUE      set a property; overrides files; repeatable
  -db, --db NAME           the binding (instead of the positional BINDING)
  -threads, --threads N    client threads (property threadcount, default 1)
  -target, --target OPS    target throughput in ops/s for the whole process (0 = unthrottled);
                           latency is then measured from each operation's intended start
  -s, --status             status line on stderr every status.interval seconds (default 10)
  -l, --label LABEL        a label for this run in the JSON result
  --json FILE              write the JSON result to FILE (same as -p exportfile=FILE)
  --part K/N               be client process K (0-based) of N: this process's share of the load
                           and of operationcount and target (-p client.id=K -p client.count=N)
  --hdr-log FILE           write an HdrHistogram interval log (ns values, one line per op type per
                           second, tagged READ, UPDATE, ...; LOAD-INSERT for bench's load phase)
  --timeseries FILE.csv    write a CSV time series: one row per status interval and op type (ops,
                           ops/s, p50/p99/p99.9/max in us, errors); also `merge --timeseries`
  --metrics-listen [HOST:]PORT
                           serve live metrics for Prometheus at http://HOST:PORT/metrics while the
                           job runs (HOST defaults to 127.0.0.1; port 0 picks one and prints it)
  --slo EXPR               a gate on the phase's result, repeatable: p99<=5ms, READ.p99.9<20ms,
                           throughput>=40000, errors<=0.1%; prints [SLO] lines, exit 3 when one fails
                           (-p slo.abort=true: stop as soon as a status interval fails one)
  -load, --load            the load phase (YCSB Client style: storebench -load -db NAME ...)
  -t, --transactions       the run phase (YCSB Client style)

Aerospike benchmark-style flags (each is shorthand for the properties shown; a later -p wins):
  -k KEYS                  recordcount=KEYS
  -o SPEC                  record bins: S:N string of N bytes, B:N N bytes, I 8-byte integer;
                           "S:100,S:100" = 2 bins (fieldcount=2 fieldlength=100)
  -w I | -w RU[,P]         insert only | read/update with P% reads (default 50)
  -z THREADS               threadcount
  -d SECONDS               run for SECONDS (maxexecutiontime, operationcount=0)
  -g OPS                   target ops/s
  --explain                print the properties the command line amounts to, and stop

Examples:
  storebench load rocksdb -P workloads/workloada -p recordcount=100000 -threads 2 -s
  storebench run  rocksdb -P workloads/workloada -p operationcount=1000000 -threads 2 -target 20000 -s
  storebench bench rocksdb -P workloads/workloada --json result.json
  storebench run   rocksdb -k 1000000 -o S:2048 -w RU,80 -z 8 -d 60 --explain

Exit codes: 0 done; 1 data-integrity check failed; 2 bad input or a store that cannot be opened;
3 an --slo gate failed;
130/143 interrupted by SIGINT/SIGTERM (partial results are still printed and written).
)";
}

CommandLine ParseCommandLine(const std::vector<std::string>& args) {
  CommandLine cl;
  if (!args.empty() && args[0] == "fs") {  // its own options: fs/command.h
    cl.command = "fs";
    cl.inputs.assign(args.begin() + 1, args.end());
    return cl;
  }
  auto need_value = [&](std::size_t& i, const std::string& opt) -> const std::string& {
    if (i + 1 >= args.size()) throw ConfigError("option " + opt + " needs a value; see storebench --help");
    return args[++i];
  };
  const std::vector<std::string> commands = {"load", "run", "bench", "list", "merge", "plan", "report", "compare", "help", "version"};
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help" || a == "-help") {
      cl.help = true;
    } else if (a == "--version" || a == "-version") {
      cl.command = "version";
    } else if (a == "-P" || a == "--props" || a == "--property-file") {
      cl.property_files.push_back(need_value(i, a));
    } else if (a == "-p" || a == "--set") {
      const std::string& kv = need_value(i, a);
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw ConfigError(a + " '" + kv + "': expected key=value");
      cl.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a.rfind("--set=", 0) == 0) {
      std::string kv = a.substr(6);
      auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) throw ConfigError("--set '" + kv + "': expected key=value");
      cl.overrides.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a == "-db" || a == "--db") {
      cl.binding = need_value(i, a);
    } else if (a == "-threads" || a == "--threads") {
      cl.overrides.emplace_back("threadcount", need_value(i, a));
    } else if (a == "-target" || a == "--target") {
      cl.overrides.emplace_back("target", need_value(i, a));
    } else if (a == "-s" || a == "--status") {
      cl.overrides.emplace_back("status", "true");
    } else if (a == "-l" || a == "--label") {
      cl.overrides.emplace_back("label", need_value(i, a));
    } else if (a == "--json") {
      cl.json_file = need_value(i, a);
    } else if (a == "--part") {
      const PartSpec part = ParsePart(need_value(i, a), a);
      cl.overrides.emplace_back("client.id", std::to_string(part.id));
      cl.overrides.emplace_back("client.count", std::to_string(part.count));
    } else if ((a == "-o" || a == "--output") && (cl.command == "merge" || cl.command == "report")) {
      cl.output_file = need_value(i, a);
    } else if (a == "--resume" && cl.command == "plan") {
      cl.resume = true;
    } else if (a == "--dry-run" && cl.command == "plan") {
      cl.dry_run = true;
    } else if (a == "--by" && cl.command == "compare") {
      cl.compare_by = need_value(i, a);
    } else if (a == "--metric" && cl.command == "compare") {
      cl.compare_metric = need_value(i, a);
    } else if (a == "--format" && cl.command == "compare") {
      cl.compare_format = need_value(i, a);
    } else if (a == "--hdr-log") {
      cl.hdr_log_file = need_value(i, a);
    } else if (a == "--timeseries") {
      cl.timeseries_file = need_value(i, a);
    } else if (a == "--metrics-listen") {
      cl.metrics_listen = need_value(i, a);
    } else if (a == "--slo") {
      cl.slo.push_back(need_value(i, a));
    } else if (IsAerospikeFlag(a) && (cl.command.empty() || cl.command == "load" || cl.command == "run" ||
                                      cl.command == "bench")) {
      const std::string& value = need_value(i, a);
      auto props = ExpandAerospikeFlag(a, value);
      cl.overrides.insert(cl.overrides.end(), props.begin(), props.end());
      cl.expanded_flags.emplace_back(a + " " + value, std::move(props));
    } else if (a == "--explain") {
      cl.explain = true;
    } else if (a == "-load" || a == "--load") {
      cl.command = cl.command.empty() ? "load" : cl.command;
      if (cl.command != "load") throw ConfigError("-load conflicts with the command '" + cl.command + "'");
    } else if (a == "-t" || a == "--transactions") {
      cl.command = cl.command.empty() ? "run" : cl.command;
      if (cl.command != "run") throw ConfigError("-t conflicts with the command '" + cl.command + "'");
    } else if (!a.empty() && a[0] == '-') {
      const std::vector<std::string> opts = {"-P", "-p", "-db", "-threads", "-target", "-s", "-l", "-load", "-t",
                                             "--props", "--set", "--db", "--threads", "--target", "--status",
                                             "--label", "--json", "--part", "--hdr-log", "--timeseries", "--metrics-listen", "--slo", "--load", "--transactions", "--help",
                                             "--resume", "--dry-run", "--by", "--metric", "--format", "--output",
                                             "-k", "-o", "-w", "-z", "-d", "-g", "--explain"};
      std::string hint = ClosestMatch(a, opts);
      throw ConfigError("unknown option '" + a + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                        "; see storebench --help");
    } else if (cl.command.empty()) {
      bool known = false;
      for (const auto& c : commands) known = known || c == a;
      if (!known) {
        std::string hint = ClosestMatch(a, commands);
        throw ConfigError("unknown command '" + a + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                          "; commands: load, run, bench, list, merge, plan, report, compare");
      }
      cl.command = a;
    } else if (cl.command == "merge" || cl.command == "plan" || cl.command == "report" || cl.command == "compare") {
      cl.inputs.push_back(a);
    } else if (cl.binding.empty()) {
      cl.binding = a;
    } else {
      throw ConfigError("unexpected argument '" + a + "' (binding '" + cl.binding + "' already given)");
    }
  }
  if (cl.command == "help") cl.help = true;
  return cl;
}

}  // namespace storebench
