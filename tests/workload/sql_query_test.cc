// workload=sqlquery on the SQL bindings: every statement returns the rows
// the loader's data implies; a store whose data was changed behind the
// workload's back is caught; bindings without SQL are refused.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"
#include "measure/clock.h"
#include "runner/runner.h"
#include "test_util.h"
#include "workload/sql_query.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Settings = std::vector<std::pair<std::string, std::string>>;

std::string MakeTempDir() {
  std::string tmpl = (fs::temp_directory_path() / "storebench-sq-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  return tmpl;
}

class SqlQueryTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_BINDING(GetParam());
    const BindingInfo& b = FindBinding(GetParam());
    if (b.server) STOREBENCH_NEED_SERVER(b.name, props_);
    dir_ = MakeTempDir();
    if (b.uses_dir) props_.emplace_back(b.name + ".dir", dir_ + "/db");
    props_.emplace_back("sqlquery.table_prefix", test_util::UniqueTable("sq") + "_");
    props_.emplace_back("recordcount", "200");
    props_.emplace_back("sqlquery.organizations", "7");
    props_.emplace_back("sqlquery.range", "5");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Loads, runs `ops` operations with 4 threads; `tamper` runs between the two.
  template <typename Tamper>
  std::pair<PhaseResult, ValidationResult> Run(const Settings& extra, std::uint64_t ops, Tamper&& tamper) {
    const BindingInfo& b = FindBinding(GetParam());
    Properties p;
    for (const auto& [k, v] : props_) p.Set(k, v);
    for (const auto& [k, v] : extra) p.Set(k, v);
    std::unique_ptr<Store> store = b.open(p, OpenContext{true, 4});
    SqlQueryWorkload w(SqlQueryOptions::FromProperties(p));
    w.Prepare(*store, true);
    SteadyClock clock;
    RunnerOptions o;
    o.loading = true;
    o.threads = 4;
    o.operation_count = 200;
    o.binding = b.name;
    PhaseResult load = Runner(*store, w, o, clock, nullptr).Run();
    const OpResult* insert = test_util::FindOp(load, "INSERT");
    EXPECT_TRUE(insert != nullptr && insert->return_codes[Status::kOk] == 200u);
    tamper(*store, w.options().table_prefix);
    o.loading = false;
    o.operation_count = ops;
    PhaseResult run = Runner(*store, w, o, clock, nullptr).Run();
    ValidationResult v = *w.Validate(*store);
    store->Close();
    return {std::move(run), std::move(v)};
  }

  Settings props_;
  std::string dir_;
};

TEST_P(SqlQueryTest, EveryStatementReturnsTheRowsTheLoaderImplies) {
  auto [run, v] = Run({}, 400, [](Store&, const std::string&) {});
  EXPECT_TRUE(v.passed) << v.summary;
  std::uint64_t total = 0;
  for (const char* name : {"SQL-RANGE", "SQL-JOIN", "SQL-UPDATE"}) {
    const OpResult* op = test_util::FindOp(run, name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_GT(op->return_codes[Status::kOk], 20u) << name;
    total += op->return_codes[Status::kOk];
    EXPECT_EQ(test_util::FindOp(run, std::string(name) + "-FAILED"), nullptr) << name;
  }
  EXPECT_EQ(total, 400u);
  EXPECT_EQ(v.figures[0], (std::pair<std::string, std::string>{"Statements", "400"}));
  EXPECT_EQ(v.figures[1], (std::pair<std::string, std::string>{"WrongRowCounts", "0"}));
}

TEST_P(SqlQueryTest, RowsChangedBehindItsBackAreCaught) {
  // One person gone: every range over all 200 persons and every join on
  // its organization (3 % 7) returns one row too few.
  auto [run, v] = Run({{"sqlquery.range", "200"}, {"sqlquery.rangeproportion", "1"}, {"sqlquery.joinproportion", "0"},
                       {"sqlquery.updateproportion", "0"}},
                      50, [](Store& store, const std::string& prefix) {
                        std::uint64_t rows = 0;
                        SqlParam id;
                        id.i = 3;
                        auto s = store.NewSession(0);
                        ASSERT_EQ(s->Sql("DELETE FROM " + prefix + "person WHERE id = ?",
                                         std::span<const SqlParam>(&id, 1), &rows),
                                  Status::Ok());
                        EXPECT_EQ(rows, 1u);
                      });
  EXPECT_FALSE(v.passed) << v.summary;
  EXPECT_NE(v.summary.find("sqlquery results WRONG: 0 of 50 answered statements"), std::string::npos) << v.summary;
  const OpResult* failed = test_util::FindOp(run, "SQL-RANGE-FAILED");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->service.count(), 50u);
  const OpResult* range = test_util::FindOp(run, "SQL-RANGE");
  ASSERT_NE(range, nullptr);
  EXPECT_EQ(range->return_codes[Status::kUnexpectedState], 50u);
}

INSTANTIATE_TEST_SUITE_P(SqlBindings, SqlQueryTest, ::testing::Values("sqlite", "postgresql", "mariadb"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(SqlQueryCliTest, RunsOnSqliteAndIsRefusedWithoutSql) {
  STOREBENCH_NEED_BINDING("sqlite");
  const std::string dir = MakeTempDir();
  test_util::ProcessOptions o;
  o.cwd = dir;
  auto r = test_util::RunProcess(STOREBENCH_BINARY,
                                 {"bench", "sqlite", "-p", "workload=sqlquery", "-p", "recordcount=300", "-p",
                                  "operationcount=600", "-p", "threadcount=2", "--json", "r.json"},
                                 o);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("storebench: sqlquery results hold: 600 of 600 answered statements"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("[SQL-RANGE], Operations, "), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test_util::Slurp(dir + "/r.json"));
  EXPECT_EQ(j["phases"][1]["validation"]["workload"], "sqlquery");
  EXPECT_EQ(j["phases"][1]["validation"]["passed"], true);
  r = test_util::RunProcess(STOREBENCH_BINARY, {"run", "memory", "-p", "workload=sqlquery", "-p", "recordcount=10"}, o);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "storebench: binding 'memory' does not run SQL, which workload=sqlquery needs (sqlite, postgresql and "
            "mariadb do)\n");
  r = test_util::RunProcess(STOREBENCH_BINARY,
                            {"run", "sqlite", "-p", "workload=sqlquery", "-p", "recordcount=10", "-p",
                             "readproportion=1"},
                            o);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("property 'readproportion' (-p readproportion): workload=sqlquery has its own mix"),
            std::string::npos)
      << r.err;
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace storebench
