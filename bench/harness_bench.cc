// Harness overhead, per operation, in one process:
//   BM_ZipfianKeysOnly   a plain loop that only draws scrambled-zipfian keys
//                        and formats them (the floor any YCSB client pays);
//   BM_WorkloadA_Null    one full workload-A operation on the `null` binding
//                        with measurement on: op choice, zipfian key, values
//                        filled, two clock reads, histogram records.
// Compare the two as a ratio within one run (the machines are noisy).
#include <benchmark/benchmark.h>

#include "core/generators.h"
#include "core/keys.h"
#include "db/registry.h"
#include "measure/thread_stats.h"
#include "workload/measured_session.h"
#include "workload/core_workload.h"

namespace storebench {
namespace {

constexpr std::int64_t kRecords = 1'000'000;

void BM_ZipfianKeysOnly(benchmark::State& state) {
  Rng rng(1);
  ScrambledZipfianGenerator z(0, kRecords - 1);
  KeyBuilder keys(false, 1);
  char buf[KeyBuilder::kMaxKeyLength];
  for (auto _ : state) {
    std::size_t n = keys.Build(z.Next(rng), buf);
    benchmark::DoNotOptimize(n);
    benchmark::DoNotOptimize(buf[0]);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ZipfianKeysOnly);

void BM_WorkloadA_Null(benchmark::State& state) {
  CoreWorkloadOptions o;
  o.recordcount = kRecords;
  o.insertcount = kRecords;
  o.operationcount = 0;
  o.readproportion = 0.5;
  o.updateproportion = 0.5;
  o.requestdistribution = "zipfian";
  o.seed = 1;
  CoreWorkload w(o);
  auto thread = w.NewThread(0);
  Properties props;
  auto store = FindBinding("null").open(props, OpenContext{});
  auto session = store->NewSession(0);
  ThreadStats stats(1'000'000'000, false);
  for (OpType t : w.OpTypes(false)) stats.Prepare(t);
  SteadyClock clock;
  stats.StartMeasuring(clock.NowNs());
  MeasuredSession db(session.get(), &stats, &clock, true);
  for (auto _ : state) thread->DoTransaction(db);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkloadA_Null);

}  // namespace
}  // namespace storebench

BENCHMARK_MAIN();
