// Waiting for I/O: the one way a network binding blocks.
//
// A binding's session waits for its socket only through WaitFd (and sleeps
// only through SleepUntil). Where the runner hosts several clients on one
// thread (`connections` > 1 or a binding's pipeline > 1), each client is a
// fiber, and these calls suspend only the calling client while the thread
// runs its other clients and polls all their sockets with one epoll_wait.
// Anywhere else (one client per thread, tests, setup code) they are plain
// poll(2) and clock_nanosleep. So a binding written against this header is
// synchronous code that the runner can drive asynchronously, and the runner
// never needs to know which binding it drives.
//
// Pipelining (several clients' requests on one connection, in one write) is
// built from Current/Suspend/Wake/Yield: a client queues its request, Yields
// so the thread's other clients queue theirs, then one of them writes and
// reads for all and Wakes each client whose reply came in.
//
// Times are nanoseconds on SteadyClock::Now()'s time line. Every function is
// for the calling thread only; none allocates after a thread's first use of
// a file descriptor.
#pragma once

#include <cstdint>
#include <limits>

namespace storebench::io {

inline constexpr std::int64_t kNoDeadline = std::numeric_limits<std::int64_t>::max();

enum class WaitResult { kReady, kTimeout, kError };

// Waits until `fd` is readable (or writable when `for_write`), the deadline
// passes, or the fd reports an error/hang-up (kError; the caller's next
// read/write tells which). May return kReady spuriously: callers retry the
// non-blocking call and wait again on EAGAIN.
WaitResult WaitFd(int fd, bool for_write, std::int64_t deadline_ns);

// True when `fd` has bytes to read right now (poll(2) with no wait). For
// callers whose client library may stop reading before the socket reports
// EAGAIN (libpq's PQconsumeInput): WaitFd waits for the next edge, and bytes
// already waiting make none.
bool ReadableNow(int fd);

// Closes `fd` after the calling thread's scheduler forgets it. Bindings must
// close waited-on descriptors through this, never close(2) directly, so a new
// socket that reuses the number is watched afresh.
void Close(int fd);
// Makes the calling thread's scheduler forget `fd` without closing it, for
// descriptors a client library closes itself (libpq's PQfinish,
// mysql_close): call it just before handing the fd back to the library.
void Forget(int fd);

// Sleeps until t_ns (suspends only the calling client inside a fiber).
void SleepUntil(std::int64_t t_ns);

// A client that can be suspended and woken. Null outside a fiber.
struct Fiber;
Fiber* Current();
// Suspends the calling fiber until another client of the same thread Wakes
// it. Outside a fiber it returns at once (there is nobody else to wait for).
void Suspend();
// Makes a suspended fiber runnable again (after the caller yields). Fibers
// woken this way run before those whose I/O or deadline came (in the order
// woken), so that what one client hands to others is acted on first.
void Wake(Fiber* f);
// Lets the thread's other runnable clients run before the caller continues;
// returns at once outside a fiber.
void Yield();
// Lets the clients Woken and not yet run go first, then continues, still
// ahead of those whose I/O came; with none woken, it is Yield. A pipeline's
// new leader uses it so that the siblings it just handed replies to queue
// their next requests behind its own, and one write carries them all.
void YieldToWoken();
// True when the caller runs as one of several clients on its thread.
bool InFiber();

}  // namespace storebench::io
