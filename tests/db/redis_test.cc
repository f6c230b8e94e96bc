// Tests of the redis binding against real redis-servers: the shared ones the
// test command starts (STOREBENCH_TEST_SERVER_REDIS, _REDIS_CLUSTER), and
// private ones these tests start themselves with scripts/servers/redis.sh
// (a password, a paused server, a killed and restarted one), so faults never
// disturb the shared server.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/registry.h"
#include "net/fiber_scheduler.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using test_util::PropsOf;
using test_util::SettingOf;
using test_util::Settings;
using Owned = std::vector<std::pair<std::string, std::string>>;

std::unique_ptr<Store> Open(const Properties& p) { return FindBinding("redis").open(p, OpenContext{}); }

// The SetupError that opening with `p` throws; a test failure (and "")
// when the store opens.
std::string SetupErrorOf(const Properties& p) {
  try {
    Open(p);
  } catch (const SetupError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the store opened";
  return "";
}

std::vector<Field> Views(const Owned& owned) {
  std::vector<Field> out;
  for (const auto& [n, v] : owned) out.push_back({n, v});
  return out;
}
Owned FieldsOf(const RecordSet& rs, std::size_t r) {
  Owned out;
  for (std::size_t i = 0; i < rs.field_count(r); ++i) {
    Field f = rs.field(r, i);
    out.emplace_back(std::string(f.name), std::string(f.value));
  }
  return out;
}
Owned Record(const std::string& key, int fields = 10, int version = 0) {
  Owned rec;
  for (int i = 0; i < fields; ++i) {
    std::string v = key + "/" + std::to_string(i) + "/v" + std::to_string(version) + "/";
    v.resize(100, static_cast<char>('a' + i));
    rec.emplace_back("field" + std::to_string(i), v);
  }
  return rec;
}

bool HaveRedisServer() { return system("command -v redis-server >/dev/null 2>&1") == 0; }

// Runs a shell command line, returns its stdout.
std::string Shell(const std::string& cmd) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  pclose(f);
  return out;
}

// A redis-server of the test's own, started and stopped with the script.
class OwnServer {
 public:
  explicit OwnServer(std::string password = "") : password_(std::move(password)) {
    std::string tmpl = (fs::temp_directory_path() / "storebench-redis-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) dir_ = tmpl;
  }
  ~OwnServer() {
    Stop();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Starts (again, on the same port); false on failure.
  bool Start() {
    test_util::ProcessOptions o;
    o.cwd = dir_;
    if (!password_.empty()) o.env.emplace_back("REDIS_TEST_PASSWORD", password_);
    auto r = test_util::RunProcess("/bin/bash", {Script(), "start", dir_ + "/server"}, o);
    if (r.code != 0) {
      ADD_FAILURE() << "redis.sh start: " << r.err;
      return false;
    }
    settings_ = test_util::ParseSettings(r.out);
    return true;
  }
  void Stop() {
    if (dir_.empty()) return;
    test_util::ProcessOptions o;
    o.cwd = dir_;
    test_util::RunProcess("/bin/bash", {Script(), "stop", dir_ + "/server"}, o);
  }
  pid_t Pid() const { return static_cast<pid_t>(std::atoi(test_util::Slurp(dir_ + "/server/pids").c_str())); }
  const Settings& settings() const { return settings_; }
  std::string port() const { return SettingOf(settings_, "redis.port"); }

 private:
  static std::string Script() { return std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/redis.sh"; }
  std::string password_;
  std::string dir_;
  Settings settings_;
};

#define NEED_REDIS_SERVER_BINARY()                                                   \
  do {                                                                               \
    if (!HaveRedisServer()) {                                                        \
      if (test_util::ServersRequired()) FAIL() << "redis-server is not installed";   \
      GTEST_SKIP() << "redis-server is not installed (scripts/setup.sh installs it)"; \
    }                                                                                \
  } while (0)

TEST(RedisTest, UnreachableServerIsSetupErrorNamingHostAndPort) {
  const int port = test_util::UnusedLoopbackPort();
  Properties p;
  p.Set("redis.port", std::to_string(port));
  p.Set("redis.timeout_ms", "2000");
  const std::string msg = SetupErrorOf(p);  // with no server
  EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << msg;
  EXPECT_NE(msg.find("refused"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST(RedisTest, BadPropertiesAreConfigErrors) {
  for (const auto& [k, v] : Settings{{"redis.layout", "tree"},
                                     {"redis.port", "0"},
                                     {"redis.port", "http"},
                                     {"redis.timeout_ms", "0"},
                                     {"redis.pipeline", "0"},
                                     {"redis.update", "blind"},
                                     {"redis.update", "replace"},  // with the default hash layout
                                     {"redis.update", "set"},      // likewise
                                     {"redis.cluster", "maybe"}}) {
    Properties p;
    p.Set(k, v);
    EXPECT_THROW(Open(p), ConfigError) << k << "=" << v;
  }
  Properties p;
  p.Set("redis.cluster", "true");
  p.Set("redis.database", "2");
  EXPECT_THROW(Open(p), ConfigError);
  Properties u;
  u.Set("redis.user", "alice");
  EXPECT_THROW(Open(u), ConfigError);  // a user without a password
}

TEST(RedisTest, PasswordIsCheckedAndComesFromPropertyOrEnvironment) {
  NEED_REDIS_SERVER_BINARY();
  const std::string secret = "s3cret-pw";
  OwnServer server(secret);
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(SettingOf(server.settings(), "redis.password"), secret);
  Properties base;
  base.Set("redis.port", server.port());
  base.Set("redis.timeout_ms", "3000");

  Properties wrong = base;
  wrong.Set("redis.password", "not-it");
  const std::string msg = SetupErrorOf(wrong);
  EXPECT_NE(msg.find("127.0.0.1:" + server.port()), std::string::npos) << msg;
  EXPECT_NE(msg.find("WRONGPASS"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("not-it"), std::string::npos) << "password echoed: " << msg;
  // No password at all: the server says NOAUTH at open, not at the first op.
  EXPECT_NE(SetupErrorOf(base).find("NOAUTH"), std::string::npos);
  Properties right = base;
  right.Set("redis.password", secret);
  {
    auto store = Open(right);
    auto s = store->NewSession(0);
    Owned rec = Record("k1");
    ASSERT_EQ(s->Insert("t", "k1", Views(rec)), Status::Ok());
  }
  // From the environment when the property is not set.
  setenv("STOREBENCH_REDIS_PASSWORD", secret.c_str(), 1);
  std::unique_ptr<Store> store;
  EXPECT_NO_THROW(store = Open(base));
  unsetenv("STOREBENCH_REDIS_PASSWORD");
  if (store) {
    RecordSet rs;
    EXPECT_EQ(store->NewSession(0)->Read("t", "k1", FieldSelector{}, &rs), Status::Ok());
  }
}

// The shared server's round trip, for one layout.
void RoundTrip(const Settings& settings, const std::string& layout) {
  Properties p = PropsOf(settings);
  p.Set("redis.layout", layout);
  auto store = Open(p);
  const std::string table = test_util::UniqueTable("redis");
  auto s = store->NewSession(0);
  RecordSet rs;
  for (int i = 0; i < 20; ++i) {
    const std::string k = "user" + std::to_string(100 + i);
    ASSERT_EQ(s->Insert(table, k, Views(Record(k))), Status::Ok()) << k;
  }
  ASSERT_EQ(s->Read(table, "user105", FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(rs.key(0), "user105");
  EXPECT_EQ(FieldsOf(rs, 0), Record("user105"));
  std::string_view names[] = {"field7", "field1"};
  ASSERT_EQ(s->Read(table, "user105", FieldSelector{false, names}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{Record("user105")[1], Record("user105")[7]}));

  Field upd[] = {{"field3", "new3"}, {"added", "x"}};
  ASSERT_EQ(s->Update(table, "user105", upd), Status::Ok());
  Owned want = Record("user105");
  want[3].second = "new3";
  want.emplace_back("added", "x");
  ASSERT_EQ(s->Read(table, "user105", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), want);
  EXPECT_EQ(s->Update(table, "nobody", upd), Status::NotFound());
  EXPECT_EQ(s->Read(table, "nobody", FieldSelector{}, &rs), Status::NotFound());

  ASSERT_EQ(s->Delete(table, "user105"), Status::Ok());
  EXPECT_EQ(s->Read(table, "user105", FieldSelector{}, &rs), Status::NotFound());
  EXPECT_EQ(s->Delete(table, "user105"), Status::NotFound());

  // Tables are separate namespaces.
  EXPECT_EQ(s->Read(table + "x", "user106", FieldSelector{}, &rs), Status::NotFound());

  if (layout == "hash") {
    EXPECT_TRUE(store->capabilities().scan);
    EXPECT_TRUE(store->capabilities().atomic_update);
    ASSERT_EQ(s->Scan(table, "user104", 3, FieldSelector{}, &rs), Status::Ok());
    ASSERT_EQ(rs.record_count(), 3u);
    EXPECT_EQ(rs.key(0), "user104");
    EXPECT_EQ(rs.key(1), "user106");  // 105 was deleted
    EXPECT_EQ(rs.key(2), "user107");
    EXPECT_EQ(FieldsOf(rs, 2), Record("user107"));
    ASSERT_EQ(s->Scan(table, "user118", 10, FieldSelector{false, names}, &rs), Status::Ok());
    ASSERT_EQ(rs.record_count(), 2u);
    EXPECT_EQ(FieldsOf(rs, 1), (Owned{Record("user119")[1], Record("user119")[7]}));
    // YCSB's layout: the record is a plain hash at <table>:<key>.
    const std::string port = SettingOf(settings, "redis.port");
    EXPECT_EQ(Shell("redis-cli -p " + port + " HGET " + table + ":user107 field2"), Record("user107")[2].second + "\n");
    EXPECT_EQ(Shell("redis-cli -p " + port + " ZCARD " + table + ":_index"), "19\n");
  } else {
    EXPECT_FALSE(store->capabilities().scan);
    EXPECT_FALSE(store->capabilities().why_no_scan.empty());
    const std::string port = SettingOf(settings, "redis.port");
    EXPECT_EQ(Shell("redis-cli -p " + port + " TYPE " + table + ":user107"), "string\n");
  }
  auto stats = store->Stats();
  std::map<std::string, std::string> m(stats.begin(), stats.end());
  EXPECT_FALSE(m["redis_version"].empty());
  EXPECT_GT(std::atoll(m["used_memory"].c_str()), 0);
  EXPECT_GE(std::atoll(m["keys"].c_str()), 19);
}

TEST(RedisTest, RoundTripHashLayout) {
  Settings settings;
  STOREBENCH_NEED_SERVER("redis", settings);
  RoundTrip(settings, "hash");
}

TEST(RedisTest, RoundTripStringLayout) {
  Settings settings;
  STOREBENCH_NEED_SERVER("redis", settings);
  RoundTrip(settings, "string");
}

// redis.update=replace: one SET XX of the given fields, so a field the
// update does not name is gone (merge keeps it); a missing key is NOT_FOUND
// and is not created. redis.update=set: one plain SET (memtier's), which
// creates a missing key.
TEST(RedisTest, ReplaceUpdateIsOneSetOfTheGivenFields) {
  // Its own server: it counts server-wide (INFO), which other tests running
  // at the same time against the shared server would disturb.
  NEED_REDIS_SERVER_BINARY();
  OwnServer server;
  ASSERT_TRUE(server.Start());
  const Settings& settings = server.settings();
  const std::string table = test_util::UniqueTable("rrep");
  for (const std::string mode : {"merge", "replace"}) {
    Properties p = PropsOf(settings);
    p.Set("redis.layout", "string");
    p.Set("redis.update", mode);
    auto store = Open(p);
    auto s = store->NewSession(0);
    const std::string key = "k-" + mode;
    ASSERT_EQ(s->Insert(table, key, Views({{"a", "1"}, {"b", "2"}})), Status::Ok());
    ASSERT_EQ(s->Update(table, key, Views({{"b", "3"}})), Status::Ok());
    RecordSet rs;
    ASSERT_EQ(s->Read(table, key, FieldSelector{}, &rs), Status::Ok());
    EXPECT_EQ(FieldsOf(rs, 0), mode == "merge" ? Owned({{"a", "1"}, {"b", "3"}}) : Owned({{"b", "3"}})) << mode;
    EXPECT_EQ(s->Update(table, key + "-missing", Views({{"b", "3"}})), Status::NotFound()) << mode;
    EXPECT_EQ(s->Read(table, key + "-missing", FieldSelector{}, &rs), Status::NotFound()) << mode;
  }
  Properties p = PropsOf(settings);
  p.Set("redis.layout", "string");
  p.Set("redis.update", "set");
  auto store = Open(p);
  auto s = store->NewSession(0);
  ASSERT_EQ(s->Insert(table, "k-set", Views({{"a", "1"}, {"b", "2"}})), Status::Ok());
  const std::string port = SettingOf(settings, "redis.port");
  auto set_calls = [&] {
    const std::string line = Shell("redis-cli -p " + port + " INFO commandstats | grep '^cmdstat_set:'");
    return std::atoll(line.substr(line.find("calls=") + 6).c_str());
  };
  const long long before = set_calls();
  ASSERT_EQ(s->Update(table, "k-set", Views({{"b", "3"}})), Status::Ok());
  EXPECT_EQ(set_calls() - before, 1);  // one SET, no GET
  RecordSet rs;
  ASSERT_EQ(s->Read(table, "k-set", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), Owned({{"b", "3"}}));
  EXPECT_EQ(s->Update(table, "k-set-missing", Views({{"b", "4"}})), Status::Ok());  // created, as memtier's SET
  ASSERT_EQ(s->Read(table, "k-set-missing", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), Owned({{"b", "4"}}));
}

TEST(RedisTest, PipelinedClientsOfOneConnectionShareIt) {
  // Its own server: it counts server-wide (INFO), which other tests running
  // at the same time against the shared server would disturb.
  NEED_REDIS_SERVER_BINARY();
  OwnServer server;
  ASSERT_TRUE(server.Start());
  const Settings& settings = server.settings();
  Properties p = PropsOf(settings);
  p.Set("redis.pipeline", "4");
  auto store = Open(p);
  EXPECT_EQ(store->capabilities().pipeline, 4);
  const std::string table = test_util::UniqueTable("redis");
  const std::string port = SettingOf(settings, "redis.port");
  auto clients = [&] {
    return std::atoi(Shell("redis-cli -p " + port + " INFO clients | grep ^connected_clients: | cut -d: -f2").c_str());
  };
  // The baseline once the count has settled (a probe's close, from the start
  // script or from Open, is counted when the server gets to it).
  const int before = test_util::SettledValue(clients, 3, 50);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int slot = 0; slot < 4; ++slot) sessions.push_back(store->NewClientSession(ClientSlot{0, 0, slot}));
  sessions.push_back(store->NewClientSession(ClientSlot{0, 1, 0}));  // another connection
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    const std::string k = "k" + std::to_string(i);
    ASSERT_EQ(sessions[i]->Insert(table, k, Views(Record(k))), Status::Ok());
  }
  RecordSet rs;
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    ASSERT_EQ(sessions[(i + 1) % sessions.size()]->Read(table, "k" + std::to_string(i), FieldSelector{}, &rs),
              Status::Ok());
  }
  EXPECT_EQ(clients() - before, 2);  // two connections for five clients
}

// Many clients (fibers) of one thread pipeline over one connection: each
// gets its own replies (records of different sizes, hits and misses
// interleaved, both layouts), and the server reads the requests in batches
// (INFO stats: commands processed per read event), where clients with a
// connection each send one command per read.
TEST(RedisTest, PipelinedFibersEachGetTheirOwnRepliesInBatches) {
  NEED_REDIS_SERVER_BINARY();
  OwnServer server;
  ASSERT_TRUE(server.Start());
  auto stat = [&](const std::string& name) {
    const std::string info = Shell("redis-cli -p " + server.port() + " INFO stats");
    const auto at = info.find("\n" + name + ":");
    return at == std::string::npos ? -1.0 : std::atof(info.c_str() + at + name.size() + 2);
  };
  constexpr int kClients = 16, kRounds = 40;
  // Commands per read event on the server while `pipeline` clients share a connection.
  auto run = [&](const std::string& layout, int pipeline, int* wrong) {
    Properties p = PropsOf(server.settings());
    p.Set("redis.layout", layout);
    p.Set("redis.pipeline", std::to_string(pipeline));
    auto store = Open(p);
    std::vector<std::unique_ptr<Session>> sessions;
    for (int i = 0; i < kClients; ++i) sessions.push_back(store->NewClientSession(ClientSlot{0, 0, i}));
    const double commands = stat("total_commands_processed"), reads = stat("total_reads_processed");
    io::FiberScheduler fibers;
    for (int i = 0; i < kClients; ++i) {
      fibers.Spawn([&, i] {
        Session* session = sessions[static_cast<std::size_t>(i)].get();
        RecordSet rs;
        for (int round = 0; round < kRounds; ++round) {
          const std::string key = layout + std::to_string(pipeline) + "-" + std::to_string(i);
          const Owned rec = Record(key + "/" + std::to_string(round), 1 + i % 10, round);
          if (session->Insert("usertable", key, Views(rec)) != Status::Ok()) ++*wrong;
          if (session->Read("usertable", key, FieldSelector{}, &rs) != Status::Ok() || rs.record_count() != 1 ||
              FieldsOf(rs, 0) != rec) {
            ++*wrong;
          }
          if (session->Read("usertable", key + "-missing", FieldSelector{}, &rs) != Status::NotFound()) ++*wrong;
        }
      });
    }
    fibers.Run();
    return (stat("total_commands_processed") - commands) / (stat("total_reads_processed") - reads);
  };
  for (const std::string layout : {"string", "hash"}) {
    int wrong = 0;
    const double alone = run(layout, 1, &wrong);
    EXPECT_EQ(wrong, 0) << layout;
    const double shared = run(layout, kClients, &wrong);
    EXPECT_EQ(wrong, 0) << layout;
    // (A script's own calls count as commands too, so alone is 1 for the
    // string layout and about 2 for the hash layout's.)
    EXPECT_LT(alone, 2.5) << layout;
    EXPECT_GT(shared, 4 * alone) << layout << ": " << alone << " alone";
    RecordProperty(layout + "_commands_per_read", std::to_string(shared));
  }
}

// Its own server, a store on it and a session that has inserted record "k"
// of table "t".
struct ServerWithOneRecord {
  // With redis.timeout_ms=`timeout_ms`.
  void Start(const char* timeout_ms) {
    ASSERT_TRUE(server.Start());
    Properties p = PropsOf(server.settings());
    p.Set("redis.timeout_ms", timeout_ms);
    store = Open(p);
    s = store->NewSession(0);
    ASSERT_EQ(s->Insert("t", "k", Views(Record("k"))), Status::Ok());
  }
  OwnServer server;
  std::unique_ptr<Store> store;
  std::unique_ptr<Session> s;
};

TEST(RedisTest, PausedServerTimesOutWithinTimeoutThenRecovers) {
  NEED_REDIS_SERVER_BINARY();
  ServerWithOneRecord w;
  ASSERT_NO_FATAL_FAILURE(w.Start("300"));
  Session* s = w.s.get();
  const pid_t pid = w.server.Pid();
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  RecordSet rs;
  const auto t0 = std::chrono::steady_clock::now();
  const Status st = s->Read("t", "k", FieldSelector{}, &rs);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  kill(pid, SIGCONT);
  EXPECT_EQ(st, Status::Error());
  EXPECT_GE(ms, 250);
  EXPECT_LT(ms, 1500);
  // The late reply must not be taken for the next request's: the session
  // reconnected, and reads its own answer.
  Status again = Status::Error();
  for (int i = 0; i < 50 && !again.ok(); ++i) again = s->Read("t", "k", FieldSelector{}, &rs);
  ASSERT_EQ(again, Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), Record("k"));
}

TEST(RedisTest, KilledAndRestartedServerFailsOpsThenRecovers) {
  NEED_REDIS_SERVER_BINARY();
  ServerWithOneRecord w;
  ASSERT_NO_FATAL_FAILURE(w.Start("500"));
  Session* s = w.s.get();
  w.server.Stop();
  RecordSet rs;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    Status st = s->Read("t", "k", FieldSelector{}, &rs);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(st == Status::Error() || st == Status(Status::kServiceUnavailable)) << st.name();
    EXPECT_LT(ms, 1500);
    Status w = s->Insert("t", "k", Views(Record("k")));
    EXPECT_TRUE(w == Status::Error() || w == Status(Status::kServiceUnavailable)) << w.name();
  }
  const std::string port = w.server.port();
  ASSERT_TRUE(w.server.Start());
  ASSERT_EQ(w.server.port(), port);  // the same port: the session's endpoint
  // Reconnects with backoff (at most 1 s apart); the scripts are loaded
  // again on NOSCRIPT (the restarted server has none).
  Status st = Status::Error();
  const auto t0 = std::chrono::steady_clock::now();
  while (!st.ok() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)) {
    st = s->Insert("t", "k", Views(Record("k", 10, 2)));
  }
  ASSERT_EQ(st, Status::Ok());
  ASSERT_EQ(s->Read("t", "k", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), Record("k", 10, 2));
  Field f{"field0", "u"};
  EXPECT_EQ(s->Update("t", "k", std::span<const Field>(&f, 1)), Status::Ok());
}

// End to end, as a user runs it: many pipelined clients per thread, and the
// server killed mid-run then restarted on its port. No crash or hang; the
// failures are counted per return code, the clients reconnect and the server
// answers again (its data is gone: NOT_FOUND), exit 0 by default; with
// errors.max the run stops early, keeps its partial numbers and exits 1.
TEST(RedisTest, CliRunSurvivesAKilledServerWithPipelinedClients) {
  NEED_REDIS_SERVER_BINARY();
  OwnServer server;
  ASSERT_TRUE(server.Start());
  std::string tmpl = (fs::temp_directory_path() / "storebench-redis-kill-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  std::vector<std::string> common = {"-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada", "-p",
                                     "recordcount=2000", "-p", "redis.timeout_ms=300"};
  for (const auto& [k, v] : server.settings()) common.insert(common.end(), {"-p", k + "=" + v});
  test_util::ProcessOptions o;
  o.cwd = tmpl;
  auto run = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"run", "redis", "-p", "connections=4", "-p", "redis.pipeline=4", "-p",
                                     "operationcount=0", "-p", "maxexecutiontime=4", "-p", "target=2000"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    std::remove((o.cwd + "/stderr").c_str());
    std::atomic<bool> ended{false};
    std::thread fault([&] {
      // One second into the measured run, however slowly the process started
      // (a kill during its setup would fail the open, not the operations).
      test_util::WaitForText(o.cwd + "/stderr", "storebench: running ", [&] { return ended.load(); });
      std::this_thread::sleep_for(std::chrono::milliseconds(1000));
      server.Stop();
      std::this_thread::sleep_for(std::chrono::milliseconds(800));
      server.Start();
    });
    auto r = test_util::RunProcess(STOREBENCH_BINARY, args, o);
    ended.store(true);
    fault.join();
    return r;
  };
  std::vector<std::string> load = {"load", "redis"};
  load.insert(load.end(), common.begin(), common.end());
  ASSERT_EQ(test_util::RunProcess(STOREBENCH_BINARY, load, o).code, 0);

  const auto r = run({});
  EXPECT_EQ(r.code, 0) << r.err;
  auto count = [](const std::string& out, const std::string& what) {
    const auto at = out.find(what + ", ");
    return at == std::string::npos ? 0ull : std::stoull(out.substr(at + what.size() + 2));
  };
  const auto failed = count(r.out, "[READ], Return=ERROR") + count(r.out, "[READ], Return=SERVICE_UNAVAILABLE") +
                      count(r.out, "[UPDATE], Return=ERROR") + count(r.out, "[UPDATE], Return=SERVICE_UNAVAILABLE");
  EXPECT_GT(failed, 0u) << r.out;
  EXPECT_GT(count(r.out, "[READ], Return=OK"), 0u) << r.out;         // before the kill
  EXPECT_GT(count(r.out, "[READ], Return=NOT_FOUND"), 0u) << r.out;  // the restarted, empty server answers

  // The fault thread restarted the server (empty): load again, then fail more than errors.max.
  ASSERT_EQ(test_util::RunProcess(STOREBENCH_BINARY, load, o).code, 0);
  const auto capped = run({"-p", "errors.max=5"});
  EXPECT_EQ(capped.code, 1) << capped.err;
  EXPECT_NE(capped.err.find("errors.max=5"), std::string::npos) << capped.err;
  EXPECT_NE(capped.out.find("[OVERALL], RunTime(ms)"), std::string::npos) << capped.out;
  std::error_code ec;
  fs::remove_all(tmpl, ec);
}

// --- Cluster -----------------------------------------------------------------

// The slot ranges each node serves, from `CLUSTER NODES` (asked of `port`).
std::map<std::string, std::vector<std::pair<int, int>>> SlotOwners(const std::string& port) {
  std::map<std::string, std::vector<std::pair<int, int>>> out;
  std::istringstream in(Shell("redis-cli -p " + port + " CLUSTER NODES"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::vector<std::string> w;
    std::string x;
    while (f >> x) w.push_back(x);
    if (w.size() < 8 || w[2].find("master") == std::string::npos) continue;
    const std::string addr = w[1].substr(0, w[1].find('@'));
    const std::string node_port = addr.substr(addr.rfind(':') + 1);
    for (std::size_t i = 8; i < w.size(); ++i) {
      if (w[i][0] == '[') continue;  // a slot being migrated
      const auto dash = w[i].find('-');
      const int lo = std::atoi(w[i].c_str());
      const int hi = dash == std::string::npos ? lo : std::atoi(w[i].c_str() + dash + 1);
      out[node_port].emplace_back(lo, hi);
    }
  }
  return out;
}

// Asks every master for its keys of `table` and checks that each one's slot
// (CLUSTER KEYSLOT, the server's own hash) is served by that node, that no
// key is on two nodes, that there are `expected` keys with the index among
// them, and that all three nodes hold some.
void CheckPlacement(const std::string& seed, const std::string& table, std::size_t expected) {
  auto owners = SlotOwners(seed);
  ASSERT_EQ(owners.size(), 3u) << "expected a 3-master cluster";
  std::set<std::string> seen;
  std::size_t per_node_min = expected;
  for (const auto& [port, ranges] : owners) {
    std::istringstream keys(Shell("redis-cli -p " + port + " --scan --pattern '" + table + ":*'"));
    std::string key, cmds;
    std::vector<std::string> list;
    while (std::getline(keys, key)) {
      list.push_back(key);
      cmds += "CLUSTER KEYSLOT " + key + "\n";
    }
    per_node_min = std::min(per_node_min, list.size());
    test_util::TempFile input(cmds);
    std::istringstream slots(Shell("redis-cli -p " + port + " < " + input.path()));
    for (const std::string& k : list) {
      std::string slot_text;
      ASSERT_TRUE(std::getline(slots, slot_text)) << k;
      const int slot = std::atoi(slot_text.c_str());
      bool owned = false;
      for (auto [lo, hi] : ranges) owned = owned || (slot >= lo && slot <= hi);
      EXPECT_TRUE(owned) << k << " (slot " << slot << ") is on node " << port;
      EXPECT_TRUE(seen.insert(k).second) << k << " on two nodes";
    }
  }
  EXPECT_EQ(seen.size(), expected);
  EXPECT_EQ(seen.count(table + ":_index"), 1u);
  EXPECT_GT(per_node_min, expected / 10) << "keys not spread over the three nodes";
}

// Tests on the shared test cluster (STOREBENCH_TEST_SERVER_REDIS_CLUSTER).
class RedisClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_SERVER("redis-cluster", settings);
    seed = SettingOf(settings, "redis.port");
  }
  Settings settings;
  std::string seed;  // the port of the node the tests start from
};

TEST_F(RedisClusterTest, EveryKeyLandsOnItsSlotsNodeAndWorkloadRuns) {
  auto store = Open(PropsOf(settings));
  auto s = store->NewSession(0);
  const std::string table = test_util::UniqueTable("rc");
  constexpr int kRecords = 300;
  for (int i = 0; i < kRecords; ++i) {
    const std::string k = "user" + std::to_string(i * 7919);
    ASSERT_EQ(s->Insert(table, k, Views(Record(k))), Status::Ok()) << k;
  }
  CheckPlacement(seed, table, kRecords + 1);  // the records and the table's index

  // Workload A's mix: reads and updates, plus a scan and deletes.
  RecordSet rs;
  for (int i = 0; i < kRecords; i += 3) {
    const std::string k = "user" + std::to_string(i * 7919);
    const std::string value = "upd" + std::to_string(i);
    Field f{"field4", value};
    ASSERT_EQ(s->Update(table, k, std::span<const Field>(&f, 1)), Status::Ok()) << k;
    ASSERT_EQ(s->Read(table, k, FieldSelector{}, &rs), Status::Ok()) << k;
    EXPECT_EQ(rs.Find(0, "field4").value_or(""), "upd" + std::to_string(i));
    EXPECT_EQ(rs.field_count(0), 10u);
  }
  ASSERT_EQ(s->Scan(table, "user", 50, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 50u);
  for (std::size_t r = 1; r < rs.record_count(); ++r) EXPECT_LT(rs.key(r - 1), rs.key(r));
  ASSERT_EQ(s->Delete(table, "user0"), Status::Ok());
  EXPECT_EQ(s->Read(table, "user0", FieldSelector{}, &rs), Status::NotFound());
  auto stats = store->Stats();
  std::map<std::string, std::string> m(stats.begin(), stats.end());
  EXPECT_EQ(m["cluster_nodes"], "3");
  EXPECT_GE(std::atoll(m["keys"].c_str()), kRecords);
}

// storebench load + run of workload A against the cluster, through the CLI.
TEST_F(RedisClusterTest, CliLoadsAndRunsWorkloadA) {
  std::string tmpl = (fs::temp_directory_path() / "storebench-redis-cli-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string table = test_util::UniqueTable("rcw");
  std::vector<std::string> common = {"-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada",
                                     "-p", "recordcount=1000", "-p", "operationcount=4000",
                                     "-p", "table=" + table, "-threads", "2"};
  for (const auto& [k, v] : settings) {
    common.push_back("-p");
    common.push_back(k + "=" + v);
  }
  test_util::ProcessOptions o;
  o.cwd = tmpl;
  for (std::string phase : {"load", "run"}) {
    std::vector<std::string> args = {phase, "redis"};
    args.insert(args.end(), common.begin(), common.end());
    auto r = test_util::RunProcess(STOREBENCH_BINARY, args, o);
    EXPECT_EQ(r.code, 0) << phase << ": " << r.err;
    EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("Return=ERROR"), std::string::npos) << r.out;
    if (phase == "load") {
      EXPECT_NE(r.out.find("[INSERT], Return=OK, 1000"), std::string::npos) << r.out;
    }
    if (phase == "run") {
      EXPECT_NE(r.out.find("[READ], Return=OK"), std::string::npos) << r.out;
      EXPECT_NE(r.out.find("[UPDATE], Return=OK"), std::string::npos) << r.out;
    }
  }
  std::error_code ec;
  fs::remove_all(tmpl, ec);
  CheckPlacement(seed, table, 1001);
}

// Moves the slot of one record from its node to another by hand, as
// `redis-cli --cluster reshard` does: while the slot migrates the old node
// answers ASK, afterwards MOVED; the session follows both.
TEST_F(RedisClusterTest, FollowsAskDuringMigrationAndMovedAfterIt) {
  auto store = Open(PropsOf(settings));
  auto s = store->NewSession(0);
  const std::string table = test_util::UniqueTable("rc");
  ASSERT_EQ(s->Insert(table, "moving", Views(Record("moving"))), Status::Ok());
  ASSERT_EQ(s->Insert(table, "staying", Views(Record("staying"))), Status::Ok());
  const std::string key = table + ":moving";
  const int slot = std::atoi(Shell("redis-cli -p " + seed + " CLUSTER KEYSLOT " + key).c_str());
  std::string src, dst;
  for (const auto& [port, ranges] : SlotOwners(seed)) {
    bool owns = false;
    for (auto [lo, hi] : ranges) owns = owns || (slot >= lo && slot <= hi);
    (owns ? src : dst) = port;
  }
  ASSERT_FALSE(src.empty());
  ASSERT_FALSE(dst.empty());
  auto id = [](const std::string& port) {
    std::string v = Shell("redis-cli -p " + port + " CLUSTER MYID");
    return v.substr(0, v.find('\n'));
  };
  const std::string sl = std::to_string(slot);
  ASSERT_EQ(Shell("redis-cli -p " + dst + " CLUSTER SETSLOT " + sl + " IMPORTING " + id(src)), "OK\n");
  ASSERT_EQ(Shell("redis-cli -p " + src + " CLUSTER SETSLOT " + sl + " MIGRATING " + id(dst)), "OK\n");
  ASSERT_EQ(Shell("redis-cli -p " + src + " MIGRATE 127.0.0.1 " + dst + " " + key + " 0 5000"), "OK\n");

  auto redirects = [&](const std::string& name) {
    auto stats = store->Stats();
    std::map<std::string, std::string> m(stats.begin(), stats.end());
    return std::atoll(m[name].c_str());
  };
  RecordSet rs;
  ASSERT_EQ(s->Read(table, "moving", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), Record("moving"));
  Field f{"field1", "during"};
  ASSERT_EQ(s->Update(table, "moving", std::span<const Field>(&f, 1)), Status::Ok());
  EXPECT_GE(redirects("ask_redirects"), 2);

  // As redis-cli --cluster does: the importing node first, then the others;
  // then wait until every node agrees (the change spreads by gossip).
  std::vector<std::string> order = {dst, src};
  for (const auto& [port, ranges] : SlotOwners(seed)) {
    if (port != dst && port != src) order.push_back(port);
  }
  for (const auto& port : order) {
    EXPECT_EQ(Shell("redis-cli -p " + port + " CLUSTER SETSLOT " + sl + " NODE " + id(dst)), "OK\n") << port;
  }
  auto agreed = [&] {
    for (const auto& asked : order) {
      for (const auto& [port, ranges] : SlotOwners(asked)) {
        for (auto [lo, hi] : ranges) {
          if (slot >= lo && slot <= hi && port != dst) return false;
        }
      }
    }
    return true;
  };
  for (int i = 0; i < 100 && !agreed(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(agreed()) << "the cluster did not agree on slot " << slot;
  ASSERT_EQ(s->Read(table, "moving", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field1").value_or(""), "during");
  EXPECT_GE(redirects("moved_redirects"), 1);
  ASSERT_EQ(s->Read(table, "staying", FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(s->Scan(table, "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 2u);
  // A new session starts from the store's (old) map and is redirected too.
  auto s2 = store->NewSession(1);
  ASSERT_EQ(s2->Delete(table, "moving"), Status::Ok());
  EXPECT_EQ(s->Read(table, "moving", FieldSelector{}, &rs), Status::NotFound());
}

TEST(RedisTest, NotAClusterNodeIsSetupError) {
  Settings settings;
  STOREBENCH_NEED_SERVER("redis", settings);
  Properties p = PropsOf(settings);
  p.Set("redis.cluster", "true");
  const std::string msg = SetupErrorOf(p);  // cluster mode on a standalone server
  EXPECT_NE(msg.find("CLUSTER"), std::string::npos) << msg;
}

// BatchInsert on a standalone server: with redis.layout=string one MSET
// (INFO commandstats counts exactly one call), with the hash layout one
// pipelined write of the insert script per record (the index gets every
// key, so scans see them), and a SCRIPT FLUSH before it (NOSCRIPT) makes it
// reload the scripts and send the batch again.
TEST(RedisTest, BatchInsertIsOneMsetOrOnePipelinedWriteOfScripts) {
  // Its own server: it counts server-wide (INFO), which other tests running
  // at the same time against the shared server would disturb.
  NEED_REDIS_SERVER_BINARY();
  OwnServer server;
  ASSERT_TRUE(server.Start());
  const Settings& settings = server.settings();
  const std::string port = SettingOf(settings, "redis.port");
  auto mset_calls = [&] {
    const std::string info = Shell("redis-cli -p " + port + " INFO commandstats");
    const auto at = info.find("cmdstat_mset:calls=");
    return at == std::string::npos ? 0LL : std::atoll(info.c_str() + at + std::strlen("cmdstat_mset:calls="));
  };
  for (const std::string layout : {"string", "hash"}) {
    Properties p = PropsOf(settings);
    p.Set("redis.layout", layout);
    auto store = Open(p);
    EXPECT_TRUE(store->capabilities().native_batch_insert);
    auto s = store->NewSession(0);
    const std::string table = test_util::UniqueTable("rbatch");
    RecordBatch batch;
    for (int i = 0; i < 50; ++i) {
      const std::string k = "user" + std::to_string(100 + i);
      const Owned rec = Record(k, 3);
      batch.Add(k, Views(rec));
    }
    if (layout == "hash") {
      EXPECT_EQ(Shell("redis-cli -p " + port + " SCRIPT FLUSH"), "OK\n");
    }
    const long long before = mset_calls();
    ASSERT_EQ(s->BatchInsert(table, batch), Status::Ok()) << layout;
    EXPECT_EQ(mset_calls() - before, layout == "string" ? 1 : 0) << layout;
    RecordSet rs;
    for (int i = 0; i < 50; ++i) {
      const std::string k = "user" + std::to_string(100 + i);
      ASSERT_EQ(s->Read(table, k, FieldSelector{}, &rs), Status::Ok()) << layout << " " << k;
      EXPECT_EQ(FieldsOf(rs, 0), Record(k, 3)) << layout << " " << k;
    }
    if (layout == "hash") {
      EXPECT_EQ(Shell("redis-cli -p " + port + " ZCARD " + table + ":_index"), "50\n");
      ASSERT_EQ(s->Scan(table, "user120", 3, FieldSelector{}, &rs), Status::Ok());
      ASSERT_EQ(rs.record_count(), 3u);
      EXPECT_EQ(rs.key(2), "user122");
    }
  }
}

}  // namespace
}  // namespace storebench
