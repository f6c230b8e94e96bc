// The ignite binding when a node goes away: a cluster of two nodes of the
// test's own (scripts/servers/ignite.sh, backups=1), writers on four
// threads, node 1 killed (SIGKILL) in the middle. The writers finish on
// time, the writes that failed are counted, and afterwards every
// acknowledged write reads back with its value (or with a later one that
// was attempted): FULL_SYNC makes an acknowledged write the backup's too.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

class IgniteCluster {
 public:
  explicit IgniteCluster(int nodes) {
    std::string tmpl = (fs::temp_directory_path() / "storebench-ignite-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return;
    dir_ = tmpl;
    test_util::ProcessOptions o;
    o.cwd = dir_;
    o.env.emplace_back("IGNITE_BACKUPS", "1");
    auto r = test_util::RunProcess("/bin/bash", {Script(), "start", dir_ + "/nodes", std::to_string(nodes)}, o);
    if (r.code != 0) {
      ADD_FAILURE() << "ignite.sh start: " << r.err;
      return;
    }
    settings_ = test_util::ParseSettings(r.out);
  }
  ~IgniteCluster() {
    if (dir_.empty()) return;
    test_util::ProcessOptions o;
    o.cwd = dir_;
    test_util::RunProcess("/bin/bash", {Script(), "stop", dir_ + "/nodes"}, o);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  bool ok() const { return !settings_.empty(); }
  const test_util::Settings& settings() const { return settings_; }
  // Node k's pid (DIR/pids: one a line, in node order).
  pid_t Pid(int k) const {
    std::istringstream in(test_util::Slurp(dir_ + "/nodes/pids"));
    long pid = 0;
    for (int i = 0; i <= k; ++i) in >> pid;
    return static_cast<pid_t>(pid);
  }

 private:
  static std::string Script() { return std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/ignite.sh"; }
  std::string dir_;
  test_util::Settings settings_;
};

TEST(IgniteFailoverTest, KilledNodeCostsOnlyItsRequestsAndAcknowledgedWritesSurvive) {
  STOREBENCH_NEED_BINDING("ignite");
  test_util::Settings shared;
  STOREBENCH_NEED_SERVER("ignite", shared);  // (a machine that runs the ignite tests at all)
  IgniteCluster cluster(2);
  ASSERT_TRUE(cluster.ok());
  Properties p;
  for (const auto& [k, v] : cluster.settings()) p.Set(k, v);
  p.Set("table", "failover");
  p.Set("fieldcount", "1");
  p.Set("ignite.backups", "1");
  p.Set("ignite.write_sync", "full_sync");
  p.Set("ignite.timeout_ms", "3000");
  std::unique_ptr<Store> store = FindBinding("ignite").open(p, OpenContext{});

  constexpr int kThreads = 4;
  constexpr int kKeysPerThread = 200;
  constexpr auto kRun = std::chrono::seconds(8);
  // Per key: the last acknowledged value's sequence number, and the highest
  // sequence number attempted (a failed write may or may not have landed).
  struct KeyState {
    long acked = -1;
    long attempted = -1;
  };
  std::vector<std::vector<KeyState>> state(kThreads, std::vector<KeyState>(kKeysPerThread));
  std::atomic<long> ok{0}, failed{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      auto s = store->NewSession(t);
      for (long seq = 0; std::chrono::steady_clock::now() - start < kRun; ++seq) {
        const int k = static_cast<int>(seq % kKeysPerThread);
        const std::string key = "t" + std::to_string(t) + "k" + std::to_string(k);
        const std::string value = std::to_string(seq);
        const Field f{"field0", value};
        state[t][k].attempted = seq;
        if (s->Insert("failover", key, std::span<const Field>(&f, 1)).ok()) {
          state[t][k].acked = seq;
          ok++;
        } else {
          failed++;
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const long ok_before_kill = ok.load();
  ASSERT_EQ(kill(cluster.Pid(1), SIGKILL), 0);
  for (auto& w : writers) w.join();
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  // On time: the run's 8 s, plus at most one operation's timeout.
  EXPECT_LT(took_s, 8 + 3 + 1.0);
  EXPECT_GT(ok_before_kill, 0);
  EXPECT_GT(ok.load(), ok_before_kill) << "writes went on after the kill";
  EXPECT_GT(failed.load(), 0) << "the killed node's requests in flight are counted as failures";
  EXPECT_LT(failed.load(), ok.load());

  // Every acknowledged write is there: its value, or a later attempted one.
  auto reader = store->NewSession(0);
  RecordSet rs;
  int checked = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kKeysPerThread; ++k) {
      const KeyState& ks = state[t][k];
      if (ks.acked < 0) continue;
      const std::string key = "t" + std::to_string(t) + "k" + std::to_string(k);
      Status st = Status::Error();
      for (int attempt = 0; attempt < 50 && !st.ok(); ++attempt) {  // (while the survivor takes over)
        st = reader->Read("failover", key, FieldSelector{}, &rs);
        if (!st.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      ASSERT_TRUE(st.ok()) << key << ": " << st.name();
      const long got = std::atol(std::string(rs.Find(0, "field0").value_or("-1")).c_str());
      EXPECT_GE(got, ks.acked) << key;
      EXPECT_LE(got, ks.attempted) << key;
      ++checked;
    }
  }
  EXPECT_EQ(checked, kThreads * kKeysPerThread);
  const auto stats = store->Stats();
  std::map<std::string, std::string> m(stats.begin(), stats.end());
  EXPECT_EQ(m["nodes"], "2");
  store->Close();
}

}  // namespace
}  // namespace storebench
