// The redis binding's own RESP client against hiredis, the client the issue
// offered as the alternative: which costs less client CPU per operation, and
// which moves more operations per second over one connection?
//
// Both do what the binding does for redis.layout=string redis.update=replace:
// GET/SET 1:1 of one-field records (a 100-byte field, the shared record
// codec's encoding) over 10,000 prefilled keys, `depth` requests in flight on
// ONE connection:
//   BM_Hiredis/depth     hiredis's blocking context: append `depth` commands
//                        (redisAppendCommandArgv), then read `depth` replies
//                        (redisGetReply), encode/decode records as the binding
//                        would; freeReplyObject per reply.
//   BM_Storebench/depth  the binding itself: `depth` sessions of one
//                        ClientSlot (redis.pipeline=depth) run as fibers on
//                        this thread, sharing one connection via net::Pipeline.
// Counters: ops_per_s (wall clock) and cpu_us_per_op (this thread's CPU,
// user + system, per operation: the client's whole cost, as every client of
// the benchmark runs on this thread and the server elsewhere). Run it with bench/resp_clients.sh (starts the
// server, pins server and client to different cores); it reads the server
// from STOREBENCH_BENCH_REDIS=host:port.
#include <benchmark/benchmark.h>
#include <hiredis/hiredis.h>

#include <time.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "db/binding.h"
#include "db/record_codec.h"
#include "db/registry.h"
#include "net/fiber_scheduler.h"

namespace storebench {
namespace {

constexpr int kKeys = 10'000;
constexpr int kOpsPerClient = 2'000;  // per fiber per benchmark iteration (amortises spawning)

struct Server {
  std::string host;
  int port = 0;
};

bool ServerFromEnv(Server* s) {
  const char* v = std::getenv("STOREBENCH_BENCH_REDIS");
  if (v == nullptr) return false;
  std::string hp(v);
  const auto colon = hp.rfind(':');
  if (colon == std::string::npos) return false;
  s->host = hp.substr(0, colon);
  s->port = std::atoi(hp.c_str() + colon + 1);
  return s->port > 0;
}

double Seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The two figures the comparison is about, measured around the loop:
// operations per wall-clock second, and this thread's CPU (user + system:
// every client of the benchmark runs on it) per operation.
struct Meter {
  double wall0 = Seconds(CLOCK_MONOTONIC), cpu0 = Seconds(CLOCK_THREAD_CPUTIME_ID);
  void Report(benchmark::State& state, std::uint64_t ops) const {
    const double wall = Seconds(CLOCK_MONOTONIC) - wall0, cpu = Seconds(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    state.counters["ops_per_s"] = static_cast<double>(ops) / wall;
    state.counters["cpu_us_per_op"] = cpu / static_cast<double>(ops) * 1e6;
  }
};

std::string Key(std::uint64_t i) { return "user" + std::to_string(i % kKeys); }
std::string Value(std::uint64_t i) {
  std::string v = std::to_string(i) + "/";
  v.resize(100, 'x');
  return v;
}

std::unique_ptr<Store> OpenStore(const Server& s, int depth) {
  Properties p;
  p.Set("redis.host", s.host);
  p.Set("redis.port", std::to_string(s.port));
  p.Set("redis.layout", "string");
  p.Set("redis.update", "replace");
  p.Set("redis.pipeline", std::to_string(depth));
  return FindBinding("redis").open(p, OpenContext{});
}

// Every key exists, so GETs hit and SET XX stores.
void Prefill(const Server& s) {
  static bool done = false;
  if (done) return;
  auto store = OpenStore(s, 1);
  auto session = store->NewSession(0);
  for (int i = 0; i < kKeys; ++i) {
    const std::string v = Value(static_cast<std::uint64_t>(i));
    const Field f{"field0", v};
    session->Insert("usertable", Key(static_cast<std::uint64_t>(i)), std::span<const Field>(&f, 1));
  }
  done = true;
}

void BM_Hiredis(benchmark::State& state) {
  Server s;
  if (!ServerFromEnv(&s)) {
    state.SkipWithError("set STOREBENCH_BENCH_REDIS=host:port (bench/resp_clients.sh does)");
    return;
  }
  Prefill(s);
  const int depth = static_cast<int>(state.range(0));
  redisContext* c = redisConnect(s.host.c_str(), s.port);
  if (c == nullptr || c->err != 0) {
    state.SkipWithError("hiredis cannot connect");
    if (c != nullptr) redisFree(c);
    return;
  }
  std::vector<std::string> values;
  for (int i = 0; i < 64; ++i) values.push_back(Value(static_cast<std::uint64_t>(i)));
  std::string key, encoded;
  RecordSet rs;
  std::uint64_t n = 0, errors = 0;
  const Meter meter;
  for (auto _ : state) {
    for (int round = 0; round < kOpsPerClient; ++round) {
      for (int d = 0; d < depth; ++d) {
        const std::uint64_t i = n + static_cast<std::uint64_t>(d);
        key.assign("usertable:");
        key += Key(i * 7919);
        if (i % 2 == 0) {
          const char* argv[] = {"GET", key.c_str()};
          const std::size_t lens[] = {3, key.size()};
          redisAppendCommandArgv(c, 2, argv, lens);
        } else {
          const Field f{"field0", values[i % values.size()]};
          EncodeRecord(std::span<const Field>(&f, 1), &encoded);
          const char* argv[] = {"SET", key.c_str(), encoded.data(), "XX"};
          const std::size_t lens[] = {3, key.size(), encoded.size(), 2};
          redisAppendCommandArgv(c, 4, argv, lens);
        }
      }
      for (int d = 0; d < depth; ++d) {
        void* reply = nullptr;
        if (redisGetReply(c, &reply) != REDIS_OK || reply == nullptr) {
          state.SkipWithError("hiredis: connection failed");
          redisFree(c);
          return;
        }
        auto* r = static_cast<redisReply*>(reply);
        if (r->type == REDIS_REPLY_STRING) {
          rs.Clear();
          rs.BeginRecord("k");
          if (!DecodeRecord(std::string_view(r->str, r->len), FieldSelector{}, &rs)) ++errors;
        } else if (r->type != REDIS_REPLY_STATUS) {
          ++errors;
        }
        freeReplyObject(r);
      }
      n += static_cast<std::uint64_t>(depth);
    }
  }
  meter.Report(state, n);
  redisFree(c);
  if (errors != 0) state.SkipWithError("unexpected replies");
}

void BM_Storebench(benchmark::State& state) {
  Server s;
  if (!ServerFromEnv(&s)) {
    state.SkipWithError("set STOREBENCH_BENCH_REDIS=host:port (bench/resp_clients.sh does)");
    return;
  }
  Prefill(s);
  const int depth = static_cast<int>(state.range(0));
  auto store = OpenStore(s, depth);
  std::vector<std::unique_ptr<Session>> sessions;
  for (int d = 0; d < depth; ++d) sessions.push_back(store->NewClientSession(ClientSlot{0, 0, d}));
  std::vector<std::string> values;
  for (int i = 0; i < 64; ++i) values.push_back(Value(static_cast<std::uint64_t>(i)));
  std::uint64_t n = 0, errors = 0;
  auto client = [&](int d) {
    Session* session = sessions[static_cast<std::size_t>(d)].get();
    RecordSet rs;
    std::string key;
    for (int round = 0; round < kOpsPerClient; ++round) {
      const std::uint64_t i = n + static_cast<std::uint64_t>(round) * static_cast<std::uint64_t>(depth) +
                              static_cast<std::uint64_t>(d);
      key = Key(i * 7919);
      Status st;
      if (i % 2 == 0) {
        st = session->Read("usertable", key, FieldSelector{}, &rs);
      } else {
        const Field f{"field0", values[i % values.size()]};
        st = session->Update("usertable", key, std::span<const Field>(&f, 1));
      }
      if (!st.ok()) ++errors;
    }
  };
  const Meter meter;
  for (auto _ : state) {
    if (depth == 1) {
      client(0);  // one client: no fibers, as the runner does with connections=1
    } else {
      io::FiberScheduler fibers;
      for (int d = 0; d < depth; ++d) fibers.Spawn([&client, d] { client(d); });
      fibers.Run();
    }
    n += static_cast<std::uint64_t>(kOpsPerClient) * static_cast<std::uint64_t>(depth);
  }
  meter.Report(state, n);
  if (errors != 0) state.SkipWithError("operations failed");
}

BENCHMARK(BM_Hiredis)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Storebench)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace storebench

BENCHMARK_MAIN();
