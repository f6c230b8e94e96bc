// The hbase binding's connection (db/hbase/connection.h) against a scripted
// peer on loopback, for what a real HBase does only by chance: answers out
// of order (two fiber clients share the connection; the peer answers the
// second call first, and each caller must get its own answer by call id),
// and a peer that closes the connection (the calls fail, never crash, and
// the next call reconnects and replays the preamble and header).
#include "db/hbase/connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "Client.pb.h"
#include "net/fiber_scheduler.h"
#include "net/socket.h"

namespace storebench::hbase {
namespace {

// Reads exactly n bytes (false on EOF).
bool ReadN(int fd, std::string* out, std::size_t n) {
  out->resize(n);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, out->data() + got, n - got);
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

std::uint32_t U32(const std::string& b) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data());
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// Reads the preamble and the connection header; false on EOF.
bool ReadHello(int fd) {
  std::string b;
  if (!ReadN(fd, &b, 6) || b.compare(0, 4, "HBas") != 0) return false;
  if (!ReadN(fd, &b, 4)) return false;
  return ReadN(fd, &b, U32(b));
}

// Reads one request: its call id and the row of its GetRequest.
bool ReadRequest(int fd, std::uint32_t* call_id, std::string* row) {
  std::string b;
  if (!ReadN(fd, &b, 4) || !ReadN(fd, &b, U32(b))) return false;
  std::string_view hdr, param;
  const std::size_t n = ReadDelimited(b, &hdr);
  if (n == 0 || ReadDelimited(std::string_view(b).substr(n), &param) == 0) return false;
  pb::RequestHeader h;
  pb::GetRequest g;
  if (!h.ParseFromArray(hdr.data(), static_cast<int>(hdr.size()))) return false;
  if (!g.ParseFromArray(param.data(), static_cast<int>(param.size()))) return false;
  *call_id = h.call_id();
  *row = g.get().row();
  return true;
}

std::string Delimited(const google::protobuf::MessageLite& m) {
  std::string body = m.SerializeAsString(), out;
  std::size_t n = body.size();
  do {
    unsigned char c = n & 0x7F;
    n >>= 7;
    if (n) c |= 0x80;
    out.push_back(static_cast<char>(c));
  } while (n);
  return out + body;
}

// The answer to call `id`: a GetResponse whose one cell's value is `row`.
void Answer(int fd, std::uint32_t id, const std::string& row) {
  pb::ResponseHeader h;
  h.set_call_id(id);
  pb::GetResponse r;
  r.mutable_result()->add_cell()->set_value("answer:" + row);
  const std::string body = Delimited(h) + Delimited(r);
  const std::uint32_t len = static_cast<std::uint32_t>(body.size());
  const char p[4] = {static_cast<char>(len >> 24), static_cast<char>(len >> 16), static_cast<char>(len >> 8),
                     static_cast<char>(len)};
  std::string frame(p, 4);
  frame += body;
  ASSERT_EQ(write(fd, frame.data(), frame.size()), static_cast<ssize_t>(frame.size()));
}

class Peer {
 public:
  Peer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(listen_fd_, 4), 0);
    socklen_t len = sizeof a;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Peer() { close(listen_fd_); }
  int port() const { return port_; }
  int Accept() { return accept(listen_fd_, nullptr, nullptr); }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
};

pb::GetRequest Get(const std::string& row) {
  pb::GetRequest g;
  g.mutable_region()->set_type(pb::RegionSpecifier::REGION_NAME);
  g.mutable_region()->set_value("r");
  g.mutable_get()->set_row(row);
  return g;
}

// Two clients of one connection, as fibers: client i gets rows[i], the
// second `second_delay_ms` later; each one's status and the value it read.
struct TwoCalls {
  Status statuses[2];
  std::string values[2];
};
TwoCalls GetTwo(Connection& c, const std::string (&rows)[2], int second_delay_ms) {
  TwoCalls out;
  io::FiberScheduler sched;
  for (int i = 0; i < 2; ++i) {
    sched.Spawn([&, i] {
      if (i == 1 && second_delay_ms > 0) io::SleepUntil(net::DeadlineAfterMs(second_delay_ms));
      pb::GetRequest g = Get(rows[i]);
      std::string frame;
      Response resp;
      out.statuses[i] = c.Call("Get", g, net::DeadlineAfterMs(2000), &frame, &resp);
      pb::GetResponse r;
      if (out.statuses[i].ok() && r.ParseFromArray(resp.param.data(), static_cast<int>(resp.param.size())) &&
          r.result().cell_size() == 1) {
        out.values[i] = r.result().cell(0).value();
      }
    });
  }
  sched.Run();
  return out;
}

// A peer that reads two calls before it answers anything, then answers the
// second first; two clients of one connection call it for rows[0] and
// rows[1] (the second `second_delay_ms` later) and each gets its own answer.
void ExpectTwoCallsAnsweredInReverse(const std::string (&rows)[2], int second_delay_ms) {
  Peer peer;
  std::thread server([&] {
    const int fd = peer.Accept();
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(ReadHello(fd));
    std::uint32_t id1, id2;
    std::string row1, row2;
    ASSERT_TRUE(ReadRequest(fd, &id1, &row1));
    ASSERT_TRUE(ReadRequest(fd, &id2, &row2));
    EXPECT_NE(id1, id2);
    Answer(fd, id2, row2);  // the second call first
    Answer(fd, id1, row1);
    std::string rest;
    ReadN(fd, &rest, 1);  // until the client closes
    close(fd);
  });
  {
    Connection c(net::Endpoint{"127.0.0.1", peer.port()}, "ClientService", "test", 5000, 2);
    const TwoCalls got = GetTwo(c, rows, second_delay_ms);
    EXPECT_EQ(got.statuses[0], Status::Ok());
    EXPECT_EQ(got.statuses[1], Status::Ok());
    EXPECT_EQ(got.values[0], "answer:" + rows[0]);
    EXPECT_EQ(got.values[1], "answer:" + rows[1]);
  }
  server.join();
}

TEST(HBaseConnection, AnswersOutOfOrderReachTheirCallers) { ExpectTwoCallsAnsweredInReverse({"first", "second"}, 0); }

TEST(HBaseConnection, ACallMadeWhileAnotherWaitsIsSentAtOnce) {
  // The peer answers nothing until it has both calls: the second comes while
  // the first waits for its answer (100 ms later), and must not wait for it.
  ExpectTwoCallsAnsweredInReverse({"early", "late"}, 100);
}

TEST(HBaseConnection, APeerThatHangsUpFailsTheCallAndTheNextCallReconnects) {
  Peer peer;
  std::thread server([&] {
    int fd = peer.Accept();
    ASSERT_TRUE(ReadHello(fd));
    std::uint32_t id;
    std::string row;
    ASSERT_TRUE(ReadRequest(fd, &id, &row));
    close(fd);  // no answer
    fd = peer.Accept();
    ASSERT_TRUE(ReadHello(fd));  // replayed on the new connection
    ASSERT_TRUE(ReadRequest(fd, &id, &row));
    Answer(fd, id, row);
    std::string rest;
    ReadN(fd, &rest, 1);
    close(fd);
  });
  {
    Connection c(net::Endpoint{"127.0.0.1", peer.port()}, "ClientService", "test", 5000, 1);
    std::string frame;
    Response resp;
    pb::GetRequest g = Get("a");
    const Status first = c.Call("Get", g, net::DeadlineAfterMs(2000), &frame, &resp);
    EXPECT_FALSE(first.ok());
    EXPECT_FALSE(c.connected());
    Status second = Status::Error();
    for (int i = 0; i < 20 && !second.ok(); ++i) {  // the reconnect backoff may refuse the first tries
      second = c.Call("Get", g, net::DeadlineAfterMs(2000), &frame, &resp);
    }
    EXPECT_EQ(second, Status::Ok());
    EXPECT_FALSE(resp.is_exception());
  }
  server.join();
}

}  // namespace
}  // namespace storebench::hbase
