// Tests of the aerospike binding against a real Aerospike server
// (scripts/servers/aerospike.sh, started once by the test command where asd
// is found: STOREBENCH_TEST_SERVER_AEROSPIKE). Each test writes to a set of
// its own, so tests never see each other's records. What the binding wrote
// is checked with the server's own statistics (the info protocol's
// `sets/NS/SET` objects count), not only by reading it back.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "db/aerospike/cluster.h"
#include "db/aerospike/proto.h"
#include "db/binding.h"
#include "db/registry.h"
#include "net/socket.h"
#include "test_util.h"

namespace storebench {
namespace {

using test_util::Owned;
using test_util::Settings;

class AerospikeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_BINDING("aerospike");
    STOREBENCH_NEED_SERVER("aerospike", server_);
    set_ = test_util::UniqueTable("as");
  }
  std::unique_ptr<Store> Open(const Owned& extra = {}) const {
    return FindBinding("aerospike").open(test_util::ServerProps(server_, set_, extra), OpenContext{});
  }
  // The server's properties as -p arguments.
  std::vector<std::string> ServerArgs() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : server_) out.insert(out.end(), {"-p", k + "=" + v});
    return out;
  }
  // Runs `storebench args... --json DIR/NAME.json`; it must exit 0. Its
  // result's phases (one) go to *phase.
  void Cli(const std::vector<std::string>& args, const std::string& name, nlohmann::json* phase,
           test_util::ProcessResult* result = nullptr) {
    std::vector<std::string> a = args;
    const std::string json = (tmp_.path() / (name + ".json")).string();
    a.insert(a.end(), {"--json", json});
    test_util::ProcessOptions o;
    o.cwd = tmp_.path().string();
    test_util::ProcessResult r = test_util::RunProcess(STOREBENCH_BINARY, a, o);
    ASSERT_EQ(r.code, 0) << name << ": " << r.out << r.err;
    std::ifstream f(json);
    const nlohmann::json j = nlohmann::json::parse(f);
    ASSERT_EQ(j.at("phases").size(), 1u) << name;
    *phase = j.at("phases").at(0);
    if (result != nullptr) *result = std::move(r);
  }
  // The count of return code `code` of operation `op` in a result phase (0 when absent).
  static std::uint64_t Returned(const nlohmann::json& phase, const std::string& op, const std::string& code) {
    for (const auto& o : phase.at("ops")) {
      if (o.at("name") != op) continue;
      const auto& rc = o.at("return_codes");
      return rc.contains(code) ? rc.at(code).get<std::uint64_t>() : 0;
    }
    return 0;
  }
  // The store_stats value `name` of a result phase ("" when absent).
  static std::string StoreStat(const nlohmann::json& phase, const std::string& name) {
    const auto& s = phase.at("store_stats");
    return s.contains(name) ? s.at(name).get<std::string>() : "";
  }
  // The value of `name` (e.g. "objects") in the server's `sets/NS/SET`
  // statistics ("name=value:name=value..."), asked of the seed node;
  // nullopt when the server does not answer or does not know the set.
  std::optional<std::uint64_t> SetStatistic(const std::string& name) const {
    const std::string host = test_util::SettingOf(server_, "aerospike.host");
    const std::string port = test_util::SettingOf(server_, "aerospike.port");
    const net::Endpoint ep =
        net::ParseEndpointList(host, port.empty() ? 3000 : std::stoi(port), "aerospike.host")[0];
    net::TcpConnection conn(ep);
    const std::string request = "sets/" + test_util::SettingOf(server_, "aerospike.namespace") + "/" + set_;
    const std::string_view names[] = {request};
    std::string body;
    if (!aerospike::InfoCall(conn, names, net::DeadlineAfterMs(5000), &body).ok()) return std::nullopt;
    const std::string value = std::string(aerospike::InfoValue(body, request).value_or(""));
    const std::string key = name + "=";
    for (std::size_t at = 0; at < value.size();) {
      std::size_t end = value.find(':', at);
      if (end == std::string::npos) end = value.size();
      const std::string_view item(value.data() + at, end - at);
      if (item.substr(0, key.size()) == key) return std::stoull(std::string(item.substr(key.size())));
      at = end + 1;
    }
    return std::nullopt;
  }

  Settings server_;
  std::string set_;
  test_util::TempDir tmp_{"storebench-aerospike"};
};

// A load and a run through the CLI with dataintegrity=true: every record
// verifies, and the server itself counts the records loaded.
TEST_F(AerospikeTest, LoadIsCountedByTheServerAndARunVerifiesEveryRecord) {
  constexpr std::uint64_t kRecords = 2000;
  std::vector<std::string> common = {"-P",       std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada",
                                     "-p",       "recordcount=" + std::to_string(kRecords),
                                     "-p",       "dataintegrity=true",
                                     "-p",       "table=" + set_,
                                     "-threads", "8"};
  const auto args = ServerArgs();
  common.insert(common.end(), args.begin(), args.end());
  nlohmann::json load, run;
  std::vector<std::string> a = {"load", "aerospike"};
  a.insert(a.end(), common.begin(), common.end());
  ASSERT_NO_FATAL_FAILURE(Cli(a, "load", &load));
  EXPECT_EQ(Returned(load, "INSERT", "OK"), kRecords);
  EXPECT_EQ(load.at("ops").at(0).at("return_codes").size(), 1u) << load.at("ops").dump();
  EXPECT_EQ(SetStatistic("objects"), std::optional<std::uint64_t>(kRecords))
      << "the server's sets/test/" << set_;

  a = {"run", "aerospike", "-p", "operationcount=4000"};
  a.insert(a.end(), common.begin(), common.end());
  ASSERT_NO_FATAL_FAILURE(Cli(a, "run", &run));
  EXPECT_EQ(run.at("integrity_failures").get<std::uint64_t>(), 0u);
  EXPECT_GT(Returned(run, "READ", "OK"), 0u);
  EXPECT_GT(Returned(run, "UPDATE", "OK"), 0u);
  EXPECT_EQ(Returned(run, "READ", "OK") + Returned(run, "UPDATE", "OK"), 4000u) << run.at("ops").dump();
  EXPECT_EQ(SetStatistic("objects"), std::optional<std::uint64_t>(kRecords)) << "a run adds no record";
}

// The store's statistics after a run name the result codes the server
// answered with: the reads of keys beyond those loaded are NOT_FOUND.
TEST_F(AerospikeTest, StatsAfterARunNameTheResultCodes) {
  std::vector<std::string> common = {"-P",       std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloadc",
                                     "-p",       "table=" + set_,
                                     "-threads", "2"};
  const auto args = ServerArgs();
  common.insert(common.end(), args.begin(), args.end());
  nlohmann::json load, run;
  std::vector<std::string> a = {"load", "aerospike", "-p", "recordcount=100"};
  a.insert(a.end(), common.begin(), common.end());
  ASSERT_NO_FATAL_FAILURE(Cli(a, "load", &load));
  // Twice the records: about half the reads miss.
  a = {"run", "aerospike", "-p", "recordcount=200", "-p", "operationcount=1000"};
  a.insert(a.end(), common.begin(), common.end());
  ASSERT_NO_FATAL_FAILURE(Cli(a, "run", &run));
  const std::uint64_t ok = Returned(run, "READ", "OK"), missing = Returned(run, "READ", "NOT_FOUND");
  EXPECT_GT(ok, 0u);
  EXPECT_GT(missing, 0u);
  EXPECT_EQ(ok + missing, 1000u);
  // Each of them counted by the binding under the server's name for it.
  EXPECT_EQ(StoreStat(run, "result.OK"), std::to_string(ok)) << run.at("store_stats").dump();
  EXPECT_EQ(StoreStat(run, "result.NOT_FOUND"), std::to_string(missing)) << run.at("store_stats").dump();
  EXPECT_EQ(StoreStat(run, "nodes"), "1");
  EXPECT_EQ(StoreStat(run, "partitions_without_master"), "0");
  EXPECT_EQ(StoreStat(run, "network_errors"), "0");

  // The same in process: a store's Stats count what its sessions were answered.
  auto store = Open();
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Read(set_, "nobody", FieldSelector{}, &rs), Status::NotFound());
  std::map<std::string, std::string> stats;
  for (const auto& [k, v] : store->Stats()) stats[k] = v;
  EXPECT_EQ(stats["result.NOT_FOUND"], "1");
  EXPECT_EQ(stats.count("result.OK"), 0u);
}

// Seed 002's commands, as written (asbench's flags), against the test server.
TEST_F(AerospikeTest, Seed002CommandsRunAsWritten) {
  const auto args = ServerArgs();
  std::vector<std::string> a = {"load", "aerospike", "-k", "2000", "-o", "S:2048", "-p", "table=" + set_};
  a.insert(a.end(), args.begin(), args.end());
  nlohmann::json load, run;
  test_util::ProcessResult r;
  ASSERT_NO_FATAL_FAILURE(Cli(a, "load", &load));
  EXPECT_EQ(Returned(load, "INSERT", "OK"), 2000u) << load.at("ops").dump();
  EXPECT_EQ(SetStatistic("objects"), std::optional<std::uint64_t>(2000));
  a = {"run",   "aerospike", "-k", "2000", "-o", "S:2048", "-w",
       "RU,50", "-z",        "64", "-d",   "3",  "-p",     "table=" + set_};
  a.insert(a.end(), args.begin(), args.end());
  ASSERT_NO_FATAL_FAILURE(Cli(a, "run", &run, &r));
  EXPECT_NE(r.out.find("[READ], Return=OK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[UPDATE], Return=OK"), std::string::npos) << r.out;
  EXPECT_GT(Returned(run, "READ", "OK"), 0u);
  EXPECT_GT(Returned(run, "UPDATE", "OK"), 0u);
  for (const auto& op : run.at("ops")) {
    for (const auto& [code, count] : op.at("return_codes").items()) {
      EXPECT_EQ(code, "OK") << op.at("name") << " returned " << code << " " << count << " times";
    }
  }
  EXPECT_LT(r.wall_ms, 3000 + 10000) << "-d 3: three seconds of run";
}

}  // namespace
}  // namespace storebench
