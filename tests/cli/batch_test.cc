// Batch puts end to end through the storebench binary, on every storing
// binding: `load` with batch.size=100 (records written in batches), then a
// run of reads and batch inserts (batchinsertproportion, batch.size=10,
// requestdistribution=latest so reads go to freshly batch-inserted records)
// with dataintegrity=true. Every operation must return OK and every record
// read must verify; the load must write exactly recordcount records.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

const nlohmann::json* Op(const nlohmann::json& phase, const std::string& name) {
  for (const auto& op : phase.at("ops")) {
    if (op.at("name") == name) return &op;
  }
  return nullptr;
}

class BatchCliTest : public ::testing::TestWithParam<const BindingInfo*> {
 protected:
  test_util::TempDir tmp_{"storebench-batch"};
  const fs::path dir_ = tmp_.path();
};

TEST_P(BatchCliTest, BatchedLoadThenBatchInsertsVerifyEveryRecord) {
  const BindingInfo* binding = GetParam();
  const std::string name = binding->name;
  std::vector<std::string> common = {"-p", "recordcount=1000", "-p", "dataintegrity=true",
                                     "-p", "readproportion=0.5", "-p", "updateproportion=0",
                                     "-p", "batchinsertproportion=0.5", "-p", "requestdistribution=latest",
                                     "-p", "operationcount=400"};
  test_util::Settings server;
  if (binding->server) STOREBENCH_NEED_SERVER(name, server);
  const std::vector<std::string> store = test_util::StoreArgs(*binding, dir_, server);
  common.insert(common.end(), store.begin(), store.end());
  const Capabilities caps = test_util::ProbeCapabilities(*binding, dir_, server);

  std::vector<nlohmann::json> phases;
  std::string load_out;
  auto run = [&](const std::string& command, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {command, name};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--json", (dir_ / (command + ".json")).string()});
    test_util::ProcessOptions o;
    o.cwd = dir_.string();
    test_util::ProcessResult r = test_util::RunProcess(STOREBENCH_BINARY, args, o);
    ASSERT_EQ(r.code, 0) << command << " " << name << ": " << r.err;
    if (command != "run") load_out = r.out;
    // A store without a native batch says so once, up front.
    EXPECT_EQ(r.err.find("has no native batch insert") != std::string::npos, !caps.native_batch_insert) << r.err;
    std::ifstream f(dir_ / (command + ".json"));
    nlohmann::json j = nlohmann::json::parse(f);
    for (const auto& p : j.at("phases")) phases.push_back(p);
  };
  if (caps.persistent) {
    ASSERT_NO_FATAL_FAILURE(run("load", {"-p", "batch.size=100"}));
    ASSERT_NO_FATAL_FAILURE(run("run", {"-p", "batch.size=10", "-threads", "2"}));
  } else {
    // One process: its load and run share batch.size.
    ASSERT_NO_FATAL_FAILURE(run("bench", {"-p", "batch.size=100", "-threads", "2"}));
  }
  ASSERT_EQ(phases.size(), 2u);
  const std::uint64_t run_batch = caps.persistent ? 10 : 100;
  for (const auto& phase : phases) {
    EXPECT_EQ(phase.at("integrity_failures").get<std::uint64_t>(), 0u);
    for (const auto& op : phase.at("ops")) {
      for (const auto& [code, count] : op.at("return_codes").items()) {
        EXPECT_EQ(code, "OK") << name << " " << phase.at("phase") << ": " << op.at("name") << " returned " << code
                              << " " << count;
      }
    }
  }
  const nlohmann::json& load = phases[0];
  EXPECT_EQ(load.at("operations").get<std::uint64_t>(), 1000u) << "load counts records";
  EXPECT_EQ(Op(load, "INSERT"), nullptr);
  ASSERT_NE(Op(load, "BATCH-INSERT"), nullptr);
  ASSERT_NE(Op(load, "BATCH-INSERT-PER-RECORD"), nullptr);
  const std::uint64_t load_batches = 10;  // 1000 / 100 (bench: 500 records per thread, 5 batches each)
  EXPECT_EQ((*Op(load, "BATCH-INSERT")).at("return_codes").at("OK").get<std::uint64_t>(), load_batches);
  EXPECT_EQ((*Op(load, "BATCH-INSERT-PER-RECORD")).at("return_codes").at("OK").get<std::uint64_t>(), 1000u);
  if (caps.persistent) {
    EXPECT_NE(load_out.find("[BATCH-INSERT-PER-RECORD], Operations, 1000\n"), std::string::npos) << load_out;
    EXPECT_NE(load_out.find("[BATCH-INSERT], Operations, 10\n"), std::string::npos) << load_out;
  }

  const nlohmann::json& run_phase = phases[1];
  EXPECT_EQ(run_phase.at("operations").get<std::uint64_t>(), 400u) << "run counts a batch as one operation";
  ASSERT_NE(Op(run_phase, "BATCH-INSERT"), nullptr);
  ASSERT_NE(Op(run_phase, "READ"), nullptr);
  const std::uint64_t batches = (*Op(run_phase, "BATCH-INSERT")).at("return_codes").at("OK").get<std::uint64_t>();
  EXPECT_GT(batches, 120u);
  EXPECT_LT(batches, 280u);
  EXPECT_EQ((*Op(run_phase, "BATCH-INSERT-PER-RECORD")).at("return_codes").at("OK").get<std::uint64_t>(),
            run_batch * batches);
}

std::vector<const BindingInfo*> Storing() {
  std::vector<const BindingInfo*> out;
  for (const BindingInfo* b : AllBindings()) {
    if (b->name != "null") out.push_back(b);
  }
  return out;
}

std::string Name(const ::testing::TestParamInfo<const BindingInfo*>& info) {
  std::string n = info.param->name;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllBindings, BatchCliTest, ::testing::ValuesIn(Storing()), Name);

}  // namespace
}  // namespace storebench
