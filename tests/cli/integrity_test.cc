// Every storing binding, end to end through the storebench binary: load then
// run (two processes for a persistent store, `bench` for one that is not)
// of workloads A, D, E and F with dataintegrity=true, in hashed and ordered
// insert order. Every operation must return OK (no NOT_FOUND either: the
// acknowledged-insert counter keeps readers off keys not yet inserted) and
// no record may fail verification. A binding added to bindings.def is covered
// here without touching this file.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "cli/store_cli_test.h"

namespace storebench {
namespace {

using Param = std::tuple<const BindingInfo*, std::string /*workload*/, std::string /*insertorder*/>;

class IntegrityTest : public StoreCliTest<Param> {};

TEST_P(IntegrityTest, LoadThenRunVerifiesEveryRecord) {
  // Named, not a structured binding: clang 14 (the fuzz preset) cannot capture one in a lambda.
  const BindingInfo* const binding = std::get<0>(GetParam());
  const std::string& workload = std::get<1>(GetParam());
  const std::string& order = std::get<2>(GetParam());
  const std::string name = binding->name;
  const std::string wl = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/" + workload;
  props_ = {"-P", wl, "-p", "recordcount=1000", "-p", "operationcount=3000",
            "-p", "dataintegrity=true", "-p", "insertorder=" + order};
  ASSERT_NO_FATAL_FAILURE(UseBinding(*binding));
  if (IsSkipped()) return;
  const std::string what = name + " " + workload;
  if (!caps_.scan && workload == std::string("workloade")) {
    GTEST_SKIP() << name << " cannot scan (" << caps_.why_no_scan << "); the CLI refuses workload E up front";
  }
  const bool persistent = caps_.persistent;
  if (persistent) {
    ASSERT_NO_FATAL_FAILURE(RunCommand("load", {}, what));
    ASSERT_NO_FATAL_FAILURE(RunCommand("run", {"-threads", "2"}, what));
  } else {
    ASSERT_NO_FATAL_FAILURE(RunCommand("bench", {"-threads", "2"}, what));
  }
  ASSERT_EQ(phases_.size(), 2u);
  const nlohmann::json& load = phases_[0];
  const nlohmann::json& run = phases_[1];
  ExpectClean(load, name + " load");
  ExpectClean(run, name + " run");
  EXPECT_EQ(load.at("ops").at(0).at("return_codes").at("OK").get<std::uint64_t>(), 1000u)
      << "every record loaded";
  if (persistent && !binding->server) {
    ASSERT_FALSE(load.at("disk_bytes").is_null()) << name << ": on-disk size after load";
    EXPECT_GT(load.at("disk_bytes").get<std::uint64_t>(), 100'000u) << "1000 records of 1 KB";
    ASSERT_FALSE(run.at("disk_bytes").is_null()) << name << ": on-disk size after run";
  }
}

std::vector<Param> Params() {
  std::vector<Param> out;
  for (const BindingInfo* b : IntegrityTest::StoringBindings()) {
    for (const char* w : {"workloada", "workloadd", "workloade", "workloadf"}) {
      for (const char* order : {"hashed", "ordered"}) out.emplace_back(b, w, order);
    }
  }
  return out;
}

std::string ParamName(const ::testing::TestParamInfo<Param>& info) {
  return IntegrityTest::ParamSafe(std::get<0>(info.param)->name + "_" + std::get<1>(info.param) + "_" +
                                  std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(AllBindings, IntegrityTest, ::testing::ValuesIn(Params()), ParamName);

}  // namespace
}  // namespace storebench
