// The redis client (db/redis/client.h) alone, against scripted RESP nodes on
// 127.0.0.1: it follows MOVED (updating its map and re-reading CLUSTER
// SLOTS) and ASK (ASKING first), reloads its scripts on NOSCRIPT, and gives
// up after too many redirections. No real server needed.
#include "db/redis/client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "db/redis/resp.h"
#include "net/socket.h"

namespace storebench::redis {
namespace {

// A node that answers each command (its arguments) with what `answer`
// returns, and records the commands it got ("GET k", "ASKING", ...).
class ScriptedNode {
 public:
  using Answer = std::function<std::string(const std::vector<std::string>& args)>;

  explicit ScriptedNode(Answer answer) : answer_(std::move(answer)) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(fd_, 8) == 0 &&
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      port_ = ntohs(a.sin_port);
    }
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedNode() {
    stop_ = true;
    thread_.join();
    close(fd_);
  }

  int port() const { return port_; }
  std::vector<std::string> commands() {
    std::lock_guard lock(mu_);
    return commands_;
  }

 private:
  void Serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      std::string in;
      char buf[4096];
      while (!stop_) {
        pollfd q{c, POLLIN, 0};
        if (poll(&q, 1, 20) <= 0) continue;
        const ssize_t n = read(c, buf, sizeof buf);
        if (n <= 0) break;
        in.append(buf, static_cast<std::size_t>(n));
        std::string out;
        for (std::size_t len; (len = resp::ParseReply(in)) != 0 && len != resp::kBadReply;) {
          std::vector<std::string> args;
          resp::ReplyCursor cur(std::string_view(in).substr(0, len));
          const resp::Item top = cur.Next();  // a command: an array of bulk strings
          for (std::int64_t i = 0; i < top.n; ++i) args.emplace_back(cur.Next().str);
          in.erase(0, len);
          std::string joined;
          for (const auto& a : args) joined += (joined.empty() ? "" : " ") + a;
          {
            std::lock_guard lock(mu_);
            commands_.push_back(joined);
          }
          out += answer_(args);
        }
        if (!out.empty() && write(c, out.data(), out.size()) != static_cast<ssize_t>(out.size())) break;
      }
      close(c);
    }
  }

  Answer answer_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::string> commands_;
  std::thread thread_;
};

std::string Bulk(std::string_view s) { return "$" + std::to_string(s.size()) + "\r\n" + std::string(s) + "\r\n"; }

// CLUSTER SLOTS: every slot on `port`.
std::string AllSlotsOn(int port) {
  return "*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n" + Bulk("127.0.0.1") + ":" + std::to_string(port) + "\r\n";
}

// "-MOVED <key's slot> 127.0.0.1:<port>\r\n" (or ASK).
std::string Redirect(std::string_view kind, const std::string& key, int port) {
  return "-" + std::string(kind) + " " + std::to_string(KeySlot(key)) + " 127.0.0.1:" + std::to_string(port) + "\r\n";
}

Options ClusterOptions(int port) {
  Options o;
  o.seed = {"127.0.0.1", port};
  o.cluster = true;
  o.timeout_ms = 2000;
  return o;
}

constexpr std::string_view kOneScript[] = {"return 1"};

// A cluster client that starts with every slot on the node at `seed_port`.
struct ClusterClient {
  explicit ClusterClient(int seed_port)
      : client(ClusterOptions(seed_port), SlotMap{}, Scripts{kOneScript, {"sha"}}, 1, &counts) {}
  Status Get(std::string_view key) {
    return client.Call(key, net::DeadlineAfterMs(2000), [&](std::string& o) { resp::AppendCommand(o, "GET", key); },
                       &reply);
  }
  RedirectCounts counts;
  Client client;
  std::string reply;
};

TEST(RedisClient, FollowsMovedAndReadsTheSlotMapAgain) {
  ScriptedNode to([](const std::vector<std::string>& a) {
    return a[0] == "CLUSTER" ? std::string("-ERR not now\r\n") : Bulk("v");
  });
  const int to_port = to.port();
  ScriptedNode from([to_port](const std::vector<std::string>& a) {
    return a[0] == "CLUSTER" ? AllSlotsOn(to_port) : Redirect("MOVED", a[1], to_port);
  });
  ASSERT_NE(from.port(), 0);
  ASSERT_NE(to_port, 0);
  ClusterClient c(from.port());
  ASSERT_EQ(c.Get("foo"), Status::Ok());
  EXPECT_EQ(c.reply, "$1\r\nv\r\n");
  EXPECT_EQ(c.counts.moved.load(), 1u);
  EXPECT_EQ(c.counts.ask.load(), 0u);
  // The moved slot's node asked for the whole map; its refusal keeps the one slot moved.
  EXPECT_EQ(to.commands(), (std::vector<std::string>{"CLUSTER SLOTS", "GET foo"}));
  EXPECT_EQ(c.client.NodeFor("foo"), 1);
  EXPECT_EQ(c.client.NodeFor("bar"), 0);
  // Now straight to the new node.
  ASSERT_EQ(c.Get("foo"), Status::Ok());
  EXPECT_EQ(from.commands(), (std::vector<std::string>{"GET foo"}));
}

TEST(RedisClient, FollowsAskOnceWithAsking) {
  ScriptedNode to([](const std::vector<std::string>& a) {
    return a[0] == "ASKING" ? std::string("+OK\r\n") : Bulk("v");
  });
  const int to_port = to.port();
  ScriptedNode from([to_port](const std::vector<std::string>& a) { return Redirect("ASK", a[1], to_port); });
  ClusterClient c(from.port());
  ASSERT_EQ(c.Get("foo"), Status::Ok());
  EXPECT_EQ(c.reply, "$1\r\nv\r\n");  // ASKING's +OK is not the reply
  EXPECT_EQ(c.counts.ask.load(), 1u);
  EXPECT_EQ(to.commands(), (std::vector<std::string>{"ASKING", "GET foo"}));
  EXPECT_EQ(c.client.NodeFor("foo"), 0);  // ASK does not move the slot
  ASSERT_EQ(c.Get("foo"), Status::Ok());
  EXPECT_EQ(from.commands().size(), 2u);
}

TEST(RedisClient, GivesUpAfterFiveRedirections) {
  std::atomic<int> port{0};
  ScriptedNode node([&port](const std::vector<std::string>& a) {
    return a[0] == "CLUSTER" ? AllSlotsOn(port) : Redirect("MOVED", a[1], port);
  });
  port = node.port();
  ClusterClient c(node.port());
  EXPECT_EQ(c.Get("foo"), Status::Error());
  EXPECT_EQ(c.counts.moved.load(), 6u);  // six sends, each redirected
}

TEST(RedisClient, ReloadsScriptsOnNoscriptAndRetriesOnce) {
  std::atomic<int> evals{0};
  ScriptedNode node([&evals](const std::vector<std::string>& a) {
    if (a[0] == "SCRIPT") return Bulk("0123456789012345678901234567890123456789");
    if (a[0] == "EVALSHA") return std::string(++evals == 1 ? "-NOSCRIPT No matching script\r\n" : ":1\r\n");
    return std::string("-ERR unknown\r\n");
  });
  Options o;
  o.seed = {"127.0.0.1", node.port()};
  RedirectCounts counts;
  constexpr std::string_view kTwo[] = {"return 1", "return 2"};
  Client client(o, SlotMap{}, Scripts{kTwo, {"sha1", "sha2"}}, 1, &counts);
  std::string reply;
  auto eval = [&](std::string& out) { resp::AppendCommand(out, "EVALSHA", client.sha(1), "0"); };
  ASSERT_EQ(client.Call("k", net::DeadlineAfterMs(2000), eval, &reply), Status::Ok());
  EXPECT_EQ(reply, ":1\r\n");
  EXPECT_EQ(node.commands(), (std::vector<std::string>{"EVALSHA sha2 0", "SCRIPT LOAD return 1",
                                                       "SCRIPT LOAD return 2", "EVALSHA sha2 0"}));
  // Another error reply is the caller's to judge.
  auto bad = [](std::string& out) { resp::AppendCommand(out, "NOPE"); };
  ASSERT_EQ(client.Call("k", net::DeadlineAfterMs(2000), bad, &reply), Status::Ok());
  EXPECT_EQ(reply, "-ERR unknown\r\n");
}

}  // namespace
}  // namespace storebench::redis
