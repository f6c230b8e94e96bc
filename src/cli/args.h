// Command-line parsing: YCSB's client flags (-P, -p, -threads, -target, -s,
// -db, -load, -t, -l) plus long forms (--props, --set, --threads, --target,
// --status, --db, --load, --transactions, --label, --json), and Aerospike
// benchmark-style flags (-k -o -w -z -d -g: cli/aerospike_flags.h). Options that
// YCSB turns into properties (threadcount, target, status, db, label) are
// kept as property overrides in argument order, as YCSB does.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace storebench {

struct CommandLine {
  std::string command;  // load | run | bench | list | merge | plan | report | compare | help | version
  std::string binding;  // positional or -db
  std::vector<std::string> property_files;                       // -P, in order
  std::vector<std::pair<std::string, std::string>> overrides;    // -p and flag-derived, in order
  std::string json_file;                                         // --json
  std::vector<std::string> inputs;                               // merge: the part files
  std::string output_file;                                       // merge, report: -o, --output
  std::string hdr_log_file;                                      // --hdr-log
  std::string timeseries_file;                                   // --timeseries (also merge)
  std::string metrics_listen;                                    // --metrics-listen HOST:PORT
  std::vector<std::string> slo;                                  // --slo EXPR, repeatable
  // Aerospike-style flags (-k -o -w -z -d -g) as given, each with the
  // properties it expanded to (also in `overrides`, in argument order).
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> expanded_flags;
  bool explain = false;  // --explain: print the properties, do not run
  // plan / report / compare (inputs: the plan file, or the results)
  bool resume = false;                                           // plan --resume
  bool dry_run = false;                                          // plan --dry-run
  std::string compare_by = "threads";                            // compare --by
  std::string compare_metric = "throughput";                     // compare --metric
  std::string compare_format = "text";                           // compare --format
  bool help = false;
};

// Throws ConfigError for an unknown option or a missing value.
CommandLine ParseCommandLine(const std::vector<std::string>& args);

// The text printed by --help.
std::string UsageText();

}  // namespace storebench
