#include "job/options.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.h"
#include "job/part.h"
#include "report/text_report.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

std::vector<double> ParsePercentiles(const Properties& p) {
  const std::string text = p.GetString("hdrhistogram.percentiles", "50,95,99");
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    double v = std::strtod(item.c_str(), &end);
    while (end && *end == ' ') ++end;
    if (item.empty() || end == item.c_str() || *end != '\0' || !(v > 0 && v <= 100)) {
      throw ConfigError("property 'hdrhistogram.percentiles' = '" + text + "' (" +
                        p.OriginOf("hdrhistogram.percentiles") + "): expected a comma-separated list of numbers in (0, 100]");
    }
    out.push_back(v);
  }
  return out;
}

// YCSB properties that storebench accepts but that do not change what it
// does, with the reason printed as a note when one is set.
const std::map<std::string, std::string>& AcceptedNotes() {
  static const std::map<std::string, std::string> kNotes = {
      {"histogram.buckets", "storebench always keeps full log-linear histograms (3 significant digits)"},
      {"hdrhistogram.fileoutput", "use --hdr-log FILE for an HdrHistogram interval log (all op types, tagged)"},
      {"hdrhistogram.output.path", "use --hdr-log FILE for an HdrHistogram interval log (all op types, tagged)"},
      {"measurement.histogram.verbose", "per-bucket text output is not printed; the JSON result holds the buckets"},
      {"measurement.trackjvm", "there is no JVM"},
      {"measurement.raw.output_file", "raw per-operation output is not written; the histograms are exact to 0.1%"},
      {"measurement.raw.graph_output", "raw per-operation output is not written"},
      {"measurement.raw.no_summary", "raw per-operation output is not written"},
      {"reportlatencyforeacherror", "failed operations are reported together as [OP-FAILED] with Return= counts"},
      {"latencytrackederrors", "failed operations are reported together as [OP-FAILED] with Return= counts"},
      {"columnfamily", "no current binding uses it"},
  };
  return kNotes;
}

}  // namespace


std::vector<std::string> IneffectivePropertyNotes(const Properties& props, const ClientOptions& co) {
  std::vector<std::string> notes;
  for (const auto& [key, why] : AcceptedNotes()) {
    if (props.Has(key)) notes.push_back("property '" + key + "' has no effect: " + why);
    props.MarkKnown(key);
  }
  if (co.measurementtype != "hdrhistogram" && co.measurementtype != "histogram" &&
      co.measurementtype.rfind("hdrhistogram", 0) != 0) {
    notes.push_back("measurementtype=" + co.measurementtype +
                    " is reported as hdrhistogram: storebench always keeps full histograms and a per-second series");
  }
  return notes;
}

bool IsSecretProperty(std::string_view key) {
  return key.ends_with("password") || key.ends_with("passwd") || key.ends_with(".secret");
}

ClientOptions ReadClientOptions(const Properties& p) {
  ClientOptions o;
  o.runner.threads = static_cast<int>(p.GetInt("threadcount", 1, 1, 100000));
  o.runner.connections = static_cast<int>(p.GetInt("connections", 1, 1, 100000));
  o.runner.max_errors = static_cast<std::uint64_t>(p.GetInt("errors.max", 0, 0));
  o.runner.target_ops_per_s = p.GetDouble("target", 0, 0);
  o.runner.status = p.GetBool("status", false);
  o.runner.status_interval_s = p.GetDouble("status.interval", 10, 0.001);
  o.runner.max_execution_s = p.GetDouble("maxexecutiontime", 0, 0);
  o.measurementtype = p.GetChoice("measurementtype", "hdrhistogram",
                                  {"hdrhistogram", "histogram", "hdrhistogram+histogram", "hdrhistogram+raw",
                                   "timeseries", "raw"});
  o.runner.measurement_interval = p.GetChoice("measurement.interval", "op", {"op", "intended", "both"});
  o.runner.percentiles = ParsePercentiles(p);
  o.runner.series_interval_s = p.GetDouble("timeseries.granularity", 1000, 1) / 1000.0;
  o.runner.warmup_operations = static_cast<std::uint64_t>(p.GetInt("warmup.operations", 0, 0));
  o.runner.warmup_s = p.GetDouble("warmup.seconds", 0, 0);
  o.slo_abort = p.GetBool("slo.abort", false);
  o.exporter = p.GetString("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter");
  o.exportfile = p.GetString("exportfile", "");
  o.label = p.GetString("label", "");
  return o;
}

ResultFiles ChooseResultFiles(const ClientOptions& co, const Properties& props, const std::string& json_flag,
                              bool is_bench) {
  ResultFiles f;
  f.json = json_flag;
  const bool text_exporter = co.exporter.find("TextMeasurementsExporter") != std::string::npos;
  if (f.json.empty() && !co.exportfile.empty()) {
    if (text_exporter && props.Has("exporter")) {
      f.text = co.exportfile;
    } else {
      f.json = co.exportfile;
    }
  }
  if (f.json.empty() && is_bench) f.json = "storebench-result.json";
  return f;
}

std::string DefaultLabel(const std::string& binding, const std::vector<std::string>& property_files, int threads) {
  const std::string workload =
      property_files.empty() ? "core" : fs::path(property_files.back()).filename().string();
  return binding + "-" + workload + "-" + std::to_string(threads);
}

std::string WorkloadKind(const Properties& props) {
  const std::string w = props.GetString("workload", "core");
  if (w == "core" || w == "site.ycsb.workloads.CoreWorkload" || w == "com.yahoo.ycsb.workloads.CoreWorkload") {
    return "core";
  }
  if (w == "closedeconomy" || w == "site.ycsb.workloads.ClosedEconomyWorkload" ||
      w == "com.yahoo.ycsb.workloads.ClosedEconomyWorkload") {
    return "closedeconomy";
  }
  if (w == "sqlquery") return "sqlquery";
  throw ConfigError("property 'workload' = '" + w + "' (" + props.OriginOf("workload") +
                    "): unknown workload; storebench runs core (site.ycsb.workloads.CoreWorkload), "
                    "closedeconomy (site.ycsb.workloads.ClosedEconomyWorkload) and sqlquery");
}

WorkloadOptions ReadWorkloadOptions(const Properties& props, const std::string& kind) {
  WorkloadOptions w;
  CoreWorkloadOptions& wo = w.core;
  if (kind == "sqlquery") {
    const SqlQueryOptions& sqo = w.sql_query.emplace(SqlQueryOptions::FromProperties(props));
    wo.recordcount = sqo.persons;
    wo.insertstart = sqo.insertstart;
    wo.insertcount = sqo.insertcount;
    wo.operationcount = sqo.operationcount;
    wo.scanproportion = 0;
  } else if (kind == "closedeconomy") {
    // The CoreWorkload figures the phases use: how many to load and run.
    const ClosedEconomyOptions& ceo = w.closed_economy.emplace(ClosedEconomyOptions::FromProperties(props));
    wo.table = ceo.table;
    wo.recordcount = ceo.recordcount;
    wo.insertstart = ceo.insertstart;
    wo.insertcount = ceo.insertcount;
    wo.operationcount = ceo.operationcount;
    wo.scanproportion = 0;
  } else {
    wo = CoreWorkloadOptions::FromProperties(props);
  }
  return w;
}

std::string ApplyPart(Properties& props, const std::string& command, bool own_store) {
  const bool given = props.Has("client.id") || props.Has("client.count");
  const std::int64_t n = props.GetInt("client.count", 1, 1);
  const std::int64_t k = props.GetInt("client.id", 0, 0);
  if (k >= n) {
    throw ConfigError("property 'client.id' = " + std::to_string(k) + " (" + props.OriginOf("client.id") +
                      "): must be less than client.count = " + std::to_string(n) + " (client ids are 0-based)");
  }
  if (!given) return "";
  const std::string origin = "client.id/client.count";
  const std::int64_t recordcount = props.GetInt("recordcount", 0, 0);
  const std::int64_t insertstart = props.GetInt("insertstart", 0, 0);
  const std::int64_t insertcount =
      props.GetInt("insertcount", std::max<std::int64_t>(0, recordcount - insertstart), 0);
  std::ostringstream line;
  line << "storebench: part " << k << " of " << n << " (client.id=" << k << ", client.count=" << n << "):";
  const bool load = command == "load" || command == "bench" || own_store;
  const bool run = command == "run" || command == "bench";
  if (load) {
    const Slice s = SplitRange(insertstart, insertcount, k, n);
    props.Set("insertstart", std::to_string(s.start), origin);
    props.Set("insertcount", std::to_string(s.count), origin);
    line << " insertstart=" << s.start << " insertcount=" << s.count;
  }
  if (run) {
    const std::int64_t operationcount = props.GetInt("operationcount", 0, 0);
    const double target = props.GetDouble("target", 0, 0);
    const double insertproportion = props.GetDouble("insertproportion", 0, 0, 1);
    if (operationcount == 0 && insertproportion > 0 && n > 1) {
      throw ConfigError("client.count = " + std::to_string(n) +
                        " with inserts in the run phase (insertproportion > 0) needs operationcount > 0: "
                        "each process's inserts get their own key range, sized by its share of operationcount");
    }
    const Slice ops = SplitRange(0, operationcount, k, n);
    props.Set("operationcount", std::to_string(ops.count), origin);
    line << " operationcount=" << ops.count;
    if (target > 0) {
      props.Set("target", FormatDouble(target / static_cast<double>(n)), origin);
      line << " target=" << FormatDouble(target / static_cast<double>(n));
    }
    if (!props.Has("client.runinsertstart")) {
      props.Set("client.runinsertstart", std::to_string(recordcount + ops.start), origin);
    }
    line << " client.runinsertstart=" << props.GetString("client.runinsertstart", "");
  }
  return line.str();
}

void CheckBindingProperties(Properties& props, const BindingInfo& binding) {
  std::vector<std::string> binding_props;
  for (const auto& p : binding.properties) binding_props.push_back(p.name);
  for (const auto& [key, entry] : props.entries()) {
    for (const BindingInfo* other : AllBindings()) {
      if (other != &binding && key.rfind(other->name + ".", 0) == 0) {
        throw ConfigError("property '" + key + "' (" + entry.origin + ") belongs to binding '" + other->name +
                          "', not '" + binding.name + "'");
      }
    }
  }
  props.CheckUnknown(binding_props);
}

}  // namespace storebench
