// The shared SQL layer (src/db/sql/): the exact statement text each server
// is sent (as the bindings sent it before the layer existed), the field to
// column mapping, the schema registry's versions, and the transaction and
// chunked batch-insert rules against a recording driver.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "db/sql/reconnect.h"
#include "db/sql/schema.h"
#include "db/sql/session.h"
#include "db/sql/statements.h"
#include "measure/clock.h"

namespace storebench::sql {
namespace {

TableSchema TwoColumns() { return TableSchema{"usertable", {"field0", "field1"}, {"field0", "field1"}}; }

TEST(SqlStatementsTest, PostgresqlText) {
  const Dialect& d = kPostgresqlDialect;
  const TableSchema t = TwoColumns();
  const std::vector<int> second{1}, swapped{1, 0};
  EXPECT_EQ(SelectSql(d, t, nullptr, false), R"(SELECT YCSB_KEY, "field0", "field1" FROM "usertable" WHERE YCSB_KEY=$1)");
  EXPECT_EQ(SelectSql(d, t, nullptr, false, true),
            R"(SELECT YCSB_KEY, "field0", "field1" FROM "usertable" WHERE YCSB_KEY=$1 FOR UPDATE)");
  EXPECT_EQ(SelectSql(d, t, &second, true),
            R"(SELECT YCSB_KEY, "field1" FROM "usertable" WHERE YCSB_KEY>=$1 ORDER BY YCSB_KEY LIMIT $2)");
  EXPECT_EQ(UpdateSql(d, t, swapped), R"(UPDATE "usertable" SET "field1"=$1, "field0"=$2 WHERE YCSB_KEY=$3)");
  EXPECT_EQ(InsertSql(d, t),
            R"(INSERT INTO "usertable"(YCSB_KEY, "field0", "field1") VALUES($1, $2, $3) ON CONFLICT (YCSB_KEY) )"
            R"(DO UPDATE SET "field0"=EXCLUDED."field0", "field1"=EXCLUDED."field1")");
  EXPECT_EQ(BatchInsertSql(d, t, 2),
            R"(INSERT INTO "usertable"(YCSB_KEY, "field0", "field1") VALUES ($1, $2, $3), ($4, $5, $6) )"
            R"(ON CONFLICT (YCSB_KEY) DO UPDATE SET "field0"=EXCLUDED."field0", "field1"=EXCLUDED."field1")");
  EXPECT_EQ(DeleteSql(d, "usertable"), R"(DELETE FROM "usertable" WHERE YCSB_KEY=$1)");
  EXPECT_EQ(CreateTableSql(d, "usertable", t.columns),
            R"(CREATE TABLE IF NOT EXISTS "usertable"(YCSB_KEY BYTEA PRIMARY KEY, "field0" BYTEA, "field1" BYTEA))");
  EXPECT_EQ(AddColumnsSql(d, "usertable", {"a", "b"}),
            R"(ALTER TABLE "usertable" ADD COLUMN IF NOT EXISTS "a" BYTEA, ADD COLUMN IF NOT EXISTS "b" BYTEA)");
}

TEST(SqlStatementsTest, MariadbText) {
  const Dialect& d = kMariadbDialect;
  const TableSchema t = TwoColumns();
  const std::vector<int> none, swapped{1, 0};
  EXPECT_EQ(SelectSql(d, t, &none, false), "SELECT YCSB_KEY FROM `usertable` WHERE YCSB_KEY=?");
  EXPECT_EQ(SelectSql(d, t, nullptr, true),
            "SELECT YCSB_KEY, `field0`, `field1` FROM `usertable` WHERE YCSB_KEY>=? ORDER BY YCSB_KEY LIMIT ?");
  EXPECT_EQ(UpdateSql(d, t, swapped), "UPDATE `usertable` SET `field1`=?, `field0`=? WHERE YCSB_KEY=?");
  EXPECT_EQ(InsertSql(d, t),
            "INSERT INTO `usertable`(YCSB_KEY, `field0`, `field1`) VALUES(?, ?, ?) ON DUPLICATE KEY UPDATE "
            "`field0`=VALUES(`field0`), `field1`=VALUES(`field1`)");
  EXPECT_EQ(BatchInsertSql(d, t, 2),
            "INSERT INTO `usertable`(YCSB_KEY, `field0`, `field1`) VALUES (?, ?, ?), (?, ?, ?) ON DUPLICATE KEY "
            "UPDATE `field0`=VALUES(`field0`), `field1`=VALUES(`field1`)");
  EXPECT_EQ(DeleteSql(d, "a`b"), "DELETE FROM `a``b` WHERE YCSB_KEY=?");
  EXPECT_EQ(CreateTableSql(d, "usertable", t.columns),
            "CREATE TABLE IF NOT EXISTS `usertable`(YCSB_KEY VARBINARY(255) PRIMARY KEY, `field0` LONGBLOB, "
            "`field1` LONGBLOB) ENGINE=InnoDB");
  EXPECT_EQ(AddColumnsSql(d, "usertable", {"a", "b"}),
            "ALTER TABLE `usertable` ADD COLUMN IF NOT EXISTS `a` LONGBLOB, ADD COLUMN IF NOT EXISTS `b` LONGBLOB");
}

TEST(SqlStatementsTest, SqliteText) {
  const Dialect& d = kSqliteDialect;
  const TableSchema t = TwoColumns();
  EXPECT_EQ(InsertSql(d, t), R"(INSERT OR REPLACE INTO "usertable"(YCSB_KEY, "field0", "field1") VALUES(?, ?, ?))");
  EXPECT_EQ(SelectSql(d, t, nullptr, false), R"(SELECT YCSB_KEY, "field0", "field1" FROM "usertable" WHERE YCSB_KEY=?)");
  EXPECT_EQ(CreateTableSql(d, "usertable", t.columns),
            R"(CREATE TABLE IF NOT EXISTS "usertable"(YCSB_KEY VARCHAR(255) PRIMARY KEY, "field0" BLOB, "field1" BLOB))");
  EXPECT_EQ(AddColumnsSql(d, "usertable", {"x_41"}), R"(ALTER TABLE "usertable" ADD COLUMN "x_41" BLOB)");
  EXPECT_EQ(Enclose("it's", '\''), "'it''s'");
  EXPECT_EQ(Identifier(d, "a\"b"), R"("a""b")");
  EXPECT_EQ(FieldColumns(2, "F"), (std::vector<std::string>{"x_4630", "x_4631"}));
}

TEST(SqlSchemaTest, SchemaFromColumnsFindsTheKeyInAnyCase) {
  bool foreign = true;
  auto s = SchemaFromColumns("t", {"YCSB_KEY", "field0", "x_4630"}, &foreign);
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(foreign);
  EXPECT_EQ(s->columns, (std::vector<std::string>{"field0", "x_4630"}));
  EXPECT_EQ(s->fields, (std::vector<std::string>{"field0", "F0"}));
  EXPECT_EQ(SchemaFromColumns("t", {}, &foreign), nullptr);
  EXPECT_FALSE(foreign);
  EXPECT_EQ(SchemaFromColumns("t", {"id", "v"}, &foreign), nullptr);
  EXPECT_TRUE(foreign);
}

TEST(SqlSchemaTest, FieldMapGivesColumnsValuesAndMissingFieldsOnce) {
  const TableSchema t = TwoColumns();
  const std::vector<Field> values{{"field1", "a"}, {"new", "b"}, {"field1", "c"}, {"new", "d"}};
  FieldMap m;
  EXPECT_FALSE(m.Map(t, values));
  EXPECT_EQ(m.columns, (std::vector<int>{1, -1, 1, -1}));
  EXPECT_EQ(m.missing, (std::vector<std::string_view>{"new"}));
  EXPECT_EQ(m.value_of_column, (std::vector<int>{-1, 2}));
  EXPECT_EQ(m.assigned, (std::vector<int>{1}));
  EXPECT_EQ(m.MissingColumns(), (std::vector<std::string>{"new"}));
  const std::vector<std::string_view> names{"field1", "nope", "field0", "field1"};
  FieldSelector sel;
  sel.all = false;
  sel.names = names;
  std::vector<int> selected;
  SelectColumns(t, sel, &selected);
  EXPECT_EQ(selected, (std::vector<int>{0, 1}));
}

TEST(SqlSchemaTest, RegistryVersionMovesOnlyWhenSessionsMustReprepare) {
  SchemaRegistry r;
  const std::uint64_t v0 = r.version();
  auto a = std::make_shared<TableSchema>(TwoColumns());
  EXPECT_EQ(r.Publish(a), a);
  EXPECT_EQ(r.version(), v0);  // a new table: no session has statements for it
  EXPECT_EQ(r.Publish(std::make_shared<TableSchema>(TwoColumns())), a);  // same columns: the known one
  EXPECT_EQ(r.version(), v0);
  auto wider = std::make_shared<TableSchema>(TwoColumns());
  wider->columns.push_back("field2");
  EXPECT_EQ(r.Publish(wider), wider);
  EXPECT_EQ(r.version(), v0 + 1);
  r.Forget("other", false);
  EXPECT_EQ(r.version(), v0 + 1);
  r.Forget("other", true);
  EXPECT_EQ(r.version(), v0 + 2);
  r.Forget("usertable", false);
  EXPECT_EQ(r.version(), v0 + 3);
  EXPECT_EQ(r.Find("usertable"), nullptr);
  r.Put(a, false);
  EXPECT_EQ(r.Names(), (std::vector<std::string>{"usertable"}));
}

// Records the calls; fails the ones it is told to.
class Recorder : public TxDriver, public BatchDriver {
 public:
  std::string calls;
  std::string fail;  // the calls that fail, e.g. "COMMIT"

  Status StartTransaction() override { return Call("BEGIN"); }
  Status EndTransaction(bool commit) override { return Call(commit ? "COMMIT" : "ROLLBACK"); }
  Status BeginBatch() override { return Call("BEGIN"); }
  Status InsertRows(std::size_t first, std::size_t rows) override {
    return Call("I" + std::to_string(first) + "+" + std::to_string(rows));
  }
  Status CommitBatch() override { return Call("COMMIT"); }
  void RollbackBatch() override { Call("ROLLBACK"); }

 private:
  Status Call(const std::string& what) {
    calls += (calls.empty() ? "" : " ") + what;
    return fail.find(what) != std::string::npos ? Status::Error() : Status::Ok();
  }
};

TEST(SqlSessionTest, TransactionRules) {
  Recorder d;
  Transaction tx;
  EXPECT_FALSE(tx.Commit(d).ok());  // none open: ERROR, nothing sent
  EXPECT_TRUE(tx.Abort(d).ok());    // none open: a no-op
  EXPECT_EQ(d.calls, "");
  TxOptions locking;
  locking.lock_reads = true;
  ASSERT_TRUE(tx.Begin(d, locking).ok());
  EXPECT_TRUE(tx.lock_reads());
  EXPECT_FALSE(tx.Begin(d, {}).ok());  // one at a time
  d.fail = "COMMIT";
  EXPECT_FALSE(tx.Commit(d).ok());
  EXPECT_FALSE(tx.open());  // a failed COMMIT ends it
  EXPECT_EQ(d.calls, "BEGIN COMMIT");

  Recorder s;
  Transaction sqlite_tx(/*failed_commit_stays_open=*/true);
  ASSERT_TRUE(sqlite_tx.Begin(s, {}).ok());
  s.fail = "COMMIT";
  EXPECT_FALSE(sqlite_tx.Commit(s).ok());
  EXPECT_TRUE(sqlite_tx.open());
  EXPECT_TRUE(sqlite_tx.Abort(s).ok());
  EXPECT_FALSE(sqlite_tx.open());
  EXPECT_EQ(s.calls, "BEGIN COMMIT ROLLBACK");
}

TEST(SqlSessionTest, InsertInChunksWrapsSeveralStatementsInATransaction) {
  Recorder one;
  EXPECT_TRUE(InsertInChunks(one, 3, 4, 12).ok());
  EXPECT_EQ(one.calls, "I0+3");
  Recorder several;
  EXPECT_TRUE(InsertInChunks(several, 5, 4, 8).ok());
  EXPECT_EQ(several.calls, "BEGIN I0+2 I2+2 I4+1 COMMIT");
  Recorder failing;
  failing.fail = "I2+2";
  EXPECT_FALSE(InsertInChunks(failing, 5, 4, 8).ok());
  EXPECT_EQ(failing.calls, "BEGIN I0+2 I2+2 ROLLBACK");
  Recorder wide;  // a row wider than the limit still goes, one per statement
  EXPECT_TRUE(InsertInChunks(wide, 2, 10, 8).ok());
  EXPECT_EQ(wide.calls, "BEGIN I0+1 I1+1 COMMIT");
  Recorder always;
  EXPECT_TRUE(InsertInChunks(always, 2, 1, 2, /*always_transaction=*/true).ok());
  EXPECT_EQ(always.calls, "BEGIN I0+2 COMMIT");
}

TEST(SqlReconnectTest, BackoffWaitsTenMillisecondsThenDoubles) {
  using Late = ReconnectBackoff::Late;
  ReconnectBackoff b;
  const std::int64_t ms = 1'000'000;
  EXPECT_TRUE(b.AwaitAttempt(SteadyClock::Now(), Late::kReturnAtOnce));  // never failed: at once
  b.Failed();
  EXPECT_FALSE(b.AwaitAttempt(SteadyClock::Now() + ms, Late::kReturnAtOnce));  // due in 10 ms
  std::int64_t start = SteadyClock::Now();
  EXPECT_FALSE(b.AwaitAttempt(start + 2 * ms, Late::kSleepToDeadline));
  EXPECT_GE(SteadyClock::Now() - start, 2 * ms);  // slept to the deadline
  start = SteadyClock::Now();
  EXPECT_TRUE(b.AwaitAttempt(start + 1000 * ms, Late::kReturnAtOnce));
  b.Failed();  // 20 ms now
  start = SteadyClock::Now();
  EXPECT_TRUE(b.AwaitAttempt(start + 1000 * ms, Late::kReturnAtOnce));
  EXPECT_GE(SteadyClock::Now() - start, 15 * ms);
  EXPECT_EQ(b.failures(), 2u);
  b.Succeeded();
  EXPECT_TRUE(b.AwaitAttempt(SteadyClock::Now(), Late::kReturnAtOnce));
}

}  // namespace
}  // namespace storebench::sql
