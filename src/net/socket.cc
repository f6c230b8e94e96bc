#include "net/socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "core/error.h"
#include "net/io.h"
#include "measure/clock.h"

namespace storebench::net {
namespace {

constexpr std::int64_t kFirstBackoffNs = 10'000'000;
constexpr std::int64_t kMaxBackoffNs = 1'000'000'000;

}  // namespace

Endpoint ParseEndpoint(std::string_view text, int default_port, const std::string& property) {
  Endpoint ep;
  const auto colon = text.rfind(':');
  ep.host = std::string(colon == std::string_view::npos ? text : text.substr(0, colon));
  ep.port = default_port;
  if (colon != std::string_view::npos) {
    const std::string_view p = text.substr(colon + 1);
    int port = 0;
    auto [ptr, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || ptr != p.data() + p.size() || port <= 0 || port > 65535) {
      throw ConfigError(property + ": bad port in '" + std::string(text) + "' (expected host:port)");
    }
    ep.port = port;
  }
  if (ep.host.empty()) throw ConfigError(property + ": missing host in '" + std::string(text) + "'");
  return ep;
}

std::vector<Endpoint> ParseEndpointList(std::string_view text, int default_port, const std::string& property) {
  std::vector<Endpoint> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(pos, comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.push_back(ParseEndpoint(item, default_port, property));
    pos = comma + 1;
  }
  if (out.empty()) throw ConfigError(property + ": no host:port given");
  return out;
}

std::int64_t DeadlineAfterMs(std::int64_t timeout_ms) {
  return timeout_ms > 0 ? SteadyClock::Now() + timeout_ms * 1'000'000 : io::kNoDeadline;
}

bool TcpConnection::ConnectOnce(std::int64_t deadline_ns, std::string* error) {
  Disconnect();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(endpoint_.port);
  if (int rc = getaddrinfo(endpoint_.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    *error = endpoint_.ToString() + ": " + gai_strerror(rc);
    return false;
  }
  std::string last = "no address";
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int rc = ::connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      const io::WaitResult w = io::WaitFd(fd, true, deadline_ns);
      if (w == io::WaitResult::kTimeout) {
        last = "connect timed out";
        io::Close(fd);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      rc = err == 0 ? 0 : -1;
      errno = err;
    }
    if (rc != 0) {
      last = std::strerror(errno);
      io::Close(fd);
      continue;
    }
    freeaddrinfo(res);
    fd_ = fd;
    return true;
  }
  freeaddrinfo(res);
  *error = endpoint_.ToString() + ": " + last;
  return false;
}

bool TcpConnection::Connect(std::int64_t deadline_ns, std::string* error) {
  if (ConnectOnce(deadline_ns, error)) {
    ever_connected_ = true;
    backoff_ns_ = 0;
    next_attempt_ns_ = 0;
    return true;
  }
  return false;
}

Status TcpConnection::Ensure(std::int64_t deadline_ns, bool* reconnected) {
  *reconnected = false;
  if (fd_ >= 0) return Status::Ok();
  const std::int64_t now = SteadyClock::Now();
  if (next_attempt_ns_ > now) {
    if (next_attempt_ns_ > deadline_ns) {
      if (deadline_ns != io::kNoDeadline) io::SleepUntil(deadline_ns);
      return Status(Status::kServiceUnavailable);
    }
    io::SleepUntil(next_attempt_ns_);
  }
  std::string error;
  if (ConnectOnce(deadline_ns, &error)) {
    backoff_ns_ = 0;
    next_attempt_ns_ = 0;
    *reconnected = true;
    return Status::Ok();
  }
  reconnects_++;
  backoff_ns_ = backoff_ns_ == 0 ? kFirstBackoffNs : std::min(kMaxBackoffNs, backoff_ns_ * 2);
  next_attempt_ns_ = SteadyClock::Now() + backoff_ns_;
  return Status(Status::kServiceUnavailable);
}

void TcpConnection::Disconnect() {
  if (fd_ >= 0) io::Close(fd_);
  fd_ = -1;
  drained_ = false;
  out_.clear();
  in_begin_ = in_end_ = 0;
}

Status TcpConnection::Flush(std::int64_t deadline_ns) {
  std::size_t off = 0;
  while (off < out_.size()) {
    if (fd_ < 0) return Status(Status::kServiceUnavailable);
    ssize_t n = ::send(fd_, out_.data() + off, out_.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (io::WaitFd(fd_, true, deadline_ns) == io::WaitResult::kTimeout) {
        Disconnect();  // a half-written request would desynchronise the stream
        return Status::Error();
      }
      continue;
    }
    Disconnect();
    return Status::Error();
  }
  out_.clear();
  return Status::Ok();
}

Status TcpConnection::Fill(std::int64_t deadline_ns) {
  if (in_begin_ == in_end_) {
    in_begin_ = in_end_ = 0;
  } else if (in_begin_ > 0 && in_end_ == in_.size()) {
    std::memmove(in_.data(), in_.data() + in_begin_, in_end_ - in_begin_);
    in_end_ -= in_begin_;
    in_begin_ = 0;
  }
  if (in_.size() - in_end_ < 4096) in_.resize(std::max<std::size_t>(65536, in_.size() * 2));
  // The last read emptied the socket, so a reply cannot be there yet unless
  // the socket says so: wait first, rather than spend a recv on EAGAIN.
  bool wait = drained_;
  for (;;) {
    if (fd_ < 0) return Status(Status::kServiceUnavailable);
    if (wait && io::WaitFd(fd_, false, deadline_ns) == io::WaitResult::kTimeout) {
      Disconnect();  // the late reply would be taken for the next request's
      return Status::Error();
    }
    const std::size_t room = in_.size() - in_end_;
    ssize_t n = ::recv(fd_, in_.data() + in_end_, room, 0);
    if (n > 0) {
      in_end_ += static_cast<std::size_t>(n);
      drained_ = static_cast<std::size_t>(n) < room;  // a stream socket returns less only when emptied
      return Status::Ok();
    }
    wait = true;
    if (n < 0 && errno == EINTR) {
      wait = false;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    Disconnect();  // 0 = closed by the server, <0 = reset
    return Status::Error();
  }
}

void TcpConnection::Consume(std::size_t n) {
  in_begin_ = std::min(in_end_, in_begin_ + n);
  if (in_begin_ == in_end_) in_begin_ = in_end_ = 0;
}

}  // namespace storebench::net

#include "net/pipeline.h"

namespace storebench::net {
std::int64_t Pipeline::SteadyClockNow() { return SteadyClock::Now(); }
}  // namespace storebench::net
