// Every storing binding, end to end through the storebench binary: load then
// run (two processes for a persistent store, `bench` for one that is not)
// of workloads A, D, E and F with dataintegrity=true, in hashed and ordered
// insert order. Every operation must return OK (no NOT_FOUND either: the
// acknowledged-insert counter keeps readers off keys not yet inserted) and
// no record may fail verification. A binding added to bindings.def is covered
// here without touching this file.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

// Runs the storebench binary in `cwd`.
test_util::ProcessResult RunIn(const fs::path& cwd, const std::vector<std::string>& args) {
  test_util::ProcessOptions o;
  o.cwd = cwd.string();
  return test_util::RunProcess(STOREBENCH_BINARY, args, o);
}

using Param = std::tuple<const BindingInfo*, std::string /*workload*/, std::string /*insertorder*/>;

class IntegrityTest : public ::testing::TestWithParam<Param> {
 protected:

  // Checks one phase of a JSON result: no integrity failure, and every
  // return code OK.
  static void ExpectClean(const nlohmann::json& phase, const std::string& what) {
    EXPECT_EQ(phase.at("integrity_failures").get<std::uint64_t>(), 0u) << what;
    EXPECT_GT(phase.at("operations").get<std::uint64_t>(), 0u) << what;
    for (const auto& op : phase.at("ops")) {
      for (const auto& [code, count] : op.at("return_codes").items()) {
        EXPECT_EQ(code, "OK") << what << ": " << op.at("name").get<std::string>() << " returned " << code << " "
                              << count.get<std::uint64_t>() << " times";
      }
    }
  }

  test_util::TempDir tmp_{"storebench-integrity"};
  const fs::path dir_ = tmp_.path();
};

TEST_P(IntegrityTest, LoadThenRunVerifiesEveryRecord) {
  // Named, not a structured binding: clang 14 (the fuzz preset) cannot capture one in a lambda.
  const BindingInfo* const binding = std::get<0>(GetParam());
  const std::string& workload = std::get<1>(GetParam());
  const std::string& order = std::get<2>(GetParam());
  const std::string name = binding->name;
  const std::string wl = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/" + workload;
  std::vector<std::string> common = {"-P", wl, "-p", "recordcount=1000", "-p", "operationcount=3000",
                                     "-p", "dataintegrity=true", "-p", "insertorder=" + order};
  test_util::Settings server;
  if (binding->server) STOREBENCH_NEED_SERVER(name, server);
  const std::vector<std::string> store = test_util::StoreArgs(*binding, dir_, server);
  common.insert(common.end(), store.begin(), store.end());

  std::vector<nlohmann::json> phases;
  auto run = [&](const std::string& command, std::vector<std::string> extra) {
    std::vector<std::string> args = {command, name};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--json", (dir_ / (command + ".json")).string()});
    test_util::ProcessResult r = RunIn(dir_, args);
    ASSERT_EQ(r.code, 0) << command << " " << name << " " << workload << ": " << r.err;
    std::ifstream f(dir_ / (command + ".json"));
    nlohmann::json j = nlohmann::json::parse(f);
    for (const auto& p : j.at("phases")) phases.push_back(p);
  };
  const Capabilities caps = test_util::ProbeCapabilities(*binding, dir_, server);

  if (!caps.scan && workload == std::string("workloade")) {
    GTEST_SKIP() << name << " cannot scan (" << caps.why_no_scan << "); the CLI refuses workload E up front";
  }
  const bool persistent = caps.persistent;
  if (persistent) {
    ASSERT_NO_FATAL_FAILURE(run("load", {}));
    ASSERT_NO_FATAL_FAILURE(run("run", {"-threads", "2"}));
  } else {
    ASSERT_NO_FATAL_FAILURE(run("bench", {"-threads", "2"}));
  }
  ASSERT_EQ(phases.size(), 2u);
  ExpectClean(phases[0], name + " load");
  ExpectClean(phases[1], name + " run");
  EXPECT_EQ(phases[0].at("ops").at(0).at("return_codes").at("OK").get<std::uint64_t>(), 1000u)
      << "every record loaded";
  if (persistent && !binding->server) {
    ASSERT_FALSE(phases[0].at("disk_bytes").is_null()) << name << ": on-disk size after load";
    EXPECT_GT(phases[0].at("disk_bytes").get<std::uint64_t>(), 100'000u) << "1000 records of 1 KB";
    ASSERT_FALSE(phases[1].at("disk_bytes").is_null()) << name << ": on-disk size after run";
  }
}

std::vector<Param> Params() {
  std::vector<Param> out;
  for (const BindingInfo* b : AllBindings()) {
    if (b->name == "null") continue;
    for (const char* w : {"workloada", "workloadd", "workloade", "workloadf"}) {
      for (const char* order : {"hashed", "ordered"}) out.emplace_back(b, w, order);
    }
  }
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  std::string n = std::get<0>(info.param)->name + "_" + std::get<1>(info.param) + "_" + std::get<2>(info.param);
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllBindings, IntegrityTest, ::testing::ValuesIn(Params()), ParamName);

}  // namespace
}  // namespace storebench
