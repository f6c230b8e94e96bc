// HttpServer: a tiny HTTP/1.1 server for small text resources, made for the
// Prometheus endpoint of `--metrics-listen` (a scraper GETs /metrics once a
// second). It is not a general web server: one request per connection
// (every response says `Connection: close`), GET and HEAD only, no request
// bodies, no keep-alive, no TLS.
//
// Promises:
// - The constructor binds and listens (SO_REUSEADDR) before it returns, so
//   port() is valid at once and a client may connect right away; when it
//   cannot, it throws ConfigError with one line naming the address and the
//   reason: "cannot listen on 127.0.0.1:9100 for --metrics-listen: Address
//   already in use".
// - Requests are served on the server's own thread, which is the only
//   thread that calls the handler, one request at a time. The handler must
//   therefore be safe to call from that thread (e.g. take a snapshot under
//   its own lock); it should be quick, as it holds up other requests. An
//   exception from it becomes a 500 response.
// - A slow or hostile client cannot stall the server or grow it: several
//   connections are served at once (up to kMaxConnections, more wait in the
//   listen backlog), each request must arrive within kRequestTimeoutMs and
//   fit in kMaxRequestBytes (else 408 or 431), garbage gets 400, a method
//   other than GET/HEAD gets 405.
// - Nothing is thrown from the serving thread; an error there closes the
//   connection it concerns.
// - The destructor stops the thread within about kPollMs and closes every
//   socket. port() may be called from any thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "net/socket.h"

namespace storebench::net {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  using Response = HttpResponse;
  // Called with the request's path, the query string ("?...") removed:
  // "/metrics". A path the handler does not serve should get a 404.
  using Handler = std::function<Response(std::string_view path)>;

  static constexpr int kPollMs = 50;
  static constexpr int kRequestTimeoutMs = 2000;
  static constexpr std::size_t kMaxRequestBytes = 8 * 1024;
  static constexpr std::size_t kMaxConnections = 16;

  // Listens on `endpoint` (port 0: a free port the system picks; host as
  // getaddrinfo reads it, e.g. "127.0.0.1", "0.0.0.0", "::1") and starts
  // serving. `purpose` names what the server is for in the error message
  // ("--metrics-listen"); empty leaves that part out.
  HttpServer(const Endpoint& endpoint, const std::string& purpose, Handler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port it listens on (the chosen one for port 0).
  int port() const { return port_; }

 private:
  void Serve();

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// The reason phrase of an HTTP status code ("OK", "Not Found", ...).
std::string_view HttpReason(int status);

}  // namespace storebench::net
