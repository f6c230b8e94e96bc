#include "net/io.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#if defined(STOREBENCH_FIBER_UCONTEXT)
#define BOOST_USE_UCONTEXT 1
#if defined(__SANITIZE_ADDRESS__)
#define BOOST_USE_ASAN 1
#endif
#endif
#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "net/fiber_scheduler.h"
#include "runner/clock.h"

#if defined(STOREBENCH_FIBER_UCONTEXT)
// Debian's libboost_context is built for fcontext, so the ucontext variant's
// one out-of-line function (the thread's current activation record, which
// starts as a record for the thread's own stack) is not in it: defined here,
// for the sanitizer build only.
namespace boost::context::detail {
fiber_activation_record*& fiber_activation_record::current() noexcept {
  thread_local std::unique_ptr<fiber_activation_record> main_record;
  thread_local fiber_activation_record* current_record = nullptr;
  if (current_record == nullptr) {
    main_record = std::make_unique<fiber_activation_record>();
    current_record = main_record.get();
  }
  return current_record;
}
}  // namespace boost::context::detail
#endif

namespace storebench::io {

namespace ctx = boost::context;

struct Fiber {
  ctx::fiber self;  // the fiber's context while it is parked
  ctx::fiber back;  // the scheduler's context while the fiber runs
  std::function<void()> body;
  bool done = false;
  bool queued = false;
  // What a parked fiber waits for: an fd, a deadline, or a Wake.
  int wait_fd = -1;
  std::size_t index = 0;  // in Impl::fibers and Impl::wake_at_ns
  WaitResult result = WaitResult::kReady;
};

struct FdState {
  bool registered = false;
  bool readable = false;  // an edge seen and not yet consumed
  bool writable = false;
  Fiber* reader = nullptr;
  Fiber* writer = nullptr;
};

struct FiberScheduler::Impl {
  std::size_t stack_bytes;
  std::vector<std::unique_ptr<Fiber>> fibers;
  // When each parked fiber times out (kNoDeadline: it does not, or it is
  // runnable or done). Kept apart from the Fiber objects so that finding the
  // earliest deadline before every epoll_wait scans one contiguous array
  // instead of touching every fiber (hundreds, each on its own cache line).
  std::vector<std::int64_t> wake_at_ns;
  std::vector<Fiber*> ring;  // run queue, capacity fibers.size() + 1
  std::size_t head = 0, tail = 0;
  std::vector<FdState> fds;
  int epfd = -1;
  Fiber* current = nullptr;

  void Push(Fiber* f) {
    if (f->queued || f->done) return;
    f->queued = true;
    ring[tail] = f;
    tail = (tail + 1) % ring.size();
  }
  Fiber* Pop() {
    if (head == tail) return nullptr;
    Fiber* f = ring[head];
    head = (head + 1) % ring.size();
    f->queued = false;
    return f;
  }
  // Switches from the running fiber back to the scheduler loop.
  void Park() {
    Fiber* f = current;
    f->back = std::move(f->back).resume();
  }
  FdState& Fd(int fd) {
    if (static_cast<std::size_t>(fd) >= fds.size()) fds.resize(static_cast<std::size_t>(fd) + 64);
    return fds[static_cast<std::size_t>(fd)];
  }
  void Finish(Fiber* f, WaitResult r) {
    if (f->wait_fd >= 0) {
      FdState& st = fds[static_cast<std::size_t>(f->wait_fd)];
      if (st.reader == f) st.reader = nullptr;
      if (st.writer == f) st.writer = nullptr;
      f->wait_fd = -1;
    }
    wake_at_ns[f->index] = kNoDeadline;
    f->result = r;
    Push(f);
  }
  void Loop();
};

namespace {

thread_local FiberScheduler::Impl* tl_sched = nullptr;

int PollTimeoutMs(std::int64_t deadline_ns) {
  if (deadline_ns == kNoDeadline) return -1;
  const std::int64_t left = deadline_ns - SteadyClock::Now();
  if (left <= 0) return 0;
  return static_cast<int>(std::min<std::int64_t>((left + 999'999) / 1'000'000, 1 << 30));
}

FiberScheduler::Impl* Active() {
  FiberScheduler::Impl* s = tl_sched;
  return s != nullptr && s->current != nullptr ? s : nullptr;
}

}  // namespace

void FiberScheduler::Impl::Loop() {
  constexpr int kMaxEvents = 256;
  epoll_event events[kMaxEvents];
  std::size_t live = fibers.size();
  while (live > 0) {
    // Run everything runnable; fibers queued meanwhile run in this pass too.
    while (Fiber* f = Pop()) {
      current = f;
      f->self = std::move(f->self).resume();
      current = nullptr;
      if (f->done) live--;
    }
    if (live == 0) break;
    // Nothing runnable: wait for I/O until the earliest deadline.
    std::int64_t earliest = kNoDeadline;
    for (const std::int64_t t : wake_at_ns) earliest = std::min(earliest, t);
    timespec ts{};
    timespec* tsp = nullptr;
    if (earliest != kNoDeadline) {
      const std::int64_t left = std::max<std::int64_t>(0, earliest - SteadyClock::Now());
      ts.tv_sec = left / 1'000'000'000;
      ts.tv_nsec = left % 1'000'000'000;
      tsp = &ts;
    }
    if (epfd < 0 && tsp == nullptr) {
      std::fprintf(stderr, "storebench: internal error: every client fiber is suspended and none waits for I/O\n");
      std::abort();
    }
    int n = epfd >= 0 ? epoll_pwait2(epfd, events, kMaxEvents, tsp, nullptr) : 0;
    if (epfd < 0 && tsp != nullptr) clock_nanosleep(CLOCK_MONOTONIC, 0, tsp, nullptr);
    if (n < 0 && errno == ENOSYS) {  // kernels before 5.11
      n = epoll_wait(epfd, events, kMaxEvents, tsp == nullptr ? -1 : static_cast<int>((ts.tv_sec * 1000) + (ts.tv_nsec + 999'999) / 1'000'000));
    }
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      FdState& st = Fd(fd);
      const std::uint32_t ev = events[i].events;
      const bool err = (ev & (EPOLLERR | EPOLLHUP)) != 0;
      if ((ev & (EPOLLIN | EPOLLRDHUP)) || err) {
        if (st.reader != nullptr) {
          Finish(st.reader, WaitResult::kReady);
        } else {
          st.readable = true;
        }
      }
      if ((ev & EPOLLOUT) || err) {
        if (st.writer != nullptr) {
          Finish(st.writer, WaitResult::kReady);
        } else {
          st.writable = true;
        }
      }
    }
    if (earliest != kNoDeadline) {
      const std::int64_t now = SteadyClock::Now();
      for (std::size_t i = 0; i < wake_at_ns.size(); ++i) {
        if (wake_at_ns[i] <= now) Finish(fibers[i].get(), WaitResult::kTimeout);
      }
    }
  }
}

FiberScheduler::FiberScheduler(std::size_t stack_bytes) : impl_(std::make_unique<Impl>()) {
  impl_->stack_bytes = stack_bytes;
}

FiberScheduler::~FiberScheduler() {
  if (impl_->epfd >= 0) ::close(impl_->epfd);
}

void FiberScheduler::Spawn(std::function<void()> body) {
  auto f = std::make_unique<Fiber>();
  f->body = std::move(body);
  Fiber* raw = f.get();
  f->self = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(impl_->stack_bytes),
                       [raw](ctx::fiber&& back) {
                         raw->back = std::move(back);
                         raw->body();
                         raw->done = true;
                         return std::move(raw->back);
                       });
  f->index = impl_->fibers.size();
  impl_->fibers.push_back(std::move(f));
  impl_->wake_at_ns.push_back(kNoDeadline);
}

void FiberScheduler::Run() {
  Impl& s = *impl_;
  s.ring.assign(s.fibers.size() + 1, nullptr);
  s.head = s.tail = 0;
  for (auto& f : s.fibers) s.Push(f.get());
  FiberScheduler::Impl* saved = tl_sched;
  tl_sched = &s;
  s.Loop();
  tl_sched = saved;
}

WaitResult WaitFd(int fd, bool for_write, std::int64_t deadline_ns) {
  if (FiberScheduler::Impl* s = Active()) {
    FdState& st = s->Fd(fd);
    if (!st.registered) {
      if (s->epfd < 0) s->epfd = epoll_create1(EPOLL_CLOEXEC);
      epoll_event ev{};
      ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
      ev.data.fd = fd;
      if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) return WaitResult::kError;
      st = FdState{};
      st.registered = true;
    }
    bool& ready = for_write ? st.writable : st.readable;
    if (ready) {
      ready = false;
      return WaitResult::kReady;
    }
    if (deadline_ns != kNoDeadline && deadline_ns <= SteadyClock::Now()) return WaitResult::kTimeout;
    Fiber* f = s->current;
    (for_write ? st.writer : st.reader) = f;
    f->wait_fd = fd;
    s->wake_at_ns[f->index] = deadline_ns;
    s->Park();
    return f->result;
  }
  pollfd p{fd, static_cast<short>(for_write ? POLLOUT : POLLIN), 0};
  for (;;) {
    int rc = ::poll(&p, 1, PollTimeoutMs(deadline_ns));
    if (rc > 0) return (p.revents & (POLLIN | POLLOUT)) ? WaitResult::kReady : WaitResult::kError;
    if (rc == 0) return WaitResult::kTimeout;
    if (errno != EINTR) return WaitResult::kError;
  }
}

bool ReadableNow(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & POLLIN) != 0;
}

void Forget(int fd) {
  FiberScheduler::Impl* s = tl_sched;
  if (s == nullptr || fd < 0 || static_cast<std::size_t>(fd) >= s->fds.size()) return;
  FdState& st = s->fds[static_cast<std::size_t>(fd)];
  if (!st.registered) return;
  epoll_ctl(s->epfd, EPOLL_CTL_DEL, fd, nullptr);
  if (st.reader != nullptr) s->Finish(st.reader, WaitResult::kError);
  if (st.writer != nullptr) s->Finish(st.writer, WaitResult::kError);
  st = FdState{};
}

void Close(int fd) {
  Forget(fd);
  ::close(fd);
}

void SleepUntil(std::int64_t t_ns) {
  if (FiberScheduler::Impl* s = Active()) {
    if (t_ns <= SteadyClock::Now()) return;
    Fiber* f = s->current;
    s->wake_at_ns[f->index] = t_ns;
    s->Park();
    return;
  }
  SteadyClock clock;
  clock.SleepUntilNs(t_ns);
}

Fiber* Current() {
  FiberScheduler::Impl* s = Active();
  return s != nullptr ? s->current : nullptr;
}

void Suspend() {
  if (FiberScheduler::Impl* s = Active()) s->Park();
}

void Wake(Fiber* f) {
  if (FiberScheduler::Impl* s = tl_sched; s != nullptr && f != nullptr) {
    s->wake_at_ns[f->index] = kNoDeadline;
    s->Push(f);
  }
}

void Yield() {
  if (FiberScheduler::Impl* s = Active()) {
    s->Push(s->current);
    s->Park();
  }
}

bool InFiber() { return Active() != nullptr; }

}  // namespace storebench::io
