#include "job/job.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/output_file.h"
#include "core/properties.h"
#include "db/registry.h"
#include "job/job_status.h"
#include "job/live_outputs.h"
#include "job/mpi_job.h"
#include "job/options.h"
#include "measure/clock.h"
#include "measure/result.h"
#include "report/hdr_log.h"
#include "report/json_report.h"
#include "report/merge.h"
#include "report/slo.h"
#include "report/text_report.h"
#include "runner/runner.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

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

// What the workload asks of the binding that its store cannot give: a
// ConfigError; what it gives in another way: a note.
void CheckCapabilities(const BindingInfo& binding, const Capabilities& caps, const WorkloadOptions& w,
                       const ClientOptions& co, const std::string& command, std::vector<std::string>& notes) {
  if (!caps.scan && w.core.scanproportion > 0 && command != "load") {
    throw ConfigError("binding '" + binding.name + "' cannot scan" +
                      (caps.why_no_scan.empty() ? std::string() : " (" + caps.why_no_scan + ")") +
                      ", but scanproportion = " + FormatDouble(w.core.scanproportion) +
                      "; set scanproportion=0 or use a store that scans");
  }
  if (w.core.batchreadproportion > 0 && command != "load" && !caps.native_batch_read) {
    notes.push_back("binding '" + binding.name + "' has no native batch read: BATCH-READ reads the records one by one");
  }
  if ((w.core.batch_size > 1 || w.core.batchinsertproportion > 0) && !caps.native_batch_insert) {
    notes.push_back("binding '" + binding.name + "' has no native batch insert: BATCH-INSERT inserts the records one by one");
  }
  if (w.core.tx_operations && command != "load" && !caps.transactions) {
    throw ConfigError("binding '" + binding.name + "' has no transactions" +
                      (caps.why_no_transactions.empty() ? std::string() : " (" + caps.why_no_transactions + ")") +
                      ", which tx.operations=true needs");
  }
  if (w.core.tx_operations && command != "load" && (caps.pipeline > 1 || co.runner.connections > 1)) {
    throw ConfigError("tx.operations=true runs one transaction per connection at a time: set connections=1"
                      " and the binding's pipeline depth to 1");
  }
  if (w.closed_economy) {
    if (w.closed_economy->unsafe_no_transactions) {
      notes.push_back("closedeconomy.unsafe_no_transactions=true: transfers are plain reads and writes, without"
                      " transactions; the run reports how far the total drifts");
    } else if (!caps.transactions) {
      throw ConfigError("binding '" + binding.name + "' has no transactions" +
                        (caps.why_no_transactions.empty() ? std::string() : " (" + caps.why_no_transactions + ")") +
                        ", which workload=closedeconomy needs (closedeconomy.unsafe_no_transactions=true runs it"
                        " without them and reports how far the total drifts)");
    }
    if (caps.pipeline > 1 || co.runner.connections > 1) {
      throw ConfigError("workload=closedeconomy runs one transaction per connection at a time: set connections=1"
                        " and the binding's pipeline depth to 1");
    }
  }
  if (w.sql_query && !caps.sql) {
    throw ConfigError("binding '" + binding.name + "' does not run SQL, which workload=sqlquery needs (sqlite, "
                      "postgresql and mariadb do)");
  }
}

std::unique_ptr<Workload> MakeWorkload(const WorkloadOptions& w) {
  if (w.closed_economy) return std::make_unique<ClosedEconomyWorkload>(*w.closed_economy);
  if (w.sql_query) return std::make_unique<SqlQueryWorkload>(*w.sql_query);
  return std::make_unique<CoreWorkload>(w.core);
}

// The job's HdrHistogram log under MPI, from the merged series: one line
// per interval and operation, every rank's samples in it.
void WriteMergedHdrLog(const RunReport& report, bool is_bench, double interval_s, HdrLogWriter& log) {
  for (const PhaseResult& ph : report.phases) {
    const std::string prefix = is_bench && ph.phase == "load" ? "LOAD-" : "";
    for (const IntervalPoint& pt : ph.series) {
      const double end_s = static_cast<double>(ph.start_unix_ms) / 1000.0 + pt.t_s;
      for (const IntervalPoint::Op& op : pt.ops) {
        if (op.buckets.empty()) continue;
        const Histogram h = Histogram::FromBuckets(op.buckets, op.min_ns, op.max_ns, op.sum_ns);
        log.WriteInterval(prefix + op.name, end_s - interval_s, interval_s, h);
      }
    }
  }
}

// The exit code of an MPI rank other than 0 (rank 0 reports the job's).
int RankExitCode(const RunReport& report) {
  std::uint64_t integrity = 0;
  for (const auto& ph : report.phases) {
    if (ph.interrupted) return 128 + StopSignal();
    integrity += ph.integrity_failures;
  }
  return integrity > 0 ? 1 : 0;
}

// slo.abort=true: a check after each status interval that stops the phase
// once the interval fails one of the gates (and says which on `err`).
std::function<bool(const std::array<std::unique_ptr<Histogram>, kNumOpTypes>&, const std::array<std::uint64_t, kNumOpTypes>&,
                   double)>
SloStopCheck(const std::vector<SloGate>& gates, bool loading, std::ostream& err) {
  return [&gates, loading, &err](const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& latency,
                                 const std::array<std::uint64_t, kNumOpTypes>& failed, double ops_per_s) {
    Histogram all;
    const SloFigures f = SloFiguresOfInterval(latency, failed, ops_per_s, all);
    for (const SloGate& g : gates) {
      const SloCheck c = CheckSlo(g, f);
      if (c.pass || std::isnan(c.value)) continue;  // an interval without that figure proves nothing
      err << "storebench: slo.abort: the last status interval failed --slo '" << g.expr << "' (" << c.value
          << (g.unit == "%" ? "%" : " " + g.unit) << "); stopping the " << (loading ? "load" : "run") << " phase\n";
      return true;
    }
    return false;
  };
}

// The job's exit code, with the line on `err` that says why it is not 0
// (and each workload check's summary).
int ExitCode(const RunReport& report, std::uint64_t max_errors, std::ostream& err) {
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
      err << "storebench: stopped the " << ph.phase << " phase after more than errors.max=" << max_errors
          << " failed operations; the results above are partial\n";
      return 1;
    }
  }
  std::size_t gates = 0, failures = 0;
  std::string failed;
  for (const auto& ph : report.phases) {
    for (const auto& g : ph.slo) {
      ++gates;
      if (!g.pass) failed += (failures++ == 0 ? "'" : ", '") + g.expr + "'";
    }
  }
  if (failures > 0) {
    err << "storebench: " << failures << " of " << gates << " --slo gate(s) failed: " << failed << "\n";
    return 3;
  }
  return 0;
}

}  // namespace

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

int RunJob(const JobSpec& spec, std::ostream& out, std::ostream& real_err) {
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
  // Ranks other than 0 print only errors (thrown, printed by the caller).
  std::ostream& err = mpi && rank != 0 ? static_cast<std::ostream&>(null_stream) : real_err;
  Properties props;
  for (const auto& f : spec.property_files) props.LoadFile(f);
  for (const auto& [k, v] : spec.overrides) props.Set(k, v, "-p " + k);
  std::string binding_name = spec.binding;
  if (binding_name.empty()) binding_name = props.GetString("db", "");
  if (binding_name.empty()) {
    std::string names;
    for (const BindingInfo* b : AllBindings()) names += (names.empty() ? "" : ", ") + b->name;
    throw ConfigError("no binding given: storebench " + spec.command + " BINDING ... (bindings: " + names + ")");
  }
  const BindingInfo& binding = FindBinding(binding_name);
  props.MarkKnown("db");              // read above
  props.MarkKnown("dotransactions");  // YCSB's -load/-t; the command decides here
  const std::string dir_key = binding.name + ".dir";
  // Under mpirun, rank R of N is part R/N, with a store directory of its own
  // unless NAME.dir is given.
  const bool rank_store = mpi && binding.uses_dir && !props.Has(dir_key) && spec.command != "bench";
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
  if (workload_kind != "core" && (spec.command != "load" || workload_kind == "sqlquery") &&
      (props.Has("client.id") || props.Has("client.count"))) {
    throw ConfigError("workload=" + workload_kind + " checks the whole store at the end of a run, so its " +
                      spec.command + " runs in one process (no --part, client.id/client.count or mpirun; closedeconomy's "
                    "load may be split)");
  }
  const std::string part_line = ApplyPart(props, spec.command, rank_store);

  const ClientOptions co = ReadClientOptions(props);
  WorkloadOptions wopts = ReadWorkloadOptions(props, workload_kind);
  CoreWorkloadOptions& wo = wopts.core;
  if (!part_line.empty() && (spec.command == "bench" || rank_store)) wo.run_insert_base = wo.insertstart + wo.insertcount;

  std::vector<std::string> notes = IneffectivePropertyNotes(props, co);
  CheckBindingProperties(props, binding);

  const bool is_bench = spec.command == "bench";
  TempDir temp_dir;
  if (binding.uses_dir && !props.Has(dir_key)) {
    props.Set(dir_key,
              is_bench  ? temp_dir.Make(binding.name)
              : mpi     ? "storebench-data/" + binding.name + "/rank-" + std::to_string(rank)
                        : "storebench-data/" + binding.name,
              "default");
  }
  ResultFiles files = ChooseResultFiles(co, props, spec.json_file, is_bench);
  if (mpi && rank != 0) files = {};  // rank 0 writes the job's
  const std::string& json_path = files.json;
  const std::string& text_path = files.text;
  // Fail before running when a result cannot be written.
  if (!json_path.empty() && CheckOutputPath(json_path, "the JSON result") != OutputKind::kAtomic && rank_results) {
    throw ConfigError("mpi.rank_results=true writes files beside the JSON result, so --json must name a file, not '" +
                      json_path + "'");
  }
  if (!text_path.empty()) CheckOutputPath(text_path, "the text result");
  // The log itself is written from the first phase on.
  if (!spec.hdr_log_file.empty()) CheckOutputPath(spec.hdr_log_file, "the HdrHistogram log");
  // --slo gates: a bad expression ends the job before anything runs.
  std::vector<SloGate> gates;
  for (const std::string& e : spec.slo) gates.push_back(ParseSloGate(e));
  if (co.slo_abort && gates.empty()) throw ConfigError("slo.abort=true needs at least one --slo gate");
  // The endpoint listens, and the time series is opened, before the store
  // is: a port in use or a path refused ends the job before anything runs.
  const std::string label = co.label.empty() ? DefaultLabel(binding.name, spec.property_files, co.runner.threads) : co.label;
  LiveOutputs live({.metrics_listen = spec.metrics_listen,
                    .timeseries_file = spec.timeseries_file,
                    .rank = rank,
                    .write_timeseries = rank == 0,
                    .merged_timeseries = mpi,
                    .binding = binding.name,
                    .label = label,
                    .part = props.Has("client.count") ? props.GetString("client.id", "0") + "/" +
                                                            props.GetString("client.count", "1")
                                                      : ""},
                   err);

  OpenContext ctx;
  ctx.loading = spec.command == "load" || is_bench;
  ctx.thread_count = co.runner.threads;
  std::unique_ptr<Store> store = binding.open(props, ctx);
  const Capabilities caps = store->capabilities();
  CheckCapabilities(binding, caps, wopts, co, spec.command, notes);
  for (const auto& n : notes) err << "storebench: note: " << n << "\n";
  if (!part_line.empty()) err << part_line << "\n";

  // --hdr-log: written as the phases run; under MPI by rank 0 alone, once
  // the ranks' series (with their histograms) are merged.
  // A regular file appears, whole, when the run ends; a FIFO or /dev/stdout gets each interval as it ends.
  std::optional<OutputFile> hdr_file;
  std::optional<HdrLogWriter> hdr_log;
  if (!spec.hdr_log_file.empty() && rank == 0) {
    hdr_file.emplace(spec.hdr_log_file, "the HdrHistogram log");
    hdr_log.emplace(hdr_file->stream(), std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count());
  }

  std::unique_ptr<Workload> workload = MakeWorkload(wopts);
  SteadyClock clock;
  RunnerOptions ro = co.runner;
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
  report.command = spec.command;
  report.binding = binding.name;
  report.label = label;
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
    if (print) live.Attach(o, loading ? "load" : "run");
    const bool gated = loading == (spec.command == "load");
    if (print && gated && co.slo_abort) o.stop_check = SloStopCheck(gates, o.loading, err);
    Runner runner(*store, *workload, o, clock, &err);
    PhaseResult r = runner.Run();
    if (print) live.Flush();
    r.disk_bytes = store->DiskUsageBytes();
    r.store_stats = store->Stats();
    r.notes = notes;
    if (hdr_log) hdr_file->Flush();
    return r;
  };

  // The workload's own setup (sqlquery: its tables, dropped and created for a load).
  workload->Prepare(*store, spec.command == "load" || is_bench || (spec.command == "run" && !caps.persistent));

  // Every rank is set up: from here on they agree before each phase.
  if (!MpiJob::Agree(true)) return OtherRankFailed(err);
  if (spec.command == "run" && !caps.persistent && caps.stores_data && wo.insertcount > 0) {
    err << "storebench: " << binding.name << " keeps its data in this process: loading " << wo.insertcount
        << " records first (not measured)\n";
    // Interrupted, it leaves the run phase below to start stopped: an empty, interrupted result.
    run_phase(true, false);
  }
  if (spec.command == "load" || is_bench) {
    MpiJob::Barrier();
    err << "storebench: loading " << wo.insertcount << " records into " << binding.name << " with " << co.runner.threads
        << " thread(s)\n";
    report.phases.push_back(run_phase(true, true));
  }
  bool skip_run = is_bench && report.phases.back().interrupted;
  if (is_bench && mpi) {
    if (!MpiJob::Agree(true)) return OtherRankFailed(err);
    skip_run = !MpiJob::AllTrue(!skip_run);
  }
  if ((spec.command == "run" || is_bench) && !skip_run) {
    MpiJob::Barrier();
    const double target = co.runner.target_ops_per_s;
    err << "storebench: running " << (wo.operationcount > 0 ? std::to_string(wo.operationcount) : "unlimited")
        << " operations on " << binding.name << " with " << co.runner.threads << " thread(s)"
        << (target > 0 ? ", target " + std::to_string(static_cast<long long>(target)) + " ops/s" : "") << "\n";
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
      return RankExitCode(report);
    }
    std::vector<MergeInput> inputs;
    for (std::size_t r = 0; r < all.size(); ++r) {
      std::istringstream in(all[r]);
      inputs.push_back({"rank " + std::to_string(r), ReadJson(in)});
      if (rank_results && !json_path.empty()) {
        WriteOutputFile(json_path + ".rank-" + std::to_string(r) + ".json", all[r], "a rank's JSON result");
      }
    }
    report = MergeResults(inputs);
    report.label = label;  // the job's, as every rank's
    err << "storebench: merged the results of " << ranks << " MPI rank(s)\n";
    if (hdr_log) WriteMergedHdrLog(report, is_bench, co.runner.series_interval_s, *hdr_log);
    live.WriteMerged(report, co.runner.status_interval_s);
  }

  // The gates, on the phase they hold (run; load for `load`), of the whole job under MPI.
  if (!gates.empty()) {
    for (PhaseResult& ph : report.phases) {
      if ((ph.phase == "load") == (spec.command == "load")) ph.slo = CheckSlos(gates, ph);
    }
  }
  std::ostringstream text;
  for (std::size_t i = 0; i < report.phases.size(); ++i) {
    if (report.phases.size() > 1) text << "# storebench " << spec.command << ": " << report.phases[i].phase << " phase\n";
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
  live.Commit(err);
  if (hdr_log) {
    hdr_file->Commit();
    err << "storebench: wrote the HdrHistogram log to " << spec.hdr_log_file << "\n";
  }
  store->Close();

  return ExitCode(report, co.runner.max_errors, err);
}

void CheckRunProperties(Properties& props, const std::string& command) {
  const BindingInfo& binding = FindBinding(props.GetString("db", ""));
  props.MarkKnown("dotransactions");
  ApplyPart(props, command, false);
  const ClientOptions co = ReadClientOptions(props);
  props.GetBool("mpi.rank_results", false);
  ReadWorkloadOptions(props, WorkloadKind(props));  // core, closedeconomy or sqlquery: each checks its own
  IneffectivePropertyNotes(props, co);
  CheckBindingProperties(props, binding);
}

}  // namespace storebench
