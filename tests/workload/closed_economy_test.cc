// Closed economy (workload=closedeconomy) on every binding with
// transactions, and the anomaly it exists to catch: PostgreSQL at read
// committed with plain read-then-write transfers loses updates (the check
// fails), while serializable (with retries) and SELECT ... FOR UPDATE keep
// the invariant.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/registry.h"
#include "measure/clock.h"
#include "runner/runner.h"
#include "test_util.h"
#include "workload/closed_economy.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Settings = std::vector<std::pair<std::string, std::string>>;

std::string MakeTempDir() {
  std::string tmpl = (fs::temp_directory_path() / "storebench-ce-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  return tmpl;
}

struct Outcome {
  PhaseResult run;
  ValidationResult validation;
};

// Loads `recordcount` accounts with `threads` threads, runs `ops`
// operations, and validates. `settings` go to both the binding and the
// workload.
Outcome RunClosedEconomy(const BindingInfo& b, const Settings& settings, int threads, std::uint64_t ops) {
  Properties p;
  for (const auto& [k, v] : settings) p.Set(k, v);
  OpenContext ctx;
  ctx.loading = true;
  ctx.thread_count = threads;
  std::unique_ptr<Store> store = b.open(p, ctx);
  ClosedEconomyWorkload w(ClosedEconomyOptions::FromProperties(p));
  SteadyClock clock;
  RunnerOptions lo;
  lo.loading = true;
  lo.threads = threads;
  lo.operation_count = static_cast<std::uint64_t>(w.options().recordcount);
  lo.binding = b.name;
  Runner(*store, w, lo, clock, nullptr).Run();
  RunnerOptions ro = lo;
  ro.loading = false;
  ro.operation_count = ops;
  Outcome out;
  out.run = Runner(*store, w, ro, clock, nullptr).Run();
  std::optional<ValidationResult> v = w.Validate(*store);
  EXPECT_TRUE(v.has_value());
  if (v) out.validation = *v;
  store->Close();
  return out;
}

// Settings under which binding `name` has transactions (and the closed
// economy must hold): its defaults, or the ones named here.
std::vector<Settings> TransactionalVariants(const std::string& name) {
  if (name == "rocksdb") return {{{"rocksdb.transactions", "pessimistic"}}, {{"rocksdb.transactions", "optimistic"}}};
  if (name == "postgresql") {
    return {{{"postgresql.isolation", "serializable"}},
            {{"postgresql.isolation", "read_committed"}, {"closedeconomy.lock", "for_update"}}};
  }
  if (name == "mariadb") {
    return {{{"mariadb.isolation", "serializable"}},
            {{"mariadb.isolation", "read-committed"}, {"closedeconomy.lock", "for_update"}}};
  }
  if (name == "ignite") {
    // Ignite's own group for transactional caches (a cache group holds one atomicity mode).
    return {{{"ignite.atomicity", "transactional"}, {"ignite.cache_group", "storebench_tx"}},
            {{"ignite.atomicity", "transactional"},
             {"ignite.cache_group", "storebench_tx"},
             {"ignite.tx.concurrency", "optimistic"},
             {"ignite.tx.isolation", "serializable"}}};
  }
  return {{}};
}

class ClosedEconomyBindingTest : public ::testing::TestWithParam<const BindingInfo*> {
 protected:
  void SetUp() override {
    if (binding().server) STOREBENCH_NEED_SERVER(binding().name, server_);
    dir_ = MakeTempDir();
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  const BindingInfo& binding() const { return *GetParam(); }

  // Runs body(settings) for each of the binding's transactional variants
  // (its own directory, the test server, a fresh table). A binding without
  // transactions is checked to refuse Begin instead.
  template <typename Body>
  void ForEachTransactionalVariant(Body&& body) {
    const BindingInfo& b = binding();
    int variant = 0;
    for (Settings s : TransactionalVariants(b.name)) {
      if (b.uses_dir) s.emplace_back(b.name + ".dir", dir_ + "/v" + std::to_string(variant++));
      for (const auto& kv : server_) {
        if (std::find_if(s.begin(), s.end(), [&](const auto& have) { return have.first == kv.first; }) == s.end()) {
          s.push_back(kv);
        }
      }
      s.emplace_back("table", test_util::UniqueTable("ce"));
      std::string label = b.name;
      for (const auto& [k, v] : s) {
        if (k.find("isolation") != std::string::npos || k.find("transactions") != std::string::npos ||
            k.find("lock") != std::string::npos || k.find("concurrency") != std::string::npos) {
          label += " " + k + "=" + v;
        }
      }
      SCOPED_TRACE(label);
      Properties p;
      for (const auto& [k, v] : s) p.Set(k, v);
      std::unique_ptr<Store> probe = b.open(p, OpenContext{});
      const Capabilities caps = probe->capabilities();
      if (!caps.transactions) {
        // A binding that says it has none refuses Begin.
        EXPECT_EQ(probe->NewSession(0)->Begin(TxOptions{}).code(), Status::kNotImplemented);
        probe->Close();
        continue;
      }
      probe->Close();
      probe.reset();
      body(s);
    }
  }

  Settings server_;
  std::string dir_;
};

TEST_P(ClosedEconomyBindingTest, HoldsOnEveryTransactionalBinding) {
  ForEachTransactionalVariant([&](Settings s) {
    for (const auto& kv : Settings{{"workload", "closedeconomy"},
                                   {"recordcount", "10"},
                                   {"totalcash", "100000"},
                                   {"readproportion", "0.1"},
                                   {"transferproportion", "0.8"},
                                   {"readmodifywriteproportion", "0.1"},
                                   {"tx.retries", "50"}}) {
      s.push_back(kv);
    }
    Outcome o = RunClosedEconomy(binding(), s, 4, 300);
    EXPECT_TRUE(o.validation.passed) << o.validation.summary;
    const OpResult* transfer = test_util::FindOp(o.run, "TRANSFER");
    ASSERT_NE(transfer, nullptr);
    EXPECT_GT(transfer->return_codes[Status::kOk], 150u);
    // Only aborts fail a transfer: nothing else went wrong.
    const OpResult* failed = test_util::FindOp(o.run, "TRANSFER-FAILED");
    if (failed != nullptr) {
      EXPECT_EQ(failed->service.count(), transfer->return_codes[Status::kAborted]);
    }
  });
}

// Commit applies a transaction's writes; Abort discards them.
TEST_P(ClosedEconomyBindingTest, CommitAppliesAbortDiscards) {
  ForEachTransactionalVariant([&](const Settings& s) {
    Properties p;
    std::string table;
    for (const auto& [k, v] : s) {
      p.Set(k, v);
      if (k == "table") table = v;
    }
    std::unique_ptr<Store> store = binding().open(p, OpenContext{});
    {
      std::unique_ptr<Session> a = store->NewSession(0);
      auto put = [&](const char* key, const char* value, bool update) {
        Field f{"field0", value};
        return update ? a->Update(table, key, std::span<const Field>(&f, 1))
                      : a->Insert(table, key, std::span<const Field>(&f, 1));
      };
      auto get = [&](const char* key) {
        RecordSet rs;
        Status st = a->Read(table, key, FieldSelector{}, &rs);
        if (!st.ok()) return std::string(st.name());
        return std::string(rs.Find(0, "field0").value_or("<missing>"));
      };
      ASSERT_TRUE(put("k1", "1", false).ok());
      ASSERT_TRUE(put("k2", "2", false).ok());
      ASSERT_EQ(a->Begin(TxOptions{}), Status::Ok());
      EXPECT_EQ(get("k1"), "1");
      EXPECT_EQ(put("k1", "10", true), Status::Ok());
      EXPECT_EQ(put("k2", "20", true), Status::Ok());
      EXPECT_EQ(a->Abort(), Status::Ok());
      EXPECT_EQ(get("k1"), "1");
      EXPECT_EQ(get("k2"), "2");
      ASSERT_EQ(a->Begin(TxOptions{}), Status::Ok());
      EXPECT_EQ(get("k1"), "1");
      EXPECT_EQ(get("k2"), "2");
      EXPECT_EQ(put("k1", "11", true), Status::Ok());
      EXPECT_EQ(put("k2", "21", true), Status::Ok());
      EXPECT_EQ(a->Commit(), Status::Ok());
      EXPECT_EQ(get("k1"), "11");
      EXPECT_EQ(get("k2"), "21");
      // A second session sees the committed values.
      std::unique_ptr<Session> b = store->NewSession(1);
      RecordSet rs;
      ASSERT_TRUE(b->Read(table, "k2", FieldSelector{}, &rs).ok());
      EXPECT_EQ(rs.Find(0, "field0").value_or("<missing>"), "21");
    }
    store->Close();
  });
}

std::vector<const BindingInfo*> StoringBindings() {
  std::vector<const BindingInfo*> out;
  for (const BindingInfo* b : AllBindings()) {
    if (b->name != "null") out.push_back(b);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllBindings, ClosedEconomyBindingTest, ::testing::ValuesIn(StoringBindings()),
                         [](const ::testing::TestParamInfo<const BindingInfo*>& i) {
                           std::string n = i.param->name;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

// Transfers only, 8 threads over 10 accounts: every transfer contends.
Settings ContendedTransfers(const Settings& server) {
  Settings s = server;
  for (const auto& kv : Settings{{"workload", "closedeconomy"},
                                 {"table", test_util::UniqueTable("ce")},
                                 {"recordcount", "10"},
                                 {"totalcash", "1000000"},
                                 {"closedeconomy.maxtransfer", "1000"},
                                 {"readproportion", "0"},
                                 {"transferproportion", "1"},
                                 {"readmodifywriteproportion", "0"},
                                 {"tx.retries", "1000"}}) {
    s.push_back(kv);
  }
  return s;
}

TEST(ClosedEconomyAnomalyTest, PostgresqlReadCommittedWithPlainReadsLosesUpdates) {
  Settings server;
  STOREBENCH_NEED_SERVER("postgresql", server);
  Settings s = ContendedTransfers(server);
  s.emplace_back("postgresql.isolation", "read_committed");
  Outcome o = RunClosedEconomy(FindBinding("postgresql"), s, 8, 800);
  // Two transfers read the same balance, both write: one update is lost.
  EXPECT_FALSE(o.validation.passed) << o.validation.summary;
  EXPECT_NE(o.validation.summary.find("VIOLATED"), std::string::npos) << o.validation.summary;
  const OpResult* t = test_util::FindOp(o.run, "TRANSFER");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->return_codes[Status::kOk], 800u);  // and no transfer noticed anything
}

TEST(ClosedEconomyAnomalyTest, PostgresqlSerializableWithRetriesHolds) {
  Settings server;
  STOREBENCH_NEED_SERVER("postgresql", server);
  Settings s = ContendedTransfers(server);
  s.emplace_back("postgresql.isolation", "serializable");
  Outcome o = RunClosedEconomy(FindBinding("postgresql"), s, 8, 800);
  EXPECT_TRUE(o.validation.passed) << o.validation.summary;
  const OpResult* t = test_util::FindOp(o.run, "TRANSFER");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->return_codes[Status::kOk], 800u);
  EXPECT_GT(t->return_codes[Status::kAborted], 0u);  // conflicts were caught and retried
}

TEST(ClosedEconomyAnomalyTest, PostgresqlReadCommittedWithSelectForUpdateHolds) {
  Settings server;
  STOREBENCH_NEED_SERVER("postgresql", server);
  Settings s = ContendedTransfers(server);
  s.emplace_back("postgresql.isolation", "read_committed");
  s.emplace_back("closedeconomy.lock", "for_update");
  Outcome o = RunClosedEconomy(FindBinding("postgresql"), s, 8, 800);
  EXPECT_TRUE(o.validation.passed) << o.validation.summary;
  const OpResult* t = test_util::FindOp(o.run, "TRANSFER");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->return_codes[Status::kOk], 800u);
}

// Ignite: a TRANSACTIONAL table with PESSIMISTIC + REPEATABLE_READ keeps
// the total under contention; OPTIMISTIC + READ_COMMITTED (reads take no
// locks and are not validated at commit) loses updates, which the check sees.
Settings IgniteContended(const Settings& server, const char* concurrency, const char* isolation) {
  Settings s = ContendedTransfers(server);
  s.emplace_back("ignite.atomicity", "transactional");
  s.emplace_back("ignite.cache_group", "storebench_tx");
  s.emplace_back("ignite.tx.concurrency", concurrency);
  s.emplace_back("ignite.tx.isolation", isolation);
  return s;
}

TEST(ClosedEconomyAnomalyTest, IgnitePessimisticRepeatableReadHolds) {
  Settings server;
  STOREBENCH_NEED_SERVER("ignite", server);
  Outcome o = RunClosedEconomy(FindBinding("ignite"), IgniteContended(server, "pessimistic", "repeatable_read"), 8, 800);
  EXPECT_TRUE(o.validation.passed) << o.validation.summary;
  const OpResult* t = test_util::FindOp(o.run, "TRANSFER");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->return_codes[Status::kOk], 800u);
}

TEST(ClosedEconomyAnomalyTest, IgniteOptimisticReadCommittedLosesUpdates) {
  Settings server;
  STOREBENCH_NEED_SERVER("ignite", server);
  Outcome o = RunClosedEconomy(FindBinding("ignite"), IgniteContended(server, "optimistic", "read_committed"), 8, 800);
  EXPECT_FALSE(o.validation.passed) << o.validation.summary;
  EXPECT_NE(o.validation.summary.find("VIOLATED"), std::string::npos) << o.validation.summary;
}

// The command line: a violated invariant is printed, recorded in the JSON
// result and exits 1; one that holds exits 0; a binding without
// transactions and an unknown workload are refused in one line (exit 2).
class ClosedEconomyCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir(); }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  test_util::ProcessResult Run(const std::vector<std::string>& args) {
    test_util::ProcessOptions o;
    o.cwd = dir_;
    return test_util::RunProcess(STOREBENCH_BINARY, args, o);
  }
  nlohmann::json Result() { return nlohmann::json::parse(test_util::Slurp(dir_ + "/r.json")); }
  std::string dir_;
};

TEST_F(ClosedEconomyCliTest, HoldsOnMemoryWithTheShippedWorkloadFile) {
  auto r = Run({"bench", "memory", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/closedeconomy", "-p",
                "operationcount=3000", "-p", "threadcount=4", "--json", "r.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("storebench: closed economy holds: the 1000 accounts hold 1000000, expected totalcash = "
                       "1000000;"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("[VALIDATE], Passed, true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[TRANSFER], Operations, "), std::string::npos) << r.out;
  const auto j = Result();
  const auto& v = j["phases"][1]["validation"];
  EXPECT_EQ(v["workload"], "closedeconomy");
  EXPECT_EQ(v["passed"], true);
  EXPECT_EQ(v["figures"]["ExpectedTotal"], "1000000");
  EXPECT_EQ(v["figures"]["FoundTotal"], "1000000");
  EXPECT_FALSE(j["phases"][0].contains("validation"));  // the load phase checks nothing
}

TEST_F(ClosedEconomyCliTest, ViolationExitsOneAndIsRecorded) {
  Settings server;
  STOREBENCH_NEED_SERVER("postgresql", server);
  std::vector<std::string> args = {"bench", "postgresql", "--json", "r.json", "-p", "threadcount=8", "-p",
                                   "operationcount=800", "-p", "postgresql.isolation=read_committed"};
  for (const auto& [k, v] : ContendedTransfers(server)) {
    args.push_back("-p");
    args.push_back(k + "=" + v);
  }
  auto r = Run(args);
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_NE(r.err.find("storebench: closed economy VIOLATED: the 10 accounts hold "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", expected totalcash = 1000000 ("), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("[VALIDATE], Passed, false"), std::string::npos) << r.out;
  const auto j = Result();
  const auto& v = j["phases"][1]["validation"];
  EXPECT_EQ(v["passed"], false);
  EXPECT_NE(v["figures"]["Difference"], "0");
  // merge keeps the verdict and its exit code
  auto m = Run({"merge", "r.json", "-o", "m.json"});
  EXPECT_EQ(m.code, 1) << m.err;
  EXPECT_NE(m.out.find("[VALIDATE], Passed, false"), std::string::npos) << m.out;
}

TEST_F(ClosedEconomyCliTest, RefusedUpFront) {
  auto r = Run({"run", "null", "-p", "workload=closedeconomy", "-p", "recordcount=10"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "storebench: binding 'null' has no transactions, which workload=closedeconomy needs "
            "(closedeconomy.unsafe_no_transactions=true runs it without them and reports how far the total drifts)\n");
  r = Run({"run", "memory", "-p", "workload=closedeconomy", "-p", "recordcount=1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("needs at least 2 accounts"), std::string::npos) << r.err;
  r = Run({"run", "memory", "-p", "workload=closedeconomy", "-p", "recordcount=10", "-p", "scanproportion=0.5"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("property 'scanproportion' (-p scanproportion): workload=closedeconomy has no such"),
            std::string::npos)
      << r.err;
  r = Run({"run", "memory", "-p", "workload=site.ycsb.workloads.TimeSeriesWorkload"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("property 'workload' = 'site.ycsb.workloads.TimeSeriesWorkload' (-p workload): unknown "
                       "workload"),
            std::string::npos)
      << r.err;
  r = Run({"run", "memory", "-p", "workload=closedeconomy", "-p", "recordcount=10", "--part", "0/2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("runs in one process"), std::string::npos) << r.err;
}

// On request, a binding without transactions runs the closed economy with
// plain reads and writes; the drift of the total is reported, not failed.
TEST_F(ClosedEconomyCliTest, WithoutTransactionsOnRequestReportsTheDrift) {
  STOREBENCH_NEED_BINDING("leveldb");
  const std::string wl = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/closedeconomy";
  for (const char* threads : {"1", "4"}) {
    SCOPED_TRACE(threads);
    auto r = Run({"bench", "leveldb", "-P", wl, "-p", "recordcount=10", "-p", "operationcount=4000", "-p",
                  std::string("threadcount=") + threads, "-p", "closedeconomy.unsafe_no_transactions=true", "--json",
                  "r.json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("storebench: note: closedeconomy.unsafe_no_transactions=true"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("storebench: closed economy without transactions (closedeconomy.unsafe_no_transactions="
                         "true): the 10 accounts hold "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(": drift "), std::string::npos) << r.err;
    const auto j = Result();
    const auto& v = j["phases"][1]["validation"];
    EXPECT_EQ(v["passed"], true);
    EXPECT_EQ(v["figures"]["Transactions"], "none (unsafe_no_transactions)");
    const long long found = std::stoll(v["figures"]["FoundTotal"].get<std::string>());
    EXPECT_EQ(v["figures"]["ExpectedTotal"], "1000000");
    EXPECT_EQ(std::stoll(v["figures"]["Difference"].get<std::string>()), found - 1000000);
    // One thread has no one to race with: nothing drifts.
    if (std::string(threads) == "1") {
      EXPECT_EQ(found, 1000000) << r.err;
    }
  }
  // for_update locks inside a transaction: refused with the flag.
  auto r = Run({"run", "leveldb", "-P", wl, "-p", "recordcount=10", "-p", "closedeconomy.unsafe_no_transactions=true",
                "-p", "closedeconomy.lock=for_update"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("closedeconomy.unsafe_no_transactions=true runs none"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace storebench

namespace storebench {
namespace {

// tx.operations=true: every operation in a transaction of its own, on a
// binding with transactions; refused (one line, exit 2) on one without.
TEST_F(ClosedEconomyCliTest, TxOperationsNeedTransactions) {
  auto r = Run({"bench", "memory", "-p", "recordcount=50", "-p", "operationcount=2000", "-p", "threadcount=2", "-p",
                "readproportion=0.5", "-p", "updateproportion=0.2", "-p", "readmodifywriteproportion=0.3", "-p",
                "tx.operations=true", "-p", "dataintegrity=true"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("[READ-MODIFY-WRITE], Return=OK"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Return=NOT_IMPLEMENTED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Return=UNEXPECTED_STATE"), std::string::npos) << r.out;
  STOREBENCH_NEED_BINDING("leveldb");
  r = Run({"bench", "leveldb", "-p", "recordcount=10", "-p", "tx.operations=true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("binding 'leveldb' has no transactions"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("which tx.operations=true needs"), std::string::npos) << r.err;
  r = Run({"bench", "memory", "-p", "tx.operations=true", "-p", "scanproportion=0.1"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("scanproportion, batchinsertproportion and batchreadproportion must be 0"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace storebench
