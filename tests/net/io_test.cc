// The fiber scheduler (net/fiber_scheduler.h), the waits of net/io.h inside
// and outside fibers, and net/pipeline.h over a socketpair "server".
#include "net/io.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "net/fiber_scheduler.h"
#include "net/pipeline.h"
#include "net/socket.h"
#include "measure/clock.h"
#include "test_util.h"

namespace storebench {
namespace {

struct SocketPair {
  int a = -1, b = -1;
  SocketPair() {
    int sv[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
    a = sv[0];
    b = sv[1];
  }
  ~SocketPair() {
    if (a >= 0) close(a);
    if (b >= 0) close(b);
  }
};

TEST(FiberTest, WaitFdSuspendsOnlyTheWaitingFiber) {
  SocketPair p;
  std::vector<std::string> events;
  io::FiberScheduler s;
  s.Spawn([&] {
    events.push_back("reader waits");
    EXPECT_EQ(io::WaitFd(p.a, false, io::kNoDeadline), io::WaitResult::kReady);
    char c = 0;
    EXPECT_EQ(read(p.a, &c, 1), 1);
    events.push_back(std::string("reader got ") + c);
  });
  s.Spawn([&] {
    EXPECT_TRUE(io::InFiber());
    events.push_back("writer runs");
    io::SleepUntil(SteadyClock::Now() + 5'000'000);
    ASSERT_EQ(write(p.b, "x", 1), 1);
    events.push_back("writer wrote");
  });
  s.Run();
  EXPECT_EQ(events, (std::vector<std::string>{"reader waits", "writer runs", "writer wrote", "reader got x"}));
  EXPECT_FALSE(io::InFiber());
}

TEST(FiberTest, DeadlineTimesOutWhileOthersRun) {
  SocketPair p;
  int ticks = 0;
  io::WaitResult result = io::WaitResult::kReady;
  std::int64_t waited_ns = 0;
  io::FiberScheduler s;
  s.Spawn([&] {
    const std::int64_t t0 = SteadyClock::Now();
    result = io::WaitFd(p.a, false, t0 + 30'000'000);
    waited_ns = SteadyClock::Now() - t0;
  });
  s.Spawn([&] {
    for (int i = 0; i < 10; ++i) {
      io::SleepUntil(SteadyClock::Now() + 1'000'000);
      ticks++;
    }
  });
  s.Run();
  EXPECT_EQ(result, io::WaitResult::kTimeout);
  EXPECT_GE(waited_ns, 30'000'000);
  EXPECT_EQ(ticks, 10);
}

TEST(FiberTest, SleepersWakeInDeadlineOrder) {
  std::vector<int> order;
  io::FiberScheduler s;
  const std::int64_t t0 = SteadyClock::Now();
  for (int i : {3, 1, 2}) {
    s.Spawn([&order, i, t0] {
      io::SleepUntil(t0 + i * 5'000'000);
      order.push_back(i);
    });
  }
  s.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(FiberTest, OutsideFibersWaitsAreBlockingCalls) {
  SocketPair p;
  EXPECT_EQ(io::Current(), nullptr);
  io::Yield();    // no-op
  io::Suspend();  // no-op
  const std::int64_t t0 = SteadyClock::Now();
  EXPECT_EQ(io::WaitFd(p.a, false, t0 + 10'000'000), io::WaitResult::kTimeout);
  EXPECT_GE(SteadyClock::Now() - t0, 10'000'000);
  ASSERT_EQ(write(p.b, "y", 1), 1);
  EXPECT_EQ(io::WaitFd(p.a, false, io::kNoDeadline), io::WaitResult::kReady);
}

TEST(FiberTest, SuspendAndWake) {
  io::Fiber* sleeper = nullptr;
  bool woken = false;
  io::FiberScheduler s;
  s.Spawn([&] {
    sleeper = io::Current();
    io::Suspend();
    woken = true;
  });
  s.Spawn([&] {
    EXPECT_FALSE(woken);
    io::Wake(sleeper);
    io::Yield();
    EXPECT_TRUE(woken);
  });
  s.Run();
  EXPECT_TRUE(woken);
}

// Spawns a fiber that stores itself in *self, suspends, and once woken
// appends `name` to *events.
void SpawnSuspended(io::FiberScheduler& s, io::Fiber** self, std::vector<std::string>* events, std::string name) {
  s.Spawn([self, events, name = std::move(name)] {
    *self = io::Current();
    io::Suspend();
    events->push_back(name);
  });
}

// A fiber Woken by another runs before fibers whose I/O came in the same
// epoll_wait: a pipeline leader's siblings send their next requests before
// the thread turns to the next readable connection.
TEST(FiberTest, WokenFibersRunBeforeThoseWhoseIoCame) {
  SocketPair p1, p2;
  ASSERT_EQ(write(p1.b, "x", 1), 1);
  ASSERT_EQ(write(p2.b, "y", 1), 1);
  std::vector<std::string> events;
  io::Fiber* sleeper = nullptr;
  bool woke = false;
  io::FiberScheduler s;
  SpawnSuspended(s, &sleeper, &events, "woken");
  for (int fd : {p1.a, p2.a}) {
    s.Spawn([&, fd] {
      EXPECT_EQ(io::WaitFd(fd, false, io::kNoDeadline), io::WaitResult::kReady);  // both in one epoll_wait
      events.push_back("io");
      if (!woke) {
        woke = true;
        io::Wake(sleeper);
      }
    });
  }
  s.Run();
  EXPECT_EQ(events, (std::vector<std::string>{"io", "woken", "io"}));
}

// YieldToWoken: the caller goes after the fibers it Woke, still ahead of
// fibers already runnable otherwise; with none woken it is a plain Yield.
TEST(FiberTest, YieldToWokenRunsAfterTheWokenAndBeforeTheRest) {
  std::vector<std::string> events;
  io::Fiber* a = nullptr;
  io::Fiber* b = nullptr;
  io::FiberScheduler s;
  SpawnSuspended(s, &a, &events, "a");
  SpawnSuspended(s, &b, &events, "b");
  s.Spawn([&] {
    io::YieldToWoken();  // none woken: the next spawned runs first
    events.push_back("leader");
    io::Wake(a);
    io::Wake(b);
    io::YieldToWoken();
    events.push_back("leader again");
  });
  s.Spawn([&] {
    events.push_back("other");
    io::Yield();  // behind the leader's first YieldToWoken
    events.push_back("other again");
  });
  s.Run();
  EXPECT_EQ(events, (std::vector<std::string>{"other", "leader", "a", "b", "leader again", "other again"}));
}

// Uses about depth KiB of the calling fiber's stack, then waits (Yield) at
// the deepest point.
// Each frame's buffer is kept live across the call below it (the empty asm
// reads it), so that no optimiser (g++ -O3 turns `f(n - 1) + x` into a loop)
// folds the recursion into one frame.
[[gnu::noinline]] int DeepThenYield(int depth) {
  volatile char buf[1024];
  buf[0] = static_cast<char>(depth);
  if (depth == 0) {
    io::Yield();
    return buf[0];
  }
  const int below = DeepThenYield(depth - 1);
  asm volatile("" : : "r"(buf) : "memory");
  return below + buf[0];
}

// Same, but writes the whole way down and never waits.
[[gnu::noinline]] int DeepNoWait(int depth) {
  volatile char buf[1024];
  // Every byte: whatever the frame layout, a canary the frames pass over is overwritten.
  for (std::size_t i = 0; i < sizeof buf; ++i) buf[i] = static_cast<char>(depth);
  if (depth == 0) return buf[0];
  const int below = DeepNoWait(depth - 1);
  asm volatile("" : : "r"(buf) : "memory");
  return below + buf[0];
}

TEST(FiberTest, ManyFibersOnSmallStacksAllRunAndUseTheirWholeStackSafely) {
  constexpr int kFibers = 1000;
  int finished = 0;
  io::FiberScheduler s(64 * 1024);
  for (int i = 0; i < kFibers; ++i) {
    s.Spawn([&finished] {
      DeepThenYield(32);  // half of a 64 KiB stack, a wait at the deepest point
      ++finished;
    });
  }
  s.Run();
  EXPECT_EQ(finished, kFibers);
}

#if defined(__SANITIZE_ADDRESS__)
#define STACK_CHECKS_ONLY_WITHOUT_ASAN() GTEST_SKIP() << "the sanitizer build uses guard-paged stacks"
#else
#define STACK_CHECKS_ONLY_WITHOUT_ASAN() (void)0
#endif

TEST(FiberDeathTest, AFiberWaitingNearItsStacksEndAborts) {
  STACK_CHECKS_ONLY_WITHOUT_ASAN();
  EXPECT_DEATH(
      {
        io::FiberScheduler s(64 * 1024);
        s.Spawn([] {});  // below the next stack: what an overrun would run into
        s.Spawn([] { DeepThenYield(54); });  // ~58 KiB: inside the 8 KiB red zone
        s.Run();
      },
      "overran its 64 KiB stack");
}

TEST(FiberDeathTest, AFiberThatOverwroteItsStacksBottomAbortsWhenItReturns) {
  STACK_CHECKS_ONLY_WITHOUT_ASAN();
  EXPECT_DEATH(
      {
        io::FiberScheduler s(64 * 1024);
        s.Spawn([] {});  // runs and returns first: the stack the next one overruns into
        s.Spawn([] { DeepNoWait(66); });
        s.Run();
      },
      "overran its 64 KiB stack");
}

// A wait that ended early (the fd became ready) leaves no timer behind: the
// fiber's later Suspend is ended by Wake, not by the old wait's deadline.
// Meanwhile a third fiber's own deadline still fires on time.
TEST(FiberTest, AWaitEndedByReadinessLeavesNoTimerBehind) {
  SocketPair p;
  io::Fiber* waiter = nullptr;
  io::WaitResult result = io::WaitResult::kTimeout;
  std::int64_t resumed_after_ns = 0, woken_after_ns = 0, timed_out_after_ns = 0;
  // Every time counts from the first fiber's start (the fibers run in
  // order), not from before the scheduler was made: setting up fibers took
  // more than 20 ms on a loaded sanitizer build, and the wait then began
  // after its own deadline.
  std::int64_t t0 = 0;
  io::FiberScheduler s;
  s.Spawn([&] {
    t0 = SteadyClock::Now();
    waiter = io::Current();
    result = io::WaitFd(p.a, false, t0 + 20'000'000);
    io::Suspend();
    resumed_after_ns = SteadyClock::Now() - t0;
  });
  s.Spawn([&] {
    ASSERT_EQ(write(p.b, "z", 1), 1);
    io::SleepUntil(t0 + 60'000'000);
    woken_after_ns = SteadyClock::Now() - t0;
    io::Wake(waiter);
  });
  s.Spawn([&] {
    SocketPair quiet;
    EXPECT_EQ(io::WaitFd(quiet.a, false, t0 + 40'000'000), io::WaitResult::kTimeout);
    timed_out_after_ns = SteadyClock::Now() - t0;
  });
  s.Run();
  EXPECT_EQ(result, io::WaitResult::kReady);
  EXPECT_GE(timed_out_after_ns, 40'000'000);
  EXPECT_GE(woken_after_ns, 60'000'000);
  EXPECT_GE(resumed_after_ns, woken_after_ns);  // not resumed at 20 ms by a stale deadline
}
// A line server on the far end of a socketpair: for every "N\n" it answers
// "ok N\n", counting how many reads it needed (batched requests need few).
class LineServer {
 public:
  explicit LineServer(int fd, int close_after = -1) : fd_(fd), close_after_(close_after) {
    thread_ = std::thread([this] { Serve(); });
  }
  ~LineServer() { thread_.join(); }
  int reads() const { return reads_; }

 private:
  void Serve() {
    std::string buf;
    int answered = 0;
    for (;;) {
      char tmp[4096];
      io::WaitFd(fd_, false, io::kNoDeadline);
      ssize_t n = read(fd_, tmp, sizeof tmp);
      if (n == 0) return;
      if (n < 0) continue;
      reads_++;
      buf.append(tmp, static_cast<std::size_t>(n));
      std::string out;
      for (std::size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
        if (answered == close_after_) {
          WriteAll(out);
          shutdown(fd_, SHUT_RDWR);
          return;
        }
        out += "ok " + buf.substr(0, nl) + "\n";
        answered++;
      }
      WriteAll(out);
    }
  }
  void WriteAll(const std::string& out) {
    for (std::size_t off = 0; off < out.size();) {
      ssize_t w = write(fd_, out.data() + off, out.size() - off);
      if (w > 0) off += static_cast<std::size_t>(w);
    }
  }
  int fd_;
  int close_after_;
  int reads_ = 0;
  std::thread thread_;
};

// Parses one "ok ...\n" line into *got.
struct LineParser {
  std::string* got;
  std::size_t operator()(std::string_view in) const {
    const auto nl = in.find('\n');
    if (nl == std::string_view::npos) return 0;
    if (in.substr(0, 3) != "ok ") return net::Pipeline::kBroken;
    *got = std::string(in.substr(3, nl - 3));
    return nl + 1;
  }
};

// A TcpConnection over one end of a socketpair (the test's "server").
struct PairConnection {
  SocketPair pair;
  net::TcpConnection conn;
  PairConnection() {
    conn.AdoptForTest(pair.a);
    pair.a = -1;
  }
};

TEST(PipelineTest, ClientsSharingAConnectionGetTheirOwnRepliesInFewWrites) {
  PairConnection pc;
  constexpr int kClients = 16, kRounds = 20;
  net::Pipeline pipe(&pc.conn);
  pipe.set_sharers(kClients);
  int mismatches = 0, ok = 0;
  {
    LineServer server(pc.pair.b);
    io::FiberScheduler s;
    for (int c = 0; c < kClients; ++c) {
      s.Spawn([&, c] {
        for (int r = 0; r < kRounds; ++r) {
          const std::string req = std::to_string(c * 1000 + r);
          std::string got;
          Status st = pipe.Call([&](std::string& out) { out += req + "\n"; }, LineParser{&got}, io::kNoDeadline);
          if (st.ok()) ok++;
          if (got != req) mismatches++;
        }
      });
    }
    s.Run();
    pc.conn.Disconnect();  // the server sees EOF and ends
    EXPECT_EQ(ok, kClients * kRounds);
    EXPECT_EQ(mismatches, 0);
    // Requests of the 16 clients went out together: far fewer server reads than requests.
    EXPECT_LE(server.reads(), kRounds * 4);
  }
}

TEST(PipelineTest, ABrokenConnectionFailsEveryQueuedRequestWithoutHanging) {
  PairConnection pc;
  constexpr int kClients = 8;
  net::Pipeline pipe(&pc.conn);
  pipe.set_sharers(kClients);
  int ok = 0, failed = 0;
  {
    LineServer server(pc.pair.b, /*close_after=*/3);
    io::FiberScheduler s;
    for (int c = 0; c < kClients; ++c) {
      s.Spawn([&, c] {
        std::string got;
        Status st = pipe.Call([&](std::string& out) { out += std::to_string(c) + "\n"; }, LineParser{&got},
                              SteadyClock::Now() + 2'000'000'000);
        (st.ok() ? ok : failed)++;
      });
    }
    s.Run();
  }
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(failed, kClients - 3);
  EXPECT_FALSE(pc.conn.connected());
}

// A server whose first answer (the handshake) is slow: clients that call
// while one of them is still handshaking wait for it, so the handshake's
// answer goes to the handshake and every request gets its own reply.
TEST(PipelineTest, ClientsWaitForTheHandshakeOfTheConnectionTheyShare) {
  int port = 0;
  const int listener = test_util::BindLoopback(&port);
  ASSERT_GE(listener, 0);
  ASSERT_EQ(listen(listener, 4), 0);
  std::atomic<int> handshakes{0};
  std::thread server([&] {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) return;
    std::string buf;
    char tmp[4096];
    for (ssize_t n; (n = read(fd, tmp, sizeof tmp)) > 0;) {
      buf.append(tmp, static_cast<std::size_t>(n));
      std::string out;
      for (std::size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
        const std::string line = buf.substr(0, nl);
        if (line == "hello") {
          handshakes++;
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }
        out += "ok " + line + "\n";
      }
      for (std::size_t off = 0; off < out.size();) {
        const ssize_t w = write(fd, out.data() + off, out.size() - off);
        if (w <= 0) break;
        off += static_cast<std::size_t>(w);
      }
    }
    close(fd);
  });
  net::TcpConnection conn(net::Endpoint{"127.0.0.1", port});
  auto hello = [](net::TcpConnection& c) {
    c.out() += "hello\n";
    const std::int64_t deadline = SteadyClock::Now() + 2'000'000'000;
    if (Status st = c.Flush(deadline); !st.ok()) return st;
    while (c.in().find('\n') == std::string_view::npos) {
      if (Status st = c.Fill(deadline); !st.ok()) return st;
    }
    if (c.in().substr(0, 9) != "ok hello\n") return Status::Error();
    c.Consume(9);
    return Status::Ok();
  };
  constexpr int kClients = 4, kRounds = 5;
  net::Pipeline pipe(&conn, hello);
  pipe.set_sharers(kClients);
  int ok = 0, mismatches = 0;
  {
    io::FiberScheduler s;
    for (int c = 0; c < kClients; ++c) {
      s.Spawn([&, c] {
        for (int r = 0; r < kRounds; ++r) {
          const std::string req = std::to_string(c * 100 + r);
          std::string got;
          Status st = pipe.Call([&](std::string& out) { out += req + "\n"; }, LineParser{&got},
                                SteadyClock::Now() + 2'000'000'000);
          if (st.ok()) ok++;
          if (got != req) mismatches++;
        }
      });
    }
    s.Run();
  }
  conn.Disconnect();
  server.join();
  close(listener);
  EXPECT_EQ(ok, kClients * kRounds);
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(handshakes.load(), 1);
}

// Tagged replies: a server that answers each batch of requests in reverse
// order; every client still gets its own reply, and a reply for a tag
// nobody waits for breaks the connection.
TEST(PipelineTest, TaggedRepliesReachTheirCallersInAnyOrder) {
  PairConnection pc;
  constexpr int kClients = 8, kRounds = 10;
  net::Pipeline pipe(&pc.conn);
  pipe.set_sharers(kClients);
  // "ok TAG\n": the tag is the number after "ok ".
  pipe.set_tagged([](std::string_view in, std::int64_t* tag) -> std::size_t {
    const auto nl = in.find('\n');
    if (nl == std::string_view::npos) return 0;
    if (in.substr(0, 3) != "ok ") return net::Pipeline::kBroken;
    *tag = std::stoll(std::string(in.substr(3, nl - 3)));
    return nl + 1;
  });
  int ok = 0, mismatches = 0, reversed_batches = 0;
  std::thread server([&] {
    std::string buf;
    char tmp[4096];
    for (;;) {
      io::WaitFd(pc.pair.b, false, io::kNoDeadline);
      const ssize_t n = read(pc.pair.b, tmp, sizeof tmp);
      if (n == 0) return;
      if (n < 0) continue;
      buf.append(tmp, static_cast<std::size_t>(n));
      std::vector<std::string> lines;
      for (std::size_t nl; (nl = buf.find('\n')) != std::string::npos; buf.erase(0, nl + 1)) {
        lines.push_back(buf.substr(0, nl));
      }
      if (lines.size() > 1) reversed_batches++;
      std::string out;
      for (auto it = lines.rbegin(); it != lines.rend(); ++it) out += "ok " + *it + "\n";
      for (std::size_t off = 0; off < out.size();) {
        const ssize_t w = write(pc.pair.b, out.data() + off, out.size() - off);
        if (w > 0) off += static_cast<std::size_t>(w);
      }
    }
  });
  {
    io::FiberScheduler s;
    for (int c = 0; c < kClients; ++c) {
      s.Spawn([&, c] {
        for (int r = 0; r < kRounds; ++r) {
          const std::int64_t tag = c * 1000 + r;
          std::string got;
          Status st = pipe.Call([&](std::string& out) { out += std::to_string(tag) + "\n"; }, LineParser{&got},
                                io::kNoDeadline, tag);
          if (st.ok()) ok++;
          if (got != std::to_string(tag)) mismatches++;
        }
      });
    }
    s.Run();
  }
  EXPECT_EQ(ok, kClients * kRounds);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(reversed_batches, 0) << "the replies never came out of order: the test proves nothing";
  // A reply nobody asked for: the request fails and the connection is dropped.
  std::string got;
  Status st = pipe.Call([](std::string& out) { out += "777\n"; }, LineParser{&got}, SteadyClock::Now() + 2'000'000'000,
                        778);
  EXPECT_FALSE(st.ok());
  EXPECT_FALSE(pc.conn.connected());
  shutdown(pc.pair.b, SHUT_RDWR);
  server.join();
}

TEST(PipelineTest, OneClientWithoutFibersIsWriteThenRead) {
  PairConnection pc;
  net::Pipeline pipe(&pc.conn);
  LineServer server(pc.pair.b);
  std::string got;
  EXPECT_TRUE(pipe.Call([](std::string& out) { out += "7\n"; }, LineParser{&got}, io::kNoDeadline).ok());
  EXPECT_EQ(got, "7");
  pc.conn.Disconnect();
}

TEST(TcpConnectionTest, UnreachableServerNamesHostAndPort) {
  // Port 1 on loopback: nothing listens there.
  net::TcpConnection c(net::Endpoint{"127.0.0.1", 1});
  std::string error;
  EXPECT_FALSE(c.Connect(SteadyClock::Now() + 1'000'000'000, &error));
  EXPECT_NE(error.find("127.0.0.1:1"), std::string::npos) << error;
  EXPECT_NE(error.find("refused"), std::string::npos) << error;
  bool reconnected = true;
  EXPECT_EQ(c.Ensure(SteadyClock::Now() + 1'000'000'000, &reconnected).code(), Status::kServiceUnavailable);
  EXPECT_FALSE(reconnected);
}

TEST(EndpointTest, ParsesHostPortAndLists) {
  auto eps = net::ParseEndpointList("a:1, b ,c:65535", 11211, "memcached.hosts");
  ASSERT_EQ(eps.size(), 3u);
  EXPECT_EQ(eps[0].ToString(), "a:1");
  EXPECT_EQ(eps[1].ToString(), "b:11211");
  EXPECT_EQ(eps[2].port, 65535);
  EXPECT_THROW(net::ParseEndpoint("a:0", 1, "x"), std::exception);
  EXPECT_THROW(net::ParseEndpoint("a:x", 1, "x"), std::exception);
  EXPECT_THROW(net::ParseEndpointList(" , ", 1, "x"), std::exception);
}

}  // namespace
}  // namespace storebench
