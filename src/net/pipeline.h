// Pipeline: several clients of one thread share one TcpConnection, their
// requests go out in one write and the replies come back in order.
//
// Each client (a fiber, see net/io.h) calls Call() with a function that
// appends its request to the connection's output and one that parses its
// reply from the front of the input. The first caller to find nobody
// reading becomes the leader: it yields once so the thread's other clients
// queue their requests too, flushes them all with one write, then reads and
// hands each reply to its client in order (waking it), until its own reply is
// in; then the next waiting client leads. (Or by tag: set_tagged.) A broken connection fails every
// queued request (ERROR) and the next Call reconnects with backoff
// (TcpConnection::Ensure), replaying the binding's handshake (AUTH, SELECT)
// through `on_connect` before any request is written. With one client and
// no fibers this is a plain write-then-read.
//
// Not thread-safe: the clients sharing one Pipeline run on one thread.
// Call does not allocate (queued requests are linked through the callers'
// stack frames).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/status.h"
#include "net/io.h"
#include "net/socket.h"

namespace storebench::net {

class Pipeline {
 public:
  // Returned by a reply parser when the input cannot be a reply: the stream
  // is out of step, so the connection is dropped.
  static constexpr std::size_t kBroken = std::numeric_limits<std::size_t>::max();

  // `on_connect` runs after every (re)connect, before any queued request is
  // written; it may use the connection directly (Flush/Fill/in/Consume) and
  // returns non-OK to drop the connection.
  explicit Pipeline(TcpConnection* conn, std::function<Status(TcpConnection&)> on_connect = {})
      : conn_(conn), on_connect_(std::move(on_connect)) {}

  // How many clients share this pipeline (1 = no reason to yield for others).
  void set_sharers(int n) { sharers_ = n; }

  // Replies matched by tag rather than by order, for a server that may
  // answer one connection's requests out of order (Ignite's thin-client
  // connector runs them on a thread pool, HBase's handlers run calls in
  // parallel): `frame(in, &tag)` returns the length of the complete reply at
  // the front of `in` and sets its tag (0: not complete yet, kBroken:
  // malformed); the reply goes to the queued Call with that tag, whose
  // parser must consume exactly it. A reply whose tag nobody waits for
  // breaks the connection (a call only gives up by failing them all). In tagged
  // mode a request queued while the leader waits for replies is written by
  // its own caller at once: such a server answers each request on its own,
  // so it must not wait for the leader's next wake-up.
  using FrameFn = std::size_t (*)(std::string_view in, std::int64_t* tag);
  void set_tagged(FrameFn frame) { frame_ = frame; }
  TcpConnection& connection() { return *conn_; }

  // Sends one request and waits for its reply. `write(out)` appends the
  // request; `parse(in)` returns the bytes of its reply consumed from the
  // front of `in` (it may span several protocol replies), 0 when the reply
  // is not complete yet, or kBroken. Returns OK when the reply was parsed
  // (the parser records what it meant), else ERROR / SERVICE_UNAVAILABLE.
  // `tag`: this request's tag, when set_tagged.
  template <typename Write, typename Parse>
  Status Call(Write&& write, Parse&& parse, std::int64_t deadline_ns, std::int64_t tag = 0) {
    if (Status st = Connected(deadline_ns); !st.ok()) return st;
    write(conn_->out());
    Entry e;
    e.tag = tag;
    e.fiber = io::Current();
    e.parse = [](void* p, std::string_view in) { return (*static_cast<std::remove_reference_t<Parse>*>(p))(in); };
    e.parse_ctx = &parse;
    Enqueue(&e);
    if (!reading_) {
      reading_ = true;
      if (sharers_ > 1) io::YieldToWoken();  // let the others queue theirs first
      Lead(&e, deadline_ns);
    } else if (frame_ != nullptr && !writing_ && !conn_->out().empty()) {
      // (A failed write breaks the socket, which the leader's read then sees.)
      writing_ = true;
      (void)conn_->Flush(deadline_ns);
      writing_ = false;
    }
    while (!e.done) {
      io::Suspend();
      if (!e.done && !reading_) {
        reading_ = true;
        Lead(&e, deadline_ns);
      }
    }
    return e.status;
  }

 private:
  struct Entry {
    io::Fiber* fiber = nullptr;
    std::size_t (*parse)(void*, std::string_view) = nullptr;
    void* parse_ctx = nullptr;
    Entry* next = nullptr;
    std::int64_t tag = 0;
    bool done = false;
    Status status;
  };

  void Enqueue(Entry* e) {
    if (tail_ == nullptr) {
      head_ = tail_ = e;
    } else {
      tail_->next = e;
      tail_ = e;
    }
  }
  Entry* Dequeue() { return Unlink(nullptr, head_); }
  // Takes `e` (whose predecessor is `prev`, nullptr for the head) out of the queue.
  Entry* Unlink(Entry* prev, Entry* e) {
    (prev == nullptr ? head_ : prev->next) = e->next;
    if (tail_ == e) tail_ = prev;
    return e;
  }
  // The bytes of the next reply at the front of the input, and (out) whose
  // it is with its predecessor; 0 when incomplete, kBroken when it fits nobody.
  std::size_t NextReply(Entry** who, Entry** prev) {
    *prev = nullptr;
    *who = head_;
    if (frame_ == nullptr) return head_->parse(head_->parse_ctx, conn_->in());
    std::int64_t tag = 0;
    const std::size_t n = frame_(conn_->in(), &tag);
    if (n == 0 || n == kBroken) return n;
    while (*who != nullptr && (*who)->tag != tag) {
      *prev = *who;
      *who = (*who)->next;
    }
    if (*who == nullptr) return kBroken;
    return (*who)->parse((*who)->parse_ctx, conn_->in().substr(0, n)) == n ? n : kBroken;
  }
  void Complete(Entry* e, Status st, Entry* self) {
    e->status = st;
    e->done = true;
    if (e != self) io::Wake(e->fiber);
  }
  void FailAll(Status st, Entry* self) {
    conn_->Disconnect();
    while (head_ != nullptr) Complete(Dequeue(), st, self);
  }

  // Reads for everyone queued until `self` has its reply (or the connection fails).
  void Lead(Entry* self, std::int64_t deadline_ns) {
    while (!self->done) {
      if (!conn_->out().empty() && !writing_) {
        if (Status st = conn_->Flush(deadline_ns); !st.ok()) {
          FailAll(st, self);
          break;
        }
      }
      bool progressed = true;
      while (head_ != nullptr && progressed) {
        Entry* who = nullptr;
        Entry* prev = nullptr;
        const std::size_t n = NextReply(&who, &prev);
        if (n == kBroken) {
          FailAll(Status::Error(), self);
          break;
        }
        progressed = n > 0;
        if (progressed) {
          conn_->Consume(n);
          Complete(Unlink(prev, who), Status::Ok(), self);
        }
      }
      if (self->done) break;
      if (Status st = conn_->Fill(deadline_ns); !st.ok()) FailAll(st, self);
    }
    reading_ = false;
    if (head_ != nullptr) io::Wake(head_->fiber);  // the next one leads
  }

  // Connected, or reconnected (one client connects; the others wait for it,
  // until its on_connect handshake is done too: a request written while the
  // handshake's answer is still on its way would take that answer).
  Status Connected(std::int64_t deadline_ns) {
    while (connecting_ || !conn_->connected()) {
      if (connecting_) {
        // Somebody else is connecting: wait a little and look again.
        io::SleepUntil(std::min(deadline_ns, SteadyClockNow() + 1'000'000));
        if (deadline_ns != io::kNoDeadline && SteadyClockNow() >= deadline_ns) {
          return Status(Status::kServiceUnavailable);
        }
        continue;
      }
      if (reading_ || head_ != nullptr) {
        // Replies of the old connection are still being failed; let them finish.
        io::Yield();
        if (!io::InFiber()) return Status(Status::kServiceUnavailable);
        continue;
      }
      connecting_ = true;
      bool reconnected = false;
      Status st = conn_->Ensure(deadline_ns, &reconnected);
      if (st.ok() && reconnected && on_connect_) {
        st = on_connect_(*conn_);
        if (!st.ok()) conn_->Disconnect();
      }
      connecting_ = false;
      if (!st.ok()) return st;
    }
    return Status::Ok();
  }
  static std::int64_t SteadyClockNow();

  TcpConnection* conn_;
  std::function<Status(TcpConnection&)> on_connect_;
  Entry* head_ = nullptr;
  Entry* tail_ = nullptr;
  bool reading_ = false;
  bool writing_ = false;  // a caller other than the leader is flushing its request
  bool connecting_ = false;
  int sharers_ = 1;
  FrameFn frame_ = nullptr;
};

}  // namespace storebench::net
