// Tests of the postgresql binding against a real server: the one named by
// STOREBENCH_TEST_SERVER_POSTGRESQL (scripts/servers/postgresql.sh start DIR
// prints it), except the unreachable-server tests (no server needed) and the
// restart test, which starts a server of its own with that script.
#include <arpa/inet.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/registry.h"
#include "db/sql_test_util.h"
#include "test_util.h"

namespace storebench {
namespace {

using Pairs = test_util::Settings;
using test_util::PropsOf;
using test_util::SettingOf;
using Clock = std::chrono::steady_clock;

std::unique_ptr<Store> Open(const Properties& p) { return FindBinding("postgresql").open(p, OpenContext{}); }

// A plain blocking libpq connection for the test's own SQL.
PGconn* Direct(const Pairs& s) {
  std::string conninfo = "host=" + SettingOf(s, "postgresql.host") +
                         " port=" + SettingOf(s, "postgresql.port") +
                         " user=" + SettingOf(s, "postgresql.user") +
                         " password=" + SettingOf(s, "postgresql.password") +
                         " dbname=" + SettingOf(s, "postgresql.dbname");
  return PQconnectdb(conninfo.c_str());
}

bool DirectExec(PGconn* c, const std::string& sql) {
  PGresult* r = PQexec(c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
  if (!ok) ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
  PQclear(r);
  return ok;
}

Status Put(Session* s, const std::string& table, const std::string& key, const std::string& value) {
  Field f{"field0", value};
  return s->Insert(table, key, std::span<const Field>(&f, 1));
}

TEST(PostgresqlTest, UnreachableServerIsSetupErrorNamingHostPort) {
  const int port = test_util::UnusedLoopbackPort();
  Properties p;
  p.Set("postgresql.port", std::to_string(port));
  p.Set("postgresql.timeout_ms", "2000");
  try {
    Open(p);
    FAIL() << "opened a store on a port nothing listens on";
  } catch (const SetupError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << msg;
    EXPECT_NE(msg.find("refused"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(PostgresqlTest, CliExitsTwoWithOneLineForAnUnreachableServer) {
  std::string dir =
      (std::filesystem::temp_directory_path() / ("storebench-pg-cli-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  const int port = test_util::UnusedLoopbackPort();
  test_util::ProcessOptions o;
  o.cwd = dir;
  auto r = test_util::RunProcess(
      STOREBENCH_BINARY,
      {"load", "postgresql", "-p", "recordcount=10", "-p", "postgresql.port=" + std::to_string(port), "-p",
       "postgresql.password=s3cret-xyz"},
      o);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("s3cret-xyz"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("s3cret-xyz"), std::string::npos) << r.out;
}

TEST(PostgresqlTest, BadPropertiesAreConfigErrors) {
  Properties p;
  p.Set("postgresql.isolation", "chaos");
  EXPECT_THROW(Open(p), ConfigError);
  Properties q;
  q.Set("postgresql.timeout_ms", "0");
  EXPECT_THROW(Open(q), ConfigError);
}

TEST(PostgresqlTest, WrongPasswordIsSetupErrorNamingTheUserNotThePassword) {
  Pairs s;
  STOREBENCH_NEED_SERVER("postgresql", s);
  Properties p = PropsOf(s);
  p.Set("postgresql.password", "not-the-password-42");
  try {
    Open(p);
    FAIL() << "opened a store with a wrong password";
  } catch (const SetupError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(SettingOf(s, "postgresql.user")), std::string::npos) << msg;
    EXPECT_NE(msg.find("password authentication failed"), std::string::npos) << msg;
    EXPECT_NE(msg.find("127.0.0.1:" + SettingOf(s, "postgresql.port")), std::string::npos) << msg;
    EXPECT_EQ(msg.find("not-the-password-42"), std::string::npos) << msg;
  }
}

TEST(PostgresqlTest, PasswordFromTheEnvironment) {
  Pairs s;
  STOREBENCH_NEED_SERVER("postgresql", s);
  Properties p;
  for (const auto& [k, v] : s) {
    if (k != "postgresql.password") p.Set(k, v);
  }
  setenv("STOREBENCH_POSTGRESQL_PASSWORD", SettingOf(s, "postgresql.password").c_str(), 1);
  EXPECT_NO_THROW(Open(p));
  setenv("STOREBENCH_POSTGRESQL_PASSWORD", "wrong", 1);
  EXPECT_THROW(Open(p), SetupError);
  unsetenv("STOREBENCH_POSTGRESQL_PASSWORD");
}

TEST(PostgresqlTest, RoundTripWithBinaryKeysValuesAndNewFields) {
  Pairs s;
  STOREBENCH_NEED_SERVER("postgresql", s);
  const std::string table = test_util::UniqueTable("pg");
  Properties p = test_util::PropsWithTable(s, table);
  auto store = Open(p);
  EXPECT_TRUE(store->capabilities().waits_through_io);
  EXPECT_TRUE(store->capabilities().persistent);
  auto session = store->NewSession(0);
  std::string binary;
  for (int c = 0; c < 256; ++c) binary.push_back(static_cast<char>(c));
  const std::string key("k\0\xff", 3);
  Field rec[] = {{"field1", binary}, {"Odd Name", "x"}, {"field0", ""}};
  ASSERT_EQ(session->Insert(table, key, rec), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(session->Read(table, key, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(rs.key(0), key);
  ASSERT_EQ(rs.field_count(0), 3u);
  EXPECT_EQ(rs.Find(0, "field0"), std::optional<std::string_view>(""));  // empty, not NULL
  EXPECT_EQ(rs.Find(0, "field1"), std::optional<std::string_view>(binary));
  EXPECT_EQ(rs.Find(0, "Odd Name"), std::optional<std::string_view>("x"));

  Field upd[] = {{"field1", "one"}};
  EXPECT_EQ(session->Update(table, key, upd), Status::Ok());
  EXPECT_EQ(session->Update(table, "missing", upd), Status::NotFound());
  EXPECT_EQ(session->Read(table, "missing", FieldSelector{}, &rs), Status::NotFound());
  std::string_view names[] = {"field1"};
  ASSERT_EQ(session->Read(table, key, FieldSelector{false, names}, &rs), Status::Ok());
  ASSERT_EQ(rs.field_count(0), 1u);
  EXPECT_EQ(rs.field(0, 0).value, "one");

  for (int i = 0; i < 20; ++i)
    ASSERT_EQ(Put(session.get(), table, "user" + std::to_string(100 + i), "v"), Status::Ok());
  ASSERT_EQ(session->Scan(table, "user105", 3, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 3u);
  EXPECT_EQ(rs.key(0), "user105");
  EXPECT_EQ(rs.key(2), "user107");
  EXPECT_EQ(session->Delete(table, "user105"), Status::Ok());
  EXPECT_EQ(session->Delete(table, "user105"), Status::NotFound());

  // A second session sees the column the first one added.
  auto other = store->NewSession(1);
  ASSERT_EQ(other->Read(table, key, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "Odd Name"), std::optional<std::string_view>("x"));

  auto disk = store->DiskUsageBytes();
  ASSERT_TRUE(disk.has_value());
  EXPECT_GT(*disk, 0u);
  bool has_version = false;
  for (const auto& [k, v] : store->Stats()) {
    if (k == "postgresql.server_version") has_version = !v.empty();
    EXPECT_EQ(v.find(SettingOf(s, "postgresql.password")), std::string::npos) << k;
  }
  EXPECT_TRUE(has_version);
  session.reset();
  other.reset();
  store->Close();
}

// Scans of 1000 records (~1 MB each) by 4 fiber clients on one thread: libpq
// stops reading before the socket is empty, and a wait for the next edge
// would sleep until postgresql.timeout_ms and fail the scan. Every scan must
// come back OK.
TEST(PostgresqlTest, LargeScansOfFiberClientsNeverWaitOutTheTimeout) {
  Pairs s;
  STOREBENCH_NEED_SERVER("postgresql", s);
  std::string dir = (std::filesystem::temp_directory_path() / ("storebench-pg-scan-" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  std::vector<std::string> common = {"-p", "table=" + test_util::UniqueTable("scan"), "-p", "recordcount=1200",
                                     "-p", "postgresql.timeout_ms=10000"};
  for (const auto& [k, v] : s) common.insert(common.end(), {"-p", k + "=" + v});
  test_util::ProcessOptions o;
  o.cwd = dir;
  std::vector<std::string> load = {"load", "postgresql"};
  load.insert(load.end(), common.begin(), common.end());
  ASSERT_EQ(test_util::RunProcess(STOREBENCH_BINARY, load, o).code, 0);
  std::vector<std::string> run = {"run", "postgresql", "-p", "connections=4", "-p", "operationcount=60", "-p",
                                  "scanproportion=1", "-p", "readproportion=0", "-p", "updateproportion=0", "-p",
                                  "insertproportion=0", "-p", "minscanlength=1000", "-p", "maxscanlength=1000"};
  run.insert(run.end(), common.begin(), common.end());
  const auto r = test_util::RunProcess(STOREBENCH_BINARY, run, o);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("[SCAN], Return=OK, 60"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[SCAN], Return=ERROR"), std::string::npos) << r.out;
}

TEST(PostgresqlTest, OperationTimesOutOnALockedTableThenRecovers) {
  Pairs s;
  STOREBENCH_NEED_SERVER("postgresql", s);
  const std::string table = test_util::UniqueTable("pg");
  Properties p = test_util::PropsWithTable(s, table);
  p.Set("postgresql.timeout_ms", "500");
  auto store = Open(p);
  auto session = store->NewSession(0);
  ASSERT_EQ(Put(session.get(), table, "k", "v"), Status::Ok());

  PGconn* locker = Direct(s);
  ASSERT_EQ(PQstatus(locker), CONNECTION_OK) << PQerrorMessage(locker);
  ASSERT_TRUE(DirectExec(locker, "BEGIN"));
  ASSERT_TRUE(DirectExec(locker, "LOCK TABLE \"" + table + "\" IN ACCESS EXCLUSIVE MODE"));
  RecordSet rs;
  const auto t0 = Clock::now();
  EXPECT_EQ(session->Read(table, "k", FieldSelector{}, &rs), Status::Error());
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
  EXPECT_GE(ms, 400);
  EXPECT_LT(ms, 2000);
  EXPECT_EQ(Put(session.get(), table, "k", "w"), Status::Error());
  ASSERT_TRUE(DirectExec(locker, "COMMIT"));
  PQfinish(locker);

  EXPECT_EQ(session->Read(table, "k", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field0"), std::optional<std::string_view>("v"));
}

// Runs scripts/servers/postgresql.sh CMD DIR; its stdout.
std::string Script(const std::string& cmd, const std::string& dir) {
  const std::string command =
      std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/postgresql.sh " + cmd + " '" + dir + "'";
  FILE* f = popen(command.c_str(), "r");
  std::string out;
  char buf[512];
  while (f != nullptr && fgets(buf, sizeof buf, f) != nullptr) out += buf;
  const int rc = f != nullptr ? pclose(f) : -1;
  EXPECT_EQ(rc, 0) << command;
  return out;
}

TEST(PostgresqlTest, ServerKilledAndRestartedOpsFailThenRecover) {
  Pairs shared;
  STOREBENCH_NEED_SERVER("postgresql", shared);  // servers can run here
  std::string dir = (std::filesystem::temp_directory_path() / "storebench-pg-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  std::string line = Script("start", dir);
  Pairs s;
  {
    s = test_util::ParseSettings(line);
  }
  ASSERT_FALSE(SettingOf(s, "postgresql.port").empty()) << line;
  Properties p = PropsOf(s);
  p.Set("postgresql.timeout_ms", "1000");
  {
    auto store = Open(p);
    auto session = store->NewSession(0);
    ASSERT_EQ(Put(session.get(), "usertable", "k", "v"), Status::Ok());

    Script("stop", dir);
    RecordSet rs;
    for (int i = 0; i < 5; ++i) {
      const auto t0 = Clock::now();
      Status st = session->Read("usertable", "k", FieldSelector{}, &rs);
      EXPECT_TRUE(st == Status::Error() || st == Status(Status::kServiceUnavailable)) << st.name();
      EXPECT_LT(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count(), 1500);
    }
    Script("start", dir);  // same dir, same port
    Status st = Status::Error();
    const auto until = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < until) {
      st = session->Read("usertable", "k", FieldSelector{}, &rs);
      if (st.ok()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(st, Status::Ok());
    EXPECT_EQ(rs.Find(0, "field0"), std::optional<std::string_view>("v"));
    EXPECT_EQ(Put(session.get(), "usertable", "k2", "v2"), Status::Ok());  // statements prepared again
    session.reset();
    store->Close();
  }
  Script("stop", dir);
  std::filesystem::remove_all(dir);
}

// BatchInsert is one transaction: every row it writes has the same xmin
// (the inserting transaction's id), for a batch of one multi-row statement
// and for one of two statements (over 65535 parameters: 6000 rows x 11
// columns); rows written by Insert have one xmin each.
TEST(PostgresqlTest, BatchInsertIsOneTransaction) {
  Pairs s;
  STOREBENCH_NEED_SERVER("postgresql", s);
  const std::string table = test_util::UniqueTable("pgb");
  Properties p = test_util::PropsWithTable(s, table);
  auto store = Open(p);
  EXPECT_TRUE(store->capabilities().native_batch_insert);
  auto session = store->NewSession(0);
  PGconn* direct = Direct(s);
  ASSERT_EQ(PQstatus(direct), CONNECTION_OK) << PQerrorMessage(direct);
  auto query = [&](const std::string& sql) {
    PGresult* r = PQexec(direct, sql.c_str());
    std::string out = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? PQgetvalue(r, 0, 0) : "?";
    PQclear(r);
    return out;
  };
  const std::string q = "\"" + table + "\"";
  for (int i = 0; i < 3; ++i) ASSERT_EQ(Put(session.get(), table, "single" + std::to_string(i), "v"), Status::Ok());
  EXPECT_EQ(query("SELECT count(DISTINCT xmin::text) FROM " + q + " WHERE position('single'::bytea in ycsb_key) = 1"), "3");
  for (int n : {50, 6000}) {
    const std::string prefix = "b" + std::to_string(n) + "-";
    RecordBatch batch;
    for (int i = 0; i < n; ++i) {
      const std::string v = "v" + std::to_string(i);
      Field f{"field0", v};
      batch.Add(prefix + std::to_string(i), std::span<const Field>(&f, 1));
    }
    ASSERT_EQ(session->BatchInsert(table, batch), Status::Ok()) << n;
    const std::string where = " WHERE position('" + prefix + "'::bytea in ycsb_key) = 1";
    EXPECT_EQ(query("SELECT count(*) FROM " + q + where), std::to_string(n));
    EXPECT_EQ(query("SELECT count(DISTINCT xmin::text) FROM " + q + where), "1") << n;
    RecordSet rs;
    ASSERT_EQ(session->Read(table, prefix + std::to_string(n - 1), FieldSelector{}, &rs), Status::Ok());
    EXPECT_EQ(rs.Find(0, "field0"), std::optional<std::string_view>("v" + std::to_string(n - 1)));
  }
  PQfinish(direct);
  session.reset();
  store->Close();
}

}  // namespace
}  // namespace storebench
