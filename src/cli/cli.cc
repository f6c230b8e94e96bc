#include "cli/cli.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cli/args.h"
#include "core/error.h"
#include "core/output_file.h"
#include "db/registry.h"
#include "fs/command.h"
#include "job/job.h"
#include "job/mpi_job.h"
#include "plan/plan.h"
#include "report/compare.h"
#include "report/html_report.h"
#include "report/json_report.h"
#include "report/merge.h"
#include "report/text_report.h"
#include "report/timeseries_csv.h"

namespace storebench {
namespace {

void ListBindings(std::ostream& out) {
  out << "Bindings (storebench load|run|bench NAME ...):\n";
  for (const BindingInfo* b : AllBindings()) {
    out << "\n  " << b->name << " - " << b->summary << "\n";
    if (b->properties.empty()) out << "      (no properties)\n";
    for (const auto& p : b->properties) {
      out << "      " << p.name;
      if (!p.default_value.empty()) out << " (default: " << p.default_value << ")";
      out << "\n          " << p.help << "\n";
    }
  }
}

// storebench merge PART.json... [-o TOTAL.json]: prints the merged YCSB
// summary on stdout and writes the merged JSON result.
int RunMerge(const CommandLine& cl, std::ostream& out, std::ostream& err) {
  if (cl.inputs.empty()) throw ConfigError("merge: no result files given: storebench merge PART.json... -o TOTAL.json");
  if (!cl.binding.empty() || !cl.overrides.empty() || !cl.property_files.empty() || !cl.json_file.empty()) {
    throw ConfigError("merge takes only result files, -o FILE and --timeseries FILE.csv: storebench merge PART.json... -o TOTAL.json");
  }
  std::vector<MergeInput> inputs;
  for (const auto& name : cl.inputs) {
    std::ifstream f(name);
    if (!f) throw ConfigError("merge: cannot read '" + name + "': " + std::strerror(errno));
    try {
      inputs.push_back({name, ReadJson(f)});
    } catch (const ConfigError& e) {
      throw ConfigError("merge: '" + name + "' is not a storebench result (" + e.what() + ")");
    }
  }
  if (!cl.output_file.empty()) CheckOutputPath(cl.output_file, "the JSON result");
  if (!cl.timeseries_file.empty()) CheckOutputPath(cl.timeseries_file, "the time series");
  const RunReport merged = MergeResults(inputs);
  std::string timeseries;
  if (!cl.timeseries_file.empty()) {
    // The parts' status interval (the CSV's row length), as they ran.
    double status_interval_s = 10;
    for (const auto& [k, v] : merged.properties) {
      if (k == "status.interval") status_interval_s = std::strtod(v.c_str(), nullptr);
    }
    std::ostringstream csv;
    WriteTimeseriesHeader(csv);
    for (const PhaseResult& p : merged.phases) WriteTimeseriesOfSeries(p, status_interval_s, csv);
    timeseries = csv.str();
  }
  std::ostringstream text;
  for (std::size_t i = 0; i < merged.phases.size(); ++i) {
    text << "# storebench merge of " << inputs.size() << " part(s): " << merged.phases[i].phase << " phase\n";
    WriteTextSummary(merged.phases[i], text);
  }
  out << text.str() << std::flush;
  if (!cl.output_file.empty()) {
    std::ostringstream js;
    WriteJson(merged, js);
    WriteOutputFile(cl.output_file, js.str(), "the JSON result");
    err << "storebench: merged " << inputs.size() << " part(s) into " << cl.output_file << "\n";
  }
  if (!cl.timeseries_file.empty()) {
    WriteOutputFile(cl.timeseries_file, timeseries, "the time series");
    err << "storebench: wrote the merged time series to " << cl.timeseries_file << "\n";
  }
  std::uint64_t integrity = 0;
  bool validation_failed = false;
  for (const auto& ph : merged.phases) {
    integrity += ph.integrity_failures;
    validation_failed = validation_failed || (ph.validation && !ph.validation->passed);
  }
  return integrity > 0 || validation_failed ? 1 : 0;
}

// --explain: the command line with every flag turned into the -p properties
// it amounts to (property files kept as -P, in place of nothing else), then
// each Aerospike-style flag's expansion.
void Explain(const std::vector<std::string>& args, const CommandLine& cl, std::ostream& out) {
  out << "# storebench";
  for (const auto& a : args) {
    if (a != "--explain") out << " " << a;
  }
  out << "\n# amounts to:\nstorebench " << cl.command;
  if (!cl.binding.empty()) out << " " << cl.binding;
  for (const auto& f : cl.property_files) out << " -P " << f;
  for (const auto& [k, v] : cl.overrides) out << " -p " << k << "=" << v;
  if (!cl.json_file.empty()) out << " --json " << cl.json_file;
  if (!cl.hdr_log_file.empty()) out << " --hdr-log " << cl.hdr_log_file;
  if (!cl.timeseries_file.empty()) out << " --timeseries " << cl.timeseries_file;
  if (!cl.metrics_listen.empty()) out << " --metrics-listen " << cl.metrics_listen;
  for (const auto& e : cl.slo) out << " --slo '" << e << "'";
  out << "\n";
  for (const auto& [flag, props] : cl.expanded_flags) {
    out << "#   " << flag << " ->";
    for (const auto& [k, v] : props) out << " " << k << "=" << v;
    out << "\n";
  }
}

// "rank R of N: " under mpirun, so that a rank's error says which it is.
std::string RankPrefix() {
  if (!MpiJob::Active()) return "";
  return "rank " + std::to_string(MpiJob::Rank()) + " of " + std::to_string(MpiJob::Size()) + ": ";
}

}  // namespace

int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    CommandLine cl = ParseCommandLine(args);
    if (cl.help || (cl.command.empty() && cl.binding.empty())) {
      out << UsageText();
      return cl.help ? 0 : 2;
    }
    if (cl.command == "version") {
      out << "storebench " << STOREBENCH_VERSION << "\n";
      return 0;
    }
    if (cl.command == "list") {
      ListBindings(out);
      return 0;
    }
    if (cl.command == "merge") return RunMerge(cl, out, err);
    if (cl.command == "plan") {
      if (cl.dry_run) return PrintPlan(cl.inputs, out);
      return RunPlanCommand(cl.inputs, cl.resume, out, err);
    }
    if (cl.command == "report") return RunReportCommand(cl.inputs, cl.output_file, err);
    if (cl.command == "compare") {
      if (cl.inputs.empty()) throw ConfigError("compare: no results given: storebench compare RESULTS... [--by threads]");
      out << CompareTable(LoadResults(cl.inputs), {cl.compare_by, cl.compare_metric, cl.compare_format});
      return 0;
    }
    if (cl.command == "fs") return RunFsCommand(cl.inputs, HostInfo(), out, err);
    if (cl.command.empty()) throw ConfigError("no command given: load, run or bench (see storebench --help)");
    if (cl.explain) {
      Explain(args, cl, out);
      return 0;
    }
    return RunJob({.command = cl.command,
                   .binding = cl.binding,
                   .property_files = cl.property_files,
                   .overrides = cl.overrides,
                   .json_file = cl.json_file,
                   .hdr_log_file = cl.hdr_log_file,
                   .timeseries_file = cl.timeseries_file,
                   .metrics_listen = cl.metrics_listen,
                   .slo = cl.slo},
                  out, err);
  } catch (const ConfigError& e) {
    err << "storebench: " << RankPrefix() << e.what() << "\n";
    MpiJob::FailPending();
    return 2;
  } catch (const SetupError& e) {
    err << "storebench: " << RankPrefix() << e.what() << "\n";
    MpiJob::FailPending();
    return 2;
  }
}

}  // namespace storebench
