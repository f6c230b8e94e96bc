// CoreWorkload: property parsing and validation, key choice bounds, the
// operation mix, inserts during a run (acknowledged keys only), and data
// integrity, run against the real in-process `memory` store.
#include "workload/core_workload.h"

#include <gtest/gtest.h>

#include "test_util.h"

#include "core/error.h"
#include "db/registry.h"
#include "runner/runner.h"

namespace storebench {
namespace {

Properties Props(std::initializer_list<std::pair<const char*, const char*>> kv) {
  Properties p;
  for (auto& [k, v] : kv) p.Set(k, v);
  return p;
}

using test_util::FindOp;

PhaseResult RunPhase(Store& store, CoreWorkload& w, bool loading, std::uint64_t ops, int threads) {
  RunnerOptions o;
  o.loading = loading;
  o.threads = threads;
  o.operation_count = ops;
  SteadyClock clock;
  return Runner(store, w, o, clock, nullptr).Run();
}

TEST(CoreWorkloadOptionsTest, DefaultsAreYcsbs) {
  Properties p = Props({{"recordcount", "100"}});
  auto o = CoreWorkloadOptions::FromProperties(p);
  EXPECT_EQ(o.table, "usertable");
  EXPECT_EQ(o.fieldcount, 10);
  EXPECT_EQ(o.fieldlength, 100);
  EXPECT_EQ(o.fieldlengthdistribution, "constant");
  EXPECT_TRUE(o.readallfields);
  EXPECT_FALSE(o.writeallfields);
  EXPECT_DOUBLE_EQ(o.readproportion, 0.95);
  EXPECT_DOUBLE_EQ(o.updateproportion, 0.05);
  EXPECT_EQ(o.requestdistribution, "uniform");
  EXPECT_EQ(o.maxscanlength, 1000);
  EXPECT_FALSE(o.ordered_inserts);
  EXPECT_EQ(o.insertcount, 100);
  EXPECT_DOUBLE_EQ(o.hotspotdatafraction, 0.2);
  EXPECT_DOUBLE_EQ(o.hotspotopnfraction, 0.8);
}

TEST(CoreWorkloadOptionsTest, InsertCountDefaultsToTheRestOfRecordCount) {
  Properties p = Props({{"recordcount", "1000"}, {"insertstart", "400"}});
  EXPECT_EQ(CoreWorkloadOptions::FromProperties(p).insertcount, 600);
}

TEST(CoreWorkloadOptionsTest, BadInputIsAConfigErrorNamingTheProperty) {
  auto expect_error = [](Properties p, const std::string& needle) {
    try {
      CoreWorkloadOptions::FromProperties(p);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(Props({{"recordcount", "-5"}}), "recordcount");
  expect_error(Props({{"operationcount", "lots"}}), "operationcount");
  expect_error(Props({{"requestdistribution", "zipfan"}}), "zipfian");
  expect_error(Props({{"readproportion", "0"}, {"updateproportion", "0"}}), "sum to 0");
  expect_error(Props({{"readproportion", "-0.5"}}), "readproportion");
  expect_error(Props({{"dataintegrity", "true"}, {"fieldlengthdistribution", "uniform"}}), "dataintegrity");
  expect_error(Props({{"minscanlength", "10"}, {"maxscanlength", "5"}}), "minscanlength");
  expect_error(Props({{"workload", "site.ycsb.workloads.RestWorkload"}}), "CoreWorkload");
  expect_error(Props({{"insertorder", "random"}}), "insertorder");
}

TEST(CoreWorkloadTest, DeterministicValueMatchesYcsbsAlgorithm) {
  // YCSB's buildDeterministicValue, written the slow way: hash the whole
  // string again at every step.
  auto java_hash = [](const std::string& s) {
    std::int32_t h = 0;
    for (char c : s) h = static_cast<std::int32_t>(31u * static_cast<std::uint32_t>(h) + static_cast<unsigned char>(c));
    return h;
  };
  for (std::size_t size : {1u, 12u, 13u, 50u, 100u, 1000u}) {
    std::string sb = "user6284781860667377211:field3";
    while (sb.size() < size) sb += ":" + std::to_string(java_hash(sb));
    sb.resize(size);
    std::string got;
    CoreWorkloadThread::DeterministicValue("user6284781860667377211", "field3", size, &got);
    EXPECT_EQ(got, sb) << size;
  }
}

TEST(CoreWorkloadTest, UniformKeysStayInTheLoadedRange) {
  Properties p = Props({{"recordcount", "1000"}, {"insertstart", "200"}, {"insertcount", "300"}, {"seed", "7"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  auto t = w.NewThread(0);
  std::int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (int i = 0; i < 20000; ++i) {
    std::int64_t k = t->NextKeynum();
    lo = std::min(lo, k);
    hi = std::max(hi, k);
  }
  EXPECT_EQ(lo, 200);
  EXPECT_EQ(hi, 499);
}

TEST(CoreWorkloadTest, ZipfianKeysNeverPassTheAcknowledgedLimit) {
  Properties p = Props({{"recordcount", "100"}, {"operationcount", "100000"}, {"insertproportion", "0.5"},
                        {"readproportion", "0.5"}, {"updateproportion", "0"}, {"requestdistribution", "zipfian"},
                        {"seed", "3"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  auto t = w.NewThread(0);
  for (int i = 0; i < 20000; ++i) EXPECT_LE(t->NextKeynum(), 99);
}

TEST(CoreWorkloadTest, WorkloadAMixIsHalfReadsHalfUpdates) {
  Properties p = Props({{"recordcount", "1000"}, {"operationcount", "20000"}, {"readproportion", "0.5"},
                        {"updateproportion", "0.5"}, {"requestdistribution", "zipfian"}, {"seed", "11"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  RunPhase(*store, w, true, 1000, 2);
  PhaseResult r = RunPhase(*store, w, false, 20000, 2);
  ASSERT_NE(FindOp(r, "READ"), nullptr);
  ASSERT_NE(FindOp(r, "UPDATE"), nullptr);
  const double reads = static_cast<double>(FindOp(r, "READ")->return_codes[Status::kOk]);
  EXPECT_NEAR(reads / 20000.0, 0.5, 0.02);
  EXPECT_EQ(FindOp(r, "READ-FAILED"), nullptr);
  EXPECT_EQ(FindOp(r, "UPDATE-FAILED"), nullptr);
}

TEST(CoreWorkloadTest, WorkloadDReadsOnlyAcknowledgedInserts) {
  // 4 threads insert while others read the latest keys: no read may target
  // a key whose insert has not completed, so no read may miss.
  Properties p = Props({{"recordcount", "500"}, {"operationcount", "40000"}, {"readproportion", "0.5"},
                        {"updateproportion", "0"}, {"insertproportion", "0.5"}, {"requestdistribution", "latest"},
                        {"seed", "5"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  RunPhase(*store, w, true, 500, 2);
  PhaseResult r = RunPhase(*store, w, false, 40000, 4);
  ASSERT_NE(FindOp(r, "INSERT"), nullptr);
  ASSERT_NE(FindOp(r, "READ"), nullptr);
  EXPECT_GT(FindOp(r, "INSERT")->return_codes[Status::kOk], 15000u);
  EXPECT_EQ(FindOp(r, "READ")->return_codes[Status::kNotFound], 0u);
  EXPECT_EQ(FindOp(r, "READ-FAILED"), nullptr);
}

TEST(CoreWorkloadTest, ScansAndReadModifyWritesRun) {
  Properties p = Props({{"recordcount", "300"}, {"operationcount", "2000"}, {"readproportion", "0"},
                        {"updateproportion", "0"}, {"scanproportion", "0.5"}, {"readmodifywriteproportion", "0.5"},
                        {"maxscanlength", "10"}, {"seed", "9"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  RunPhase(*store, w, true, 300, 1);
  PhaseResult r = RunPhase(*store, w, false, 2000, 2);
  ASSERT_NE(FindOp(r, "SCAN"), nullptr);
  ASSERT_NE(FindOp(r, "READ-MODIFY-WRITE"), nullptr);
  const std::uint64_t rmw = FindOp(r, "READ-MODIFY-WRITE")->return_codes[Status::kOk];
  // Each read-modify-write is also one read and one update.
  EXPECT_EQ(FindOp(r, "READ")->return_codes[Status::kOk], rmw);
  EXPECT_EQ(FindOp(r, "UPDATE")->return_codes[Status::kOk], rmw);
  EXPECT_EQ(FindOp(r, "SCAN")->return_codes[Status::kOk] + rmw, 2000u);
}

TEST(CoreWorkloadTest, DataIntegrityPassesOnGoodDataAndCatchesACorruptRecord) {
  Properties p = Props({{"recordcount", "200"}, {"operationcount", "4000"}, {"readproportion", "0.5"},
                        {"updateproportion", "0.5"}, {"dataintegrity", "true"}, {"requestdistribution", "uniform"},
                        {"seed", "13"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  RunPhase(*store, w, true, 200, 2);
  PhaseResult good = RunPhase(*store, w, false, 4000, 2);
  EXPECT_EQ(good.integrity_failures, 0u);
  EXPECT_EQ(FindOp(good, "READ-FAILED"), nullptr);

  // Corrupt one record behind the workload's back.
  auto s = store->NewSession(0);
  std::vector<std::string> names;
  std::vector<Field> fields;
  for (int i = 0; i < 10; ++i) names.push_back("field" + std::to_string(i));
  std::string junk(100, 'x');
  for (auto& n : names) fields.push_back({n, junk});
  ASSERT_TRUE(s->Insert("usertable", w.BuildKey(17), fields).ok());
  Properties p2 = Props({{"recordcount", "200"}, {"operationcount", "4000"}, {"readproportion", "1"},
                         {"updateproportion", "0"}, {"dataintegrity", "true"}, {"seed", "13"}});
  CoreWorkload w2(CoreWorkloadOptions::FromProperties(p2));
  PhaseResult bad = RunPhase(*store, w2, false, 4000, 2);
  EXPECT_GT(bad.integrity_failures, 0u);
  ASSERT_NE(FindOp(bad, "READ"), nullptr);
  EXPECT_EQ(FindOp(bad, "READ")->return_codes[Status::kUnexpectedState], bad.integrity_failures);
  ASSERT_NE(FindOp(bad, "READ-FAILED"), nullptr);
}

TEST(CoreWorkloadOptionsTest, BatchPropertiesDefaultAndBounds) {
  auto o = CoreWorkloadOptions::FromProperties(Props({{"recordcount", "10"}}));
  EXPECT_EQ(o.batch_size, 1);
  EXPECT_DOUBLE_EQ(o.batchinsertproportion, 0);
  auto only_batches = CoreWorkloadOptions::FromProperties(
      Props({{"readproportion", "0"}, {"updateproportion", "0"}, {"batchinsertproportion", "1"}}));
  EXPECT_DOUBLE_EQ(only_batches.batchinsertproportion, 1);
  for (const char* bad : {"0", "-3", "10001", "ten"}) {
    try {
      CoreWorkloadOptions::FromProperties(Props({{"batch.size", bad}}));
      ADD_FAILURE() << "no error for batch.size=" << bad;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("batch.size"), std::string::npos) << e.what();
    }
  }
}

// Reads every key number in [0, n) and checks that exactly those exist, with
// the dataintegrity values of the workload.
void ExpectExactlyRecords(Store& store, const CoreWorkload& w, std::int64_t n) {
  auto s = store.NewSession(0);
  RecordSet rs;
  std::string want;
  for (std::int64_t k = 0; k < n; ++k) {
    const std::string key = w.BuildKey(k);
    ASSERT_EQ(s->Read("usertable", key, FieldSelector{}, &rs), Status::Ok()) << k;
    ASSERT_EQ(rs.field_count(0), 10u) << k;
    for (std::size_t f = 0; f < 10; ++f) {
      CoreWorkloadThread::DeterministicValue(key, rs.field(0, f).name, 100, &want);
      ASSERT_EQ(rs.field(0, f).value, want) << k;
    }
  }
  for (std::int64_t k = n; k < n + 50; ++k) {
    ASSERT_EQ(s->Read("usertable", w.BuildKey(k), FieldSelector{}, &rs), Status::NotFound()) << k;
  }
}

TEST(CoreWorkloadTest, LoadInBatchesWritesExactlyRecordcountRecords) {
  // 1003 records over 3 threads (335 + 334 + 334) in batches of 100: 4
  // batches per thread, the last one partial.
  Properties p = Props({{"recordcount", "1003"}, {"batch.size", "100"}, {"dataintegrity", "true"}, {"seed", "21"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  EXPECT_EQ(w.OpTypes(true), (std::vector<OpType>{OpType::kBatchInsert, OpType::kBatchInsertPerRecord}));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  PhaseResult r = RunPhase(*store, w, true, 1003, 3);
  EXPECT_EQ(r.operations, 1003u) << "load counts records";
  EXPECT_EQ(FindOp(r, "INSERT"), nullptr);
  ASSERT_NE(FindOp(r, "BATCH-INSERT"), nullptr);
  ASSERT_NE(FindOp(r, "BATCH-INSERT-PER-RECORD"), nullptr);
  EXPECT_EQ(FindOp(r, "BATCH-INSERT")->return_codes[Status::kOk], 12u);
  EXPECT_EQ(FindOp(r, "BATCH-INSERT")->service.count(), 12u);
  EXPECT_EQ(FindOp(r, "BATCH-INSERT-PER-RECORD")->return_codes[Status::kOk], 1003u);
  EXPECT_EQ(FindOp(r, "BATCH-INSERT-PER-RECORD")->service.count(), 1003u);
  std::uint64_t series = 0;
  for (const auto& pt : r.series) series += pt.operations;
  EXPECT_EQ(series, 1003u) << "the series counts records in load too";
  ExpectExactlyRecords(*store, w, 1003);
}

TEST(CoreWorkloadTest, BatchInsertProportionWritesFreshContiguousKeysReadableAtOnce) {
  Properties p = Props({{"recordcount", "100"}, {"operationcount", "4000"}, {"readproportion", "0.5"},
                        {"updateproportion", "0"}, {"batchinsertproportion", "0.5"}, {"batch.size", "10"},
                        {"requestdistribution", "latest"}, {"dataintegrity", "true"}, {"seed", "23"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  RunPhase(*store, w, true, 100, 1);
  PhaseResult r = RunPhase(*store, w, false, 4000, 3);
  EXPECT_EQ(r.operations, 4000u) << "run counts a batch as one operation";
  const OpResult* b = FindOp(r, "BATCH-INSERT");
  const OpResult* per = FindOp(r, "BATCH-INSERT-PER-RECORD");
  ASSERT_NE(b, nullptr);
  ASSERT_NE(per, nullptr);
  const std::uint64_t batches = b->return_codes[Status::kOk];
  EXPECT_NEAR(static_cast<double>(batches) / 4000.0, 0.5, 0.03);
  EXPECT_EQ(FindOp(r, "READ")->return_codes[Status::kOk] + batches, 4000u);
  EXPECT_EQ(per->return_codes[Status::kOk], 10 * batches);
  // Per record: each batch's latency split over its 10 records (rounded down).
  EXPECT_LE(per->service.sum(), b->service.sum());
  EXPECT_GE(per->service.sum() + 10 * batches, b->service.sum());
  // Reads choose among acknowledged keys only, batch-inserted ones included.
  EXPECT_EQ(FindOp(r, "READ")->return_codes[Status::kNotFound], 0u);
  EXPECT_EQ(r.integrity_failures, 0u);
  std::uint64_t series = 0;
  for (const auto& pt : r.series) series += pt.operations;
  EXPECT_EQ(series, 4000u);
  // Fresh keys, none skipped or written twice: exactly 100 + 10 x batches records.
  ExpectExactlyRecords(*store, w, 100 + 10 * static_cast<std::int64_t>(batches));
}

// BATCH-READ: one operation per batch, its own share of the mix, every
// record of a batch checked (a corrupt one among 20 is caught), and keys
// past the loaded range make the batch NOT_FOUND.
TEST(CoreWorkloadTest, BatchReadsCountBatchesAndCheckEveryRecord) {
  Properties p = Props({{"recordcount", "200"}, {"operationcount", "3000"}, {"readproportion", "0.7"},
                        {"updateproportion", "0"}, {"batchreadproportion", "0.3"}, {"batch.size", "20"},
                        {"requestdistribution", "uniform"}, {"dataintegrity", "true"}, {"seed", "29"}});
  CoreWorkload w(CoreWorkloadOptions::FromProperties(p));
  Properties none;
  auto store = FindBinding("memory").open(none, OpenContext{});
  RunPhase(*store, w, true, 200, 2);
  PhaseResult good = RunPhase(*store, w, false, 3000, 3);
  EXPECT_EQ(good.operations, 3000u) << "run counts a batch as one operation";
  const OpResult* b = FindOp(good, "BATCH-READ");
  ASSERT_NE(b, nullptr);
  const std::uint64_t batches = b->return_codes[Status::kOk];
  EXPECT_NEAR(static_cast<double>(batches) / 3000.0, 0.3, 0.03);
  EXPECT_EQ(FindOp(good, "READ")->return_codes[Status::kOk] + batches, 3000u);
  EXPECT_EQ(good.integrity_failures, 0u);

  // One corrupt record: a batch of 20 out of 200 holds it about one time in 10.
  auto s = store->NewSession(0);
  std::vector<Field> fields;
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) names.push_back("field" + std::to_string(i));
  const std::string junk(100, 'x');
  for (auto& n : names) fields.push_back({n, junk});
  ASSERT_TRUE(s->Insert("usertable", w.BuildKey(17), fields).ok());
  Properties p2 = p;
  p2.Set("readproportion", "0");
  p2.Set("batchreadproportion", "1");
  CoreWorkload w2(CoreWorkloadOptions::FromProperties(p2));
  PhaseResult bad = RunPhase(*store, w2, false, 1000, 2);
  ASSERT_NE(FindOp(bad, "BATCH-READ"), nullptr);
  EXPECT_GT(bad.integrity_failures, 20u);
  EXPECT_LT(bad.integrity_failures, 250u);
  EXPECT_EQ(FindOp(bad, "BATCH-READ")->return_codes[Status::kUnexpectedState], bad.integrity_failures);

  // Keys beyond what was loaded: most batches miss one.
  Properties p3 = p2;
  p3.Set("recordcount", "400");
  p3.Set("dataintegrity", "false");
  CoreWorkload w3(CoreWorkloadOptions::FromProperties(p3));
  PhaseResult missing = RunPhase(*store, w3, false, 500, 2);
  EXPECT_GT(FindOp(missing, "BATCH-READ")->return_codes[Status::kNotFound], 450u);
}

}  // namespace
}  // namespace storebench
