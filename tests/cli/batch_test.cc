// Batch puts end to end through the storebench binary, on every storing
// binding: `load` with batch.size=100 (records written in batches), then a
// run of reads and batch inserts (batchinsertproportion, batch.size=10,
// requestdistribution=latest so reads go to freshly batch-inserted records)
// with dataintegrity=true. Every operation must return OK and every record
// read must verify; the load must write exactly recordcount records.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/store_cli_test.h"

namespace storebench {
namespace {

const nlohmann::json* Op(const nlohmann::json& phase, const std::string& name) {
  for (const auto& op : phase.at("ops")) {
    if (op.at("name") == name) return &op;
  }
  return nullptr;
}

class BatchCliTest : public StoreCliTest<const BindingInfo*> {};

TEST_P(BatchCliTest, BatchedLoadThenBatchInsertsVerifyEveryRecord) {
  const BindingInfo* binding = GetParam();
  const std::string name = binding->name;
  props_ = {"-p", "recordcount=1000", "-p", "dataintegrity=true",
            "-p", "readproportion=0.5", "-p", "updateproportion=0",
            "-p", "batchinsertproportion=0.5", "-p", "requestdistribution=latest",
            "-p", "operationcount=400"};
  ASSERT_NO_FATAL_FAILURE(UseBinding(*binding));
  if (IsSkipped()) return;

  std::string load_out;
  auto run = [&](const std::string& command, const std::vector<std::string>& extra) {
    test_util::ProcessResult r;
    ASSERT_NO_FATAL_FAILURE(RunCommand(command, extra, name, &r));
    if (command != "run") load_out = r.out;
    // A store without a native batch says so once, up front.
    EXPECT_EQ(r.err.find("has no native batch insert") != std::string::npos, !caps_.native_batch_insert) << r.err;
  };
  if (caps_.persistent) {
    ASSERT_NO_FATAL_FAILURE(run("load", {"-p", "batch.size=100"}));
    ASSERT_NO_FATAL_FAILURE(run("run", {"-p", "batch.size=10", "-threads", "2"}));
  } else {
    // One process: its load and run share batch.size.
    ASSERT_NO_FATAL_FAILURE(run("bench", {"-p", "batch.size=100", "-threads", "2"}));
  }
  ASSERT_EQ(phases_.size(), 2u);
  const std::uint64_t run_batch = caps_.persistent ? 10 : 100;
  for (const auto& phase : phases_) ExpectClean(phase, name + " " + phase.at("phase").get<std::string>());
  const nlohmann::json& load = phases_[0];
  EXPECT_EQ(load.at("operations").get<std::uint64_t>(), 1000u) << "load counts records";
  EXPECT_EQ(Op(load, "INSERT"), nullptr);
  ASSERT_NE(Op(load, "BATCH-INSERT"), nullptr);
  ASSERT_NE(Op(load, "BATCH-INSERT-PER-RECORD"), nullptr);
  const std::uint64_t load_batches = 10;  // 1000 / 100 (bench: 500 records per thread, 5 batches each)
  EXPECT_EQ((*Op(load, "BATCH-INSERT")).at("return_codes").at("OK").get<std::uint64_t>(), load_batches);
  EXPECT_EQ((*Op(load, "BATCH-INSERT-PER-RECORD")).at("return_codes").at("OK").get<std::uint64_t>(), 1000u);
  if (caps_.persistent) {
    EXPECT_NE(load_out.find("[BATCH-INSERT-PER-RECORD], Operations, 1000\n"), std::string::npos) << load_out;
    EXPECT_NE(load_out.find("[BATCH-INSERT], Operations, 10\n"), std::string::npos) << load_out;
  }

  const nlohmann::json& run_phase = phases_[1];
  EXPECT_EQ(run_phase.at("operations").get<std::uint64_t>(), 400u) << "run counts a batch as one operation";
  ASSERT_NE(Op(run_phase, "BATCH-INSERT"), nullptr);
  ASSERT_NE(Op(run_phase, "READ"), nullptr);
  const std::uint64_t batches = (*Op(run_phase, "BATCH-INSERT")).at("return_codes").at("OK").get<std::uint64_t>();
  EXPECT_GT(batches, 120u);
  EXPECT_LT(batches, 280u);
  EXPECT_EQ((*Op(run_phase, "BATCH-INSERT-PER-RECORD")).at("return_codes").at("OK").get<std::uint64_t>(),
            run_batch * batches);
}

std::string Name(const ::testing::TestParamInfo<const BindingInfo*>& info) {
  return BatchCliTest::ParamSafe(info.param->name);
}

INSTANTIATE_TEST_SUITE_P(AllBindings, BatchCliTest, ::testing::ValuesIn(BatchCliTest::StoringBindings()), Name);

}  // namespace
}  // namespace storebench
