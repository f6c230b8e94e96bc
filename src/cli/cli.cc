#include "cli/cli.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/args.h"
#include "cli/job_status.h"
#include "cli/mpi_job.h"
#include "cli/part.h"
#include "core/error.h"
#include "core/output_file.h"
#include "core/properties.h"
#include "db/registry.h"
#include "fs/command.h"
#include "measure/result.h"
#include "report/hdr_log.h"
#include "report/json_report.h"
#include "report/merge.h"
#include "report/compare.h"
#include "report/html_report.h"
#include "plan/plan.h"
#include "report/text_report.h"
#include "measure/clock.h"
#include "runner/runner.h"
#include "workload/closed_economy.h"
#include "workload/core_workload.h"
#include "workload/sql_query.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

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

// Passwords never reach the JSON result (nor anything else we print).
bool IsSecretProperty(std::string_view key) {
  return key.ends_with("password") || key.ends_with("passwd") || key.ends_with(".secret");
}

struct ClientOptions {
  int threads = 1;
  int connections = 1;
  std::uint64_t max_errors = 0;
  double target = 0;
  bool status = false;
  double status_interval_s = 10;
  double max_execution_s = 0;
  std::string measurementtype = "hdrhistogram";
  std::string measurement_interval = "op";
  std::vector<double> percentiles;
  double series_interval_s = 1;
  std::uint64_t warmup_operations = 0;
  double warmup_s = 0;
  std::string exporter;
  std::string exportfile;
  std::string label;
};

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

ClientOptions ReadClientOptions(const Properties& p) {
  ClientOptions o;
  o.threads = static_cast<int>(p.GetInt("threadcount", 1, 1, 100000));
  o.connections = static_cast<int>(p.GetInt("connections", 1, 1, 100000));
  o.max_errors = static_cast<std::uint64_t>(p.GetInt("errors.max", 0, 0));
  o.target = p.GetDouble("target", 0, 0);
  o.status = p.GetBool("status", false);
  o.status_interval_s = p.GetDouble("status.interval", 10, 0.001);
  o.max_execution_s = p.GetDouble("maxexecutiontime", 0, 0);
  o.measurementtype = p.GetChoice("measurementtype", "hdrhistogram",
                                  {"hdrhistogram", "histogram", "hdrhistogram+histogram", "hdrhistogram+raw",
                                   "timeseries", "raw"});
  o.measurement_interval = p.GetChoice("measurement.interval", "op", {"op", "intended", "both"});
  o.percentiles = ParsePercentiles(p);
  o.series_interval_s = p.GetDouble("timeseries.granularity", 1000, 1) / 1000.0;
  o.warmup_operations = static_cast<std::uint64_t>(p.GetInt("warmup.operations", 0, 0));
  o.warmup_s = p.GetDouble("warmup.seconds", 0, 0);
  o.exporter = p.GetString("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter");
  o.exportfile = p.GetString("exportfile", "");
  o.label = p.GetString("label", "");
  return o;
}

// A run's default label: BINDING-WORKLOAD-THREADS, WORKLOAD being the name
// of the last -P file ("core" without one), e.g. "rocksdb-workloada-4".
std::string DefaultLabel(const std::string& binding, const std::vector<std::string>& property_files, int threads) {
  const std::string workload =
      property_files.empty() ? "core" : fs::path(property_files.back()).filename().string();
  return binding + "-" + workload + "-" + std::to_string(threads);
}

std::vector<std::pair<std::string, std::string>> HostInfo() {
  std::vector<std::pair<std::string, std::string>> h;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) h.emplace_back("hostname", name);
  h.emplace_back("cpus", std::to_string(std::thread::hardware_concurrency()));
  utsname u{};
  if (uname(&u) == 0) {
    h.emplace_back("os", u.sysname);
    h.emplace_back("kernel", u.release);
    h.emplace_back("machine", u.machine);
  }
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) h.emplace_back("memory_bytes", std::to_string(static_cast<unsigned long long>(pages) * page));
  return h;
}

extern "C" void OnStopSignal(int sig) {
  if (StopSignal() != 0) {
    // A second signal ends the process at once, leaving no temporary file.
    RemoveUncommittedOutputs();
    std::signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  RequestStop(sig);
}

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

class TempDir {
 public:
  ~TempDir() {
    if (!path_.empty()) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  const std::string& Make(const std::string& binding) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/storebench-" + binding + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) throw SetupError("cannot create a temporary directory '" + tmpl + "': " + std::strerror(errno));
    path_ = buf.data();
    return path_;
  }

 private:
  std::string path_;
};

// client.id=K / client.count=N (--part K/N): rewrites this process's share
// of the work into the properties, so that they (and the JSON result) show
// what it did. Load: slice K of [insertstart, insertstart+insertcount).
// Run: slice K of operationcount, target/N, and run-phase inserts from key
// number recordcount + (start of the operationcount slice), so that the
// N processes insert into disjoint ranges that together cover the same key
// numbers as one process would; reads cover the whole insertstart/insertcount
// range (every process sees all records). bench: both, and its run reads
// only the part's own slice, with its run-phase inserts following that
// slice (bench has no barrier between its phases and usually a store of its
// own). Returns the stderr line ("" for one process).
// own_store (MPI ranks with a store directory of their own): the run phase
// too reads only slice K, as bench does.
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

// Discards what is written to it: the informational stderr of MPI ranks
// other than 0.
class NullStream : public std::ostream {
 public:
  NullStream() : std::ostream(nullptr) {}
};

// Under mpirun, when another rank failed (it printed its error): every rank
// exits 2 at the same agreement point.
int OtherRankFailed(std::ostream& info) {
  info << "storebench: stopped: another MPI rank failed (its error is above)\n";
  return 2;
}

// The workload kind named by `workload`: core (YCSB's CoreWorkload, also by
// its class names), closedeconomy (YCSB+T's ClosedEconomyWorkload) or
// sqlquery (Yardstick's SQL query benchmarks).
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

int RunPhases(const CommandLine& cl, std::ostream& out, std::ostream& real_err) {
  // From here on a stop request is a request: one during setup ends the
  // phases before their first operation, and the (empty) result is still
  // written. A parent that blocked the signals until now (storebench plan)
  // has its pending SIGINT delivered here, to this handler.
  std::signal(SIGINT, OnStopSignal);
  std::signal(SIGTERM, OnStopSignal);
  const sigset_t stop_signals = StopSignalSet();
  pthread_sigmask(SIG_UNBLOCK, &stop_signals, nullptr);
  const bool mpi = MpiJob::Active();
  const int rank = MpiJob::Rank(), ranks = MpiJob::Size();
  NullStream null_stream;
  // Ranks other than 0 print only errors (thrown, printed by RunCli).
  std::ostream& err = mpi && rank != 0 ? static_cast<std::ostream&>(null_stream) : real_err;
  Properties props;
  for (const auto& f : cl.property_files) props.LoadFile(f);
  for (const auto& [k, v] : cl.overrides) props.Set(k, v, "-p " + k);
  std::string binding_name = cl.binding;
  if (binding_name.empty()) binding_name = props.GetString("db", "");
  if (binding_name.empty()) {
    std::string names;
    for (const BindingInfo* b : AllBindings()) names += (names.empty() ? "" : ", ") + b->name;
    throw ConfigError("no binding given: storebench " + cl.command + " BINDING ... (bindings: " + names + ")");
  }
  const BindingInfo& binding = FindBinding(binding_name);
  props.MarkKnown("db");              // read above
  props.MarkKnown("dotransactions");  // YCSB's -load/-t; the command decides here
  const std::string dir_key = binding.name + ".dir";
  // Under mpirun, rank R of N is part R/N, with a store directory of its own
  // unless NAME.dir is given.
  const bool rank_store = mpi && binding.uses_dir && !props.Has(dir_key) && cl.command != "bench";
  // mpi.rank_results=true: rank 0 also writes each rank's own result next
  // to the job's (FILE.rank-R.json), e.g. to check or re-merge them.
  const bool rank_results = props.GetBool("mpi.rank_results", false);
  if (mpi) {
    if (props.Has("client.id") || props.Has("client.count")) {
      throw ConfigError("--part / client.id / client.count cannot be used under mpirun: rank R of N is part R/N");
    }
    props.Set("client.id", std::to_string(rank), "mpirun rank");
    props.Set("client.count", std::to_string(ranks), "mpirun size");
  }
  const std::string workload_kind = WorkloadKind(props);
  if (workload_kind != "core" && (cl.command != "load" || workload_kind == "sqlquery") &&
      (props.Has("client.id") || props.Has("client.count"))) {
    throw ConfigError("workload=" + workload_kind + " checks the whole store at the end of a run, so its " +
                      cl.command + " runs in one process (no --part, client.id/client.count or mpirun; closedeconomy's "
                    "load may be split)");
  }
  const std::string part_line = ApplyPart(props, cl.command, rank_store);

  const ClientOptions co = ReadClientOptions(props);
  CoreWorkloadOptions wo;
  std::optional<ClosedEconomyOptions> ceo;
  std::optional<SqlQueryOptions> sqo;
  if (workload_kind == "sqlquery") {
    sqo = SqlQueryOptions::FromProperties(props);
    wo.recordcount = sqo->persons;
    wo.insertstart = sqo->insertstart;
    wo.insertcount = sqo->insertcount;
    wo.operationcount = sqo->operationcount;
    wo.scanproportion = 0;
  } else if (workload_kind == "closedeconomy") {
    // The CoreWorkload figures the phases below use: how many to load and run.
    ceo = ClosedEconomyOptions::FromProperties(props);
    wo.table = ceo->table;
    wo.recordcount = ceo->recordcount;
    wo.insertstart = ceo->insertstart;
    wo.insertcount = ceo->insertcount;
    wo.operationcount = ceo->operationcount;
    wo.scanproportion = 0;
  } else {
    wo = CoreWorkloadOptions::FromProperties(props);
  }
  if (!part_line.empty() && (cl.command == "bench" || rank_store)) wo.run_insert_base = wo.insertstart + wo.insertcount;

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
  // A property of another binding is a mistake, not a silent no-op.
  std::vector<std::string> binding_props;
  for (const auto& p : binding.properties) binding_props.push_back(p.name);
  for (const auto& [key, entry] : props.entries()) {
    for (const BindingInfo* other : AllBindings()) {
      if (other == &binding) continue;
      if (key.rfind(other->name + ".", 0) == 0) {
        throw ConfigError("property '" + key + "' (" + entry.origin + ") belongs to binding '" + other->name +
                          "', not '" + binding.name + "'");
      }
    }
  }
  props.CheckUnknown(binding_props);

  const bool is_bench = cl.command == "bench";
  TempDir temp_dir;
  if (binding.uses_dir && !props.Has(dir_key)) {
    props.Set(dir_key,
              is_bench  ? temp_dir.Make(binding.name)
              : mpi     ? "storebench-data/" + binding.name + "/rank-" + std::to_string(rank)
                        : "storebench-data/" + binding.name,
              "default");
  }
  std::string json_path = cl.json_file;
  std::string text_path;
  const bool text_exporter = co.exporter.find("TextMeasurementsExporter") != std::string::npos;
  if (json_path.empty() && !co.exportfile.empty()) {
    if (text_exporter && props.Has("exporter")) {
      text_path = co.exportfile;
    } else {
      json_path = co.exportfile;
    }
  }
  if (json_path.empty() && is_bench) json_path = "storebench-result.json";
  if (mpi && rank != 0) json_path.clear(), text_path.clear();  // rank 0 writes the job's
  // Fail before running when a result cannot be written.
  if (!json_path.empty() && CheckOutputPath(json_path, "the JSON result") != OutputKind::kAtomic && rank_results) {
    throw ConfigError("mpi.rank_results=true writes files beside the JSON result, so --json must name a file, not '" +
                      json_path + "'");
  }
  if (!text_path.empty()) CheckOutputPath(text_path, "the text result");
  // The log itself is written from the first phase on.
  if (!cl.hdr_log_file.empty()) CheckOutputPath(cl.hdr_log_file, "the HdrHistogram log");

  OpenContext ctx;
  ctx.loading = cl.command == "load" || is_bench;
  ctx.thread_count = co.threads;
  std::unique_ptr<Store> store = binding.open(props, ctx);
  const Capabilities caps = store->capabilities();
  if (!caps.scan && wo.scanproportion > 0 && cl.command != "load") {
    throw ConfigError("binding '" + binding.name + "' cannot scan" +
                      (caps.why_no_scan.empty() ? std::string() : " (" + caps.why_no_scan + ")") +
                      ", but scanproportion = " + FormatDouble(wo.scanproportion) +
                      "; set scanproportion=0 or use a store that scans");
  }
  if ((wo.batch_size > 1 || wo.batchinsertproportion > 0) && !caps.native_batch_insert) {
    notes.push_back("binding '" + binding.name + "' has no native batch insert: BATCH-INSERT inserts the records one by one");
  }
  if (workload_kind == "closedeconomy") {
    if (ceo->unsafe_no_transactions) {
      notes.push_back("closedeconomy.unsafe_no_transactions=true: transfers are plain reads and writes, without"
                      " transactions; the run reports how far the total drifts");
    } else if (!caps.transactions) {
      throw ConfigError("binding '" + binding.name + "' has no transactions" +
                        (caps.why_no_transactions.empty() ? std::string() : " (" + caps.why_no_transactions + ")") +
                        ", which workload=closedeconomy needs (closedeconomy.unsafe_no_transactions=true runs it"
                        " without them and reports how far the total drifts)");
    }
    if (caps.pipeline > 1 || co.connections > 1) {
      throw ConfigError("workload=closedeconomy runs one transaction per connection at a time: set connections=1"
                        " and the binding's pipeline depth to 1");
    }
  }
  if (workload_kind == "sqlquery" && !caps.sql) {
    throw ConfigError("binding '" + binding.name + "' does not run SQL, which workload=sqlquery needs (sqlite, "
                      "postgresql and mariadb do)");
  }
  for (const auto& n : notes) err << "storebench: note: " << n << "\n";
  if (!part_line.empty()) err << part_line << "\n";

  // --hdr-log: written as the phases run; under MPI by rank 0 alone, once
  // the ranks' series (with their histograms) are merged.
  // A regular file appears, whole, when the run ends; a FIFO or /dev/stdout gets each interval as it ends.
  std::optional<OutputFile> hdr_file;
  std::optional<HdrLogWriter> hdr_log;
  if (!cl.hdr_log_file.empty() && rank == 0) {
    hdr_file.emplace(cl.hdr_log_file, "the HdrHistogram log");
    hdr_log.emplace(hdr_file->stream(), std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  }

  std::unique_ptr<Workload> workload;
  if (ceo) {
    workload = std::make_unique<ClosedEconomyWorkload>(*ceo);
  } else if (sqo) {
    workload = std::make_unique<SqlQueryWorkload>(*sqo);
  } else {
    workload = std::make_unique<CoreWorkload>(wo);
  }
  SteadyClock clock;
  RunnerOptions ro;
  ro.threads = co.threads;
  ro.connections = co.connections;
  ro.max_errors = co.max_errors;
  ro.target_ops_per_s = co.target;
  ro.max_execution_s = co.max_execution_s;
  ro.warmup_operations = co.warmup_operations;
  ro.warmup_s = co.warmup_s;
  ro.status = co.status;
  ro.status_interval_s = co.status_interval_s;
  ro.measurement_interval = co.measurement_interval;
  ro.percentiles = co.percentiles;
  ro.series_interval_s = co.series_interval_s;
  // A result that will be merged keeps each series point's histograms, so
  // the merged series (and an MPI job's HdrHistogram log) is exact.
  ro.series_histograms = mpi || !part_line.empty();
  ro.binding = binding.name;
  ro.progress = !mpi && isatty(STDERR_FILENO) != 0;
  // Under MPI every rank takes part in each status line; rank 0 prints the job's.
  static JobStatusLines job_lines;
  if (mpi) ro.status_combiner = &job_lines;

  RunReport report;
  report.tool_version = STOREBENCH_VERSION;
  report.command = cl.command;
  report.binding = binding.name;
  report.label = co.label.empty() ? DefaultLabel(binding.name, cl.property_files, co.threads) : co.label;
  report.host = HostInfo();

  auto run_phase = [&](bool loading, bool print) {
    RunnerOptions o = ro;
    o.loading = loading;
    o.operation_count = static_cast<std::uint64_t>(loading ? wo.insertcount : wo.operationcount);
    if (loading) {
      o.warmup_operations = 0;
      o.warmup_s = 0;
      o.target_ops_per_s = print ? o.target_ops_per_s : 0;
    }
    if (!print) {
      o.status = false;
    }
    if (hdr_log && print && !mpi) {
      // bench logs two phases in one file: its load phase's tags say so.
      const std::string prefix = is_bench && loading ? "LOAD-" : "";
      o.on_interval = [&hdr_log, prefix](double start_s, double end_s,
                                         const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& hs) {
        for (int i = 0; i < kNumOpTypes; ++i) {
          if (hs[i]) hdr_log->WriteInterval(prefix + std::string(OpName(static_cast<OpType>(i))), start_s, end_s - start_s, *hs[i]);
        }
      };
    }
    Runner runner(*store, *workload, o, clock, &err);
    PhaseResult r = runner.Run();
    r.disk_bytes = store->DiskUsageBytes();
    r.store_stats = store->Stats();
    r.notes = notes;
    if (hdr_log) hdr_file->Flush();
    return r;
  };

  // The workload's own setup (sqlquery: its tables, dropped and created for a load).
  workload->Prepare(*store, cl.command == "load" || is_bench || (cl.command == "run" && !caps.persistent));

  // Every rank is set up: from here on they agree before each phase.
  if (!MpiJob::Agree(true)) return OtherRankFailed(err);
  if (cl.command == "run" && !caps.persistent && caps.stores_data && wo.insertcount > 0) {
    err << "storebench: " << binding.name << " keeps its data in this process: loading " << wo.insertcount
        << " records first (not measured)\n";
    // Interrupted, it leaves the run phase below to start stopped: an empty, interrupted result.
    run_phase(true, false);
  }
  if (cl.command == "load" || is_bench) {
    MpiJob::Barrier();
    err << "storebench: loading " << wo.insertcount << " records into " << binding.name << " with " << co.threads
        << " thread(s)\n";
    report.phases.push_back(run_phase(true, true));
  }
  bool skip_run = is_bench && report.phases.back().interrupted;
  if (is_bench && mpi) {
    if (!MpiJob::Agree(true)) return OtherRankFailed(err);
    skip_run = !MpiJob::AllTrue(!skip_run);
  }
  if ((cl.command == "run" || is_bench) && !skip_run) {
    MpiJob::Barrier();
    err << "storebench: running " << (wo.operationcount > 0 ? std::to_string(wo.operationcount) : "unlimited")
        << " operations on " << binding.name << " with " << co.threads << " thread(s)"
        << (co.target > 0 ? ", target " + std::to_string(static_cast<long long>(co.target)) + " ops/s" : "") << "\n";
    report.phases.push_back(run_phase(false, true));
    // Workloads that check themselves do it now (closed economy: the sum).
    if (std::optional<ValidationResult> v = workload->Validate(*store)) report.phases.back().validation = std::move(*v);
  }
  for (const auto& [k, v] : props.Effective()) report.properties.emplace_back(k, IsSecretProperty(k) ? "<redacted>" : v);

  if (mpi) {
    // Rank 0 reports the whole job: every rank's result, merged exactly.
    if (!MpiJob::Agree(true)) return OtherRankFailed(err);
    std::ostringstream mine;
    WriteJson(report, mine);
    const std::vector<std::string> all = MpiJob::GatherToRoot(mine.str());
    if (rank != 0) {
      store->Close();
      std::uint64_t integrity = 0;
      for (const auto& ph : report.phases) {
        if (ph.interrupted) return 128 + StopSignal();
        integrity += ph.integrity_failures;
      }
      return integrity > 0 ? 1 : 0;
    }
    std::vector<MergeInput> inputs;
    for (std::size_t r = 0; r < all.size(); ++r) {
      std::istringstream in(all[r]);
      inputs.push_back({"rank " + std::to_string(r), ReadJson(in)});
      if (rank_results && !json_path.empty()) {
        WriteOutputFile(json_path + ".rank-" + std::to_string(r) + ".json", all[r], "a rank's JSON result");
      }
    }
    const std::string label = report.label;
    report = MergeResults(inputs);
    report.label = label;  // the job's, as every rank's
    err << "storebench: merged the results of " << ranks << " MPI rank(s)\n";
    if (hdr_log) {
      // The job's log, from the merged series: one line per interval and
      // operation, every rank's samples in it.
      for (const PhaseResult& ph : report.phases) {
        const std::string prefix = is_bench && ph.phase == "load" ? "LOAD-" : "";
        for (const IntervalPoint& pt : ph.series) {
          const double end_s = static_cast<double>(ph.start_unix_ms) / 1000.0 + pt.t_s;
          for (const IntervalPoint::Op& op : pt.ops) {
            if (op.buckets.empty()) continue;
            const Histogram h = Histogram::FromBuckets(op.buckets, op.min_ns, op.max_ns, op.sum_ns);
            hdr_log->WriteInterval(prefix + op.name, end_s - co.series_interval_s, co.series_interval_s, h);
          }
        }
      }
    }
  }

  std::ostringstream text;
  for (std::size_t i = 0; i < report.phases.size(); ++i) {
    if (report.phases.size() > 1) text << "# storebench " << cl.command << ": " << report.phases[i].phase << " phase\n";
    WriteTextSummary(report.phases[i], text);
  }
  out << text.str() << std::flush;
  if (!text_path.empty()) WriteOutputFile(text_path, text.str(), "the text result");
  if (!json_path.empty()) {
    std::ostringstream js;
    WriteJson(report, js);
    WriteOutputFile(json_path, js.str(), "the JSON result");
    err << "storebench: wrote the JSON result to " << json_path << "\n";
  }
  if (hdr_log) {
    hdr_file->Commit();
    err << "storebench: wrote the HdrHistogram log to " << cl.hdr_log_file << "\n";
  }
  store->Close();

  std::uint64_t integrity = 0;
  bool interrupted = false;
  for (const auto& ph : report.phases) {
    integrity += ph.integrity_failures;
    interrupted = interrupted || ph.interrupted;
  }
  if (interrupted) {
    err << "storebench: interrupted by signal " << StopSignal() << "; the results above are partial\n";
    return 128 + (StopSignal() != 0 ? StopSignal() : SIGINT);
  }
  if (integrity > 0) {
    err << "storebench: data integrity check failed for " << integrity << " read(s)\n";
    return 1;
  }
  bool validation_failed = false;
  for (const auto& ph : report.phases) {
    if (!ph.validation) continue;
    err << "storebench: " << ph.validation->summary << "\n";
    validation_failed = validation_failed || !ph.validation->passed;
  }
  if (validation_failed) return 1;
  for (const auto& ph : report.phases) {
    if (ph.errors_exceeded) {
      err << "storebench: stopped the " << ph.phase << " phase after more than errors.max=" << co.max_errors
          << " failed operations; the results above are partial\n";
      return 1;
    }
  }
  return 0;
}

// storebench merge PART.json... [-o TOTAL.json]: prints the merged YCSB
// summary on stdout and writes the merged JSON result.
int RunMerge(const CommandLine& cl, std::ostream& out, std::ostream& err) {
  if (cl.inputs.empty()) throw ConfigError("merge: no result files given: storebench merge PART.json... -o TOTAL.json");
  if (!cl.binding.empty() || !cl.overrides.empty() || !cl.property_files.empty() || !cl.json_file.empty()) {
    throw ConfigError("merge takes only result files and -o FILE: storebench merge PART.json... -o TOTAL.json");
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
  const RunReport merged = MergeResults(inputs);
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

void CheckRunProperties(Properties& props, const std::string& command) {
  const BindingInfo& binding = FindBinding(props.GetString("db", ""));
  props.MarkKnown("dotransactions");
  ApplyPart(props, command, false);
  ReadClientOptions(props);
  props.GetBool("mpi.rank_results", false);
  CoreWorkloadOptions::FromProperties(props);
  for (const auto& [key, why] : AcceptedNotes()) props.MarkKnown(key);
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
    return RunPhases(cl, out, err);
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
