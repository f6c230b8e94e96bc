// MariaDB-specific behaviour: setup errors (unreachable server, wrong
// password), the schema the binding creates, properties, per-operation
// timeouts (a lock held by another connection, a paused server) and a
// server killed and restarted on the same port. (Operation semantics:
// conformance_test.cc.) Needs a server: scripts/servers/mariadb.sh start DIR,
// then STOREBENCH_TEST_SERVER_MARIADB="<the line it printed>"; the fault
// tests start a private server of their own with the same script.
#include <gtest/gtest.h>
#include <mysql.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/registry.h"
#include "db/sql_test_util.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using test_util::PropsOf;
using test_util::SettingOf;
using test_util::Settings;
using test_util::FieldsOf;
using test_util::Insert;
using test_util::Owned;
using test_util::Update;
using Clock = std::chrono::steady_clock;

const BindingInfo& Binding() { return FindBinding("mariadb"); }

double SecondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A plain blocking connection of the test's own, to look at and lock what
// the binding writes.
class Raw {
 public:
  explicit Raw(const Settings& s) {
    m_ = mysql_init(nullptr);
    const auto port = static_cast<unsigned>(std::stoi(SettingOf(s, "mariadb.port")));
    if (mysql_real_connect(m_, SettingOf(s, "mariadb.host").c_str(), SettingOf(s, "mariadb.user").c_str(),
                           SettingOf(s, "mariadb.password").c_str(), SettingOf(s, "mariadb.database").c_str(),
                           port, nullptr, 0) == nullptr) {
      ADD_FAILURE() << "raw connection: " << mysql_error(m_);
    }
  }
  ~Raw() { mysql_close(m_); }
  Raw(const Raw&) = delete;
  Raw& operator=(const Raw&) = delete;

  // Runs sql; the rows as "a,b|c,d" ("NULL" for NULL), or "ERROR: ...".
  std::string Query(const std::string& sql) {
    if (mysql_real_query(m_, sql.data(), sql.size()) != 0) return std::string("ERROR: ") + mysql_error(m_);
    MYSQL_RES* res = mysql_store_result(m_);
    if (res == nullptr) return "";
    std::string out;
    const unsigned n = mysql_num_fields(res);
    while (MYSQL_ROW row = mysql_fetch_row(res)) {
      if (!out.empty()) out += "|";
      unsigned long* len = mysql_fetch_lengths(res);
      for (unsigned i = 0; i < n; ++i) {
        if (i) out += ",";
        out += row[i] ? std::string(row[i], len[i]) : "NULL";
      }
    }
    mysql_free_result(res);
    return out;
  }

 private:
  MYSQL* m_ = nullptr;
};

// ---- Without a server --------------------------------------------------------

TEST(MariadbTest, UnreachableServerIsSetupErrorNamingHostAndPort) {
  const int port = test_util::UnusedLoopbackPort();
  Properties p;
  p.Set("mariadb.port", std::to_string(port));
  p.Set("mariadb.timeout_ms", "2000");
  const auto start = Clock::now();
  try {
    Binding().open(p, OpenContext{});
    FAIL() << "opened a store on a port nothing listens on";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
  EXPECT_LT(SecondsSince(start), 3.0);
}

TEST(MariadbTest, BadPropertiesAreConfigErrors) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"mariadb.port", "0"}, {"mariadb.port", "x"}, {"mariadb.timeout_ms", "-1"},
           {"mariadb.isolation", "snapshot"}, {"mariadb.host", ""}, {"mariadb.database", ""}}) {
    Properties p;
    p.Set(key, value);
    EXPECT_THROW(Binding().open(p, OpenContext{}), ConfigError) << key << "=" << value;
  }
}

TEST(MariadbTest, DeclaresAServerBindingThatWaitsThroughIo) {
  EXPECT_TRUE(Binding().server);
  EXPECT_FALSE(Binding().uses_dir);
}

// ---- With the shared test server ----------------------------------------------

class MariadbServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_SERVER("mariadb", server_);
    table_ = test_util::UniqueTable("mdb");
  }
  std::unique_ptr<Store> Open(const Settings& extra = {}) {
    Properties p = PropsOf(server_);
    for (const auto& [k, v] : extra) p.Set(k, v);
    return Binding().open(p, OpenContext{});
  }

  Settings server_;
  std::string table_;
  RecordSet out_;
};

TEST_F(MariadbServerTest, WrongPasswordIsSetupErrorNamingTheUserNotThePassword) {
  const std::string secret = "not-the-password-4711";
  try {
    Open({{"mariadb.password", secret}});
    FAIL() << "opened with a wrong password";
  } catch (const SetupError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(SettingOf(server_, "mariadb.user")), std::string::npos) << msg;
    const std::string host_port =
        SettingOf(server_, "mariadb.host") + ":" + SettingOf(server_, "mariadb.port");
    EXPECT_NE(msg.find(host_port), std::string::npos) << msg;
    EXPECT_EQ(msg.find(secret), std::string::npos) << msg;
    EXPECT_EQ(msg.find(SettingOf(server_, "mariadb.password")), std::string::npos) << msg;
  }
}

TEST_F(MariadbServerTest, PasswordFromTheEnvironmentWhenThePropertyIsUnset) {
  Settings without;
  for (const auto& kv : server_) {
    if (kv.first != "mariadb.password") without.push_back(kv);
  }
  setenv("STOREBENCH_MARIADB_PASSWORD", SettingOf(server_, "mariadb.password").c_str(), 1);
  Properties p = PropsOf(without);
  EXPECT_NO_THROW(Binding().open(p, OpenContext{}));
  setenv("STOREBENCH_MARIADB_PASSWORD", "wrong", 1);
  EXPECT_THROW(Binding().open(p, OpenContext{}), SetupError);
  unsetenv("STOREBENCH_MARIADB_PASSWORD");
}

TEST_F(MariadbServerTest, RoundTripInYcsbJdbcSchema) {
  auto store = Open();
  auto s = store->NewSession(0);
  Owned rec = {{"field0", "zero"}, {"field1", std::string("o\0ne\xff", 5)}, {"field2", ""}};
  ASSERT_EQ(Insert(s.get(), table_, "user1", rec), Status::Ok());
  ASSERT_EQ(Insert(s.get(), table_, "user2", {{"field3", "three"}}), Status::Ok());
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(FieldsOf(out_, 0), rec);
  // An update that sets the values the row already has still finds it (CLIENT_FOUND_ROWS).
  EXPECT_EQ(Update(s.get(), table_, "user1", {{"field0", "zero"}}), Status::Ok());
  EXPECT_EQ(Update(s.get(), table_, "user9", {{"field0", "zero"}}), Status::NotFound());
  EXPECT_EQ(Update(s.get(), table_, "user1", {}), Status::Ok());
  EXPECT_EQ(Update(s.get(), table_, "user9", {}), Status::NotFound());
  ASSERT_EQ(s->Scan(table_, "user", 10, FieldSelector{}, &out_), Status::Ok());
  ASSERT_EQ(out_.record_count(), 2u);
  EXPECT_EQ(out_.key(1), "user2");
  EXPECT_EQ(FieldsOf(out_, 1), (Owned{{"field3", "three"}}));
  EXPECT_EQ(s->Delete(table_, "user2"), Status::Ok());
  EXPECT_EQ(s->Delete(table_, "user2"), Status::NotFound());
  // Other tables are other namespaces; a missing one holds nothing.
  EXPECT_EQ(s->Read(table_ + "x", "user1", FieldSelector{}, &out_), Status::NotFound());
  EXPECT_EQ(s->Scan(table_ + "x", "", 10, FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(out_.record_count(), 0u);
  EXPECT_EQ(s->Delete(table_ + "x", "user1"), Status::NotFound());

  // The table as YCSB's JDBC binding lays it out, in InnoDB; absent fields are NULL.
  Raw raw(server_);
  EXPECT_EQ(raw.Query("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA=DATABASE() AND TABLE_NAME='" +
                      table_ + "'"),
            "InnoDB");
  EXPECT_EQ(raw.Query("SELECT COLUMN_NAME, DATA_TYPE, COLUMN_KEY FROM information_schema.COLUMNS WHERE "
                      "TABLE_SCHEMA=DATABASE() AND TABLE_NAME='" +
                      table_ + "' AND ORDINAL_POSITION <= 3 ORDER BY ORDINAL_POSITION"),
            "YCSB_KEY,varbinary,PRI|field0,longblob,|field1,longblob,");
  EXPECT_EQ(raw.Query("SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA=DATABASE() AND "
                      "TABLE_NAME='" + table_ + "'"),
            "11");
  EXPECT_EQ(raw.Query("SELECT field0, field2, field3 FROM `" + table_ + "` WHERE YCSB_KEY='user1'"), "zero,,NULL");

  // Stats and disk usage.
  std::optional<std::uint64_t> bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(*bytes, 0u);
  bool version = false, rows = false;
  for (const auto& [k, v] : store->Stats()) {
    if (k == "mariadb.server_version") version = !v.empty();
    if (k == "mariadb." + table_ + ".rows") rows = v == "1";
  }
  EXPECT_TRUE(version);
  EXPECT_TRUE(rows);
}

TEST_F(MariadbServerTest, FieldcountSetsTheColumnsOfANewTableAndOtherFieldsAddColumns) {
  auto store = Open({{"fieldcount", "3"}});
  auto s = store->NewSession(0);
  ASSERT_EQ(Insert(s.get(), table_, "k", {{"field1", "a"}, {"Other", "b"}}), Status::Ok());
  Raw raw(server_);
  EXPECT_EQ(raw.Query("SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY ORDINAL_POSITION) FROM information_schema.COLUMNS "
                      "WHERE TABLE_SCHEMA=DATABASE() AND TABLE_NAME='" + table_ + "'"),
            "YCSB_KEY,field0,field1,field2,x_4f74686572");
  // A second session (prepared before the column was added) sees the new column.
  auto s2 = store->NewSession(1);
  ASSERT_EQ(s2->Read(table_, "k", FieldSelector{}, &out_), Status::Ok());
  ASSERT_EQ(Update(s.get(), table_, "k", {{"new", "c"}}), Status::Ok());
  ASSERT_EQ(s2->Read(table_, "k", FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(FieldsOf(out_, 0), (Owned{{"field1", "a"}, {"Other", "b"}, {"new", "c"}}));
}

TEST_F(MariadbServerTest, TableDroppedBySomeoneElseIsCreatedAgain) {
  auto store = Open();
  auto s = store->NewSession(0);
  ASSERT_EQ(Insert(s.get(), table_, "k", {{"field0", "v"}}), Status::Ok());
  Raw raw(server_);
  ASSERT_EQ(raw.Query("DROP TABLE `" + table_ + "`"), "");
  // At most one operation fails (its statement was prepared for the old table).
  Status first = Insert(s.get(), table_, "k2", {{"field0", "w"}});
  EXPECT_TRUE(first == Status::Ok() || first == Status::Error()) << first.name();
  ASSERT_EQ(Insert(s.get(), table_, "k2", {{"field0", "w"}}), Status::Ok());
  EXPECT_EQ(s->Read(table_, "k", FieldSelector{}, &out_), Status::NotFound());
  ASSERT_EQ(s->Read(table_, "k2", FieldSelector{}, &out_), Status::Ok());
}

TEST_F(MariadbServerTest, ManySessionsOnOneThreadInterleave) {
  // Sessions are independent connections: several used alternately on one
  // thread (as fibers would) keep their own statements and results.
  auto store = Open();
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 8; ++i) sessions.push_back(store->NewSession(0));
  for (int round = 0; round < 20; ++round) {
    for (std::size_t i = 0; i < sessions.size(); ++i) {
      const std::string key = "k" + std::to_string(round) + "_" + std::to_string(i);
      ASSERT_EQ(Insert(sessions[i].get(), table_, key, {{"field0", key}}), Status::Ok());
      ASSERT_EQ(sessions[(i + 1) % sessions.size()]->Read(table_, key, FieldSelector{}, &out_), Status::Ok());
      EXPECT_EQ(out_.Find(0, "field0"), std::optional<std::string_view>(key));
    }
  }
}

TEST_F(MariadbServerTest, OperationBlockedByALockReturnsErrorWithinTheTimeoutThenRecovers) {
  auto store = Open({{"mariadb.timeout_ms", "500"}});
  auto s = store->NewSession(0);
  ASSERT_EQ(Insert(s.get(), table_, "k", {{"field0", "v"}}), Status::Ok());
  Raw locker(server_);
  ASSERT_EQ(locker.Query("LOCK TABLES `" + table_ + "` WRITE"), "");
  for (int i = 0; i < 2; ++i) {
    const auto start = Clock::now();
    EXPECT_EQ(s->Read(table_, "k", FieldSelector{}, &out_), Status::Error());
    const double took = SecondsSince(start);
    EXPECT_GE(took, 0.45);
    EXPECT_LT(took, 1.5);
    EXPECT_EQ(Update(s.get(), table_, "k", {{"field0", "w"}}), Status::Error());
  }
  ASSERT_EQ(locker.Query("UNLOCK TABLES"), "");
  // The session reconnects and prepares again.
  ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(Update(s.get(), table_, "k", {{"field0", "x"}}), Status::Ok());
  ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(out_.Find(0, "field0"), std::optional<std::string_view>("x"));
}

// ---- With a private server the test pauses, kills and restarts --------------

class MariadbFaultTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!test_util::ServerSettings("mariadb")) return;  // the tests skip
    dir_ = new std::string(fs::temp_directory_path() / ("storebench-mariadb-" + std::to_string(getpid())));
    fs::create_directories(*dir_ + "/cwd");
    std::string line = Script("start");
    settings_ = new Settings;
    *settings_ = test_util::ParseSettings(line);
  }
  static void TearDownTestSuite() {
    if (dir_ == nullptr) return;
    Script("stop");
    std::error_code ec;
    fs::remove_all(*dir_, ec);
    delete dir_;
    delete settings_;
    dir_ = nullptr;
    settings_ = nullptr;
  }
  // Runs scripts/servers/mariadb.sh ACTION DIR; its stdout.
  static std::string Script(const std::string& action) {
    test_util::ProcessOptions o;
    o.cwd = *dir_ + "/cwd";
    auto r = test_util::RunProcess("/bin/bash",
                                   {std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/mariadb.sh", action, *dir_},
                                   o);
    EXPECT_EQ(r.code, 0) << action << ": " << r.err;
    return r.out;
  }
  static pid_t ServerPid() { return static_cast<pid_t>(std::stol(test_util::Slurp(*dir_ + "/pids"))); }

  void SetUp() override {
    Settings shared;
    STOREBENCH_NEED_SERVER("mariadb", shared);  // (the shared one only says servers are wanted)
    ASSERT_NE(settings_, nullptr);
    ASSERT_FALSE(SettingOf(*settings_, "mariadb.port").empty()) << "private server did not start";
  }
  std::unique_ptr<Store> Open() {
    Properties p = PropsOf(*settings_);
    p.Set("mariadb.timeout_ms", "500");
    return Binding().open(p, OpenContext{});
  }

  static std::string* dir_;
  static Settings* settings_;
  RecordSet out_;
};

std::string* MariadbFaultTest::dir_ = nullptr;
Settings* MariadbFaultTest::settings_ = nullptr;

TEST_F(MariadbFaultTest, PausedServerMakesOperationsFailWithinTheTimeoutThenRecover) {
  auto store = Open();
  auto s = store->NewSession(0);
  const std::string table = test_util::UniqueTable("mdb");
  ASSERT_EQ(Insert(s.get(), table, "k", {{"field0", "v"}}), Status::Ok());
  const pid_t pid = ServerPid();
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  // kill() returns before every thread of the server has stopped.
  for (int i = 0; i < 100 && test_util::Slurp("/proc/" + std::to_string(pid) + "/status").find("State:\tT") ==
                                  std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    Status st = s->Read(table, "k", FieldSelector{}, &out_);
    const double took = SecondsSince(start);
    EXPECT_TRUE(st == Status::Error() || st == Status(Status::kServiceUnavailable)) << i << ": " << st.name();
    EXPECT_LT(took, 1.5) << i;
  }
  ASSERT_EQ(kill(pid, SIGCONT), 0);
  const auto start = Clock::now();
  Status st;
  while ((st = s->Read(table, "k", FieldSelector{}, &out_)) != Status::Ok() && SecondsSince(start) < 10) {
  }
  ASSERT_EQ(st, Status::Ok());
  EXPECT_EQ(out_.Find(0, "field0"), std::optional<std::string_view>("v"));
}

TEST_F(MariadbFaultTest, KilledServerMakesOperationsFailThenTheyRecoverAfterRestart) {
  auto store = Open();
  auto s = store->NewSession(0);
  const std::string table = test_util::UniqueTable("mdb");
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(Insert(s.get(), table, "k" + std::to_string(i), {{"field0", "v"}}), Status::Ok());
  }
  ASSERT_EQ(kill(ServerPid(), SIGKILL), 0);
  for (int i = 0; i < 100 && fs::exists("/proc/" + std::to_string(ServerPid())); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int failed = 0;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    Status st = Insert(s.get(), table, "down" + std::to_string(i), {{"field0", "x"}});
    EXPECT_LT(SecondsSince(start), 1.5) << i;
    EXPECT_TRUE(st == Status::Error() || st == Status(Status::kServiceUnavailable)) << st.name();
    failed += !st.ok();
  }
  EXPECT_EQ(failed, 5);
  Script("start");  // same dir, same port
  const auto start = Clock::now();
  Status st;
  while ((st = s->Read(table, "k7", FieldSelector{}, &out_)) != Status::Ok() && SecondsSince(start) < 10) {
  }
  ASSERT_EQ(st, Status::Ok()) << "no recovery after 10 s";
  EXPECT_LT(SecondsSince(start), 3.0);  // backoff is at most 1 s
  ASSERT_EQ(s->Scan(table, "", 1000, FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(out_.record_count(), 100u);
  EXPECT_EQ(Insert(s.get(), table, "after", {{"field0", "y"}}), Status::Ok());
  // A new store opens against the restarted server too.
  EXPECT_NO_THROW(Open());
}

// BatchInsert is one statement: a batch with one key too long for
// VARBINARY(255) fails as a whole (none of its records is written, where a
// loop of inserts would have written those before it); without it the batch
// is written. 6000 rows x 11 columns exceed 65535 placeholders: two
// statements in one transaction, every record written.
TEST_F(MariadbServerTest, BatchInsertIsAllOrNothing) {
  auto store = Open();
  EXPECT_TRUE(store->capabilities().native_batch_insert);
  auto s = store->NewSession(0);
  const std::string too_long(300, 'k');
  RecordBatch batch;
  const Owned rec = {{"field0", "zero"}, {"field1", "one"}};
  std::vector<Field> views;
  for (const auto& [n, v] : rec) views.push_back({n, v});
  for (const std::string& k : {std::string("ok1"), std::string("ok2"), too_long, std::string("ok4")}) batch.Add(k, views);
  EXPECT_EQ(s->BatchInsert(table_, batch), Status::Error());
  EXPECT_EQ(s->Read(table_, "ok1", FieldSelector{}, &out_), Status::NotFound());
  batch.Clear();
  for (const std::string& k : {std::string("ok1"), std::string("ok2"), std::string("ok4")}) batch.Add(k, views);
  ASSERT_EQ(s->BatchInsert(table_, batch), Status::Ok());
  ASSERT_EQ(s->Read(table_, "ok2", FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(FieldsOf(out_, 0), rec);

  batch.Clear();
  for (int i = 0; i < 6000; ++i) {
    const std::string v = "v" + std::to_string(i);
    Field f{"field0", v};
    batch.Add("big" + std::to_string(i), std::span<const Field>(&f, 1));
  }
  ASSERT_EQ(s->BatchInsert(table_, batch), Status::Ok());
  for (int i : {0, 5956, 5957, 5999}) {
    ASSERT_EQ(s->Read(table_, "big" + std::to_string(i), FieldSelector{}, &out_), Status::Ok()) << i;
    EXPECT_EQ(FieldsOf(out_, 0), (Owned{{"field0", "v" + std::to_string(i)}})) << i;
  }
}

}  // namespace
}  // namespace storebench
