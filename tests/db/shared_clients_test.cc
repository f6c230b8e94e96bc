// SharedClients (db/shared_clients.h): one Client per {thread, connection},
// shared by that pair's pipelined clients while any holds it, made once
// even when many threads ask at once.
#include "db/shared_clients.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace storebench {
namespace {

struct FakeClient {
  int id;
};

TEST(SharedClientsTest, SlotsOfOneConnectionShareOneClient) {
  SharedClients<FakeClient> clients;
  int made = 0;
  auto make = [&] { return std::make_shared<FakeClient>(FakeClient{made++}); };
  auto a = clients.Get(ClientSlot{0, 0, 0}, make);
  auto b = clients.Get(ClientSlot{0, 0, 1}, make);
  auto c = clients.Get(ClientSlot{0, 1, 0}, make);  // another connection of thread 0
  auto d = clients.Get(ClientSlot{1, 0, 0}, make);  // another thread
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  EXPECT_NE(c, d);
  EXPECT_EQ(made, 3);
}

TEST(SharedClientsTest, AClientLivesAsLongAsItsSessions) {
  SharedClients<FakeClient> clients;
  int made = 0;
  auto make = [&] { return std::make_shared<FakeClient>(FakeClient{made++}); };
  auto a = clients.Get(ClientSlot{2, 3, 0}, make);
  std::weak_ptr<FakeClient> watch = a;
  a.reset();
  EXPECT_TRUE(watch.expired()) << "the map holds no strong reference";
  auto again = clients.Get(ClientSlot{2, 3, 1}, make);
  EXPECT_EQ(again->id, 1) << "made anew once the last holder is gone";
  EXPECT_EQ(made, 2);
}

TEST(SharedClientsTest, AFailedMakeKeepsNothing) {
  SharedClients<FakeClient> clients;
  EXPECT_THROW(clients.Get(ClientSlot{0, 0, 0}, []() -> std::shared_ptr<FakeClient> { throw std::runtime_error("x"); }),
               std::runtime_error);
  auto a = clients.Get(ClientSlot{0, 0, 0}, [] { return std::make_shared<FakeClient>(FakeClient{7}); });
  EXPECT_EQ(a->id, 7);
}

TEST(SharedClientsTest, ConcurrentGetsOfOnePairMakeOneClient) {
  SharedClients<FakeClient> clients;
  std::atomic<int> made{0};
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<FakeClient>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      got[static_cast<std::size_t>(t)] = clients.Get(ClientSlot{5, 1, t}, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // widen the race
        return std::make_shared<FakeClient>(FakeClient{made++});
      });
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(made.load(), 1);
  for (const auto& g : got) EXPECT_EQ(g, got[0]);
}

}  // namespace
}  // namespace storebench
