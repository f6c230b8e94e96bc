#include "net/io.h"

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
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
#include <boost/context/stack_context.hpp>

#include "net/fiber_scheduler.h"
#include "measure/clock.h"

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

namespace {

[[noreturn]] void StackOverflow(std::size_t stack_bytes) {
  std::fprintf(stderr, "storebench: internal error: a client fiber overran its %zu KiB stack\n", stack_bytes / 1024);
  std::abort();
}

constexpr std::uint64_t kStackCanary = 0x5b5b0fbe5cafe5a1ULL;
// Park aborts when a fiber's stack pointer comes this close to the bottom.
constexpr std::size_t kRedZoneBytes = 8 * 1024;

// Stacks carved out of 2 MiB chunks that the kernel may back with
// transparent huge pages (madvise). With hundreds of fibers nearly every
// switch lands on another fiber's stack; on 4 KiB pages each stack top is a
// TLB entry of its own, on a huge page 16 stacks of 128 KiB share one. There
// is no guard page between stacks (it would split the huge page): Park checks
// the stack pointer against the red zone, and a canary at the bottom of each
// stack is checked when its fiber returns. Stacks are freed with the arena.
class StackArena {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t{2} << 20;
  explicit StackArena(std::size_t stack_bytes) : stack_bytes_(stack_bytes) {}
  ~StackArena() {
    for (auto& [base, bytes] : chunks_) munmap(base, bytes);
  }
  StackArena(const StackArena&) = delete;
  StackArena& operator=(const StackArena&) = delete;

  // A stack of stack_bytes, with the canary at its bottom; *limit is set to
  // the lowest stack pointer its fiber may wait at (the red zone above it).
  ctx::stack_context Allocate(const char** limit) {
    if (left_ < stack_bytes_) NewChunk();
    ctx::stack_context sc;
    char* bottom = next_;
    next_ += stack_bytes_;
    left_ -= stack_bytes_;
    std::memcpy(bottom, &kStackCanary, sizeof kStackCanary);
    sc.size = stack_bytes_;
    sc.sp = bottom + stack_bytes_;
    *limit = bottom + kRedZoneBytes;
    return sc;
  }

 private:
  void NewChunk() {
    const std::size_t bytes = std::max(kChunkBytes, (stack_bytes_ + kChunkBytes - 1) / kChunkBytes * kChunkBytes);
    // Twice the size, then trimmed to a 2 MiB-aligned range the kernel can map with huge pages.
    void* p = mmap(nullptr, bytes + kChunkBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    char* raw = static_cast<char*>(p);
    char* base = reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(raw) + kChunkBytes - 1) &
                                         ~std::uintptr_t{kChunkBytes - 1});
    if (base > raw) munmap(raw, static_cast<std::size_t>(base - raw));
    const std::size_t tail = static_cast<std::size_t>(raw + bytes + kChunkBytes - (base + bytes));
    if (tail > 0) munmap(base + bytes, tail);
    madvise(base, bytes, MADV_HUGEPAGE);  // a hint: without THP these are ordinary pages
    chunks_.emplace_back(base, bytes);
    next_ = base;
    left_ = bytes;
  }

  std::size_t stack_bytes_;
  std::vector<std::pair<char*, std::size_t>> chunks_;
  char* next_ = nullptr;
  std::size_t left_ = 0;
};

// Boost.Context's StackAllocator over a StackArena (copied into each fiber;
// the arena owns the memory, so deallocate has nothing to do). allocate sets
// the fiber's stack limit along with its stack.
struct ArenaStack {
  StackArena* arena;
  const char** limit;
  ctx::stack_context allocate() { return arena->Allocate(limit); }
  void deallocate(ctx::stack_context&) noexcept {}
};

}  // namespace

struct Fiber {
  ctx::fiber self;  // the fiber's context while it is parked
  ctx::fiber back;  // the scheduler's context while the fiber runs
  std::function<void()> body;
  bool done = false;
  bool queued = false;
  // What a parked fiber waits for: an fd, a deadline, or a Wake.
  int wait_fd = -1;
  std::size_t index = 0;  // in Impl::fibers and Impl::wake_at_ns
  const char* stack_limit = nullptr;  // Park aborts when the stack pointer is below this
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
  std::unique_ptr<StackArena> stacks;  // declared before fibers: outlives them (none in the sanitizer build)
  std::vector<std::unique_ptr<Fiber>> fibers;
  // When each parked fiber times out (kNoDeadline: it does not, or it is
  // runnable or done). Kept apart from the Fiber objects so that finding the
  // earliest deadline before every epoll_wait scans one contiguous array
  // instead of touching every fiber (hundreds, each on its own cache line).
  std::vector<std::int64_t> wake_at_ns;
  // Run queues (rings of capacity fibers.size() + 1; a fiber is in at most
  // one). `woken`: fibers made runnable by another fiber of this thread
  // (Wake, YieldToWoken); `ready`: fibers whose I/O or deadline came, new
  // ones and Yield. `woken` runs first, so that a pipeline leader's replies
  // turn into the next requests on that connection (and are flushed) before
  // the thread turns to the other connections that became readable: the
  // server gets new work as soon as possible, as an event-driven client's
  // per-connection callback would give it.
  struct RunQueue {
    std::vector<Fiber*> ring;
    std::size_t head = 0, tail = 0;
    bool empty() const { return head == tail; }
    void Reset(std::size_t capacity) {
      ring.assign(capacity, nullptr);
      head = tail = 0;
    }
    void Push(Fiber* f) {
      ring[tail] = f;
      tail = (tail + 1) % ring.size();
    }
    Fiber* Pop() {
      Fiber* f = ring[head];
      head = (head + 1) % ring.size();
      return f;
    }
  };
  RunQueue ready, woken;
  std::vector<FdState> fds;
  int epfd = -1;
  Fiber* current = nullptr;

  void Push(Fiber* f, RunQueue& q) {
    if (f->queued || f->done) return;
    f->queued = true;
    q.Push(f);
  }
  void Push(Fiber* f) { Push(f, ready); }
  Fiber* Pop() {
    RunQueue& q = !woken.empty() ? woken : ready;
    if (q.empty()) return nullptr;
    Fiber* f = q.Pop();
    f->queued = false;
    return f;
  }
  // Switches from the running fiber back to the scheduler loop.
  void Park() {
    Fiber* f = current;
    if (static_cast<const char*>(__builtin_frame_address(0)) < f->stack_limit) StackOverflow(stack_bytes);
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
#if !defined(__SANITIZE_ADDRESS__)
  impl_->stacks = std::make_unique<StackArena>(stack_bytes);
#endif
}

FiberScheduler::~FiberScheduler() {
  if (impl_->epfd >= 0) ::close(impl_->epfd);
}

void FiberScheduler::Spawn(std::function<void()> body) {
  auto f = std::make_unique<Fiber>();
  f->body = std::move(body);
  Fiber* raw = f.get();
  const std::size_t stack_bytes = impl_->stack_bytes;
  auto run = [raw, stack_bytes](ctx::fiber&& back) {
    raw->back = std::move(back);
    raw->body();
    if (raw->stack_limit != nullptr) {
      std::uint64_t canary = 0;
      std::memcpy(&canary, raw->stack_limit - kRedZoneBytes, sizeof canary);
      if (canary != kStackCanary) StackOverflow(stack_bytes);
    }
    raw->done = true;
    return std::move(raw->back);
  };
#if defined(__SANITIZE_ADDRESS__)
  // The sanitizer build keeps guard-paged stacks: an overrun faults at once.
  f->self = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(stack_bytes), std::move(run));
#else
  f->self = ctx::fiber(std::allocator_arg, ArenaStack{impl_->stacks.get(), &f->stack_limit}, std::move(run));
#endif
  f->index = impl_->fibers.size();
  impl_->fibers.push_back(std::move(f));
  impl_->wake_at_ns.push_back(kNoDeadline);
}

void FiberScheduler::Run() {
  Impl& s = *impl_;
  s.ready.Reset(s.fibers.size() + 1);
  s.woken.Reset(s.fibers.size() + 1);
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
    s->Push(f, s->woken);
  }
}

void YieldToWoken() {
  if (FiberScheduler::Impl* s = Active()) {
    s->Push(s->current, s->woken.empty() ? s->ready : s->woken);
    s->Park();
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
