// memcached.protocol: the classic text protocol (get/gets/set/cas/replace/
// delete) against the shared memcached server, which speaks both, and the
// probe against a classic-only server (a stand-in answering `mn` as ROMA 1.3
// does: "ERROR: 'mn' is not roma command. Please check command."): `auto`
// falls back to classic and says so, `meta` refuses at once naming the
// command and the server's line.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
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

using test_util::Owned;
using test_util::Settings;

// A server that answers `version` like ROMA and `mn` with ROMA's error line,
// on 127.0.0.1 at a free port; one connection at a time, until destroyed.
class ClassicOnlyServer {
 public:
  ClassicOnlyServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(fd_, 4), 0);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ClassicOnlyServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string hosts() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  void Serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string in;
      char buf[4096];
      for (;;) {
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
        std::size_t eol;
        while ((eol = in.find("\r\n")) != std::string::npos) {
          const std::string line = in.substr(0, eol);
          in.erase(0, eol + 2);
          std::string reply;
          if (line == "version") {
            reply = "VERSION 1.3.0\r\n";
          } else {
            const std::string cmd = line.substr(0, line.find(' '));
            reply = "ERROR: '" + cmd + "' is not roma command. Please check command.\r\n";
          }
          send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        }
      }
      close(c);
    }
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::unique_ptr<Store> Open(const Properties& p) { return FindBinding("memcached").open(p, OpenContext{}); }

TEST(MemcachedProtocol, AutoFallsBackToClassicWhenTheServerRefusesMn) {
  ClassicOnlyServer server;
  Properties p;
  p.Set("memcached.hosts", server.hosts());
  testing::internal::CaptureStderr();
  const auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Store> store = Open(p);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(store, nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));  // not after the 5 s timeout
  EXPECT_NE(err.find("refused 'mn'"), std::string::npos) << err;
  EXPECT_NE(err.find("ERROR: 'mn' is not roma command"), std::string::npos) << err;
  EXPECT_NE(err.find("using the classic protocol"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;  // one line
}

TEST(MemcachedProtocol, MetaOnAClassicServerIsASetupErrorNamingTheCommandAtOnce) {
  ClassicOnlyServer server;
  Properties p;
  p.Set("memcached.hosts", server.hosts());
  p.Set("memcached.protocol", "meta");
  const auto start = std::chrono::steady_clock::now();
  try {
    Open(p);
    FAIL() << "opened a meta-protocol store on a classic-only server";
  } catch (const SetupError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("refused 'mn'"), std::string::npos) << what;
    EXPECT_NE(what.find("ERROR: 'mn' is not roma command"), std::string::npos) << what;
    EXPECT_NE(what.find("memcached.protocol=classic"), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(MemcachedProtocol, ClassicKeysAreThemselvesOrEscaped) {
  std::string k;
  ASSERT_TRUE(memcache::ClassicKey("usertable-user1", &k));
  EXPECT_EQ(k, "usertable-user1");
  ASSERT_TRUE(memcache::ClassicKey(std::string("t-k\0y", 5), &k));
  EXPECT_EQ(k, "b64:dC1rAHk=");
  ASSERT_TRUE(memcache::ClassicKey("b64:dC1rAHk=", &k));  // a plain key that looks escaped is escaped too
  EXPECT_EQ(k, "b64:YjY0OmRDMXJBSGs9");
  EXPECT_FALSE(memcache::ClassicKey(std::string(190, '\x01'), &k));  // over 250 bytes once escaped
}

class MemcachedClassicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_SERVER("memcached", server_);
    table_ = test_util::UniqueTable();
  }
  std::unique_ptr<Store> OpenClassic(const Owned& extra = {}) {
    Owned all = {{"memcached.protocol", "classic"}};
    all.insert(all.end(), extra.begin(), extra.end());
    return Open(test_util::ServerProps(server_, table_, all));
  }
  // A raw classic `get` of the memcached key `key` on the shared server.
  std::string RawGet(const std::string& key) {
    const int fd = test_util::ConnectTcp(test_util::SettingOf(server_, "memcached.hosts"), 5);
    EXPECT_GE(fd, 0);
    const std::string req = "get " + key + "\r\n";
    send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    std::string got;
    char buf[65536];
    while (got.size() < 5 || got.compare(got.size() - 5, 5, "END\r\n") != 0) {
      const ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    close(fd);
    return got;
  }
  Settings server_;
  std::string table_;
};

TEST_F(MemcachedClassicTest, OperationsKeepYcsbSemanticsOverTheClassicCommands) {
  auto store = OpenClassic();
  auto s = store->NewSession(0);
  RecordSet out;
  const std::string big(3000, 'x');  // (a Field views its value: it must outlive rec)
  const Field rec[] = {{"field0", "zero"}, {"field1", big}};
  ASSERT_EQ(s->Insert(table_, "user1", rec), Status::Ok());
  // Stored by `set` under "<table>-<key>", where a classic get finds it.
  EXPECT_NE(RawGet(table_ + "-user1").find("VALUE " + table_ + "-user1 "), std::string::npos);
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &out), Status::Ok());
  ASSERT_EQ(out.field_count(0), 2u);
  EXPECT_EQ(out.Find(0, "field1"), big);
  // Update: gets + cas, the other fields kept; a missing key is NOT_FOUND and stays missing.
  const Field upd[] = {{"field0", "changed"}};
  ASSERT_EQ(s->Update(table_, "user1", upd), Status::Ok());
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.Find(0, "field0"), "changed");
  EXPECT_EQ(out.Find(0, "field1"), big);
  EXPECT_EQ(s->Update(table_, "nobody", upd), Status::NotFound());
  EXPECT_EQ(s->Read(table_, "nobody", FieldSelector{}, &out), Status::NotFound());
  // Binary keys: escaped, read back under their exact bytes.
  const std::string binary("k\0ey \xff", 6);
  ASSERT_EQ(s->Insert(table_, binary, rec), Status::Ok());
  ASSERT_EQ(s->Read(table_, binary, FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.Find(0, "field0"), "zero");
  EXPECT_EQ(s->Read(table_, std::string("k\0ey ", 5), FieldSelector{}, &out), Status::NotFound());
  // Delete: DELETED, then NOT_FOUND.
  EXPECT_EQ(s->Delete(table_, "user1"), Status::Ok());
  EXPECT_EQ(s->Delete(table_, "user1"), Status::NotFound());
  EXPECT_EQ(RawGet(table_ + "-user1"), "END\r\n");
  // A batch: pipelined sets.
  RecordBatch batch;
  for (int i = 0; i < 20; ++i) batch.Add("b" + std::to_string(i), rec);
  ASSERT_EQ(s->BatchInsert(table_, batch), Status::Ok());
  ASSERT_EQ(s->Read(table_, "b19", FieldSelector{}, &out), Status::Ok());
}

TEST_F(MemcachedClassicTest, ReplaceUpdatesAreOneReplaceStoredOnlyWhereTheKeyExists) {
  auto store = OpenClassic({{"memcached.update", "replace"}});
  auto s = store->NewSession(0);
  RecordSet out;
  const Field rec[] = {{"field0", "a"}, {"field1", "b"}};
  const Field upd[] = {{"field1", "only"}};
  EXPECT_EQ(s->Update(table_, "k", upd), Status::NotFound());
  EXPECT_EQ(RawGet(table_ + "-k"), "END\r\n");
  ASSERT_EQ(s->Insert(table_, "k", rec), Status::Ok());
  ASSERT_EQ(s->Update(table_, "k", upd), Status::Ok());
  ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &out), Status::Ok());
  ASSERT_EQ(out.field_count(0), 1u);  // replaced whole
  EXPECT_EQ(out.Find(0, "field1"), "only");
}

// YCSB's load and run of workload A through the CLI, every read verified
// (dataintegrity), over the classic commands.
TEST_F(MemcachedClassicTest, WorkloadAVerifiesEveryRecord) {
  test_util::ExpectWorkloadAVerified("memcached", server_, table_, {{"memcached.protocol", "classic"}}, 500, 4000);
}

}  // namespace
}  // namespace storebench
