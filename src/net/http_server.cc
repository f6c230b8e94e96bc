#include "net/http_server.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <vector>

#include "core/error.h"

namespace storebench::net {
namespace {

using Clock = std::chrono::steady_clock;

// After the response, the connection is shut for writing and read (and
// discarded) until the client closes it or this long has passed, so that
// closing with unread request bytes does not reset the connection before
// the client has read the response.
constexpr auto kLingerTime = std::chrono::milliseconds(500);

struct Connection {
  int fd = -1;
  enum class State { kReading, kWriting, kLingering } state = State::kReading;
  std::string in;
  std::string out;
  std::size_t sent = 0;
  Clock::time_point deadline;
};

std::string StatusLine(int status) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(HttpReason(status)) + "\r\n";
}

// The bytes of a response; the body only when `with_body` (HEAD has none,
// but the same Content-Length).
std::string Render(const HttpResponse& r, bool with_body, std::string_view extra_headers = {}) {
  std::string out = StatusLine(r.status);
  out += "Content-Type: " + r.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  out += extra_headers;
  out += "Connection: close\r\n\r\n";
  if (with_body) out += r.body;
  return out;
}

std::string ErrorResponse(int status, std::string_view extra_headers = {}) {
  HttpResponse r;
  r.status = status;
  r.body = std::string(HttpReason(status)) + "\n";
  return Render(r, true, extra_headers);
}

bool IsTokenChar(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '_'; }

// The response to a complete request head (`head`: up to the blank line).
std::string Respond(std::string_view head, const HttpServer::Handler& handler) {
  const std::size_t eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) return ErrorResponse(400);
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (method.empty()) return ErrorResponse(400);
  for (char c : method) {
    if (!IsTokenChar(c)) return ErrorResponse(400);
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return ErrorResponse(400);
  if (target.empty() || target.front() != '/') return ErrorResponse(400);
  for (char c : target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return ErrorResponse(400);
  }
  const bool head_only = method == "HEAD";
  if (method != "GET" && !head_only) return ErrorResponse(405, "Allow: GET, HEAD\r\n");
  HttpResponse r;
  try {
    r = handler(target.substr(0, target.find('?')));
  } catch (...) {
    return ErrorResponse(500);
  }
  return Render(r, !head_only);
}

}  // namespace

std::string_view HttpReason(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

HttpServer::HttpServer(const Endpoint& endpoint, const std::string& purpose, Handler handler)
    : handler_(std::move(handler)) {
  const std::string host = endpoint.host.find(':') == std::string::npos ? endpoint.host : "[" + endpoint.host + "]";
  const std::string where = host + ":" + std::to_string(endpoint.port) + (purpose.empty() ? "" : " for " + purpose);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(endpoint.port);
  if (int rc = getaddrinfo(endpoint.host.empty() ? nullptr : endpoint.host.c_str(), port.c_str(), &hints, &res);
      rc != 0) {
    throw ConfigError("cannot listen on " + where + ": " + gai_strerror(rc));
  }
  std::string reason = "no address";
  for (addrinfo* a = res; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      reason = std::strerror(errno);
      continue;
    }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 64) != 0) {
      reason = std::strerror(errno);
      close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  freeaddrinfo(res);
  if (listen_fd_ < 0) throw ConfigError("cannot listen on " + where + ": " + reason);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  thread_ = std::thread([this] { Serve(); });
}

HttpServer::~HttpServer() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) close(listen_fd_);
}

void HttpServer::Serve() {
  std::vector<Connection> conns;
  std::vector<pollfd> fds;
  while (!stop_.load(std::memory_order_relaxed)) {
    try {
      fds.clear();
      fds.push_back({listen_fd_, static_cast<short>(conns.size() < kMaxConnections ? POLLIN : 0), 0});
      for (const Connection& c : conns) {
        fds.push_back({c.fd, static_cast<short>(c.state == Connection::State::kWriting ? POLLOUT : POLLIN), 0});
      }
      if (poll(fds.data(), fds.size(), kPollMs) < 0 && errno != EINTR) {
        std::this_thread::sleep_for(std::chrono::milliseconds(kPollMs));
        continue;
      }
      const Clock::time_point now = Clock::now();
      // Existing connections first (their indices match fds[1..]).
      for (std::size_t i = 0; i < conns.size(); ++i) {
        Connection& c = conns[i];
        const short ev = fds[i + 1].revents;
        bool done = false;
        if (c.state == Connection::State::kReading && (ev & (POLLIN | POLLHUP | POLLERR))) {
          char buf[4096];
          const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
          if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            done = true;  // the client left before its request was whole
          } else if (n > 0) {
            c.in.append(buf, static_cast<std::size_t>(n));
            const std::size_t end = c.in.find("\r\n\r\n");
            if (end != std::string::npos && end + 4 <= kMaxRequestBytes) {
              c.out = Respond(std::string_view(c.in).substr(0, end + 2), handler_);
              c.state = Connection::State::kWriting;
            } else if (c.in.size() > kMaxRequestBytes) {
              c.out = ErrorResponse(431);
              c.state = Connection::State::kWriting;
            }
            if (c.state == Connection::State::kWriting) {
              c.in.clear();
              c.deadline = now + std::chrono::milliseconds(kRequestTimeoutMs);
            }
          }
        } else if (c.state == Connection::State::kWriting && (ev & (POLLOUT | POLLHUP | POLLERR))) {
          const ssize_t n = send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
          if (n < 0 && errno != EAGAIN && errno != EINTR) {
            done = true;
          } else if (n > 0 && (c.sent += static_cast<std::size_t>(n)) == c.out.size()) {
            shutdown(c.fd, SHUT_WR);
            c.state = Connection::State::kLingering;
            c.deadline = now + kLingerTime;
          }
        } else if (c.state == Connection::State::kLingering && (ev & (POLLIN | POLLHUP | POLLERR))) {
          char buf[4096];
          const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
          done = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
        }
        if (!done && now >= c.deadline) {
          if (c.state == Connection::State::kReading) {
            // Too slow: say so (best effort, no waiting) and close.
            const std::string r = ErrorResponse(408);
            (void)!send(c.fd, r.data(), r.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
          }
          done = true;
        }
        if (done) {
          close(c.fd);
          c.fd = -1;
        }
      }
      std::erase_if(conns, [](const Connection& c) { return c.fd < 0; });
      if (fds[0].revents & POLLIN) {
        while (conns.size() < kMaxConnections) {
          const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (fd < 0) break;
          Connection c;
          c.fd = fd;
          c.deadline = now + std::chrono::milliseconds(kRequestTimeoutMs);
          conns.push_back(std::move(c));
        }
      }
    } catch (...) {
      // Out of memory or the like: drop every connection and carry on.
      for (Connection& c : conns) {
        if (c.fd >= 0) close(c.fd);
      }
      conns.clear();
    }
  }
  for (Connection& c : conns) close(c.fd);
}

}  // namespace storebench::net
