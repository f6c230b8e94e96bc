// The aerospike binding when a node of a two-node cluster is killed mid-run:
// a cluster of the test's own (scripts/servers/aerospike.sh in a temporary
// folder, so the shared server of the other tests is left alone; skipped
// where there is no asd), replication factor 2, and node 2 killed with
// SIGKILL while
//  - a `storebench run` of workload A with many threads goes on: it ends on
//    time (its maxexecutiontime plus at most one operation's timeout), exit
//    0, its results printed, the operations that failed counted per status
//    (ERROR, SERVICE_UNAVAILABLE) and most of them OK: node 1 claims node
//    2's partitions and the binding follows (its tend thread);
//  - a Store opened in this process stays open: once `aerospike.sh start
//    DIR` has brought node 2 back on the same ports and the partitions that
//    were node 2's have gone back to it, the same Store reads the records of
//    those partitions from node 2 itself (node 2's client_read_success
//    counts them; a read sent to node 1 would be proxied, counted there as
//    from_proxy_read_success), and its Stats count the node's failure.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "db/aerospike/cluster.h"
#include "db/aerospike/proto.h"
#include "db/aerospike/routing.h"
#include "db/binding.h"
#include "db/registry.h"
#include "net/socket.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string Script() { return std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/aerospike.sh"; }

// Where aerospike.sh finds asd: $ASD when set, else asd on PATH.
bool AsdFound() {
  if (const char* asd = std::getenv("ASD"); asd != nullptr && *asd != '\0') {
    return fs::is_regular_file(asd) && access(asd, X_OK) == 0;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    const fs::path p = fs::path(dirs.substr(at, end - at)) / "asd";
    if (end > at && fs::is_regular_file(p) && access(p.c_str(), X_OK) == 0) return true;
    at = end + 1;
  }
  return false;
}

// A two-node cluster in a folder of its own, stopped and removed at the end.
class OwnCluster {
 public:
  OwnCluster() {
    std::string tmpl = (fs::temp_directory_path() / "storebench-aerospike-kill-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return;
    dir_ = tmpl;
    settings_ = Start();
  }
  ~OwnCluster() {
    if (dir_.empty()) return;
    test_util::ProcessOptions o;
    o.cwd = dir_;
    test_util::RunProcess("/bin/bash", {Script(), "stop", dir_ + "/as"}, o);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Starts the cluster (or, in the same folder, the nodes that do not run);
  // its settings, empty on failure.
  test_util::Settings Start() {
    test_util::ProcessOptions o;
    o.cwd = dir_;
    auto r = test_util::RunProcess("/bin/bash", {Script(), "start", dir_ + "/as", "2"}, o);
    if (r.code != 0) {
      ADD_FAILURE() << "aerospike.sh start: " << r.err;
      return {};
    }
    return test_util::ParseSettings(r.out);
  }
  pid_t Pid(int node) const {
    return static_cast<pid_t>(std::stol(test_util::Slurp(dir_ + "/as/node" + std::to_string(node) + "/pid")));
  }
  // Node N's service endpoint (from aerospike.host, in node order).
  net::Endpoint Node(int node) const {
    return net::ParseEndpointList(test_util::SettingOf(settings_, "aerospike.host"), 3000, "aerospike.host")
        .at(static_cast<std::size_t>(node - 1));
  }
  const test_util::Settings& settings() const { return settings_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  test_util::Settings settings_;
};

// The info answer to `name` of the node at `ep` ("" when it does not answer).
std::string Info(const net::Endpoint& ep, const std::string& name) {
  net::TcpConnection conn(ep);
  const std::string_view names[] = {name};
  std::string body;
  if (!aerospike::InfoCall(conn, names, net::DeadlineAfterMs(2000), &body).ok()) return "";
  return std::string(aerospike::InfoValue(body, name).value_or(""));
}

// The value of `stat` in a ';'-separated "name=value" answer (-1 when absent).
long Stat(const std::string& answer, const std::string& stat) {
  std::smatch m;
  const std::regex re("(^|;)" + stat + "=([0-9]+)");
  return std::regex_search(answer, m, re) ? std::stol(m[2]) : -1;
}

long ReturnCount(const std::string& out, const std::string& op, const std::string& status) {
  std::smatch m;
  const std::regex re("\\[" + op + "\\], Return=" + status + ", ([0-9]+)");
  return std::regex_search(out, m, re) ? std::stol(m[1]) : 0;
}

TEST(AerospikeKillTest, RunGoesOnWithNodeOneAndTheStoreReadsFromNodeTwoWhenItIsBack) {
  STOREBENCH_NEED_BINDING("aerospike");
  if (!AsdFound()) GTEST_SKIP() << "no asd ($ASD or on PATH): the aerospike kill test is skipped";
  const auto t0 = Clock::now();
  auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  OwnCluster cluster;
  ASSERT_FALSE(cluster.settings().empty());
  std::cerr << "cluster of 2 started in " << since() << " s\n";
  std::vector<std::string> props;
  Properties p;
  for (const auto& [k, v] : cluster.settings()) {
    p.Set(k, v);
    props.insert(props.end(), {"-p", k + "=" + v});
  }
  p.Set("aerospike.timeout", "2000");
  constexpr int kRecords = 2000;

  // Records for the run.
  const std::string workload = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada";
  test_util::ProcessOptions po;
  po.cwd = cluster.dir();
  std::vector<std::string> load = {
      "load", "aerospike",    "-P",       workload, "-p", "recordcount=" + std::to_string(kRecords),
      "-p",   "fieldcount=2", "-threads", "8"};
  load.insert(load.end(), props.begin(), props.end());
  auto loaded = test_util::RunProcess(STOREBENCH_BINARY, load, po);
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  ASSERT_NE(loaded.out.find("[INSERT], Return=OK, " + std::to_string(kRecords)), std::string::npos)
      << loaded.out;

  // The partitions node 2 is master of.
  aerospike::PartitionBits node2;
  ASSERT_TRUE(aerospike::ParseReplicasMaster(Info(cluster.Node(2), "replicas-master"), "test", &node2));
  ASSERT_GT(node2.count(), 1000u);
  ASSERT_LT(node2.count(), 3096u);

  // One store for the whole test, open across the kill and the restart.
  std::unique_ptr<Store> store = FindBinding("aerospike").open(p, OpenContext{});
  auto session = store->NewSession(0);
  // Records of the test's own whose partitions are node 2's.
  std::vector<std::string> keys2;
  for (int i = 0; keys2.size() < 50 && i < 10000; ++i) {
    const std::string k = "kill-test-" + std::to_string(i);
    if (node2.test(
            static_cast<std::size_t>(aerospike::PartitionId(aerospike::StringKeyDigest("usertable", k))))) {
      keys2.push_back(k);
    }
  }
  for (const std::string& k : keys2) {
    const Field f{"field0", k};
    ASSERT_EQ(session->Insert("usertable", k, std::span<const Field>(&f, 1)), Status::Ok()) << k;
  }
  RecordSet got;
  ASSERT_EQ(session->Read("usertable", keys2[0], FieldSelector{}, &got), Status::Ok());

  // The run, node 2 killed 4 s in; it ends at its maxexecutiontime of 12 s.
  constexpr int kRunS = 12;
  test_util::ProcessResult run;
  std::thread runner([&] {
    std::vector<std::string> args = {"run",      "aerospike",
                                     "-P",       workload,
                                     "-p",       "recordcount=" + std::to_string(kRecords),
                                     "-p",       "fieldcount=2",
                                     "-p",       "operationcount=0",
                                     "-p",       "maxexecutiontime=" + std::to_string(kRunS),
                                     "-p",       "aerospike.timeout=2000",
                                     "-threads", "32"};
    args.insert(args.end(), props.begin(), props.end());
    run = test_util::RunProcess(STOREBENCH_BINARY, args, po);
  });
  std::this_thread::sleep_for(std::chrono::seconds(4));
  ASSERT_EQ(kill(cluster.Pid(2), SIGKILL), 0);
  std::cerr << "node 2 killed at " << since() << " s\n";
  runner.join();
  std::cerr << "run done at " << since() << " s (" << run.wall_ms << " ms)\n";

  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_LT(run.wall_ms, (kRunS + 2 + 3) * 1000L) << "ends on time: maxexecutiontime + one timeout (+ start)";
  EXPECT_NE(run.out.find("[OVERALL], RunTime(ms)"), std::string::npos) << run.out;
  long ok = 0, failed = 0;
  for (const char* op : {"READ", "UPDATE"}) {
    ok += ReturnCount(run.out, op, "OK");
    failed += ReturnCount(run.out, op, "ERROR") + ReturnCount(run.out, op, "SERVICE_UNAVAILABLE");
  }
  std::cerr << "run: " << ok << " OK, " << failed << " ERROR or SERVICE_UNAVAILABLE\n";
  EXPECT_GT(failed, 0) << "the operations node 2 did not answer are counted\n" << run.out;
  EXPECT_GT(ok, 20 * failed) << "most operations OK: node 1 took node 2's partitions\n" << run.out;

  // In this process the store went on with node 1 alone.
  for (const std::string& k : keys2) {
    ASSERT_EQ(session->Read("usertable", k, FieldSelector{}, &got), Status::Ok()) << k << " with node 2 down";
  }

  // Node 2 back on the same ports; once its partitions have gone back to it
  // (migrations done, its replicas-master holds them again), the same store
  // reads them from node 2 itself.
  ASSERT_FALSE(cluster.Start().empty());
  std::cerr << "node 2 restarted at " << since() << " s\n";
  bool back = false;
  long direct = 0;
  const auto deadline = Clock::now() + std::chrono::seconds(15);
  while (!back && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    aerospike::PartitionBits now;
    if (!aerospike::ParseReplicasMaster(Info(cluster.Node(2), "replicas-master"), "test", &now) ||
        now != node2)
      continue;
    const long before = Stat(Info(cluster.Node(2), "namespace/test"), "client_read_success");
    bool all = true;
    for (const std::string& k : keys2) {
      all = all && session->Read("usertable", k, FieldSelector{}, &got) == Status::Ok() &&
            got.record_count() == 1 && got.Find(0, "field0").value_or("") == k;
    }
    direct = Stat(Info(cluster.Node(2), "namespace/test"), "client_read_success") - before;
    back = all && direct == static_cast<long>(keys2.size());
  }
  std::cerr << "node 2 answered the store's reads at " << since() << " s\n";
  EXPECT_TRUE(back) << "within 15 s of node 2's restart, the store's " << keys2.size()
                    << " reads of its partitions went to it (the last try: " << direct << " of them)";
  std::map<std::string, std::string> stats;
  for (const auto& [k, v] : store->Stats()) stats[k] = v;
  EXPECT_EQ(stats["nodes"], "2");
  EXPECT_GE(std::stol(stats["node_failures"]), 1L) << "node 2's failure";
  EXPECT_EQ(stats["partitions_without_master"], "0");
  std::cerr << "done at " << since() << " s\n";
}

}  // namespace
}  // namespace storebench
