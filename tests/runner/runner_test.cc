// Runner tests against a fake clock: the open-loop schedule, coordinated
// omission, maxexecutiontime, stop requests, warm-up, the time series.
#include "runner/runner.h"

#include <gtest/gtest.h>

#include "test_util.h"
#include "runner/test_store.h"

#include <csignal>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "db/registry.h"
#include "net/io.h"

#include <algorithm>
#include <mutex>

namespace storebench {
namespace {

using test_util::ScriptedStore;

// A store whose every operation takes service_ns of fake time, and whose
// operation number stall_at takes stall_ns.
ScriptedStore SlowStore(FakeClock& clock, std::int64_t service_ns, std::int64_t stall_at, std::int64_t stall_ns) {
  return ScriptedStore(clock, {.service_ns = service_ns, .stall_at = stall_at, .stall_ns = stall_ns});
}

CoreWorkloadOptions ReadOnly(std::int64_t records) { return test_util::ReadsAndUpdates(records, 1); }

using test_util::FindOp;

TEST(RateScheduleTest, DueTimesAreOpenLoop) {
  RateSchedule s(1000, 2000);  // 2000 ops/s: one every 500 us
  EXPECT_TRUE(s.throttled());
  EXPECT_EQ(s.DueNs(0), 1000);
  EXPECT_EQ(s.DueNs(1), 1000 + 500'000);
  EXPECT_EQ(s.DueNs(2000), 1000 + 1'000'000'000);
  EXPECT_FALSE(RateSchedule(0, 0).throttled());
}

TEST(RunnerTest, StallShowsUpInIntendedLatencyNotServiceTime) {
  FakeClock clock;
  ScriptedStore store = SlowStore(clock, 100'000, 50, 1'000'000'000);  // 100 us per op; op 50 stalls 1 s
  CoreWorkload w(ReadOnly(1000));
  RunnerOptions o;
  o.threads = 1;
  o.target_ops_per_s = 1000;  // one op due every 1 ms
  o.operation_count = 200;
  o.measurement_interval = "both";
  Runner runner(store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  const OpResult* read = FindOp(r, "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->service.count(), 200u);
  EXPECT_EQ(read->intended.count(), 200u);
  // Service time: 100 us except the one stalled op.
  EXPECT_LE(read->service.ValueAtPercentile(50), 101'000u);
  EXPECT_GE(read->service.max(), 1'000'000'000u);
  // Every op due during the stall waited for it: the median op saw > 0.5 s.
  EXPECT_GT(read->intended.ValueAtPercentile(50), 500'000'000u);
  // Op 51 was due at 51 ms and finished at ~1.0501 s.
  EXPECT_GE(read->intended.max(), 999'000'000u);
  EXPECT_EQ(r.operations, 200u);
}

TEST(RunnerTest, UnthrottledIntendedEqualsService) {
  FakeClock clock;
  ScriptedStore store = SlowStore(clock, 10'000, -1, 0);
  CoreWorkload w(ReadOnly(100));
  RunnerOptions o;
  o.threads = 2;
  o.operation_count = 101;
  Runner runner(store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  const OpResult* read = FindOp(r, "READ");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->service.count(), 101u);
  EXPECT_EQ(read->intended.ValueAtPercentile(99), read->service.ValueAtPercentile(99));
  EXPECT_EQ(read->return_codes[Status::kOk], 101u);
}

TEST(RunnerTest, MaxExecutionTimeStopsAnUnlimitedRun) {
  FakeClock clock;
  ScriptedStore store = SlowStore(clock, 1'000'000, -1, 0);  // 1 ms per op
  CoreWorkload w(ReadOnly(100));
  RunnerOptions o;
  o.threads = 1;
  o.operation_count = 0;
  o.max_execution_s = 2;
  o.target_ops_per_s = 100;  // throttled: fake time advances by the schedule too
  Runner runner(store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  EXPECT_EQ(r.stop_reason, "maxexecutiontime");
  EXPECT_GE(r.operations, 190u);
  EXPECT_FALSE(r.interrupted);
}

TEST(RunnerTest, WarmupIsExecutedButNotCounted) {
  FakeClock clock;
  ScriptedStore store = SlowStore(clock, 1000, -1, 0);
  CoreWorkload w(ReadOnly(100));
  RunnerOptions o;
  o.threads = 2;
  o.operation_count = 300;
  o.warmup_operations = 100;
  Runner runner(store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  ASSERT_NE(FindOp(r, "READ"), nullptr);
  EXPECT_EQ(FindOp(r, "READ")->service.count(), 300u);
  EXPECT_EQ(r.operations, 300u);
}

TEST(RunnerTest, StopRequestEndsTheRunAsInterrupted) {
  ClearStop();
  Properties props;
  auto store = FindBinding("memory").open(props, OpenContext{});
  CoreWorkload w(ReadOnly(100));
  RunnerOptions o;
  o.threads = 2;
  o.operation_count = 0;  // unlimited
  SteadyClock clock;
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    RequestStop(SIGINT);
  });
  Runner runner(*store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  stopper.join();
  ClearStop();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.stop_reason, "signal");
  EXPECT_GT(r.operations, 0u);
  // Nothing lost: the totals hold every operation that was done.
  std::uint64_t counted = 0;
  for (const auto& op : r.ops) counted += op.service.count();
  EXPECT_EQ(counted, r.operations);
}

// A stop requested before the phase starts (Ctrl-C during setup): no
// operation runs, with warm-up or without, and the phase says why it ended.
TEST(RunnerTest, StopRequestedBeforeThePhaseRunsNoOperation) {
  Properties props;
  auto store = FindBinding("memory").open(props, OpenContext{});
  CoreWorkload w(ReadOnly(100));
  for (const bool warmup : {false, true}) {
    RunnerOptions o;
    o.threads = 2;
    o.operation_count = 0;  // unlimited: only the stop ends it
    if (warmup) o.warmup_s = 30;
    SteadyClock clock;
    RequestStop(SIGINT);
    Runner runner(*store, w, o, clock, nullptr);
    PhaseResult r = runner.Run();
    ClearStop();
    EXPECT_TRUE(r.interrupted) << warmup;
    EXPECT_EQ(r.stop_reason, "signal") << warmup;
    EXPECT_EQ(r.operations, 0u) << warmup;
    const OpResult* read = FindOp(r, "READ");
    EXPECT_TRUE(read == nullptr || read->service.count() == 0) << warmup;
  }
}

TEST(RunnerTest, TimeSeriesAddsUpToTheTotal) {
  Properties props;
  auto store = FindBinding("null").open(props, OpenContext{});
  CoreWorkloadOptions wo = ReadOnly(1000);
  wo.updateproportion = 1;  // two op types in the series
  CoreWorkload w(wo);
  RunnerOptions o;
  o.threads = 2;
  o.operation_count = 0;
  o.max_execution_s = 1.3;
  o.series_interval_s = 0.25;
  SteadyClock clock;
  Runner runner(*store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  EXPECT_GE(r.series.size(), 5u);
  std::uint64_t series_ops = 0;
  for (const auto& p : r.series) series_ops += p.operations;
  EXPECT_EQ(series_ops, r.operations);
  ASSERT_NE(FindOp(r, "READ"), nullptr);
  ASSERT_NE(FindOp(r, "UPDATE"), nullptr);
  EXPECT_EQ(FindOp(r, "READ")->service.count() + FindOp(r, "UPDATE")->service.count(), r.operations);
}

TEST(RunnerTest, LoadInsertsEveryRecordOnceAcrossThreads) {
  Properties props;
  auto store = FindBinding("memory").open(props, OpenContext{});
  CoreWorkloadOptions wo = ReadOnly(1000);
  CoreWorkload w(wo);
  RunnerOptions o;
  o.loading = true;
  o.threads = 4;
  o.operation_count = 1000;
  SteadyClock clock;
  PhaseResult r = Runner(*store, w, o, clock, nullptr).Run();
  const OpResult* ins = FindOp(r, "INSERT");
  ASSERT_NE(ins, nullptr);
  EXPECT_EQ(ins->return_codes[Status::kOk], 1000u);
  auto s = store->NewSession(0);
  RecordSet rec;
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(s->Read("usertable", w.BuildKey(i), FieldSelector{}, &rec).ok()) << i;
    EXPECT_EQ(rec.field_count(0), 10u);
  }
  EXPECT_TRUE(s->Read("usertable", w.BuildKey(1000), FieldSelector{}, &rec).IsNotFound());
}

}  // namespace
}  // namespace storebench

namespace storebench {
namespace {

TEST(SteadyClockTest, TracksClockMonotonic) {
  const std::int64_t a = SteadyClock::Now(), ma = SteadyClock::MonotonicNs();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::int64_t b = SteadyClock::Now(), mb = SteadyClock::MonotonicNs();
  EXPECT_GE(b - a, 50'000'000);
  // Same time line and rate as CLOCK_MONOTONIC (within 0.5%, and 20 ms between the two readings).
  EXPECT_NEAR(static_cast<double>(b - a), static_cast<double>(mb - ma), 0.005 * (mb - ma) + 100'000);
  EXPECT_LT(std::abs(b - mb), 20'000'000) << SteadyClock::Source();
  std::int64_t prev = SteadyClock::Now();
  for (int i = 0; i < 100000; ++i) {
    const std::int64_t now = SteadyClock::Now();
    ASSERT_GE(now, prev);
    prev = now;
  }
}

TEST(SteadyClockTest, SleepUntilReturnsAtOrJustAfterTheDeadline) {
  SteadyClock c;
  const std::int64_t due = c.NowNs() + 3'000'000;
  c.SleepUntilNs(due);
  const std::int64_t late = c.NowNs() - due;
  EXPECT_GE(late, 0);  // never early
  // Not a timing test (shared machines): only that it does not oversleep grossly.
  EXPECT_LT(late, 200'000'000);
}

}  // namespace
}  // namespace storebench

namespace storebench {
namespace {

// A store whose operations each wait 1 ms through net/io.h, as a network
// binding waits for its reply, recording how many were in flight at once
// and which ClientSlots it handed out.
class WaitingStore final : public Store {
 public:
  explicit WaitingStore(int pipeline) : pipeline_(pipeline) {}
  class S final : public Session {
   public:
    explicit S(WaitingStore& s) : s_(s) {}
    Status Op() {
      const int now = ++s_.in_flight_;
      s_.max_in_flight_ = std::max(s_.max_in_flight_.load(), now);
      io::SleepUntil(SteadyClock::Now() + 1'000'000);
      --s_.in_flight_;
      s_.ops_++;
      return Status::Ok();
    }
    Status Read(std::string_view, std::string_view, const FieldSelector&, RecordSet* out) override {
      out->Clear();
      return Op();
    }
    Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&, RecordSet*) override {
      return Op();
    }
    Status Update(std::string_view, std::string_view, std::span<const Field>) override { return Op(); }
    Status Insert(std::string_view, std::string_view, std::span<const Field>) override { return Op(); }
    Status Delete(std::string_view, std::string_view) override { return Op(); }

   private:
    WaitingStore& s_;
  };
  std::unique_ptr<Session> NewSession(int) override { return std::make_unique<S>(*this); }
  std::unique_ptr<Session> NewClientSession(const ClientSlot& slot) override {
    std::lock_guard<std::mutex> lock(mu_);
    slots_.push_back(std::to_string(slot.thread) + "/" + std::to_string(slot.connection) + "/" +
                     std::to_string(slot.slot));
    return NewSession(slot.thread);
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.waits_through_io = true;
    c.pipeline = pipeline_;
    return c;
  }

  int pipeline_;
  std::atomic<int> in_flight_{0}, max_in_flight_{0}, ops_{0};
  std::mutex mu_;
  std::vector<std::string> slots_;
};

TEST(RunnerFiberTest, ConnectionsTimesPipelineClientsPerThreadKeepOpsInFlight) {
  WaitingStore store(/*pipeline=*/2);
  CoreWorkload w(ReadOnly(1000));
  RunnerOptions o;
  o.threads = 2;
  o.connections = 4;
  o.operation_count = 1601;  // not a multiple of the 16 clients: the split must still add up
  o.binding = "waiting";
  SteadyClock clock;
  Runner runner(store, w, o, clock, nullptr);
  const auto t0 = SteadyClock::Now();
  PhaseResult r = runner.Run();
  const double elapsed_ms = static_cast<double>(SteadyClock::Now() - t0) / 1e6;
  EXPECT_EQ(r.operations, 1601u);
  EXPECT_EQ(store.ops_.load(), 1601);
  ASSERT_NE(FindOp(r, "READ"), nullptr);
  EXPECT_EQ(FindOp(r, "READ")->service.count(), 1601u);
  // 2 threads x 4 connections x pipeline 2 = 16 clients, each waiting 1 ms per op.
  EXPECT_EQ(store.max_in_flight_.load(), 16);
  EXPECT_LT(elapsed_ms, 1601 / 2 * 1.0) << "no faster than one op in flight per thread";
  // Latency is the op's own wait, not the time spent queued behind other clients.
  EXPECT_LT(FindOp(r, "READ")->service.ValueAtPercentile(50), 5'000'000);
  std::sort(store.slots_.begin(), store.slots_.end());
  EXPECT_EQ(store.slots_.size(), 16u);
  EXPECT_EQ(store.slots_.front(), "0/0/0");
  EXPECT_EQ(store.slots_.back(), "1/3/1");
}

TEST(RunnerFiberTest, TargetRateHoldsAcrossFibers) {
  WaitingStore store(/*pipeline=*/1);
  CoreWorkload w(ReadOnly(1000));
  RunnerOptions o;
  o.threads = 1;
  o.connections = 8;
  o.target_ops_per_s = 2000;
  o.operation_count = 400;  // 0.2 s at 2000 ops/s
  o.binding = "waiting";
  SteadyClock clock;
  Runner runner(store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();
  EXPECT_EQ(r.operations, 400u);
  EXPECT_NEAR(r.throughput_ops_per_s, 2000, 300);
  // Each op is due every 4 ms per client and takes 1 ms: its latency from
  // the intended start stays near 1 ms when the fibers wake on time. A
  // runner that let one client's wait block the others could do at most
  // 1000 ops/s, so the schedule would slip by ~0.2 s over the run and the
  // median would be ~100 ms. The bound sits far from both: an ASan build on
  // a loaded 2-core machine has measured 3.6 ms.
  EXPECT_LT(FindOp(r, "READ")->intended.ValueAtPercentile(50), 20'000'000);
}

TEST(RunnerFiberTest, ABlockingBindingRefusesSeveralClientsPerThread) {
  FakeClock clock;
  ScriptedStore store = SlowStore(clock, 1000, -1, 0);
  CoreWorkload w(ReadOnly(10));
  RunnerOptions o;
  o.connections = 4;
  o.operation_count = 10;
  o.binding = "slow";
  Runner runner(store, w, o, clock, nullptr);
  try {
    runner.Run();
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("connections=4"), std::string::npos) << e.what();
  }
}

// A store whose sessions buffer their writes: each operation is quick and
// Flush "sends" them by sleeping flush_ms (through io::SleepUntil, so
// fibers of one thread flush side by side) and returns flush_status.
class BufferingStore final : public Store {
 public:
  BufferingStore(int flush_ms, Status flush_status, bool waits_through_io)
      : flush_ms_(flush_ms), flush_status_(flush_status), waits_through_io_(waits_through_io) {}
  class S final : public Session {
   public:
    explicit S(BufferingStore& s) : s_(s) {}
    ~S() override {
      if (flushes_ != 1) s_.wrong_flush_counts_++;
    }
    Status Read(std::string_view, std::string_view, const FieldSelector&, RecordSet* out) override {
      out->Clear();
      return Op();
    }
    Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&, RecordSet*) override {
      return Op();
    }
    Status Update(std::string_view, std::string_view, std::span<const Field>) override { return Op(); }
    Status Insert(std::string_view, std::string_view, std::span<const Field>) override { return Op(); }
    Status Delete(std::string_view, std::string_view) override { return Op(); }
    Status Flush() override {
      ++flushes_;
      s_.flushes_++;
      io::SleepUntil(SteadyClock::Now() + std::int64_t{s_.flush_ms_} * 1'000'000);
      return s_.flush_status_;
    }

   private:
    Status Op() {
      if (flushes_ > 0) s_.ops_after_flush_++;
      return Status::Ok();
    }
    BufferingStore& s_;
    int flushes_ = 0;
  };
  std::unique_ptr<Session> NewSession(int) override {
    s_sessions_++;
    return std::make_unique<S>(*this);
  }
  Capabilities capabilities() const override {
    Capabilities c;
    c.buffers_writes = true;
    c.waits_through_io = waits_through_io_;
    return c;
  }

  const int flush_ms_;
  const Status flush_status_;
  const bool waits_through_io_;
  std::atomic<int> s_sessions_{0}, flushes_{0}, wrong_flush_counts_{0}, ops_after_flush_{0};
};

TEST(RunnerTest, EachSessionFlushesOnceInsideTheTimedPhase) {
  for (const bool loading : {true, false}) {
    SCOPED_TRACE(loading ? "load" : "run");
    BufferingStore store(/*flush_ms=*/200, Status::Ok(), /*waits_through_io=*/false);
    CoreWorkload w(ReadOnly(100));
    RunnerOptions o;
    o.loading = loading;
    o.threads = 3;
    o.operation_count = 100;
    o.binding = "buffering";
    SteadyClock clock;
    PhaseResult r = Runner(store, w, o, clock, nullptr).Run();
    EXPECT_EQ(store.flushes_.load(), 3);
    EXPECT_EQ(store.s_sessions_.load(), 3);
    EXPECT_EQ(store.wrong_flush_counts_.load(), 0) << "each session flushed exactly once";
    EXPECT_EQ(store.ops_after_flush_.load(), 0) << "the flush comes after the session's last operation";
    EXPECT_GE(r.runtime_ms, 200) << "the runtime includes the flush";
    EXPECT_EQ(r.operations, 100u) << "a flush is not one of the phase's operations";
    EXPECT_LE(r.throughput_ops_per_s, 100 / 0.2);
    const OpResult* cleanup = FindOp(r, "CLEANUP");
    ASSERT_NE(cleanup, nullptr);
    EXPECT_EQ(cleanup->return_codes[Status::kOk], 3u);
    EXPECT_GE(cleanup->service.min(), 200'000'000u);
  }
}

TEST(RunnerFiberTest, EveryFiberSessionFlushesOnceBeforeItsThreadEnds) {
  BufferingStore store(/*flush_ms=*/200, Status::Error(), /*waits_through_io=*/true);
  CoreWorkload w(ReadOnly(100));
  RunnerOptions o;
  o.loading = true;
  o.threads = 2;
  o.connections = 3;
  o.operation_count = 100;
  o.binding = "buffering";
  SteadyClock clock;
  PhaseResult r = Runner(store, w, o, clock, nullptr).Run();
  EXPECT_EQ(store.s_sessions_.load(), 6);
  EXPECT_EQ(store.flushes_.load(), 6);
  EXPECT_EQ(store.wrong_flush_counts_.load(), 0);
  EXPECT_EQ(store.ops_after_flush_.load(), 0);
  EXPECT_GE(r.runtime_ms, 200);
  const OpResult* failed = FindOp(r, "CLEANUP-FAILED");
  ASSERT_NE(failed, nullptr) << "a failed flush is counted";
  EXPECT_EQ(failed->service.count(), 6u);
  const OpResult* cleanup = FindOp(r, "CLEANUP");
  ASSERT_NE(cleanup, nullptr);
  EXPECT_EQ(cleanup->return_codes[Status::kError], 6u);
}

TEST(RunnerTest, ErrorsMaxStopsThePhase) {
  FakeClock clock;
  class FailingStore final : public Store {
   public:
    class S final : public Session {
     public:
      Status Read(std::string_view, std::string_view, const FieldSelector&, RecordSet* out) override {
        out->Clear();
        return Status(Status::kServiceUnavailable);
      }
      Status Scan(std::string_view, std::string_view, std::uint64_t, const FieldSelector&, RecordSet*) override {
        return Status::Error();
      }
      Status Update(std::string_view, std::string_view, std::span<const Field>) override { return Status::Error(); }
      Status Insert(std::string_view, std::string_view, std::span<const Field>) override { return Status::Error(); }
      Status Delete(std::string_view, std::string_view) override { return Status::Error(); }
    };
    std::unique_ptr<Session> NewSession(int) override { return std::make_unique<S>(); }
  } store;
  CoreWorkload w(ReadOnly(10));
  RunnerOptions o;
  o.max_errors = 100;
  o.target_ops_per_s = 10000;  // 0.1 ms apart in fake time
  o.binding = "failing";
  Runner runner(store, w, o, clock, nullptr);
  PhaseResult r = runner.Run();  // unbounded count: only errors.max ends it
  EXPECT_TRUE(r.errors_exceeded);
  EXPECT_EQ(r.stop_reason, "errors.max");
  EXPECT_GT(r.operations, 100u);
  const OpResult* failed = FindOp(r, "READ-FAILED");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->service.count(), r.operations);
}

// A combiner standing in for other processes of a job that finish later:
// it reports "not everyone finished" for `extra` more calls after this
// process has finished, and adds `others_done` operations to every line.
class ScriptedCombiner : public StatusCombiner {
 public:
  explicit ScriptedCombiner(int extra) : extra_(extra) {}
  bool Combine(Figures& f) override {
    ++calls;
    if (f.finished) ++finished_calls;
    f.done += 1000;
    const bool everyone = f.finished && finished_calls > extra_;
    f.finished = everyone;
    return true;
  }
  int calls = 0, finished_calls = 0;

 private:
  int extra_;
};

TEST(RunnerTest, StatusCombinerGetsEveryLineAndOurCallsUntilEveryoneFinished) {
  Properties props;
  auto store = FindBinding("null").open(props, OpenContext{});
  CoreWorkload w(ReadOnly(1000));
  RunnerOptions o;
  o.operation_count = 0;
  o.max_execution_s = 0.5;
  o.status = true;
  o.status_interval_s = 0.1;
  o.series_interval_s = 0.1;  // (a status line comes at most once per series interval)
  ScriptedCombiner lines(2);
  o.status_combiner = &lines;
  std::ostringstream out;
  SteadyClock clock;
  Runner runner(*store, w, o, clock, &out);
  const PhaseResult r = runner.Run();
  EXPECT_GE(lines.calls, 4 + 3);          // the lines while running, then three once finished
  EXPECT_EQ(lines.finished_calls, 3);     // until the others said they had finished too
  // The printed count is the job's: this process's plus the others'.
  const std::string text = out.str();
  const auto last = text.rfind(" sec: ");
  ASSERT_NE(last, std::string::npos) << text;
  EXPECT_EQ(std::stoull(text.substr(last + 6)), r.operations + 1000) << text;
}

TEST(RunnerTest, StatusCombinerStillGetsOurCallsWhenThePhaseCannotStart) {
  Properties props;
  auto store = FindBinding("null").open(props, OpenContext{});
  CoreWorkload w(ReadOnly(1000));
  RunnerOptions o;
  o.connections = 4;  // the null binding blocks its thread: refused before any line
  o.binding = "null";
  o.status = true;
  o.status_interval_s = 0.05;
  ScriptedCombiner lines(2);
  o.status_combiner = &lines;
  SteadyClock clock;
  Runner runner(*store, w, o, clock, nullptr);
  EXPECT_THROW(runner.Run(), ConfigError);
  EXPECT_EQ(lines.finished_calls, 3);  // as a process that has finished, until all have
}

}  // namespace
}  // namespace storebench
