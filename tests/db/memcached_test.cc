// memcached-specific behaviour: setup errors, keys as memcached sees them
// (table-qualified, base64 for binary, over-long ones refused), CAS updates,
// the spread of keys over several hosts, item size limit, authentication,
// and what a session does when its server pauses or restarts. (Operation
// semantics: conformance_test.cc.)
//
// The shared server (STOREBENCH_TEST_SERVER_MEMCACHED) serves the plain
// tests; the tests that pause, kill or reconfigure a server start their own
// with scripts/servers/memcached.sh in a temporary directory, so they never
// disturb the shared one.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/record_codec.h"
#include "db/registry.h"
#include "net/fiber_scheduler.h"
#include "test_util.h"
#include "tcp_connect.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using test_util::PropsOf;
using test_util::SettingOf;
using test_util::Settings;

// A blocking text-protocol connection for looking at what the binding stored.
class Raw {
 public:
  explicit Raw(const std::string& host_port) : fd_(test_util::ConnectTcp(host_port, 5)) {
    EXPECT_GE(fd_, 0) << "cannot connect to " << host_port;
  }
  ~Raw() {
    if (fd_ >= 0) close(fd_);
  }
  // Sends `request` and returns what comes back up to and including `end`.
  std::string Ask(const std::string& request, const std::string& end = "\r\n") {
    EXPECT_EQ(send(fd_, request.data(), request.size(), MSG_NOSIGNAL), static_cast<ssize_t>(request.size()));
    std::string got;
    char buf[65536];
    while (got.size() < end.size() || got.compare(got.size() - end.size(), end.size(), end) != 0) {
      ssize_t n = recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }
  // The value of `key` (raw memcached key), or "<miss>".
  std::string Get(const std::string& key) {
    std::string r = Ask("get " + key + "\r\n", "END\r\n");
    if (r == "END\r\n") return "<miss>";
    const auto eol = r.find("\r\n");
    return r.substr(eol + 2, r.size() - eol - 2 - 7);  // drop "\r\nEND\r\n"
  }
  std::uint64_t Stat(const std::string& name) {
    std::string r = Ask("stats\r\n", "END\r\n");
    const std::string tag = "STAT " + name + " ";
    const auto p = r.find(tag);
    return p == std::string::npos ? 0 : std::stoull(r.substr(p + tag.size()));
  }

 private:
  int fd_ = -1;
};

// memcached servers of our own, started with the project's script in a
// temporary directory and stopped when this goes away.
class OwnServer {
 public:
  explicit OwnServer(std::string env = "") : env_(std::move(env)) {
    std::string tmpl = (fs::temp_directory_path() / "storebench-memcached-XXXXXX").string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  ~OwnServer() {
    Resume();
    Script("stop");
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  // Starts (again, on the same ports) and returns the printed settings.
  Settings Start() {
    line_ = Script("start");
    Settings out = test_util::ParseSettings(line_);
    EXPECT_FALSE(out.empty()) << "memcached.sh start printed nothing";
    return out;
  }
  void Stop() { Script("stop"); }
  std::vector<pid_t> Pids() const {
    std::vector<pid_t> out;
    std::ifstream f(dir_ + "/pids");
    pid_t p;
    while (f >> p) out.push_back(p);
    return out;
  }
  // SIGSTOPs the servers and waits until the kernel shows them stopped
  // (delivery is asynchronous: a request sent at once could still be served).
  void Pause() {
    for (pid_t p : Pids()) {
      kill(p, SIGSTOP);
      for (int i = 0; i < 500 && !Stopped(p); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      EXPECT_TRUE(Stopped(p)) << p;
    }
    paused_ = true;
  }
  void Resume() {
    if (!paused_) return;
    for (pid_t p : Pids()) kill(p, SIGCONT);
    paused_ = false;
  }

 private:
  // Every thread of `pid` is stopped ('T' in /proc/PID/task/*/stat).
  static bool Stopped(pid_t pid) {
    std::error_code ec;
    int threads = 0;
    for (const auto& t : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
      std::ifstream f(t.path() / "stat");
      std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      const auto paren = stat.rfind(')');
      if (paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'T') return false;
      ++threads;
    }
    return threads > 0;
  }
  std::string Script(const std::string& cmd) {
    const std::string c = env_ + " " + std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/memcached.sh " + cmd +
                          " " + dir_;
    FILE* f = popen(c.c_str(), "r");
    std::string out;
    char buf[512];
    while (f != nullptr && fgets(buf, sizeof buf, f) != nullptr) out += buf;
    if (f != nullptr) {
      EXPECT_EQ(pclose(f), 0) << c;
    }
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }

  std::string env_, dir_, line_;
  bool paused_ = false;
};

class MemcachedTest : public test_util::BindingTest {
 protected:
  MemcachedTest() : BindingTest("memcached") {}
  std::unique_ptr<Store> OpenWith(const Settings& s, const Settings& extra = {}) {
    Properties p = PropsOf(s);
    for (const auto& [k, v] : extra) p.Set(k, v);
    return Open(p);
  }
  static Status Update(Session* s, const std::string& key, const std::string& value,
                       const std::string& table = "usertable") {
    Field f{"field0", value};
    return s->Update(table, key, std::span<const Field>(&f, 1));
  }
  // Repeats `op` until it returns OK or `seconds` pass; the last status.
  template <typename F>
  static Status Eventually(F op, double seconds) {
    const auto end = Clock::now() + std::chrono::duration<double>(seconds);
    Status s = op();
    while (!s.ok() && Clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      s = op();
    }
    return s;
  }

  // On the shared memcached for tests: its settings (shared_), a store on
  // it (store_) and that store's session 0 (session_). False when the test
  // cannot go on: skipped (no memcached for tests) or failed.
  bool OpenShared() {
    [this] { STOREBENCH_NEED_SERVER("memcached", shared_); }();
    if (IsSkipped() || HasFatalFailure()) return false;
    store_ = OpenWith(shared_);
    session_ = store_->NewSession(0);
    return true;
  }
  Settings shared_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Session> session_;

  // A memcached of the test's own (OwnServer) and the settings it printed.
  struct Own {
    std::unique_ptr<OwnServer> server;
    Settings settings;
  };
  // Starts *o (with the environment `env` for the start script) when
  // memcached is there for tests. False when the test cannot go on: skipped
  // (no memcached for tests) or failed.
  bool StartOwn(Own* o, const std::string& env = "") {
    [] {
      Settings shared;
      STOREBENCH_NEED_SERVER("memcached", shared);
    }();
    if (IsSkipped() || HasFatalFailure()) return false;
    o->server = std::make_unique<OwnServer>(env);
    o->settings = o->server->Start();
    return !HasFailure();
  }

  // Its own memcached, a store on it and a session that has written user1 = "before".
  struct OneRecordServer : Own {
    std::unique_ptr<Store> store;
    std::unique_ptr<Session> session;
  };
  // Starts *o with memcached.timeout_ms=`timeout_ms`; false as StartOwn.
  bool Start(OneRecordServer* o, const char* timeout_ms) {
    if (!StartOwn(o)) return false;
    o->store = OpenWith(o->settings, {{"memcached.timeout_ms", timeout_ms}});
    o->session = o->store->NewSession(0);
    EXPECT_EQ(Put(o->session.get(), "user1", "before"), Status::Ok());
    return !HasFailure();
  }
};

// ---- without a server -------------------------------------------------------

TEST_F(MemcachedTest, UnreachableHostIsSetupErrorNamingHostAndPort) {
  const int port = test_util::UnusedLoopbackPort();
  Properties p;
  p.Set("memcached.hosts", "127.0.0.1:" + std::to_string(port));
  p.Set("memcached.timeout_ms", "1000");
  const auto start = Clock::now();
  const std::string msg = MessageOf<SetupError>(p);
  EXPECT_EQ(msg, "memcached: cannot connect to 127.0.0.1:" + std::to_string(port) + ": Connection refused");
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
}

TEST_F(MemcachedTest, BadPropertiesAreConfigErrors) {
  Properties p;
  p.Set("memcached.hosts", "127.0.0.1:notaport");
  EXPECT_NE(MessageOf<ConfigError>(p).find("memcached.hosts"), std::string::npos);
  p.Set("memcached.hosts", "");
  EXPECT_NE(MessageOf<ConfigError>(p).find("memcached.hosts"), std::string::npos);
  p.Set("memcached.hosts", "127.0.0.1:1");
  p.Set("memcached.timeout_ms", "0");
  EXPECT_NE(MessageOf<ConfigError>(p).find("memcached.timeout_ms"), std::string::npos);
  p.Set("memcached.timeout_ms", "100");
  p.Set("memcached.update", "blind");
  EXPECT_NE(MessageOf<ConfigError>(p).find("memcached.update"), std::string::npos);
  p.Set("memcached.update", "merge");
  p.Set("memcached.password", "secret");
  const std::string msg = MessageOf<ConfigError>(p);
  EXPECT_NE(msg.find("memcached.user"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("secret"), std::string::npos) << "the password is printed: " << msg;
}

TEST_F(MemcachedTest, DeclaresNoScanAndAtomicUpdates) {
  Settings s;
  STOREBENCH_NEED_SERVER("memcached", s);
  auto store = OpenWith(s);
  const Capabilities c = store->capabilities();
  EXPECT_FALSE(c.scan);
  EXPECT_EQ(c.why_no_scan, "memcached keeps no key order");
  EXPECT_TRUE(c.atomic_update);
  EXPECT_TRUE(c.waits_through_io);
  EXPECT_TRUE(c.persistent);
  RecordSet rs;
  EXPECT_EQ(store->NewSession(0)->Scan("usertable", "a", 10, FieldSelector{}, &rs), Status::NotImplemented());
}

// ---- on the shared server -----------------------------------------------------

TEST_F(MemcachedTest, RecordIsOneItemUnderTableDashKeyInTheSharedCodec) {
  if (!OpenShared()) return;
  const std::string a = test_util::UniqueTable("a"), b = test_util::UniqueTable("b");
  std::vector<Field> rec = {{"field0", "zero"}, {"field1", "one"}};
  ASSERT_EQ(session_->Insert(a, "user1", rec), Status::Ok());
  std::string want;
  EncodeRecord(rec, &want);
  Raw raw(SettingOf(shared_, "memcached.hosts"));
  EXPECT_EQ(raw.Get(a + "-user1"), want);
  // Tables are separate namespaces.
  EXPECT_EQ(Get(session_.get(), "user1", nullptr, b), Status::NotFound());
  std::string v;
  ASSERT_EQ(Get(session_.get(), "user1", &v, a), Status::Ok());
  EXPECT_EQ(v, "zero");
  // Delete removes the item; a second delete is NOT_FOUND.
  EXPECT_EQ(session_->Delete(a, "user1"), Status::Ok());
  EXPECT_EQ(raw.Get(a + "-user1"), "<miss>");
  EXPECT_EQ(session_->Delete(a, "user1"), Status::NotFound());
}

TEST_F(MemcachedTest, UpdateOfMissingKeyIsNotFoundAndCreatesNothing) {
  if (!OpenShared()) return;
  const std::string t = test_util::UniqueTable();
  EXPECT_EQ(Update(session_.get(), "ghost", "x", t), Status::NotFound());
  Raw raw(SettingOf(shared_, "memcached.hosts"));
  EXPECT_EQ(raw.Get(t + "-ghost"), "<miss>");
  ASSERT_EQ(Put(session_.get(), "k", "v", t), Status::Ok());
  ASSERT_EQ(Update(session_.get(), "k", "w", t), Status::Ok());
  std::string v;
  ASSERT_EQ(Get(session_.get(), "k", &v, t), Status::Ok());
  EXPECT_EQ(v, "w");
}

// memcached.update=replace: one "ms MR" of the given fields, so a field the
// update does not name is gone (merge keeps it); a missing key is NOT_FOUND
// and is not created; such updates are not declared atomic merges.
TEST_F(MemcachedTest, ReplaceUpdateIsOneSetOfTheGivenFields) {
  Settings s;
  STOREBENCH_NEED_SERVER("memcached", s);
  const std::string t = test_util::UniqueTable();
  Raw raw(SettingOf(s, "memcached.hosts"));
  for (const std::string mode : {"merge", "replace"}) {
    auto store = OpenWith(s, {{"memcached.update", mode}});
    EXPECT_EQ(store->capabilities().atomic_update, mode == "merge");
    auto session = store->NewSession(0);
    const std::string key = "k-" + mode;
    ASSERT_EQ(session->Insert(t, key, std::vector<Field>{{"a", "1"}, {"b", "2"}}), Status::Ok());
    ASSERT_EQ(session->Update(t, key, std::vector<Field>{{"b", "3"}}), Status::Ok());
    std::string want;
    if (mode == "merge") {
      EncodeRecord(std::vector<Field>{{"a", "1"}, {"b", "3"}}, &want);
    } else {
      EncodeRecord(std::vector<Field>{{"b", "3"}}, &want);
    }
    EXPECT_EQ(raw.Get(t + "-" + key), want) << mode;
    EXPECT_EQ(session->Update(t, key + "-missing", std::vector<Field>{{"b", "3"}}), Status::NotFound()) << mode;
    EXPECT_EQ(raw.Get(t + "-" + key + "-missing"), "<miss>") << mode;
  }
}

TEST_F(MemcachedTest, BinaryKeysAreStoredUnderTheirExactBytesAndOverlongKeysAreRefused) {
  if (!OpenShared()) return;
  const std::string t = test_util::UniqueTable();
  const std::string key("a b\0\xff", 4);
  ASSERT_EQ(Put(session_.get(), key, "bin", t), Status::Ok());
  // memcached holds it under the raw bytes "<t>-a b\0\xff": ask for it in base64.
  std::string full = t + "-" + key, b64;
  static const char* kB = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < full.size(); i += 3) {
    std::uint32_t v = static_cast<unsigned char>(full[i]) << 16;
    if (i + 1 < full.size()) v |= static_cast<unsigned char>(full[i + 1]) << 8;
    if (i + 2 < full.size()) v |= static_cast<unsigned char>(full[i + 2]);
    b64 += kB[v >> 18];
    b64 += kB[(v >> 12) & 63];
    b64 += i + 1 < full.size() ? kB[(v >> 6) & 63] : '=';
    b64 += i + 2 < full.size() ? kB[v & 63] : '=';
  }
  Raw raw(SettingOf(shared_, "memcached.hosts"));
  EXPECT_EQ(raw.Ask("mg " + b64 + " b s\r\n").substr(0, 3), "HD ");
  std::string v;
  ASSERT_EQ(Get(session_.get(), key, &v, t), Status::Ok());
  EXPECT_EQ(v, "bin");
  // A printable key of 250 bytes in all is sent as is; 251 is refused
  // before it reaches the server, and the session stays usable.
  const std::string fits(250 - t.size() - 1, 'k'), too_long(251 - t.size() - 1, 'k');
  EXPECT_EQ(Put(session_.get(), fits, "ok", t), Status::Ok());
  EXPECT_NE(raw.Get(t + "-" + fits), "<miss>");
  EXPECT_EQ(Put(session_.get(), too_long, "no", t), Status::Error());
  EXPECT_EQ(Get(session_.get(), too_long, nullptr, t), Status::Error());
  // A binary key whose base64 exceeds 250 bytes is refused too.
  EXPECT_EQ(Put(session_.get(), std::string(200, '\x01'), "no", t), Status::Error());
  ASSERT_EQ(Get(session_.get(), fits, &v, t), Status::Ok());
  EXPECT_EQ(v, "ok");
}

TEST_F(MemcachedTest, CasUpdatesLoseNoConcurrentField) {
  Settings s;
  STOREBENCH_NEED_SERVER("memcached", s);
  auto store = OpenWith(s);
  Raw raw(SettingOf(s, "memcached.hosts"));
  const std::uint64_t badval_before = raw.Stat("cas_badval");
  // "usertable-hot" is shared with other test runs, but every run rewrites
  // it first and only this test uses it.
  EXPECT_EQ(test_util::LostUpdates(store.get(), 300, 4), 0);
  // The retries happened: the server saw CAS mismatches (EX) and the
  // updates still kept every field.
  EXPECT_GT(raw.Stat("cas_badval"), badval_before);
}

TEST_F(MemcachedTest, ItemOverTheServerLimitIsErrorAndTheConnectionStaysUsable) {
  if (!OpenShared()) return;
  const std::string t = test_util::UniqueTable();
  // memcached.sh starts memcached with -I 8m: a 9 MiB value does not fit.
  EXPECT_EQ(Put(session_.get(), "huge", std::string(9u << 20, 'x'), t), Status::Error());
  EXPECT_EQ(Put(session_.get(), "small", "fine", t), Status::Ok());
  std::string v;
  ASSERT_EQ(Get(session_.get(), "small", &v, t), Status::Ok());
  EXPECT_EQ(v, "fine");
  EXPECT_EQ(Get(session_.get(), "huge", nullptr, t), Status::NotFound());
}

TEST_F(MemcachedTest, StatsReportVersionAndItems) {
  Settings s;
  STOREBENCH_NEED_SERVER("memcached", s);
  auto store = OpenWith(s);
  ASSERT_EQ(Put(store.get(), "user1", "x", test_util::UniqueTable()), Status::Ok());
  auto stats = StatsOf(store.get());
  EXPECT_FALSE(stats["memcached.version"].empty());
  EXPECT_EQ(stats["memcached.hosts_answering"], "1");
  EXPECT_GE(std::stoull(stats["memcached.curr_items"]), 1u);
  EXPECT_EQ(stats["memcached.item_size_max"], std::to_string(8u << 20));
}

// ---- on servers of our own --------------------------------------------------------

TEST_F(MemcachedTest, KeysSpreadOverTwoHostsTheSameWayEveryTime) {
  Own own;
  if (!StartOwn(&own, "MEMCACHED_INSTANCES=2")) return;
  const Settings& s = own.settings;
  const std::string hosts = SettingOf(s, "memcached.hosts");
  const auto comma = hosts.find(',');
  ASSERT_NE(comma, std::string::npos) << hosts;
  auto store = OpenWith(s);
  auto session = store->NewSession(0);
  constexpr int kKeys = 1000;
  for (int i = 0; i < kKeys; ++i) ASSERT_EQ(Put(session.get(), "user" + std::to_string(i), "v"), Status::Ok());
  Raw first(hosts.substr(0, comma)), second(hosts.substr(comma + 1));
  const std::uint64_t n1 = first.Stat("curr_items"), n2 = second.Stat("curr_items");
  EXPECT_EQ(n1 + n2, static_cast<std::uint64_t>(kKeys));
  EXPECT_GT(n1, kKeys * 4 / 10) << n1 << " / " << n2;
  EXPECT_GT(n2, kKeys * 4 / 10) << n1 << " / " << n2;
  // Another store (another process would do the same) finds every key.
  auto again = OpenWith(s);
  auto s2 = again->NewSession(1);
  for (int i = 0; i < kKeys; ++i) ASSERT_EQ(Get(s2.get(), "user" + std::to_string(i)), Status::Ok()) << i;
  // A key lives on exactly one host.
  int on_first = 0;
  for (int i = 0; i < 50; ++i) {
    const bool a = first.Get("usertable-user" + std::to_string(i)) != "<miss>";
    const bool b = second.Get("usertable-user" + std::to_string(i)) != "<miss>";
    EXPECT_NE(a, b) << i;
    on_first += a;
  }
  EXPECT_GT(on_first, 0);
  EXPECT_LT(on_first, 50);
  // One host down: open names it.
  const int port = test_util::UnusedLoopbackPort();
  const std::string msg = MessageOf<SetupError>(PropsOf({{"memcached.hosts", hosts + ",127.0.0.1:" + std::to_string(port)}}));
  EXPECT_NE(msg.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << msg;
}

TEST_F(MemcachedTest, PipelinedClientsOfOneSlotShareAConnection) {
  Own own;
  if (!StartOwn(&own)) return;
  const Settings& s = own.settings;
  Raw raw(SettingOf(s, "memcached.hosts"));
  // The server counts a closed connection (the start script's probe, open's
  // probe) a moment later, in a worker thread: poll until the count is `want`
  // (or 2 s pass); with no `want`, until it has stayed the same for 300 ms
  // (or 5 s pass), so the baseline holds no close still to be counted.
  auto connections = [&](std::uint64_t want = 0) {
    if (want == 0) return test_util::SettledValue([&] { return raw.Stat("curr_connections"); }, 6, 100);
    std::uint64_t n = raw.Stat("curr_connections");
    for (int i = 0; i < 40 && n != want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      n = raw.Stat("curr_connections");
    }
    return n;
  };
  const std::uint64_t before = connections();
  auto store = OpenWith(s, {{"memcached.pipeline", "3"}});
  EXPECT_EQ(store->capabilities().pipeline, 3);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int slot = 0; slot < 3; ++slot) sessions.push_back(store->NewClientSession({0, 0, slot}));
  sessions.push_back(store->NewClientSession({0, 1, 0}));  // another connection of thread 0
  sessions.push_back(store->NewClientSession({1, 0, 0}));  // thread 1's
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    ASSERT_EQ(Put(sessions[i].get(), "user" + std::to_string(i), "v" + std::to_string(i)), Status::Ok());
  }
  for (std::size_t i = 0; i < sessions.size(); ++i) {
    std::string v;
    ASSERT_EQ(Get(sessions[(i + 1) % sessions.size()].get(), "user" + std::to_string(i), &v), Status::Ok());
    EXPECT_EQ(v, "v" + std::to_string(i));
  }
  EXPECT_EQ(connections(before + 3), before + 3);  // {0,0} shared by three clients, {0,1}, {1,0}
  sessions.clear();
  EXPECT_EQ(connections(before), before);
  // Without pipelining every client has its own.
  auto plain = OpenWith(s);
  const std::uint64_t base = connections(before);
  auto a = plain->NewClientSession({0, 0, 0}), b = plain->NewClientSession({0, 0, 1});
  ASSERT_EQ(Put(a.get(), "x", "1"), Status::Ok());
  ASSERT_EQ(Put(b.get(), "y", "2"), Status::Ok());
  EXPECT_EQ(connections(base + 2), base + 2);
}

// Many clients (fibers) of one thread pipeline over one connection: every
// one gets its own reply (values of different sizes, hits and misses
// interleaved), and the server sees the requests arrive batched: memcached
// handles at most 20 requests per read event (-R) before it yields the
// connection (stats conn_yields), which only happens when one read carries
// more than 20 requests.
TEST_F(MemcachedTest, PipelinedFibersEachGetTheirOwnRepliesInBatches) {
  Own own;
  if (!StartOwn(&own)) return;
  const Settings& s = own.settings;
  Raw raw(SettingOf(s, "memcached.hosts"));
  constexpr int kClients = 32, kRounds = 50;
  auto run = [&](const std::string& pipeline, int* wrong) {
    auto store = OpenWith(s, {{"memcached.pipeline", pipeline}});
    std::vector<std::unique_ptr<Session>> sessions;
    for (int i = 0; i < kClients; ++i) sessions.push_back(store->NewClientSession({0, 0, i}));
    // Connected before the fibers start: otherwise all but the first wait
    // out the connect in staggered sleeps and the first batches are small
    // (under the sanitizers, every one of them can stay under 20).
    if (Put(sessions[0].get(), "p" + pipeline + "-warm", "w") != Status::Ok()) ++*wrong;
    io::FiberScheduler fibers;
    for (int i = 0; i < kClients; ++i) {
      fibers.Spawn([&, i] {
        Session* session = sessions[static_cast<std::size_t>(i)].get();
        for (int round = 0; round < kRounds; ++round) {
          const std::string key = "p" + pipeline + "-" + std::to_string(i);
          std::string value = std::to_string(round) + "/";
          value.resize(static_cast<std::size_t>(1 + 37 * i), static_cast<char>('a' + i % 26));
          if (Put(session, key, value) != Status::Ok()) ++*wrong;
          std::string got;
          if (Get(session, key, &got) != Status::Ok() || got != value) ++*wrong;
          if (Get(session, key + "-missing", &got) != Status::NotFound()) ++*wrong;
        }
      });
    }
    fibers.Run();
  };
  int wrong = 0;
  const std::uint64_t yields_before = raw.Stat("conn_yields");
  run("1", &wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(raw.Stat("conn_yields"), yields_before);  // one request per read
  run(std::to_string(kClients), &wrong);
  EXPECT_EQ(wrong, 0);
  EXPECT_GT(raw.Stat("conn_yields"), yields_before);  // > 20 requests in one read
}

TEST_F(MemcachedTest, PausedServerMakesAnOperationFailWithinItsTimeoutThenRecovers) {
  OneRecordServer o;
  if (!Start(&o, "300")) return;
  o.server->Pause();
  auto start = Clock::now();
  EXPECT_EQ(Get(o.session.get(), "user1"), Status::Error());
  auto took = Clock::now() - start;
  EXPECT_GE(took, std::chrono::milliseconds(250));
  EXPECT_LT(took, std::chrono::milliseconds(1500));
  // A write times out too (its reply never comes).
  start = Clock::now();
  const Status w = Put(o.session.get(), "user2", "during");
  EXPECT_TRUE(w.code() == Status::kError || w.code() == Status::kServiceUnavailable) << w.name();
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1500));
  o.server->Resume();
  std::string v;
  EXPECT_EQ(Eventually([&] { return Get(o.session.get(), "user1", &v); }, 5), Status::Ok());
  EXPECT_EQ(v, "before");
}

TEST_F(MemcachedTest, KilledAndRestartedServerGivesErrorsThenServesAgain) {
  OneRecordServer o;
  if (!Start(&o, "500")) return;
  o.server->Stop();
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    const Status st = Get(o.session.get(), "user1");
    EXPECT_TRUE(st.code() == Status::kError || st.code() == Status::kServiceUnavailable) << st.name();
    EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1500));
  }
  Settings again = o.server->Start();
  EXPECT_EQ(again, o.settings) << "restarted on another port";
  // memcached keeps nothing across a restart: the record is gone, and
  // writes work again once the session has reconnected.
  EXPECT_EQ(Eventually([&] { return Put(o.session.get(), "user1", "after"); }, 5), Status::Ok());
  std::string v;
  ASSERT_EQ(Get(o.session.get(), "user1", &v), Status::Ok());
  EXPECT_EQ(v, "after");
}

TEST_F(MemcachedTest, AsciiAuthentication) {
  Own own;
  if (!StartOwn(&own, "MEMCACHED_TEST_USER=bench MEMCACHED_TEST_PASSWORD=s3cret")) return;
  const Settings& s = own.settings;
  ASSERT_EQ(SettingOf(s, "memcached.user"), "bench");
  ASSERT_EQ(SettingOf(s, "memcached.password"), "s3cret");
  const std::string hosts = SettingOf(s, "memcached.hosts");

  // No credentials, wrong password: SetupErrors naming the host, never the password.
  std::string msg = MessageOf<SetupError>(PropsOf({{"memcached.hosts", hosts}}));
  EXPECT_NE(msg.find(hosts + " requires authentication"), std::string::npos) << msg;
  msg = MessageOf<SetupError>(
      PropsOf({{"memcached.hosts", hosts}, {"memcached.user", "bench"}, {"memcached.password", "wrong"}}));
  EXPECT_NE(msg.find(hosts + ": authentication failed for user 'bench'"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("wrong"), std::string::npos) << msg;

  // The password from the environment when memcached.password is unset.
  setenv("STOREBENCH_MEMCACHED_PASSWORD", "s3cret", 1);
  std::unique_ptr<Store> store;
  EXPECT_NO_THROW(store = Open(PropsOf({{"memcached.hosts", hosts}, {"memcached.user", "bench"}})));
  unsetenv("STOREBENCH_MEMCACHED_PASSWORD");
  ASSERT_NE(store, nullptr);
  store = OpenWith(s, {{"memcached.timeout_ms", "500"}});
  auto session = store->NewSession(0);
  ASSERT_EQ(Put(session.get(), "user1", "v"), Status::Ok());
  ASSERT_EQ(Update(session.get(), "user1", "w"), Status::Ok());
  EXPECT_EQ(StatsOf(store.get())["memcached.hosts_answering"], "1");
  // After a restart the session authenticates its new connection.
  own.server->Stop();
  EXPECT_NE(Get(session.get(), "user1"), Status::Ok());
  own.server->Start();
  EXPECT_EQ(Eventually([&] { return Put(session.get(), "user1", "again"); }, 5), Status::Ok());
  std::string v;
  ASSERT_EQ(Get(session.get(), "user1", &v), Status::Ok());
  EXPECT_EQ(v, "again");
}

}  // namespace
}  // namespace storebench
