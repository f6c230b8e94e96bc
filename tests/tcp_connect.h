// A blocking TCP connection for tests that look at a server's bytes
// directly (the memcached and Ignite node tests).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::test_util {

// Connects to "HOST:PORT" (an IPv4 address); reads time out after
// `receive_timeout_s`. The fd, or -1 when the connect failed (the fd is
// closed then). The caller closes it.
inline int ConnectTcp(const std::string& host_port, int receive_timeout_s) {
  const auto colon = host_port.rfind(':');
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(host_port.substr(colon + 1))));
  inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &a.sin_addr);
  timeval tv{receive_timeout_s, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Sends all of `request` on `fd`, then reads until the peer closes the
// connection (or a read fails or times out): what it answered. For servers
// that answer once and close (HTTP with `Connection: close`).
inline std::string SendAndReadAll(int fd, std::string_view request) {
  while (!request.empty()) {
    const ssize_t n = send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    if (n <= 0) break;
    request.remove_prefix(static_cast<std::size_t>(n));
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

}  // namespace storebench::test_util
