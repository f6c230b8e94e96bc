// net::HttpServer (net/http_server.h) spoken to over raw sockets: what it
// answers to good, bad, slow and oversized requests, its port, its one-line
// error when the address is taken, and how fast it stops.
#include "net/http_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "tcp_connect.h"

namespace storebench::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Serves "hello\n" at /metrics, 404 elsewhere; throws at /throw. Counts calls.
struct TestServer {
  std::atomic<int> calls{0};
  std::unique_ptr<HttpServer> server;
  explicit TestServer(int port = 0) {
    server = std::make_unique<HttpServer>(
        Endpoint{"127.0.0.1", port}, "--metrics-listen",
        [this](std::string_view path) {
          ++calls;
          HttpResponse r;
          if (path == "/metrics") {
            r.body = "hello\n";
          } else if (path == "/throw") {
            throw std::runtime_error("handler failed");
          } else {
            r.status = 404;
            r.body = "no " + std::string(path) + "\n";
          }
          return r;
        });
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(server->port()); }
  // One request on a new connection; what came back before the server closed it.
  std::string Ask(std::string_view request, int timeout_s = 5) const {
    const int fd = test_util::ConnectTcp(address(), timeout_s);
    EXPECT_GE(fd, 0);
    if (fd < 0) return "";
    std::string reply = test_util::SendAndReadAll(fd, request);
    close(fd);
    return reply;
  }
};

std::string StatusLineOf(const std::string& reply) { return reply.substr(0, reply.find("\r\n")); }
std::string BodyOf(const std::string& reply) {
  const auto end = reply.find("\r\n\r\n");
  return end == std::string::npos ? "<no head end>" : reply.substr(end + 4);
}

TEST(HttpServerTest, GetGivesTheBodyWithItsLengthAndCloses) {
  TestServer t;
  EXPECT_GT(t.server->port(), 0);
  const std::string reply = t.Ask("GET /metrics?debug=1 HTTP/1.1\r\nHost: x\r\nUser-Agent: test\r\n\r\n");
  EXPECT_EQ(StatusLineOf(reply), "HTTP/1.1 200 OK") << reply;
  EXPECT_NE(reply.find("\r\nContent-Length: 6\r\n"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\r\nContent-Type: text/plain; charset=utf-8\r\n"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\r\nConnection: close\r\n"), std::string::npos) << reply;
  EXPECT_EQ(BodyOf(reply), "hello\n");
  // HTTP/1.0 too.
  EXPECT_EQ(BodyOf(t.Ask("GET /metrics HTTP/1.0\r\n\r\n")), "hello\n");
}

TEST(HttpServerTest, HeadHasTheLengthButNoBody) {
  TestServer t;
  const std::string reply = t.Ask("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(StatusLineOf(reply), "HTTP/1.1 200 OK") << reply;
  EXPECT_NE(reply.find("\r\nContent-Length: 6\r\n"), std::string::npos) << reply;
  EXPECT_EQ(BodyOf(reply), "");
}

TEST(HttpServerTest, TheHandlersStatusAndAFailingHandler) {
  TestServer t;
  const std::string reply = t.Ask("GET /other HTTP/1.1\r\n\r\n");
  EXPECT_EQ(StatusLineOf(reply), "HTTP/1.1 404 Not Found") << reply;
  EXPECT_EQ(BodyOf(reply), "no /other\n");
  EXPECT_EQ(StatusLineOf(t.Ask("GET /throw HTTP/1.1\r\n\r\n")), "HTTP/1.1 500 Internal Server Error");
  // The server goes on after both.
  EXPECT_EQ(BodyOf(t.Ask("GET /metrics HTTP/1.1\r\n\r\n")), "hello\n");
}

TEST(HttpServerTest, OtherMethodsGet405AndGarbage400) {
  TestServer t;
  const std::string post = t.Ask("POST /metrics HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi");
  EXPECT_EQ(StatusLineOf(post), "HTTP/1.1 405 Method Not Allowed") << post;
  EXPECT_NE(post.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << post;
  for (const char* garbage : {"HELLO\r\n\r\n", "GET /metrics\r\n\r\n", "GET metrics HTTP/1.1\r\n\r\n",
                              "GET /metrics HTTP/2.0\r\n\r\n", "G\x01T / HTTP/1.1\r\n\r\n",
                              "GET /a b HTTP/1.1\r\n\r\n", "\r\n\r\n"}) {
    EXPECT_EQ(StatusLineOf(t.Ask(garbage)), "HTTP/1.1 400 Bad Request") << garbage;
  }
  EXPECT_EQ(t.calls.load(), 0) << "the handler sees only good GET and HEAD requests";
}

TEST(HttpServerTest, OversizedRequestGets431) {
  TestServer t;
  const std::string big = "GET /metrics HTTP/1.1\r\nX-Padding: " + std::string(HttpServer::kMaxRequestBytes, 'a');
  const std::string reply = t.Ask(big);  // no end of the head: the size cap answers, not the deadline
  EXPECT_EQ(StatusLineOf(reply), "HTTP/1.1 431 Request Header Fields Too Large") << reply.substr(0, 200);
  // A complete request just past the cap is refused too.
  EXPECT_EQ(StatusLineOf(t.Ask(big + "\r\n\r\n")), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(t.calls.load(), 0);
}

TEST(HttpServerTest, ASlowClientNeitherBlocksOthersNorStaysForever) {
  TestServer t;
  const int slow = test_util::ConnectTcp(t.address(), 10);
  ASSERT_GE(slow, 0);
  ASSERT_EQ(send(slow, "GET /met", 8, 0), 8);
  const auto start = steady_clock::now();
  EXPECT_EQ(BodyOf(t.Ask("GET /metrics HTTP/1.1\r\n\r\n")), "hello\n");
  EXPECT_LT(steady_clock::now() - start, milliseconds(1000));
  // The slow one is told 408 after the request deadline and closed.
  const std::string reply = test_util::SendAndReadAll(slow, "");
  close(slow);
  EXPECT_EQ(StatusLineOf(reply), "HTTP/1.1 408 Request Timeout") << reply;
  EXPECT_GE(steady_clock::now() - start, milliseconds(HttpServer::kRequestTimeoutMs - 100));
}

TEST(HttpServerTest, TakenPortFailsWithOneLineNamingTheAddress) {
  TestServer first;
  const int port = first.server->port();
  try {
    TestServer second(port);
    FAIL() << "a second server listens on " << port;
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot listen on 127.0.0.1:" + std::to_string(port) + " for --metrics-listen: Address already in use");
  }
  // The first one still serves.
  EXPECT_EQ(BodyOf(first.Ask("GET /metrics HTTP/1.1\r\n\r\n")), "hello\n");
  // A host that does not resolve: one line too.
  try {
    HttpServer bad(Endpoint{"no such host.invalid", 0}, "", [](std::string_view) { return HttpResponse{}; });
    FAIL() << "listened on a host that does not exist";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cannot listen on no such host.invalid:0: ", 0), 0u) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(HttpServerTest, TheDestructorReturnsPromptly) {
  auto t = std::make_unique<TestServer>();
  // With a client connected that sends nothing, and right after a request.
  const int idle = test_util::ConnectTcp(t->address(), 5);
  ASSERT_GE(idle, 0);
  EXPECT_EQ(BodyOf(t->Ask("GET /metrics HTTP/1.1\r\n\r\n")), "hello\n");
  const auto start = steady_clock::now();
  t.reset();
  EXPECT_LT(steady_clock::now() - start, milliseconds(300));
  // The idle connection was closed with the server.
  EXPECT_EQ(test_util::SendAndReadAll(idle, ""), "");
  close(idle);
}

}  // namespace
}  // namespace storebench::net
