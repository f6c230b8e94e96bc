#include "runner/runner.h"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <csignal>
#include <memory>
#include <thread>

#include <sys/prctl.h>

#include "core/error.h"
#include "net/fiber_scheduler.h"
#include "net/io.h"
#include "measure/thread_stats.h"
#include "report/text_report.h"
#include "workload/measured_session.h"

namespace storebench {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

// Slot::ops_planned of a client whose share of a bounded count is zero.
constexpr std::uint64_t kNothing = ~std::uint64_t{0};

std::int64_t SecondsToNs(double s) { return static_cast<std::int64_t>(s * 1e9); }

// One client: its session, workload state and share of the operations.
struct Slot {
  std::unique_ptr<Session> session;
  std::unique_ptr<WorkloadThread> work;
  std::uint64_t ops_planned = 0;  // 0 = unlimited
  std::uint64_t warmup_ops = 0;
};

// One client thread's state; lives until the phase result is built.
struct Client {
  std::vector<Slot> slots;  // one, or several run as fibers
  std::unique_ptr<ThreadStats> stats;
  alignas(64) std::atomic<std::uint64_t> ops_done{0};
  std::atomic<std::uint64_t> failures{0};
  std::int64_t end_ns = 0;
};

// YCSB's split of `total` over `n`: total / n each, the first total % n one more.
std::uint64_t Share(std::uint64_t total, std::uint64_t n, std::uint64_t i) {
  return total / n + (i < total % n ? 1 : 0);
}

// Whether an operation type's count is part of the phase's operations: not
// read-modify-write (composite: its read and update are counted too), not
// the end-of-phase CLEANUP (a flush of what the operations buffered), and
// a batch insert once: per record in `load` (whose unit is the record), per
// batch in `run` (whose operationcount counts operations).
bool CountsAsOperations(OpType t, bool loading) {
  if (t == OpType::kReadModifyWrite || t == OpType::kCleanup) return false;
  if (t == OpType::kBatchInsert) return !loading;
  if (t == OpType::kBatchInsertPerRecord) return loading;
  return true;
}

IntervalPoint MakePoint(double t_s, double interval_s,
                        const std::array<std::unique_ptr<Histogram>, kNumOpTypes>& h,
                        const std::array<std::uint64_t, kNumOpTypes>& failed, bool keep_buckets, bool loading) {
  IntervalPoint p;
  p.t_s = t_s;
  for (int i = 0; i < kNumOpTypes; ++i) {
    if (!h[i] || h[i]->count() == 0) continue;
    IntervalPoint::Op op;
    op.name = std::string(OpName(static_cast<OpType>(i)));
    op.count = h[i]->count();
    op.errors = failed[i];
    op.mean_us = h[i]->mean() / 1e3;
    op.p50_us = static_cast<double>(h[i]->ValueAtPercentile(50)) / 1e3;
    op.p99_us = static_cast<double>(h[i]->ValueAtPercentile(99)) / 1e3;
    op.max_us = static_cast<double>(h[i]->max()) / 1e3;
    if (keep_buckets) {
      op.buckets = h[i]->NonEmptyBuckets();
      op.min_ns = h[i]->min();
      op.max_ns = h[i]->max();
      op.sum_ns = h[i]->sum();
    }
    if (CountsAsOperations(static_cast<OpType>(i), loading)) p.operations += op.count;
    p.ops.push_back(std::move(op));
  }
  p.ops_per_s = interval_s > 0 ? static_cast<double>(p.operations) / interval_s : 0;
  return p;
}

}  // namespace

void RequestStop(int signal_number) { g_stop_signal = signal_number; }
int StopSignal() { return g_stop_signal; }
void ClearStop() { g_stop_signal = 0; }
sigset_t StopSignalSet() {
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, SIGINT);
  sigaddset(&s, SIGTERM);
  return s;
}

Runner::Runner(Store& store, Workload& workload, RunnerOptions opts, Clock& clock, std::ostream* status_out)
    : store_(store), workload_(workload), opts_(std::move(opts)), clock_(clock), status_out_(status_out) {}

PhaseResult Runner::Run() {
  try {
    return RunPhase();
  } catch (...) {
    // Failed before the first status line (a session could not be made):
    // with a combiner, the other processes' lines still need this one's
    // calls, as a process that has finished, until they all have.
    if (opts_.status && opts_.status_combiner != nullptr && !lines_started_) {
      std::array<std::unique_ptr<Histogram>, kNumOpTypes> none;
      StatusCombiner::Figures f{0, 0, true, &none};
      while (!(opts_.status_combiner->Combine(f), f.finished)) {
        std::this_thread::sleep_for(std::chrono::duration<double>(opts_.status_interval_s / 2));
        f = StatusCombiner::Figures{0, 0, true, &none};
      }
    }
    throw;
  }
}

PhaseResult Runner::RunPhase() {
  const int n = std::max(1, opts_.threads);
  const bool real_clock = dynamic_cast<SteadyClock*>(&clock_) != nullptr;
  const bool series_intended = opts_.target_ops_per_s > 0 && opts_.measurement_interval != "op";
  const std::int64_t interval_ns = std::max<std::int64_t>(1'000'000, SecondsToNs(opts_.series_interval_s));
  const std::vector<OpType> op_types = workload_.OpTypes(opts_.loading);

  const Capabilities caps = store_.capabilities();
  const int per_connection = std::max(1, caps.pipeline);
  const int connections = std::max(1, opts_.connections);
  const int per_thread = connections * per_connection;
  if (per_thread > 1 && !caps.waits_through_io) {
    throw ConfigError("binding '" + opts_.binding + "' blocks its thread in every call, so connections=" +
                      std::to_string(connections) + " cannot keep more operations in flight; use more threads instead");
  }
  const bool fibers = per_thread > 1;

  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < n; ++i) {
    auto c = std::make_unique<Client>();
    c->stats = std::make_unique<ThreadStats>(interval_ns, series_intended, opts_.target_ops_per_s > 0);
    if (opts_.live != nullptr) c->stats->PublishBothKinds();
    for (OpType t : op_types) c->stats->Prepare(t);
    if (caps.buffers_writes) c->stats->Prepare(OpType::kCleanup);
    const std::uint64_t thread_ops = Share(opts_.operation_count, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(i));
    const std::uint64_t thread_warmup = Share(opts_.warmup_operations, static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(i));
    c->slots.resize(static_cast<std::size_t>(per_thread));
    for (int k = 0; k < per_thread; ++k) {
      Slot& s = c->slots[static_cast<std::size_t>(k)];
      // may throw SetupError: nothing started yet
      s.session = store_.NewClientSession(ClientSlot{i, k / per_connection, k % per_connection});
      s.work = workload_.NewWorkloadThread(i * per_thread + k);
      const auto uk = static_cast<std::uint64_t>(k), un = static_cast<std::uint64_t>(per_thread);
      s.ops_planned = Share(thread_ops, un, uk);
      s.warmup_ops = Share(thread_warmup, un, uk);
      // A client with no share of a bounded count has nothing to do.
      if (opts_.operation_count > 0 && s.ops_planned == 0) s.ops_planned = kNothing;
    }
    clients.push_back(std::move(c));
  }

  std::atomic<bool> stop{false};
  std::atomic<int> running{n};
  std::atomic<std::int64_t> t0{0};
  const double per_client_rate = opts_.target_ops_per_s > 0 ? opts_.target_ops_per_s / (n * per_thread) : 0;
  std::barrier start_barrier(n + 1);
  std::barrier measure_barrier(n + 1, [&]() noexcept { t0.store(clock_.NowNs()); });

  auto wait_until = [&](std::int64_t due) {
    // Sleep in slices so that a stop request is seen within 100 ms.
    constexpr std::int64_t kSlice = 100'000'000;
    for (;;) {
      std::int64_t now = clock_.NowNs();
      if (due - now <= kSlice) break;
      if (fibers && real_clock) {
        io::SleepUntil(now + kSlice);
      } else {
        clock_.SleepUntilNs(now + kSlice);
      }
      if (stop.load(std::memory_order_relaxed)) return;
    }
    if (fibers && real_clock) {
      io::SleepUntil(due);
    } else {
      clock_.SleepUntilNs(due);
    }
  };

  // Runs `body(slot)` for every client of thread c: directly, or as fibers.
  auto for_each_slot = [&](Client& c, auto&& body) {
    if (!fibers) {
      body(c.slots[0]);
      return;
    }
    io::FiberScheduler sched;
    for (Slot& s : c.slots) sched.Spawn([&body, &s] { body(s); });
    sched.Run();
  };

  auto body = [&](Client& c) {
    if (fibers) prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // wake fibers on time, not 50 us late
    start_barrier.arrive_and_wait();
    // Warm-up: same path, same rate, discarded afterwards.
    if (opts_.warmup_operations > 0 || opts_.warmup_s > 0) {
      const std::int64_t w0 = clock_.NowNs();
      const std::int64_t w_end = opts_.warmup_s > 0 ? w0 + SecondsToNs(opts_.warmup_s) : INT64_MAX;
      for_each_slot(c, [&](Slot& s) {
        MeasuredSession db(s.session.get(), c.stats.get(), &clock_, real_clock);
        RateSchedule ws(w0, per_client_rate);
        for (std::uint64_t i = 0; !stop.load(std::memory_order_relaxed);) {
          if (s.warmup_ops > 0 && i >= s.warmup_ops) break;
          if (opts_.warmup_operations > 0 && s.warmup_ops == 0) break;
          if (opts_.warmup_s > 0 && clock_.NowNs() >= w_end) break;
          if (ws.throttled()) {
            const std::int64_t due = ws.DueNs(i);
            wait_until(due);
            db.set_intended_start(due);
          }
          if (opts_.loading) {
            i += s.work->DoInsert(db, s.warmup_ops > 0 ? s.warmup_ops - i : UINT64_MAX);
          } else {
            s.work->DoTransaction(db);
            ++i;
          }
        }
      });
    }
    measure_barrier.arrive_and_wait();
    const std::int64_t start = t0.load();
    c.stats->StartMeasuring(start);
    for_each_slot(c, [&](Slot& s) {
      MeasuredSession db(s.session.get(), c.stats.get(), &clock_, real_clock);
      db.set_failure_counter(&c.failures);
      RateSchedule schedule(start, per_client_rate);
      const std::uint64_t planned = s.ops_planned == kNothing ? 0 : s.ops_planned;
      // i counts operations; in `load` a record (a batch of n adds n).
      for (std::uint64_t i = 0; s.ops_planned != kNothing && (planned == 0 || i < planned) &&
                                !stop.load(std::memory_order_relaxed);) {
        if (schedule.throttled()) {
          const std::int64_t due = schedule.DueNs(i);
          wait_until(due);
          if (stop.load(std::memory_order_relaxed)) break;
          db.set_intended_start(due);
        }
        std::uint64_t n = 1;
        if (opts_.loading) {
          n = s.work->DoInsert(db, planned == 0 ? UINT64_MAX : planned - i);
        } else {
          s.work->DoTransaction(db);
        }
        i += n;
        // One writer per counter: the thread's clients run on this thread.
        c.ops_done.store(c.ops_done.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
      }
      // What the session buffered is part of the phase (YCSB's CLEANUP):
      // sent before the thread's end time is taken.
      db.Flush(caps.buffers_writes);
    });
    c.end_ns = clock_.NowNs();
    c.stats->Finish(c.end_ns);
    running.fetch_sub(1);
  };

  std::vector<std::thread> threads;
  threads.reserve(clients.size());
  for (auto& c : clients) threads.emplace_back(body, std::ref(*c));

  PhaseResult r;
  r.phase = opts_.loading ? "load" : "run";
  r.binding = opts_.binding;
  r.threads = n;
  r.target_ops_per_s = opts_.target_ops_per_s;
  r.measurement_interval = opts_.measurement_interval;
  r.percentiles = opts_.percentiles;
  // A stop requested before the phase (during setup, or a pending SIGINT
  // delivered then) ends it before its first operation; the threads see
  // `stop` once past the barrier.
  const bool stopped_before_start = StopSignal() != 0;
  if (stopped_before_start) {
    stop.store(true);
    r.interrupted = true;
  }

  start_barrier.arrive_and_wait();
  measure_barrier.arrive_and_wait();
  const std::int64_t start = t0.load();
  const auto start_wall = std::chrono::system_clock::now().time_since_epoch();
  r.start_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(start_wall).count();
  const double start_unix_s = std::chrono::duration<double>(start_wall).count();

  // Collector: every interval (plus a grace period for the threads to hand
  // off), merge the published interval histograms into one point.
  constexpr std::int64_t kGraceNs = 50'000'000;
  const std::int64_t status_ns = std::max<std::int64_t>(interval_ns, SecondsToNs(opts_.status_interval_s));
  const std::int64_t max_ns = opts_.max_execution_s > 0 ? SecondsToNs(opts_.max_execution_s) : 0;
  ThreadStats::Taken taken;
  std::array<std::unique_ptr<Histogram>, kNumOpTypes> status_acc;
  std::array<std::uint64_t, kNumOpTypes> status_failed{};
  Histogram progress_latency;  // the last interval's operations, all types
  double progress_ops_per_s = 0;
  std::int64_t next_point = start + interval_ns;
  std::int64_t next_status = start + status_ns;
  std::int64_t last_status_t = start;
  std::uint64_t last_status_ops = 0;
  // The time series' rows cover what was collected: from the end of the
  // previous row to the end of the last collected point.
  std::int64_t row_start = start, collected_until = start;
  const std::uint64_t total_planned = opts_.operation_count;
  auto total_done = [&] {
    std::uint64_t s = 0;
    for (auto& c : clients) s += c->ops_done.load(std::memory_order_relaxed);
    return s;
  };
  auto total_failed = [&] {
    std::uint64_t s = 0;
    for (auto& c : clients) s += c->failures.load(std::memory_order_relaxed);
    return s;
  };
  if (opts_.live != nullptr) opts_.live->BeginPhase(r.phase, n, opts_.target_ops_per_s, total_planned);
  auto collect = [&](std::int64_t point_end, bool final_point) {
    for (auto& c : taken.codes) c.fill(0);
    for (auto& c : clients) c->stats->TakeInterval(taken);
    auto& interval_acc = taken.all;
    // The final (partial) interval starts where the last full one ended.
    const std::int64_t point_start = std::clamp(final_point ? next_point - interval_ns : point_end - interval_ns,
                                                start, std::max(start, point_end));
    const double len_s = final_point ? static_cast<double>(point_end - point_start) / 1e9
                                     : static_cast<double>(interval_ns) / 1e9;
    IntervalPoint p = MakePoint(static_cast<double>(point_end - start) / 1e9, len_s, interval_acc, taken.failed,
                                opts_.series_histograms, opts_.loading);
    if (opts_.on_interval) {
      opts_.on_interval(start_unix_s + static_cast<double>(point_start - start) / 1e9,
                        start_unix_s + static_cast<double>(point_end - start) / 1e9, interval_acc);
    }
    if (opts_.live != nullptr) {
      const bool tracked = opts_.target_ops_per_s > 0;
      const auto& service = series_intended ? taken.other : taken.all;
      const auto* intended = !tracked ? nullptr : series_intended ? &taken.all : &taken.other;
      opts_.live->Publish(static_cast<double>(point_end - start) / 1e9, total_done(), p.ops_per_s, service, intended,
                          taken.codes);
    }
    if (opts_.progress) {
      progress_latency.Reset();
      for (int i = 0; i < kNumOpTypes; ++i) {
        if (interval_acc[i] && CountsAsOperations(static_cast<OpType>(i), opts_.loading)) {
          progress_latency.Merge(*interval_acc[i]);
        }
      }
      progress_ops_per_s = p.ops_per_s;
    }
    collected_until = std::max(collected_until, point_end);
    if (!final_point || p.operations > 0) r.series.push_back(std::move(p));
    for (int i = 0; i < kNumOpTypes; ++i) {
      status_failed[i] += taken.failed[i];
      if (!interval_acc[i]) continue;
      if (!status_acc[i]) status_acc[i] = std::make_unique<Histogram>();
      status_acc[i]->Merge(*interval_acc[i]);
    }
    taken.ResetInterval();
  };
  StatusCombiner* const combiner = opts_.status ? opts_.status_combiner : nullptr;
  std::string abort_reason;  // set by stop_check
  // Progress: one line that rewrites itself; a status line is printed above it.
  bool progress_shown = false;
  auto print_progress = [&](std::int64_t now) {
    if (!opts_.progress || status_out_ == nullptr) return;
    progress_shown = true;
    *status_out_ << "\r\033[K" << FormatProgressLine(r.phase, static_cast<double>(now - start) / 1e9, total_done(),
                                                    total_planned, progress_ops_per_s, progress_latency,
                                                    total_failed())
                 << std::flush;
  };
  // One status line (of the whole job with a combiner), and the time
  // series' rows; returns whether every process has finished its phase
  // (this one alone without).
  auto print_status = [&](std::int64_t now, bool finished) {
    std::uint64_t done = total_done();
    std::uint64_t planned = total_planned;
    bool print = true, all_finished = finished;
    if (opts_.on_status) {
      opts_.on_status(start_unix_s + static_cast<double>(row_start - start) / 1e9,
                      start_unix_s + static_cast<double>(collected_until - start) / 1e9,
                      static_cast<double>(collected_until - start) / 1e9, status_acc, status_failed);
      row_start = collected_until;
    }
    if (combiner != nullptr) {
      StatusCombiner::Figures f{done, planned, finished, &status_acc};
      print = combiner->Combine(f);
      done = f.done;
      planned = f.planned;
      all_finished = f.finished;
    }
    const double elapsed_s = static_cast<double>(now - start) / 1e9;
    const double dt = static_cast<double>(now - last_status_t) / 1e9;
    const double cur = dt > 0 ? static_cast<double>(done - std::min(done, last_status_ops)) / dt : 0;
    if (opts_.stop_check && !finished && abort_reason.empty() && !stop.load() &&
        opts_.stop_check(status_acc, status_failed, cur)) {
      abort_reason = "slo.abort";
      stop.store(true);
    }
    if (opts_.status && print && status_out_ != nullptr) {
      std::optional<std::int64_t> remaining;
      if (planned > 0 && done > 0) {
        remaining = static_cast<std::int64_t>(std::ceil(
            elapsed_s * static_cast<double>(planned - std::min(done, planned)) / static_cast<double>(done)));
      } else if (max_ns > 0) {
        remaining = static_cast<std::int64_t>(std::ceil(std::max(0.0, opts_.max_execution_s - elapsed_s)));
      }
      std::vector<StatusOp> ops;
      for (int i = 0; i < kNumOpTypes; ++i) {
        if (status_acc[i] && status_acc[i]->count() > 0) {
          ops.push_back(StatusOp{OpName(static_cast<OpType>(i)), status_acc[i].get()});
        }
      }
      if (progress_shown) *status_out_ << "\r\033[K";
      *status_out_ << FormatStatusLine(std::chrono::system_clock::now(), elapsed_s, done, cur, remaining, ops)
                   << std::endl;
      if (progress_shown && !finished) print_progress(now);
    }
    for (auto& h : status_acc) {
      if (h) h->Reset();
    }
    status_failed.fill(0);
    last_status_t = now;
    last_status_ops = done;
    return all_finished;
  };

  std::string stop_reason = opts_.loading || opts_.operation_count > 0 ? "operationcount" : "";
  if (stopped_before_start) stop_reason = "signal";
  lines_started_ = true;
  while (running.load() > 0) {
    const std::int64_t now = clock_.NowNs();
    if (StopSignal() != 0 && !stop.load()) {
      stop.store(true);
      r.interrupted = true;
      stop_reason = "signal";
    }
    if (opts_.max_errors > 0 && !stop.load()) {
      std::uint64_t failed = 0;
      for (auto& c : clients) failed += c->failures.load(std::memory_order_relaxed);
      if (failed > opts_.max_errors) {
        stop.store(true);
        stop_reason = "errors.max";
        r.errors_exceeded = true;
      }
    }
    if (max_ns > 0 && now - start >= max_ns && !stop.load()) {
      stop.store(true);
      stop_reason = "maxexecutiontime";
    }
    if (now >= next_point + kGraceNs) {
      collect(next_point, false);
      next_point += interval_ns;
      print_progress(now);
    }
    if (now >= next_status + kGraceNs) {
      print_status(now, false);
      next_status += status_ns;
      if (!abort_reason.empty()) stop_reason = abort_reason;
    }
    std::int64_t wake = std::min({next_point + kGraceNs, next_status + kGraceNs, now + 20'000'000});
    if (max_ns > 0) wake = std::min(wake, std::max(now, start + max_ns));
    // A real sleep whatever the clock: a fake clock only moves with the workers.
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::clamp<std::int64_t>(wake - now, 1'000'000, 20'000'000)));
  }
  for (auto& t : threads) t.join();

  std::int64_t end = start;
  for (auto& c : clients) end = std::max(end, c->end_ns);
  // The last (partial) interval, then the last status line.
  while (next_point < end) {
    collect(next_point, false);
    next_point += interval_ns;
  }
  collect(end, true);
  if (opts_.progress && status_out_ != nullptr) {
    // The last progress line stays, above the last status line.
    print_progress(end);
    *status_out_ << "\n";
    progress_shown = false;
  }
  if (opts_.status || opts_.on_status) {
    // With a combiner, keep taking part in the job's lines until every
    // process has finished (their calls must pair up with ours).
    // Each call waits for the others' next line, so half an interval of
    // (real) sleep in between keeps the waiting on this side.
    bool all_finished = print_status(std::max(end, clock_.NowNs()), true);
    while (!all_finished) {
      std::this_thread::sleep_for(std::chrono::nanoseconds(status_ns / 2));
      all_finished = print_status(std::max(end, clock_.NowNs()), true);
    }
  }
  if (opts_.live != nullptr) opts_.live->EndPhase();

  r.runtime_ms = (end - start) / 1'000'000;
  r.operations = total_done();
  const double runtime_s = static_cast<double>(end - start) / 1e9;
  r.throughput_ops_per_s = runtime_s > 0 ? static_cast<double>(r.operations) / runtime_s : 0;
  r.stop_reason = stop_reason.empty() ? "completed" : stop_reason;

  // Totals, merged over threads, in the stable report order: each
  // operation, then its failures.
  for (int i = 0; i < kNumOpTypes; ++i) {
    const auto t = static_cast<OpType>(i);
    OpResult ok, failed;
    ok.name = std::string(OpName(t));
    failed.name = ok.name + "-FAILED";
    bool seen = false;
    for (auto& c : clients) {
      const OpStats* s = c->stats->op(t);
      if (s == nullptr) continue;
      seen = true;
      ok.service.Merge(s->service);
      ok.intended.Merge(c->stats->tracks_intended() ? s->intended : s->service);
      if (s->failed_service) {
        failed.service.Merge(*s->failed_service);
        failed.intended.Merge(*s->failed_intended);
      }
      for (int k = 0; k < Status::kNumCodes; ++k) ok.return_codes[k] += s->return_codes[k];
    }
    if (!seen) continue;
    const bool has_failed = failed.service.count() > 0;
    r.ops.push_back(std::move(ok));
    if (has_failed) r.ops.push_back(std::move(failed));
  }
  for (auto& c : clients) r.integrity_failures += c->stats->integrity_failures;
  for (auto& c : clients) c->slots.clear();
  return r;
}

}  // namespace storebench
