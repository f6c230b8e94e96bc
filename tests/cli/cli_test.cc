// End-to-end tests of the storebench binary, run as a user would: exit
// codes, one-line errors, YCSB-parseable output, JSON results, load and run
// in two processes, and Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

namespace fs = std::filesystem;

using Exec = storebench::test_util::ProcessResult;
using storebench::test_util::Slurp;

class CliTest : public ::testing::Test {
 protected:
  // Runs the binary in dir_ with args; stdout/stderr captured.
  Exec Run(const std::vector<std::string>& args, int signal_after_ms = 0, int signal_number = SIGINT) {
    storebench::test_util::ProcessOptions o;
    o.signal_after_ms = signal_after_ms;
    o.signal_number = signal_number;
    return Run(args, o);
  }
  Exec Run(const std::vector<std::string>& args, storebench::test_util::ProcessOptions o) {
    o.cwd = dir_.string();
    return storebench::test_util::RunProcess(STOREBENCH_BINARY, args, o);
  }
  // Signals the run once its measured phase has begun (plus after_ms), however slowly it started.
  Exec RunAndSignal(const std::vector<std::string>& args, int after_ms, int signal_number) {
    storebench::test_util::ProcessOptions o;
    o.signal_after_stderr = "storebench: running ";
    o.signal_after_ms = after_ms;
    o.signal_number = signal_number;
    return Run(args, o);
  }
  std::string Workload(const std::string& name) { return std::string(STOREBENCH_SOURCE_DIR) + "/workloads/" + name; }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }

  // A one-line error on stderr, exit 2, containing every needle.
  void ExpectConfigError(const Exec& r, const std::vector<std::string>& needles) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("storebench: ", 0), 0u) << r.err;
    for (const auto& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << "missing '" << n << "' in: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }

  storebench::test_util::TempDir tmp_{"storebench-cli"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(CliTest, HelpAndList) {
  Exec h = Run({"--help"});
  EXPECT_EQ(h.code, 0);
  EXPECT_NE(h.out.find("storebench load"), std::string::npos);
  Exec l = Run({"list"});
  EXPECT_EQ(l.code, 0);
  for (const char* s : {"rocksdb", "rocksdb.dir", "memory", "null"}) EXPECT_NE(l.out.find(s), std::string::npos) << s;
}

TEST_F(CliTest, BadInputIsOneLineAndExitTwo) {
  ExpectConfigError(Run({"run", "memory", "-p", "recordcont=10"}), {"unknown property 'recordcont'", "recordcount"});
  ExpectConfigError(Run({"run", "memroy"}), {"unknown binding 'memroy'", "memory", "rocksdb"});
  ExpectConfigError(Run({"run", "memory", "-p", "recordcount=-1"}), {"recordcount", "-1"});
  ExpectConfigError(Run({"run", "memory", "-p", "operationcount=ten"}), {"operationcount", "ten"});
  ExpectConfigError(Run({"run", "memory", "-p", "requestdistribution=zipf"}), {"requestdistribution", "zipfian"});
  ExpectConfigError(Run({"run", "memory", "-p", "readproportion=0", "-p", "updateproportion=0"}), {"sum to 0"});
  ExpectConfigError(Run({"run", "memory", "-threads", "0"}), {"threadcount"});
  ExpectConfigError(Run({"run", "memory", "--frobnicate"}), {"unknown option '--frobnicate'"});
  ExpectConfigError(Run({"run", "memory", "-P", "no-such-file"}), {"no-such-file"});
  ExpectConfigError(Run({"run", "memory", "-p", "rocksdb.dir=x"}), {"rocksdb.dir", "belongs to binding 'rocksdb'"});
  Write("bad", "recordcount=10\n# fine\nthis line is fine as key value\nnoseparator\n");
  ExpectConfigError(Run({"run", "memory", "-P", "bad"}), {"bad:4", "noseparator"});
  Write("file", "x");
  ExpectConfigError(Run({"load", "rocksdb", "-p", "rocksdb.dir=file/sub"}), {"file/sub"});
}

TEST_F(CliTest, EveryEmbeddedBindingIsListedWithItsProperties) {
  for (const char* binding : {"leveldb", "lmdb", "sqlite", "wiredtiger", "groonga"}) STOREBENCH_NEED_BINDING(binding);
  Exec l = Run({"list"});
  ASSERT_EQ(l.code, 0) << l.err;
  for (const char* s : {"leveldb", "leveldb.bloom_bits", "lmdb", "lmdb.mapsize", "sqlite", "sqlite.synchronous",
                        "wiredtiger", "wiredtiger.cache_size", "groonga", "groonga.table_type"}) {
    EXPECT_NE(l.out.find(s), std::string::npos) << s;
  }
}

TEST_F(CliTest, EmbeddedBindingsRejectBadPropertiesInOneLine) {
  for (const char* binding : {"leveldb", "lmdb", "sqlite", "wiredtiger", "groonga"}) STOREBENCH_NEED_BINDING(binding);
  const std::string wl = Workload("workloada");
  ExpectConfigError(Run({"load", "leveldb", "-P", wl, "-p", "leveldb.bloom_bit=10"}),
                    {"unknown property 'leveldb.bloom_bit'", "leveldb.bloom_bits"});
  ExpectConfigError(Run({"load", "lmdb", "-P", wl, "-p", "lmdb.mapsize=huge"}), {"lmdb.mapsize", "huge"});
  ExpectConfigError(Run({"load", "sqlite", "-P", wl, "-p", "sqlite.synchronous=sometimes"}),
                    {"sqlite.synchronous", "sometimes"});
  ExpectConfigError(Run({"load", "wiredtiger", "-P", wl, "-p", "wiredtiger.block_compressor=lzma"}),
                    {"wiredtiger.block_compressor", "lzma"});
  ExpectConfigError(Run({"load", "groonga", "-P", wl, "-p", "groonga.table_type=btree"}),
                    {"groonga.table_type", "btree"});
  EXPECT_FALSE(fs::exists(dir_ / "storebench-data")) << "nothing created before the properties were checked";
}

TEST_F(CliTest, AHashLayoutRefusesAScanWorkloadBeforeTheRun) {
  STOREBENCH_NEED_BINDING("groonga");
  // Loading works (no scans); running workload E (95% scans) is refused in
  // one line that says why, before any operation.
  const std::vector<std::string> hash = {"-P", Workload("workloade"), "-p", "recordcount=100",
                                         "-p", "groonga.table_type=hash"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), hash.begin(), hash.end());
    return args;
  };
  Exec load = Run(with({"load", "groonga"}));
  ASSERT_EQ(load.code, 0) << load.err;
  Exec run = Run(with({"run", "groonga"}));
  ExpectConfigError(run, {"binding 'groonga' cannot scan", "groonga.table_type=hash keeps no key order",
                          "scanproportion = 0.95"});
}

TEST_F(CliTest, OutputParsesAsYcsbAndJsonIsOneDocument) {
  Exec r = Run({"bench", "memory", "-P", Workload("workloada"), "-p", "recordcount=500", "-p", "operationcount=3000",
                "-threads", "2", "--json", "r.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  // Every stdout line is "[NAME], metric, number" (or a phase comment).
  std::regex line(R"(^\[[A-Za-z-]+\], [^,]+, -?[0-9]+(\.[0-9]+)?$)");
  std::istringstream in(r.out);
  std::string l;
  int figures = 0;
  while (std::getline(in, l)) {
    if (l.rfind("# ", 0) == 0) continue;
    EXPECT_TRUE(std::regex_match(l, line)) << l;
    ++figures;
  }
  EXPECT_GT(figures, 20);
  for (const char* s : {"[OVERALL], RunTime(ms), ", "[OVERALL], Throughput(ops/sec), ", "[INSERT], Operations, 500",
                        "[READ], 95thPercentileLatency(us), ", "[UPDATE], Return=OK, ", "[READ], 50thPercentileLatency(us)"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
  }
  EXPECT_EQ(r.out.find("E+"), std::string::npos);
  auto j = nlohmann::json::parse(Slurp(dir_ / "r.json"));
  ASSERT_EQ(j["phases"].size(), 2u);
  EXPECT_EQ(j["phases"][0]["phase"], "load");
  EXPECT_EQ(j["phases"][1]["operations"], 3000);
  EXPECT_EQ(j["properties"]["recordcount"], "500");
  EXPECT_EQ(j["properties"]["fieldlength"], "100");  // defaults in force are recorded too
}

TEST_F(CliTest, RocksdbLoadThenRunInTwoProcesses) {
  Exec load = Run({"load", "rocksdb", "-P", Workload("workloadc"), "-p", "recordcount=2000", "-threads", "2"});
  ASSERT_EQ(load.code, 0) << load.err;
  EXPECT_NE(load.out.find("[INSERT], Operations, 2000"), std::string::npos) << load.out;
  EXPECT_NE(load.out.find("[STORE], DiskUsage(bytes), "), std::string::npos) << load.out;
  EXPECT_TRUE(fs::exists(dir_ / "storebench-data" / "rocksdb"));
  Exec run = Run({"run", "rocksdb", "-P", Workload("workloadc"), "-p", "recordcount=2000", "-p",
                  "operationcount=5000", "-threads", "2"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("[READ], Return=OK, 5000"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("READ-FAILED"), std::string::npos) << run.out;
}

TEST_F(CliTest, BenchWithoutDirUsesATemporaryDirectory) {
  Exec r = Run({"bench", "rocksdb", "-P", Workload("workloada"), "-p", "recordcount=300", "-p", "operationcount=300"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "storebench-data"));
  EXPECT_TRUE(fs::exists(dir_ / "storebench-result.json"));
}

TEST_F(CliTest, MemoryRunPreloadsAndSaysSo) {
  Exec r = Run({"run", "memory", "-P", Workload("workloadc"), "-p", "recordcount=1000", "-p", "operationcount=2000"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("loading 1000 records first (not measured)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[READ], Return=OK, 2000"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[INSERT]"), std::string::npos) << r.out;
}

TEST_F(CliTest, TargetRateIsHeldAndBothLatenciesReported) {
  Exec r = Run({"run", "null", "-P", Workload("workloada"), "-p", "recordcount=1000", "-p", "operationcount=1000",
                "-target", "1000", "-threads", "2", "-p", "measurement.interval=both"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex(R"(\[OVERALL\], RunTime\(ms\), ([0-9]+))")));
  const int ms = std::stoi(m[1]);
  EXPECT_GE(ms, 990);  // 1000 ops at 1000 ops/s take one second
  EXPECT_LE(ms, 3000);  // generous: shared machines, sanitizer builds
  EXPECT_NE(r.out.find("[Intended-READ], Operations, "), std::string::npos) << r.out;
}

TEST_F(CliTest, StatusLinesGoToStderr) {
  Exec r = Run({"run", "null", "-P", Workload("workloada"), "-p", "recordcount=1000", "-p", "maxexecutiontime=1.5",
                "-p", "operationcount=0", "-p", "status.interval=0.5", "-s"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::regex status(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3} [0-9.]+ sec: \d+ operations; [0-9.]+ current ops/sec;.*\[READ: Count=\d+)");
  EXPECT_TRUE(std::regex_search(r.err, status)) << r.err;
  EXPECT_EQ(r.out.find(" sec: "), std::string::npos);
}

TEST_F(CliTest, CtrlCStopsAndStillWritesPartialResults) {
  Exec r = RunAndSignal({"run", "memory", "-P", Workload("workloada"), "-p", "recordcount=1000", "-p",
                         "operationcount=0", "--json", "partial.json"},
                        500, SIGINT);
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_NE(r.out.find("[OVERALL], RunTime(ms), "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[OVERALL], Interrupted, true"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(Slurp(dir_ / "partial.json"));
  EXPECT_EQ(j["phases"][0]["interrupted"], true);
  EXPECT_GT(j["phases"][0]["operations"].get<long long>(), 0);
}

// A Ctrl-C that came before the handler was set up (pending and blocked at
// start, as storebench plan forwards it): the run is not killed; it stops
// before its first measured operation and still writes its result.
TEST_F(CliTest, CtrlCBeforeTheRunStartsStillWritesAnInterruptedResult) {
  STOREBENCH_NEED_BINDING("lmdb");  // its second half loads lmdb
  storebench::test_util::ProcessOptions o;
  o.signal_pending_at_start = true;
  // memory first loads its records in this process (not measured): the stop request ends that too.
  // maxexecutiontime: a run that never saw the signal ends (exit 0) and fails the test instead of hanging it.
  Exec r = Run({"run", "memory", "-P", Workload("workloada"), "-p", "recordcount=100000", "-p", "operationcount=0",
                "-p", "maxexecutiontime=5", "--json", "early.json"},
               o);
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_NE(r.out.find("[OVERALL], Interrupted, true"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("storebench: interrupted by signal 2; the results above are partial"), std::string::npos)
      << r.err;
  auto j = nlohmann::json::parse(Slurp(dir_ / "early.json"));
  ASSERT_EQ(j["phases"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["phase"], "run");
  EXPECT_EQ(j["phases"][0]["interrupted"], true);
  EXPECT_EQ(j["phases"][0]["stop_reason"], "signal");
  EXPECT_EQ(j["phases"][0]["operations"].get<long long>(), 0);

  // The same for a load: an empty, interrupted load phase.
  Exec l = Run({"load", "lmdb", "-P", Workload("workloada"), "-p", "recordcount=1000", "--json", "load.json"}, o);
  EXPECT_EQ(l.code, 130) << l.err;
  auto lj = nlohmann::json::parse(Slurp(dir_ / "load.json"));
  ASSERT_EQ(lj["phases"].size(), 1u);
  EXPECT_EQ(lj["phases"][0]["phase"], "load");
  EXPECT_EQ(lj["phases"][0]["interrupted"], true);
  EXPECT_EQ(lj["phases"][0]["operations"].get<long long>(), 0);
}

TEST_F(CliTest, SigtermExitsWith143AndPartialResults) {
  Exec r = RunAndSignal({"run", "null", "-P", Workload("workloada"), "-p", "recordcount=1000", "-p", "operationcount=0"},
                        500, SIGTERM);
  EXPECT_EQ(r.code, 143) << r.err;
  EXPECT_NE(r.out.find("[OVERALL], Interrupted, true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[READ], Operations, "), std::string::npos) << r.out;
}

TEST_F(CliTest, YcsbsOwnTemplatePropertiesRunUnchanged) {
  // The properties of YCSB's workloads/workload_template, as YCSB ships them
  // (smaller counts), including the ones that do not apply here.
  Write("template",
        "workload=com.yahoo.ycsb.workloads.CoreWorkload\nrecordcount=1000\noperationcount=3000\ninsertstart=0\n"
        "fieldcount=10\nfieldlength=100\nreadallfields=true\nwriteallfields=false\n"
        "fieldlengthdistribution=constant\nreadproportion=0.95\nupdateproportion=0.05\ninsertproportion=0\n"
        "readmodifywriteproportion=0\nscanproportion=0\nmaxscanlength=1000\nscanlengthdistribution=uniform\n"
        "insertorder=hashed\nrequestdistribution=zipfian\nhotspotdatafraction=0.2\nhotspotopnfraction=0.8\n"
        "table=usertable\nmeasurementtype=histogram\nhistogram.buckets=1000\ntimeseries.granularity=1000\n"
        "exporter=site.ycsb.measurements.exporter.TextMeasurementsExporter\nmeasurement.interval=op\n"
        "hdrhistogram.percentiles=95,99\nstatus.interval=10\ncore_workload_insertion_retry_limit=0\n"
        "core_workload_insertion_retry_interval=3\nmeasurement.trackjvm=false\nreportlatencyforeacherror=false\n");
  Exec r = Run({"bench", "memory", "-P", "template"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("note: property 'histogram.buckets' has no effect"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[READ], 95thPercentileLatency(us), "), std::string::npos);
  EXPECT_EQ(r.out.find("[READ], 50thPercentileLatency(us), "), std::string::npos);  // percentiles as set
}

TEST_F(CliTest, DataIntegrityHoldsOnEveryBindingForWorkloadsADEF) {
  for (const char* binding : {"memory", "rocksdb"}) {
    for (const char* w : {"workloada", "workloadd", "workloade", "workloadf"}) {
      Exec r = Run({"bench", binding, "-P", Workload(w), "-p", "recordcount=500", "-p", "operationcount=2000",
                    "-p", "dataintegrity=true", "-threads", "2", "--json", "i.json"});
      EXPECT_EQ(r.code, 0) << binding << " " << w << ": " << r.err;
      EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << binding << " " << w << ": " << r.out;
      EXPECT_EQ(r.out.find("IntegrityFailures"), std::string::npos) << binding << " " << w;
    }
  }
}

// Sum of one return code over every op block of a phase in a JSON result.
std::uint64_t ReturnCodes(const nlohmann::json& phase, const std::string& code) {
  std::uint64_t n = 0;
  for (const auto& op : phase["ops"]) n += op["return_codes"].value(code, std::uint64_t{0});
  return n;
}

std::uint64_t OpCount(const nlohmann::json& phase, const std::string& name) {
  for (const auto& op : phase["ops"]) {
    if (op["name"] == name) return op["histograms_ns"]["service"]["count"].get<std::uint64_t>();
  }
  return 0;
}

// --part K/N: loading rocksdb in N parts, one after another into one
// directory, then running in N parts against it, and merging: the same
// operation counts as one process doing the whole work, every part's keys
// within its slice (reads of all records find them all), integrity intact.
TEST_F(CliTest, PartsOfOneJobMergeToTheSingleProcessTotals) {
  const std::vector<std::string> w = {"-P", Workload("workloada"), "-p", "recordcount=300", "-p", "operationcount=601",
                                      "-p", "readproportion=0.5", "-p", "updateproportion=0.3", "-p",
                                      "insertproportion=0.2", "-p", "requestdistribution=uniform", "-p",
                                      "dataintegrity=true", "-p", "fieldcount=3", "-p", "fieldlength=20"};
  auto with = [&](std::vector<std::string> a, const std::vector<std::string>& more) {
    a.insert(a.end(), w.begin(), w.end());
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  // The reference: one process.
  ASSERT_EQ(Run(with({"load", "rocksdb"}, {"-p", "rocksdb.dir=ref", "--json", "ref-load.json"})).code, 0);
  Exec ref = Run(with({"run", "rocksdb"}, {"-p", "rocksdb.dir=ref", "--json", "ref-run.json"}));
  ASSERT_EQ(ref.code, 0) << ref.err;
  const auto ref_load = nlohmann::json::parse(Slurp(dir_ / "ref-load.json"))["phases"][0];
  const auto ref_run = nlohmann::json::parse(Slurp(dir_ / "ref-run.json"))["phases"][0];

  for (int n : {2, 3}) {
    const std::string d = "rocksdb.dir=parts" + std::to_string(n);
    std::vector<std::string> loads = {"merge"}, runs = {"merge"};
    std::int64_t next_insert = 0, next_runinsert = 300;
    for (int k = 0; k < n; ++k) {
      const std::string part = std::to_string(k) + "/" + std::to_string(n);
      const std::string lf = "load-" + std::to_string(n) + "-" + std::to_string(k) + ".json";
      Exec l = Run(with({"load", "rocksdb"}, {"-p", d, "--part", part, "--json", lf}));
      ASSERT_EQ(l.code, 0) << l.err;
      EXPECT_NE(l.err.find("storebench: part " + std::to_string(k) + " of " + std::to_string(n)), std::string::npos)
          << l.err;
      const auto lj = nlohmann::json::parse(Slurp(dir_ / lf));
      // The slices tile [0, 300): 150/150, or 100/100/100.
      EXPECT_EQ(lj["properties"]["client.id"], std::to_string(k));
      EXPECT_EQ(lj["properties"]["client.count"], std::to_string(n));
      EXPECT_EQ(lj["properties"]["insertstart"], std::to_string(next_insert));
      const std::int64_t count = std::stoll(lj["properties"]["insertcount"].get<std::string>());
      EXPECT_EQ(count, 300 / n);
      EXPECT_EQ(OpCount(lj["phases"][0], "INSERT"), static_cast<std::uint64_t>(count));
      next_insert += count;
      loads.push_back(lf);
    }
    EXPECT_EQ(next_insert, 300);
    for (int k = 0; k < n; ++k) {
      const std::string part = std::to_string(k) + "/" + std::to_string(n);
      const std::string rf = "run-" + std::to_string(n) + "-" + std::to_string(k) + ".json";
      Exec r = Run(with({"run", "rocksdb"}, {"-p", d, "--part", part, "--json", rf}));
      ASSERT_EQ(r.code, 0) << r.err;
      const auto rj = nlohmann::json::parse(Slurp(dir_ / rf));
      EXPECT_EQ(rj["properties"]["recordcount"], "300");
      EXPECT_EQ(rj["properties"]["insertcount"], "300");  // reads cover every record
      // Run-phase inserts: disjoint ranges after the loaded records.
      EXPECT_EQ(rj["properties"]["client.runinsertstart"], std::to_string(next_runinsert));
      next_runinsert += std::stoll(rj["properties"]["operationcount"].get<std::string>());
      EXPECT_EQ(ReturnCodes(rj["phases"][0], "NOT_FOUND"), 0u) << r.out;
      runs.push_back(rf);
    }
    EXPECT_EQ(next_runinsert, 300 + 601);
    loads.insert(loads.end(), {"-o", "load-total.json"});
    runs.insert(runs.end(), {"-o", "run-total.json"});
    Exec ml = Run(loads);
    ASSERT_EQ(ml.code, 0) << ml.err;
    Exec mr = Run(runs);
    ASSERT_EQ(mr.code, 0) << mr.err;
    EXPECT_NE(ml.out.find("[INSERT], Operations, 300\n"), std::string::npos) << ml.out;
    EXPECT_EQ(mr.out.find("IntegrityFailures"), std::string::npos) << mr.out;
    EXPECT_EQ(mr.out.find("FAILED"), std::string::npos) << mr.out;
    const auto tl = nlohmann::json::parse(Slurp(dir_ / "load-total.json"));
    const auto tr = nlohmann::json::parse(Slurp(dir_ / "run-total.json"));
    EXPECT_EQ(tl["phases"][0]["operations"], ref_load["operations"]);
    EXPECT_EQ(OpCount(tl["phases"][0], "INSERT"), OpCount(ref_load, "INSERT"));
    EXPECT_EQ(tr["phases"][0]["operations"], ref_run["operations"]);
    EXPECT_EQ(tr["phases"][0]["operations"], 601);
    EXPECT_EQ(tr["phases"][0]["integrity_failures"], 0);
    EXPECT_EQ(ReturnCodes(tr["phases"][0], "NOT_FOUND"), 0u);
    EXPECT_EQ(ReturnCodes(tr["phases"][0], "OK"), 601u);
    EXPECT_EQ(tr["parts"].size(), static_cast<std::size_t>(n));
    EXPECT_EQ(tr["properties"]["operationcount"], "601");
    EXPECT_EQ(tl["properties"]["insertcount"], "300");
  }
}

TEST_F(CliTest, BenchInPartsOnMemoryMergesToTheWholeWork) {
  std::vector<std::string> m = {"merge"};
  for (int k = 0; k < 3; ++k) {
    const std::string f = "b" + std::to_string(k) + ".json";
    // zipfian reads and 10% inserts: each part reads its own slice and its own inserts.
    Exec r = Run({"bench", "memory", "-P", Workload("workloada"), "-p", "recordcount=100", "-p",
                  "operationcount=200", "-p", "insertproportion=0.1", "-p", "readproportion=0.4", "-p",
                  "dataintegrity=true", "-target", "3000", "--part",
                  std::to_string(k) + "/3", "--json", f});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(Slurp(dir_ / f));
    EXPECT_EQ(j["properties"]["target"], "1000");
    m.push_back(f);
  }
  m.insert(m.end(), {"-o", "total.json"});
  Exec r = Run(m);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto t = nlohmann::json::parse(Slurp(dir_ / "total.json"));
  EXPECT_EQ(t["phases"][0]["operations"], 100);
  EXPECT_EQ(t["phases"][1]["operations"], 200);
  EXPECT_EQ(ReturnCodes(t["phases"][1], "NOT_FOUND"), 0u);
  EXPECT_EQ(t["phases"][1]["target_ops_per_s"], 3000);
  EXPECT_NE(r.out.find("[INSERT], Operations, 100\n"), std::string::npos) << r.out;
}

TEST_F(CliTest, PartAndMergeErrorsAreOneLine) {
  ExpectConfigError(Run({"run", "memory", "--part", "2/2"}), {"--part '2/2'", "0 .. N-1"});
  ExpectConfigError(Run({"run", "memory", "--part", "1/0"}), {"--part '1/0'", "N must be at least 1"});
  ExpectConfigError(Run({"run", "memory", "--part", "one/two"}), {"--part 'one/two'", "K/N"});
  ExpectConfigError(Run({"run", "memory", "-p", "client.id=3", "-p", "client.count=2"}), {"client.id", "client.count = 2"});
  ExpectConfigError(Run({"run", "memory", "-P", Workload("workloadd"), "-p", "operationcount=0", "-p",
                         "maxexecutiontime=1", "--part", "0/2"}),
                    {"needs operationcount > 0"});
  ExpectConfigError(Run({"merge"}), {"no result files given"});
  ExpectConfigError(Run({"merge", "nope.json", "-o", "t.json"}), {"cannot read 'nope.json'"});
  Write("x.json", "{\"hello\": 1}");
  ExpectConfigError(Run({"merge", "x.json", "-o", "t.json"}), {"'x.json' is not a storebench result"});
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(Run({"bench", "memory", "-p", "recordcount=10", "-p", "operationcount=10", "--part",
                   std::to_string(k) + "/2", "--json", "p" + std::to_string(k) + ".json"})
                  .code,
              0);
  }
  ASSERT_EQ(Run({"bench", "memory", "-p", "recordcount=20", "-p", "operationcount=10", "--part", "1/2", "--json",
                 "other.json"})
                .code,
            0);
  ExpectConfigError(Run({"merge", "p0.json", "-o", "t.json"}), {"client.count is 2", "client.id 1 missing"});
  ExpectConfigError(Run({"merge", "p0.json", "p0.json"}), {"both client.id 0"});
  ExpectConfigError(Run({"merge", "p0.json", "other.json"}),
                    {"'other.json' does not belong with 'p0.json'", "property 'recordcount' is '20' there, '10' here"});
  EXPECT_FALSE(fs::exists(dir_ / "t.json"));
  Exec ok = Run({"merge", "p1.json", "p0.json", "-o", "t.json"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(dir_ / "t.json"));
}

}  // namespace
