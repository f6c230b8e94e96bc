// The hbase binding when HBase is killed mid-run (issue 23, §2 and §4): an
// HBase of the test's own (scripts/servers/hbase.sh, so the shared server of
// the other tests is left alone) is killed with SIGKILL while
//  - a `storebench run` of workload A goes on: it ends on time (its
//    maxexecutiontime plus at most one operation's timeout), exit 0, its
//    results printed, the operations that failed counted per status;
//  - a writer in this process keeps one Store: once `hbase.sh start DIR`
//    has brought HBase back on the same ports and data, the same Store
//    answers again (it reconnects), and the last write acknowledged before
//    the kill reads back (from the write-ahead log).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string Script() { return std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/hbase.sh"; }

// One HBase in a folder of its own, stopped and removed at the end.
class OwnHBase {
 public:
  OwnHBase() {
    std::string tmpl = (fs::temp_directory_path() / "storebench-hbase-kill-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return;
    dir_ = tmpl;
    settings_ = Start();
  }
  ~OwnHBase() {
    if (dir_.empty()) return;
    test_util::ProcessOptions o;
    o.cwd = dir_;
    test_util::RunProcess("/bin/bash", {Script(), "stop", dir_ + "/hbase"}, o);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Starts (or, in the same folder, restarts) it; its settings, empty on failure.
  test_util::Settings Start() {
    test_util::ProcessOptions o;
    o.cwd = dir_;
    auto r = test_util::RunProcess("/bin/bash", {Script(), "start", dir_ + "/hbase", "--heap", "512m"}, o);
    if (r.code != 0) {
      ADD_FAILURE() << "hbase.sh start: " << r.err;
      return {};
    }
    return test_util::ParseSettings(r.out);
  }
  pid_t Pid() const { return static_cast<pid_t>(std::stol(test_util::Slurp(dir_ + "/hbase/pids"))); }
  const test_util::Settings& settings() const { return settings_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  test_util::Settings settings_;
};

long ReturnCount(const std::string& out, const std::string& op, const std::string& status) {
  std::smatch m;
  const std::regex re("\\[" + op + "\\], Return=" + status + ", ([0-9]+)");
  return std::regex_search(out, m, re) ? std::stol(m[1]) : 0;
}

TEST(HBaseKillTest, RunEndsOnTimeWithErrorsCountedAndTheStoreReconnectsWhenHBaseIsBack) {
  STOREBENCH_NEED_BINDING("hbase");
  test_util::Settings shared;
  STOREBENCH_NEED_SERVER("hbase", shared);  // (a machine that runs the hbase tests at all)
  const auto t0 = Clock::now();
  auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  OwnHBase hbase;
  ASSERT_FALSE(hbase.settings().empty());
  std::cerr << "started in " << since() << " s\n";
  std::vector<std::string> props;
  Properties p;
  for (const auto& [k, v] : hbase.settings()) {
    p.Set(k, v);
    props.insert(props.end(), {"-p", k + "=" + v});
  }
  p.Set("hbase.timeout_ms", "2000");
  p.Set("fieldcount", "1");

  // Records for the run.
  const std::string workload = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada";
  test_util::ProcessOptions po;
  po.cwd = hbase.dir();
  std::vector<std::string> load = {"load", "hbase", "-P", workload, "-p", "recordcount=500", "-threads", "4"};
  load.insert(load.end(), props.begin(), props.end());
  auto loaded = test_util::RunProcess(STOREBENCH_BINARY, load, po);
  ASSERT_EQ(loaded.code, 0) << loaded.err;

  // The writer: one Store for the whole test. It writes until the kill,
  // then only reads, so that what it reads once HBase is back is what
  // survived the kill.
  std::unique_ptr<Store> store = FindBinding("hbase").open(p, OpenContext{});
  std::atomic<bool> stop{false}, reading{false};
  std::atomic<long> acked{-1};          // the last sequence number acknowledged
  std::atomic<long> answered_after{0};  // OK reads begun after `mark`
  std::atomic<long> read_after{-1};     // the value the first of them read
  std::atomic<long> failed{0};
  std::atomic<Clock::rep> mark{Clock::time_point::max().time_since_epoch().count()};
  std::thread writer([&] {
    auto s = store->NewSession(0);
    RecordSet got;
    for (long seq = 0; !stop.load(); ++seq) {
      const auto began = Clock::now().time_since_epoch().count();
      Status st;
      if (!reading.load()) {
        const std::string value = std::to_string(seq);
        const Field f{"field0", value};
        st = s->Insert("usertable", "kill-test-row", std::span<const Field>(&f, 1));
        if (st.ok()) acked = seq;
      } else {
        st = s->Read("usertable", "kill-test-row", FieldSelector{}, &got);
        if (st.ok() && began >= mark.load() && answered_after++ == 0 && got.record_count() == 1 &&
            got.field_count(0) == 1) {
          read_after = std::stol(std::string(got.field(0, 0).value));
        }
      }
      if (!st.ok()) {
        failed++;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
  });

  // The run, killed 4 s in; it ends at its maxexecutiontime of 12 s.
  constexpr int kRunS = 12;
  test_util::ProcessResult run;
  std::thread runner([&] {
    std::vector<std::string> args = {"run",      "hbase", "-P", workload, "-p", "recordcount=500",
                                     "-p",       "operationcount=100000000", "-p",
                                     "maxexecutiontime=" + std::to_string(kRunS), "-p", "hbase.timeout_ms=2000",
                                     "-threads", "4"};
    args.insert(args.end(), props.begin(), props.end());
    run = test_util::RunProcess(STOREBENCH_BINARY, args, po);
  });
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const long acked_before_kill = acked.load();
  ASSERT_EQ(kill(hbase.Pid(), SIGKILL), 0);
  reading = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const long acked_at_kill = acked.load();  // (a write in flight may still have been answered)
  runner.join();

  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_LT(run.wall_ms, (kRunS + 2 + 4) * 1000L) << "ends on time: maxexecutiontime + one timeout (+ start)";
  EXPECT_NE(run.out.find("[OVERALL], RunTime(ms)"), std::string::npos) << run.out;
  const long ok = ReturnCount(run.out, "READ", "OK") + ReturnCount(run.out, "UPDATE", "OK");
  const long errors = ReturnCount(run.out, "READ", "SERVICE_UNAVAILABLE") +
                      ReturnCount(run.out, "UPDATE", "SERVICE_UNAVAILABLE") + ReturnCount(run.out, "READ", "ERROR") +
                      ReturnCount(run.out, "UPDATE", "ERROR");
  EXPECT_GT(ok, 0) << run.out;
  EXPECT_GT(errors, 0) << "the operations after the kill are counted as errors\n" << run.out;

  // HBase back on the same ports, with the same data: the same Store answers again.
  EXPECT_GT(failed.load(), 0);
  std::cerr << "run done at " << since() << " s\n";
  ASSERT_FALSE(hbase.Start().empty());
  std::cerr << "restarted at " << since() << " s\n";
  mark = Clock::now().time_since_epoch().count();
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (answered_after.load() == 0 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  stop = true;
  writer.join();
  std::cerr << "answered again at " << since() << " s\n";
  EXPECT_GT(answered_after.load(), 0) << "the store did not reconnect within 60 s of HBase being back";

  // What was acknowledged before the kill survived it (the WAL was replayed).
  EXPECT_GT(acked_before_kill, 0);
  EXPECT_GE(read_after.load(), acked_at_kill);
}

}  // namespace
}  // namespace storebench
