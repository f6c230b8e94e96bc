// What the runner shows while a phase runs: the per-status-interval
// callback behind --timeseries, the live figures behind --metrics-listen,
// and the terminal's progress line.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>

#include "core/properties.h"
#include "db/registry.h"
#include "measure/live_metrics.h"
#include "runner/runner.h"
#include "test_util.h"
#include "runner/test_store.h"
#include "workload/core_workload.h"

namespace storebench {
namespace {

using test_util::FindOp;

using test_util::ScriptedStore;

CoreWorkloadOptions ReadUpdate(std::int64_t records) { return test_util::ReadsAndUpdates(records, 0.5, 7); }

std::uint64_t Count(const PhaseResult& r, const std::string& name) {
  const OpResult* op = FindOp(r, name);
  return op == nullptr ? 0 : op->service.count();
}

TEST(RunnerStatusRowsTest, RowsTileThePhaseAndCountEveryOperationAndFailure) {
  SteadyClock clock;
  ScriptedStore store(clock, {.fail_every = 5});
  CoreWorkload w(ReadUpdate(1000));
  RunnerOptions o;
  o.threads = 2;
  o.max_execution_s = 1.0;
  o.status_interval_s = 0.2;
  o.series_interval_s = 0.05;
  std::map<std::string, std::uint64_t> ops, failed;
  int calls = 0;
  double last_end = 0, last_elapsed = 0;
  bool tiled = true;
  o.on_status = [&](double start, double end, double elapsed, const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& hs,
                    const std::array<std::uint64_t, kNumOpTypes>& f) {
    if (calls > 0 && std::abs(start - last_end) > 1e-6) tiled = false;
    EXPECT_GE(end, start);
    EXPECT_GE(elapsed, last_elapsed);
    last_end = end;
    last_elapsed = elapsed;
    ++calls;
    for (int i = 0; i < kNumOpTypes; ++i) {
      const std::string name(OpName(static_cast<OpType>(i)));
      if (hs[i]) ops[name] += hs[i]->count();
      failed[name] += f[i];
      if (f[i] > 0) {
        EXPECT_TRUE(hs[i] && hs[i]->count() >= f[i]) << name;
      }
    }
  };
  PhaseResult r = Runner(store, w, o, clock, nullptr).Run();
  EXPECT_TRUE(tiled) << "each row starts where the previous one ended";
  EXPECT_GE(calls, 4);
  EXPECT_NEAR(last_elapsed, static_cast<double>(r.runtime_ms) / 1e3, 0.01);
  ASSERT_GT(Count(r, "READ-FAILED"), 0u);
  ASSERT_GT(Count(r, "UPDATE-FAILED"), 0u);
  EXPECT_EQ(ops["READ"], Count(r, "READ") + Count(r, "READ-FAILED"));
  EXPECT_EQ(ops["UPDATE"], Count(r, "UPDATE") + Count(r, "UPDATE-FAILED"));
  EXPECT_EQ(failed["READ"], Count(r, "READ-FAILED"));
  EXPECT_EQ(failed["UPDATE"], Count(r, "UPDATE-FAILED"));
  // The JSON series carries the same failures.
  std::uint64_t series_errors = 0;
  for (const auto& p : r.series) {
    for (const auto& op : p.ops) series_errors += op.errors;
  }
  EXPECT_EQ(series_errors, Count(r, "READ-FAILED") + Count(r, "UPDATE-FAILED"));
}

TEST(RunnerLiveMetricsTest, FiguresAtTheEndAreTheResultsTotals) {
  SteadyClock clock;
  ScriptedStore store(clock, {.fail_every = 4});
  CoreWorkload w(ReadUpdate(1000));
  LiveMetrics live;
  live.SetLabels("flaky", "a label", "1/2");
  EXPECT_FALSE(live.Snapshot().running);
  RunnerOptions o;
  o.threads = 2;
  o.operation_count = 20000;
  o.target_ops_per_s = 40000;
  o.series_interval_s = 0.1;
  o.live = &live;
  PhaseResult r = Runner(store, w, o, clock, nullptr).Run();
  const LiveSnapshot s = live.Snapshot();
  EXPECT_FALSE(s.running);
  EXPECT_EQ(s.phase, "run");
  EXPECT_EQ(s.binding, "flaky");
  EXPECT_EQ(s.part, "1/2");
  EXPECT_EQ(s.threads, 2);
  EXPECT_EQ(s.target_ops_per_s, 40000);
  EXPECT_EQ(s.operations, r.operations);
  EXPECT_EQ(s.operations_planned, 20000u);
  EXPECT_EQ(s.errors, Count(r, "READ-FAILED") + Count(r, "UPDATE-FAILED"));
  ASSERT_EQ(s.ops.size(), 2u);
  for (const LiveOp& op : s.ops) {
    SCOPED_TRACE(op.name);
    const OpResult* ok = FindOp(r, op.name);
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ(op.by_status[Status::kOk], ok->return_codes[Status::kOk]);
    const Status::Code failure = op.name == "READ" ? Status::kNotFound : Status::kError;
    EXPECT_EQ(op.by_status[failure], Count(r, op.name + "-FAILED"));
    // Both kinds of latency, of every completed operation.
    ASSERT_TRUE(op.has_intended);
    EXPECT_EQ(op.service.count, ok->service.count() + Count(r, op.name + "-FAILED"));
    EXPECT_EQ(op.intended.count, op.service.count);
    EXPECT_EQ(op.service.at_or_below.back(), op.service.count) << "all under 10 s";
  }
  // Recording both kinds for the live figures leaves the totals whole.
  const OpResult* read = FindOp(r, "READ");
  EXPECT_EQ(read->intended.count(), read->service.count());
}

TEST(RunnerLiveMetricsTest, AStallShowsInTheIntendedHistogramOnly) {
  FakeClock clock;
  ScriptedStore store(clock, {.service_ns = 100'000, .stall_at = 50, .stall_ns = 500'000'000});  // op 50 stalls 0.5 s
  CoreWorkloadOptions wo = ReadUpdate(100);
  wo.readproportion = 1;
  wo.updateproportion = 0;
  CoreWorkload w(wo);
  LiveMetrics live;
  RunnerOptions o;
  o.threads = 1;
  o.target_ops_per_s = 1000;
  o.operation_count = 300;
  o.live = &live;
  Runner(store, w, o, clock, nullptr).Run();
  const LiveSnapshot s = live.Snapshot();
  ASSERT_EQ(s.ops.size(), 1u);
  const LiveOp& read = s.ops[0];
  // Bound 6 is 1 ms: every service time but the stall's is under it; the
  // ops due during the stall waited, so far fewer intended latencies are.
  ASSERT_EQ(kLiveLatencyBoundsNs[6], 1'000'000u);
  EXPECT_EQ(read.service.at_or_below[6], 299u);
  EXPECT_LT(read.intended.at_or_below[6], 299u - 400u / 2);
  EXPECT_EQ(read.service.count, 300u);
  EXPECT_EQ(read.intended.count, 300u);
}

TEST(LiveMetricsTest, BucketsCountValuesAtOrBelowEachBound) {
  Histogram h;
  h.Record(9'000);          // <= 10 us
  h.Record(10'000);         // <= 10 us (at the bound)
  h.Record(2'000'000);      // <= 2.5 ms
  h.Record(20'000'000'000); // above 10 s: only +Inf
  LiveLatency l;
  l.Add(h);
  EXPECT_EQ(l.count, 4u);
  EXPECT_EQ(l.sum_ns, 9'000u + 10'000u + 2'000'000u + 20'000'000'000u);
  EXPECT_EQ(l.at_or_below[0], 2u);
  EXPECT_EQ(l.at_or_below[6], 2u);   // 1 ms
  EXPECT_EQ(l.at_or_below[7], 3u);   // 2.5 ms
  EXPECT_EQ(l.at_or_below.back(), 3u);
  for (std::size_t i = 1; i < l.at_or_below.size(); ++i) EXPECT_LE(l.at_or_below[i - 1], l.at_or_below[i]);
}

TEST(LiveMetricsTest, ANewPhaseStartsItsCountersAgain) {
  LiveMetrics live;
  std::array<std::unique_ptr<Histogram>, kNumOpTypes> service;
  service[static_cast<int>(OpType::kInsert)] = std::make_unique<Histogram>();
  service[static_cast<int>(OpType::kInsert)]->Record(1000);
  std::array<std::array<std::uint64_t, Status::kNumCodes>, kNumOpTypes> codes{};
  codes[static_cast<int>(OpType::kInsert)][Status::kOk] = 1;
  codes[static_cast<int>(OpType::kInsert)][Status::kError] = 2;
  live.BeginPhase("load", 4, 0, 10);
  live.Publish(1.0, 3, 3.0, service, nullptr, codes);
  live.Publish(2.0, 3, 0.0, service, nullptr, codes);  // cumulative codes: the same, not added
  LiveSnapshot s = live.Snapshot();
  EXPECT_TRUE(s.running);
  EXPECT_EQ(s.phase, "load");
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].name, "INSERT");
  EXPECT_EQ(s.ops[0].by_status[Status::kError], 2u);
  EXPECT_EQ(s.ops[0].service.count, 2u) << "interval histograms add up";
  EXPECT_FALSE(s.ops[0].has_intended);
  EXPECT_EQ(s.errors, 2u);
  live.EndPhase();
  live.BeginPhase("run", 4, 100, 0);
  s = live.Snapshot();
  EXPECT_EQ(s.phase, "run");
  EXPECT_TRUE(s.ops.empty());
  EXPECT_EQ(s.errors, 0u);
  EXPECT_EQ(s.target_ops_per_s, 100);
}

TEST(RunnerProgressTest, OneLineRewritesItselfAndStatusLinesPrintAboveIt) {
  Properties props;
  auto store = FindBinding("null").open(props, OpenContext{});
  CoreWorkload w(ReadUpdate(1000));
  RunnerOptions o;
  o.threads = 1;
  o.max_execution_s = 1.0;
  o.target_ops_per_s = 2000;
  o.series_interval_s = 0.1;
  o.status = true;
  o.status_interval_s = 0.45;
  o.progress = true;
  std::ostringstream out;
  SteadyClock clock;
  PhaseResult r = Runner(*store, w, o, clock, &out).Run();
  const std::string s = out.str();
  // Progress lines: rewritten in place ("\r" + clear to the end of the line).
  std::size_t progress = 0, pos = 0;
  while ((pos = s.find("\r\033[Krun: ", pos)) != std::string::npos) ++progress, ++pos;
  EXPECT_GE(progress, 5u) << s;
  EXPECT_NE(s.find(" ops | now "), std::string::npos) << s;
  EXPECT_NE(s.find(" errors"), std::string::npos) << s;
  // Each status line clears the progress line first and ends with a newline.
  std::size_t status = 0;
  pos = 0;
  while ((pos = s.find(" sec: ", pos)) != std::string::npos) {
    const std::size_t line = s.rfind('\r', pos);
    ASSERT_NE(line, std::string::npos);
    EXPECT_EQ(s.compare(line, 4, "\r\033[K"), 0);
    EXPECT_EQ(s.find('\r', line + 1) > s.find('\n', pos), true) << "a status line is whole";
    ++status, ++pos;
  }
  EXPECT_GE(status, 2u) << s;
  // The last progress line stays, then the last status line, then nothing.
  EXPECT_EQ(s.back(), '\n');
  const std::size_t last_progress = s.rfind("\r\033[Krun: ");
  EXPECT_LT(last_progress, s.rfind(" sec: "));
  EXPECT_NE(s.find(std::to_string(r.operations) + " ops |", last_progress), std::string::npos)
      << "the last progress line shows the phase's total";
}

}  // namespace
}  // namespace storebench
