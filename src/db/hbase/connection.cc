#include "db/hbase/connection.h"

#include <algorithm>
#include <utility>

#include "measure/clock.h"

namespace storebench::hbase {
namespace {

std::int64_t NowNs() { return SteadyClock::Now(); }

}  // namespace

Connection::Connection(net::Endpoint ep, std::string service, std::string user, int sharers)
    : conn_(std::move(ep)), service_(std::move(service)), user_(std::move(user)), sharers_(sharers) {}

bool Connection::Open(std::int64_t deadline, std::string* error) {
  if (!conn_.Connect(deadline, error)) return false;
  if (!Hello(deadline).ok()) {
    *error = conn_.endpoint().ToString() + ": could not send the RPC preamble";
    conn_.Disconnect();
    return false;
  }
  return true;
}

Status Connection::Hello(std::int64_t deadline) {
  std::string& out = conn_.out();
  out.clear();
  AppendPreamble(&out);
  AppendConnectionHeader(&out, user_, service_);
  return conn_.Flush(deadline);
}

Status Connection::Connected(std::int64_t deadline) {
  while (!conn_.connected()) {
    if (connecting_) {
      io::SleepUntil(std::min(deadline, NowNs() + 1'000'000));
      if (NowNs() >= deadline) return Status(Status::kServiceUnavailable);
      continue;
    }
    if (reading_ || head_ != nullptr) {
      io::Yield();
      if (!io::InFiber()) return Status(Status::kServiceUnavailable);
      continue;
    }
    connecting_ = true;
    bool reconnected = false;
    Status st = conn_.Ensure(deadline, &reconnected);
    if (st.ok() && reconnected) {
      st = Hello(deadline);
      if (!st.ok()) conn_.Disconnect();
    }
    connecting_ = false;
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

Status Connection::Call(std::string_view method, const google::protobuf::MessageLite& param, std::int64_t deadline,
                        std::string* frame, Response* resp) {
  if (Status st = Connected(deadline); !st.ok()) return st;
  Entry e;
  e.fiber = io::Current();
  e.call_id = next_id_++;
  if (next_id_ > 0x7FFFFFFF) next_id_ = 1;  // HBase's call ids are ints
  e.frame = frame;
  if (!encoder_.Append(&conn_.out(), e.call_id, method, param)) return Status(Status::kBadRequest);
  e.next = head_;
  head_ = &e;
  if (!reading_) {
    reading_ = true;
    if (sharers_ > 1) io::YieldToWoken();  // let the others queue theirs first
    Lead(&e, deadline);
  } else if (!writing_ && !conn_.out().empty()) {
    // The leader may be waiting for answers already: HBase answers each call
    // on its own, so send this one now rather than when the leader wakes.
    // (A failed write breaks the socket, which the leader's read then sees.)
    writing_ = true;
    (void)conn_.Flush(deadline);
    writing_ = false;
  }
  while (!e.done) {
    io::Suspend();
    if (!e.done && !reading_) {
      reading_ = true;
      Lead(&e, deadline);
    }
  }
  if (!e.status.ok()) return e.status;
  if (!ParseResponse(*frame, resp)) return Status::Error();
  return Status::Ok();
}

void Connection::Complete(Entry* e, Status st, Entry* self) {
  e->status = st;
  e->done = true;
  if (e != self) io::Wake(e->fiber);
}

void Connection::FailAll(Status st, Entry* self) {
  conn_.Disconnect();
  while (head_ != nullptr) {
    Entry* e = head_;
    head_ = e->next;
    Complete(e, st, self);
  }
}

bool Connection::Dispatch(std::string_view frame, Entry* self) {
  std::uint32_t id = 0;
  if (!PeekCallId(frame, &id)) return false;
  for (Entry** p = &head_; *p != nullptr; p = &(*p)->next) {
    Entry* e = *p;
    if (e->call_id == id) {
      *p = e->next;
      e->frame->assign(frame.data(), frame.size());
      Complete(e, Status::Ok(), self);
      return true;
    }
  }
  return true;  // nobody waits for it any more
}

void Connection::Lead(Entry* self, std::int64_t deadline) {
  while (!self->done) {
    if (!conn_.out().empty() && !writing_) {
      if (Status st = conn_.Flush(deadline); !st.ok()) {
        FailAll(st, self);
        break;
      }
    }
    while (head_ != nullptr) {
      const std::int64_t n = FrameLength(conn_.in());
      if (n == 0) break;
      if (n < 0 || !Dispatch(conn_.in().substr(0, static_cast<std::size_t>(n)), self)) {
        FailAll(Status::Error(), self);
        break;
      }
      conn_.Consume(static_cast<std::size_t>(n));
    }
    if (self->done) break;
    if (Status st = conn_.Fill(deadline); !st.ok()) FailAll(st, self);
  }
  reading_ = false;
  if (head_ != nullptr) io::Wake(head_->fiber);  // the next one leads
}

}  // namespace storebench::hbase
