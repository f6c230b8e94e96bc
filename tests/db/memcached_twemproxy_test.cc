// The memcached binding through twemproxy (Debian's nutcracker 0.5.0), a
// proxy that speaks only memcached's classic commands, in front of two
// memcached servers (scripts/servers/twemproxy.sh: ketama over fnv1a_64, no
// ejection; the test command's one is STOREBENCH_TEST_SERVER_TWEMPROXY,
// "memcached.hosts=127.0.0.1:P memcached.protocol=classic"):
//  - what twemproxy forwards, seen on a raw connection: get, gets, set, cas
//    (EXISTS for a stale token, NOT_FOUND for a missing key), replace,
//    delete and version (a backend's); `mn` and `stats` it answers by
//    closing the connection (so memcached.protocol=auto falls back to
//    classic, and meta is refused at open);
//  - the binding with those properties: insert, read, update (gets + cas;
//    and memcached.update=replace), delete, binary keys, a batch, Stats
//    (no host answers `stats`); CAS updates from several threads that lose
//    no field are the conformance suite's (its memcached_twemproxy variant);
//  - a CLI load and run of workload A with every read verified;
//  - a backend killed mid-run, in a twemproxy setup of the test's own (so
//    the shared one is left alone): the run ends on time, exit 0, the
//    operations on the dead backend's keys counted as failures (twemproxy
//    answers them "SERVER_ERROR Connection refused"), the others OK; a
//    store opened in this process reads the live backend's keys, gets ERROR
//    (not NOT_FOUND) for the dead one's, and once the backend is back on its
//    port, NOT_FOUND for them (its memory is gone) and OK for new writes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/memcached/keys.h"
#include "db/registry.h"
#include "tcp_connect.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using test_util::Owned;
using test_util::Settings;

std::unique_ptr<Store> Open(const Properties& p) { return FindBinding("memcached").open(p, OpenContext{}); }

std::string Script(const std::string& name) {
  return std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/" + name + ".sh";
}

// One blocking connection speaking raw classic commands.
class RawConnection {
 public:
  explicit RawConnection(const std::string& host_port) : fd_(test_util::ConnectTcp(host_port, 5)) {}
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  bool connected() const { return fd_ >= 0; }

  // Sends `request` and returns the reply: up to "END\r\n" for a get/gets
  // (or an error line), else one line; "<closed>" when the server closed
  // the connection instead, "<timeout>" after 5 s of silence.
  std::string Call(const std::string& request) {
    const bool get = request.starts_with("get");
    send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
    std::string got;
    char buf[65536];
    for (;;) {
      const bool line = got.ends_with("\r\n");
      const bool error =
          got.starts_with("ERROR") || got.starts_with("CLIENT_ERROR") || got.starts_with("SERVER_ERROR");
      if (line && (!get || error || got.ends_with("END\r\n"))) return got;
      const ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n == 0) return got + "<closed>";
      if (n < 0) return got + "<timeout>";
      got.append(buf, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_;
};

// The cas token of a `gets` reply ("VALUE <key> <flags> <bytes> <cas>"), "" when none.
std::string CasOf(const std::string& reply) {
  std::smatch m;
  static const std::regex re("^VALUE \\S+ \\d+ \\d+ (\\d+)\r\n");
  return std::regex_search(reply, m, re) ? m[1].str() : "";
}

class MemcachedTwemproxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_BINDING("memcached");
    STOREBENCH_NEED_SERVER("twemproxy", server_);
    table_ = test_util::UniqueTable();
  }
  std::string proxy() const { return test_util::SettingOf(server_, "memcached.hosts"); }
  Settings server_;
  std::string table_;
};

TEST_F(MemcachedTwemproxyTest, TwemproxyForwardsTheClassicCommandsAndClosesOnMetaOnes) {
  EXPECT_EQ(test_util::SettingOf(server_, "memcached.protocol"), "classic");
  RawConnection c(proxy());
  ASSERT_TRUE(c.connected()) << proxy();
  const std::string k = table_ + "-raw";
  EXPECT_EQ(c.Call("set " + k + " 0 0 3\r\nabc\r\n"), "STORED\r\n");
  const std::string first = c.Call("gets " + k + "\r\n");
  const std::string cas = CasOf(first);
  ASSERT_FALSE(cas.empty()) << first;  // gets is forwarded, with the backend's cas token
  EXPECT_EQ(c.Call("cas " + k + " 0 0 3 " + cas + "\r\nxyz\r\n"), "STORED\r\n");
  EXPECT_EQ(c.Call("cas " + k + " 0 0 3 " + cas + "\r\nqqq\r\n"), "EXISTS\r\n");  // stale token
  EXPECT_EQ(c.Call("cas " + table_ + "-none 0 0 3 " + cas + "\r\nqqq\r\n"), "NOT_FOUND\r\n");
  EXPECT_EQ(c.Call("get " + k + "\r\n"), "VALUE " + k + " 0 3\r\nxyz\r\nEND\r\n");
  EXPECT_EQ(c.Call("replace " + k + " 0 0 2\r\nrr\r\n"), "STORED\r\n");
  EXPECT_EQ(c.Call("replace " + table_ + "-none 0 0 2\r\nrr\r\n"), "NOT_STORED\r\n");
  EXPECT_EQ(c.Call("delete " + k + "\r\n"), "DELETED\r\n");
  EXPECT_EQ(c.Call("delete " + k + "\r\n"), "NOT_FOUND\r\n");
  EXPECT_TRUE(c.Call("version\r\n").starts_with("VERSION "));  // a backend's, forwarded
  // The meta no-op, and stats: no error line, the connection is closed.
  EXPECT_EQ(c.Call("mn\r\n"), "<closed>");
  RawConnection c2(proxy());
  EXPECT_EQ(c2.Call("stats\r\n"), "<closed>");
}

TEST_F(MemcachedTwemproxyTest, OperationsGoThroughWithCasMergedUpdates) {
  auto store = Open(test_util::ServerProps(server_, table_));
  auto s = store->NewSession(0);
  RecordSet out;
  const std::string big(3000, 'x');
  const Field rec[] = {{"field0", "zero"}, {"field1", big}};
  ASSERT_EQ(s->Insert(table_, "user1", rec), Status::Ok());
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &out), Status::Ok());
  ASSERT_EQ(out.field_count(0), 2u);
  EXPECT_EQ(out.Find(0, "field1"), big);
  // Update: gets + cas through the proxy; the other field kept.
  const Field upd[] = {{"field0", "changed"}};
  ASSERT_EQ(s->Update(table_, "user1", upd), Status::Ok());
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.Find(0, "field0"), "changed");
  EXPECT_EQ(out.Find(0, "field1"), big);
  EXPECT_EQ(s->Update(table_, "nobody", upd), Status::NotFound());
  EXPECT_EQ(s->Read(table_, "nobody", FieldSelector{}, &out), Status::NotFound());
  // Binary keys: sent as b64:..., read back under their exact bytes.
  const std::string binary("k\0ey \xff", 6);
  ASSERT_EQ(s->Insert(table_, binary, rec), Status::Ok());
  ASSERT_EQ(s->Read(table_, binary, FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.Find(0, "field0"), "zero");
  EXPECT_EQ(s->Read(table_, std::string("k\0ey ", 5), FieldSelector{}, &out), Status::NotFound());
  ASSERT_EQ(s->Update(table_, binary, upd), Status::Ok());
  ASSERT_EQ(s->Read(table_, binary, FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.Find(0, "field0"), "changed");
  // Delete.
  EXPECT_EQ(s->Delete(table_, "user1"), Status::Ok());
  EXPECT_EQ(s->Delete(table_, "user1"), Status::NotFound());
  EXPECT_EQ(s->Read(table_, "user1", FieldSelector{}, &out), Status::NotFound());
  // A batch: 50 pipelined sets on the one proxy connection, spread by twemproxy.
  RecordBatch batch;
  for (int i = 0; i < 50; ++i) batch.Add("b" + std::to_string(i), rec);
  ASSERT_EQ(s->BatchInsert(table_, batch), Status::Ok());
  for (int i = 0; i < 50; ++i) {
    ASSERT_EQ(s->Read(table_, "b" + std::to_string(i), FieldSelector{}, &out), Status::Ok()) << i;
  }
  // Stats: twemproxy closes the connection on `stats`, so no host answers; it does not hang.
  const auto t0 = Clock::now();
  std::map<std::string, std::string> stats;
  for (const auto& [k, v] : store->Stats()) stats[k] = v;
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(stats["memcached.hosts"], "1");
  EXPECT_EQ(stats["memcached.hosts_answering"], "0");
}

TEST_F(MemcachedTwemproxyTest, ReplaceUpdatesWorkToo) {
  auto store = Open(test_util::ServerProps(server_, table_, {{"memcached.update", "replace"}}));
  auto s = store->NewSession(0);
  RecordSet out;
  const Field rec[] = {{"field0", "a"}, {"field1", "b"}};
  const Field upd[] = {{"field1", "only"}};
  EXPECT_EQ(s->Update(table_, "k", upd), Status::NotFound());  // NOT_STORED: nothing created
  EXPECT_EQ(s->Read(table_, "k", FieldSelector{}, &out), Status::NotFound());
  ASSERT_EQ(s->Insert(table_, "k", rec), Status::Ok());
  ASSERT_EQ(s->Update(table_, "k", upd), Status::Ok());
  ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &out), Status::Ok());
  ASSERT_EQ(out.field_count(0), 1u);  // replaced whole
  EXPECT_EQ(out.Find(0, "field1"), "only");
}

// twemproxy closes the connection on `mn`, which the binding takes for a
// refusal of the meta protocol, at once (not after memcached.timeout_ms):
// memcached.protocol=meta is a setup error naming it, auto (the default)
// falls back to classic in one line on stderr.
TEST_F(MemcachedTwemproxyTest, MetaIsRefusedAtOpen) {
  const auto t0 = Clock::now();
  try {
    Open(test_util::ServerProps(server_, table_, {{"memcached.protocol", "meta"}}));
    FAIL() << "opened a meta-protocol store through twemproxy";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("refused 'mn'"), std::string::npos) << what;
    EXPECT_NE(what.find("memcached.protocol=classic"), std::string::npos) << what;
  }
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
}

TEST_F(MemcachedTwemproxyTest, AutoFallsBackToClassic) {
  testing::internal::CaptureStderr();
  const auto t0 = Clock::now();
  std::unique_ptr<Store> store;
  EXPECT_NO_THROW(store = Open(test_util::ServerProps(server_, table_, {{"memcached.protocol", "auto"}})));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(2));
  EXPECT_NE(err.find("refused 'mn'"), std::string::npos) << err;
  EXPECT_NE(err.find("using the classic protocol"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;  // one line
  if (store == nullptr) return;
  auto s = store->NewSession(0);
  RecordSet out;
  const Field rec[] = {{"field0", "a"}};
  const Field upd[] = {{"field0", "b"}};
  EXPECT_EQ(s->Insert(table_, "k", rec), Status::Ok());
  EXPECT_EQ(s->Update(table_, "k", upd), Status::Ok());
  ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.Find(0, "field0"), "b");
}

// YCSB's load and run of workload A through the CLI, every read verified.
TEST_F(MemcachedTwemproxyTest, WorkloadAVerifiesEveryRecord) {
  test_util::ExpectWorkloadAVerified("memcached", server_, table_, {}, 1000, 8000);
}

// ---- a backend killed mid-run ----------------------------------------------

// A twemproxy setup of the test's own in a temporary folder, stopped at the end.
class OwnTwemproxy {
 public:
  explicit OwnTwemproxy(const fs::path& parent) : dir_((parent / "tw").string()) {
    test_util::ProcessOptions o;
    o.cwd = parent.string();
    auto r = test_util::RunProcess("/bin/bash", {Script("twemproxy"), "start", dir_}, o);
    if (r.code != 0) {
      ADD_FAILURE() << "twemproxy.sh start: " << r.err;
      return;
    }
    settings_ = test_util::ParseSettings(r.out);
  }
  ~OwnTwemproxy() {
    test_util::ProcessOptions o;
    o.cwd = fs::path(dir_).parent_path().string();
    test_util::RunProcess("/bin/bash", {Script("twemproxy"), "stop", dir_}, o);
  }
  OwnTwemproxy(const OwnTwemproxy&) = delete;
  OwnTwemproxy& operator=(const OwnTwemproxy&) = delete;

  const Settings& settings() const { return settings_; }
  std::string backend_dir(int n) const { return dir_ + "/backend" + std::to_string(n); }
  pid_t backend_pid(int n) const {
    return static_cast<pid_t>(std::stol(test_util::Slurp(backend_dir(n) + "/pid")));
  }
  std::string backend(int n) const {
    std::string port = test_util::Slurp(backend_dir(n) + "/ports");
    while (!port.empty() && (port.back() == '\n' || port.back() == ' ')) port.pop_back();
    return "127.0.0.1:" + port;
  }
  // Starts backend n again on its port (memcached.sh keeps it in its folder,
  // and records the new pid there, where twemproxy.sh stop finds it).
  bool RestartBackend(int n) const {
    test_util::ProcessOptions o;
    o.cwd = fs::path(dir_).parent_path().string();
    return test_util::RunProcess("/bin/bash", {Script("memcached"), "start", backend_dir(n)}, o).code == 0;
  }

 private:
  std::string dir_;
  Settings settings_;
};

long ReturnCount(const std::string& out, const std::string& op, const std::string& status) {
  std::smatch m;
  const std::regex re("\\[" + op + "\\], Return=" + status + ", ([0-9]+)");
  return std::regex_search(out, m, re) ? std::stol(m[1]) : 0;
}

TEST(MemcachedTwemproxyKillTest, RunEndsOnTimeWithTheDeadBackendsKeysFailedAndTheOthersOk) {
  STOREBENCH_NEED_BINDING("memcached");
  Settings shared;  // not used: its presence says nutcracker is there
  STOREBENCH_NEED_SERVER("twemproxy", shared);
  const auto t0 = Clock::now();
  auto since = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  test_util::TempDir tmp{"storebench-twemproxy-kill"};
  OwnTwemproxy tw(tmp.path());
  ASSERT_FALSE(tw.settings().empty());
  std::vector<std::string> props;
  for (const auto& [k, v] : tw.settings()) props.insert(props.end(), {"-p", k + "=" + v});
  constexpr int kRecords = 2000;
  const std::string workload = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada";
  test_util::ProcessOptions po;
  po.cwd = tmp.path().string();
  std::vector<std::string> load = {
      "load", "memcached", "-P", workload, "-p", "recordcount=" + std::to_string(kRecords), "-threads", "4"};
  load.insert(load.end(), props.begin(), props.end());
  const auto loaded = test_util::RunProcess(STOREBENCH_BINARY, load, po);
  ASSERT_EQ(loaded.code, 0) << loaded.err;
  ASSERT_NE(loaded.out.find("[INSERT], Return=OK, " + std::to_string(kRecords)), std::string::npos)
      << loaded.out;

  // Records of the test's own, sorted by the backend twemproxy put them on
  // (a raw get on each backend says which).
  const std::string table = "killtest";
  std::unique_ptr<Store> store = Open(test_util::ServerProps(tw.settings(), table));
  auto session = store->NewSession(0);
  std::vector<std::string> on[3];
  {
    RawConnection b1(tw.backend(1)), b2(tw.backend(2));
    ASSERT_TRUE(b1.connected() && b2.connected());
    for (int i = 0; i < 400 && (on[1].size() < 20 || on[2].size() < 20); ++i) {
      const std::string k = "user" + std::to_string(memcache::Fnv1a64(std::to_string(i)));
      const Field f{"field0", k};
      ASSERT_EQ(session->Insert(table, k, std::span<const Field>(&f, 1)), Status::Ok()) << k;
      const bool in1 = b1.Call("get " + table + "-" + k + "\r\n").starts_with("VALUE");
      const bool in2 = b2.Call("get " + table + "-" + k + "\r\n").starts_with("VALUE");
      ASSERT_NE(in1, in2) << k << " is on exactly one backend";
      on[in1 ? 1 : 2].push_back(k);
    }
  }
  ASSERT_GE(on[1].size(), 5u);
  ASSERT_GE(on[2].size(), 5u);
  std::cerr << "set up at " << since() << " s: " << on[1].size() << " and " << on[2].size()
            << " keys of the test's own on backends 1 and 2\n";

  // The run, backend 1 killed 3 s in; it ends at its maxexecutiontime of 8 s.
  constexpr int kRunS = 8;
  test_util::ProcessResult run;
  std::thread runner([&] {
    std::vector<std::string> args = {"run",      "memcached",
                                     "-P",       workload,
                                     "-p",       "recordcount=" + std::to_string(kRecords),
                                     "-p",       "operationcount=0",
                                     "-p",       "maxexecutiontime=" + std::to_string(kRunS),
                                     "-p",       "memcached.timeout_ms=2000",
                                     "-threads", "4"};
    args.insert(args.end(), props.begin(), props.end());
    run = test_util::RunProcess(STOREBENCH_BINARY, args, po);
  });
  std::this_thread::sleep_for(std::chrono::seconds(3));
  const pid_t victim = tw.backend_pid(1);
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  std::cerr << "backend 1 (pid " << victim << ") killed at " << since() << " s\n";
  runner.join();
  std::cerr << "run done at " << since() << " s (" << run.wall_ms << " ms)\n";

  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_LT(run.wall_ms, (kRunS + 2 + 2) * 1000L) << "ends on time: maxexecutiontime + one timeout (+ start)";
  EXPECT_NE(run.out.find("[OVERALL], RunTime(ms)"), std::string::npos) << run.out;
  long ok = 0, failed = 0;
  for (const char* op : {"READ", "UPDATE"}) {
    ok += ReturnCount(run.out, op, "OK");
    failed += ReturnCount(run.out, op, "ERROR") + ReturnCount(run.out, op, "SERVICE_UNAVAILABLE");
    EXPECT_GT(ReturnCount(run.out, op, "ERROR"), 0) << op << ": the dead backend's keys fail\n" << run.out;
  }
  EXPECT_EQ(run.out.find("Return=NOT_FOUND"), std::string::npos) << "no key moved to the live backend\n"
                                                                 << run.out;
  std::cerr << "run: " << ok << " OK, " << failed << " ERROR or SERVICE_UNAVAILABLE\n";
  EXPECT_GT(failed, 0) << run.out;
  EXPECT_GT(ok, failed) << "the live backend's keys (about half) kept working, all run long\n" << run.out;

  // In this process: the live backend's keys read and update; the dead
  // one's are errors, not misses (no ejection: they are not remapped).
  RecordSet got;
  const Field upd{"field1", "after"};
  for (const std::string& k : on[2]) {
    ASSERT_EQ(session->Read(table, k, FieldSelector{}, &got), Status::Ok()) << k;
    EXPECT_EQ(got.Find(0, "field0"), k);
    EXPECT_EQ(session->Update(table, k, std::span<const Field>(&upd, 1)), Status::Ok()) << k;
  }
  for (const std::string& k : on[1]) {
    EXPECT_EQ(session->Read(table, k, FieldSelector{}, &got), Status::Error()) << k;
    EXPECT_EQ(session->Update(table, k, std::span<const Field>(&upd, 1)), Status::Error()) << k;
  }

  // Backend 1 back on its port, empty: the same store finds its keys
  // missing (NOT_FOUND, once twemproxy has reconnected) and writes again.
  ASSERT_TRUE(tw.RestartBackend(1));
  std::cerr << "backend 1 restarted at " << since() << " s\n";
  Status s = Status::Error();
  for (const auto until = Clock::now() + std::chrono::seconds(5); Clock::now() < until;) {
    s = session->Read(table, on[1][0], FieldSelector{}, &got);
    if (s == Status::NotFound()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(s, Status::NotFound()) << "within 5 s of the restart";
  for (const std::string& k : on[1]) {
    const Field f{"field0", k};
    EXPECT_EQ(session->Insert(table, k, std::span<const Field>(&f, 1)), Status::Ok()) << k;
    EXPECT_EQ(session->Read(table, k, FieldSelector{}, &got), Status::Ok()) << k;
  }
  for (const std::string& k : on[2])
    EXPECT_EQ(session->Read(table, k, FieldSelector{}, &got), Status::Ok()) << k;
  std::cerr << "done at " << since() << " s\n";
}

}  // namespace
}  // namespace storebench
