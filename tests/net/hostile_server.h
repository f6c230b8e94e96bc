// A hostile server for tests of the network bindings' failure paths.
//
// HostileServer listens on 127.0.0.1 on a free port and speaks just enough
// of one protocol (RESP, memcached's text protocol, PostgreSQL's v3
// protocol, MariaDB's client/server protocol) to get a binding through its
// open, then answers the requests that matter with one kind of hostility:
//
//   kGarbage     a terminal escape sequence and random bytes instead of the reply
//   kTruncated   the first half of a valid reply, then a close (FIN)
//   kHugeLength  a valid-looking header announcing an absurd length (a RESP
//                bulk string or array of 2^62, memcached VA / VALUE of
//                2^64-1 or 2^64-2 bytes, a PostgreSQL DataRow of 1 or 2 GiB, a
//                MariaDB packet of 0xFFFFFF bytes), followed by little
//   kDrip        a valid reply, one byte per second
//   kReset       a close with SO_LINGER 0, i.e. a TCP RST
//
// Where: Phase::kOpen is hostile from the first request (the greeting, for
// MariaDB; the startup message, for PostgreSQL), so the store's open fails;
// Phase::kOperations answers the open's requests sanely (PING, SCRIPT LOAD,
// CLUSTER SLOTS; version/mn; the startup, the schema query and statement
// preparation; the handshake, SET and the schema query) and is hostile on
// the workload's operations (RESP data commands, mg/ms/md, Bind of a named
// statement, COM_STMT_PREPARE/EXECUTE), and on the statistics read after
// the run.
//
// Thread-safety and lifetime: the server runs on its own threads (one
// accepting, one per connection); it stops by itself `lifetime_ms` after it
// started, or when the object goes away, whichever comes first, and the
// destructor joins every thread. Only port() and the counters are for the
// test's thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace storebench::test_util {

enum class Protocol { kResp, kRespCluster, kMemcached, kPostgres, kMariadb };
enum class Hostility { kGarbage, kTruncated, kHugeLength, kDrip, kReset };
enum class Phase { kOpen, kOperations };

inline const char* HostilityName(Hostility h) {
  switch (h) {
    case Hostility::kGarbage: return "garbage";
    case Hostility::kTruncated: return "truncated";
    case Hostility::kHugeLength: return "huge_length";
    case Hostility::kDrip: return "drip";
    case Hostility::kReset: return "reset";
  }
  return "?";
}

class HostileServer {
 public:
  HostileServer(Protocol protocol, Hostility mode, Phase phase, int lifetime_ms = 30000)
      : protocol_(protocol), mode_(mode), phase_(phase),
        end_(std::chrono::steady_clock::now() + std::chrono::milliseconds(lifetime_ms)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(listen_fd_, 64) != 0) {
      close(listen_fd_);
      listen_fd_ = -1;
      return;
    }
    socklen_t len = sizeof a;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }
  ~HostileServer() {
    stop_ = true;
    if (acceptor_.joinable()) acceptor_.join();
    for (auto& h : handlers_) h->thread.join();
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  HostileServer(const HostileServer&) = delete;
  HostileServer& operator=(const HostileServer&) = delete;

  // 0 when the server could not listen.
  int port() const { return port_; }
  // Connections accepted, and hostile replies sent (or begun), so far.
  int connections() const { return connections_; }
  int hostile_replies() const { return hostile_; }

 private:
  static constexpr std::size_t kMaxInput = 64 << 20;  // a client sending more is dropped
  static constexpr int kMaxConnections = 100000;

  // A connection's thread; `done` once it has closed the connection.
  struct Handler {
    std::thread thread;
    std::atomic<bool> done{false};
  };

  // What one connection's handler knows about its client.
  struct Conn {
    int stage = 0;  // 0: before the handshake's request (PostgreSQL's startup, MariaDB's response)
    std::string unnamed_query, bound_query;                          // PostgreSQL
    std::vector<std::pair<std::string, std::string>> named_queries;  // PostgreSQL: name, query
    std::mt19937 rng;
  };

  // One decoded request: what to answer and whether to be hostile there.
  struct Answer {
    std::string reply;     // the valid reply (for sane answers, truncation and drips)
    bool hostile = false;
    bool close = false;    // the client said goodbye
    bool none = false;     // the request wants no reply
  };

  bool Stopping() const { return stop_ || std::chrono::steady_clock::now() >= end_; }

  void AcceptLoop() {
    while (!Stopping()) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (++connections_ > kMaxConnections) {
        close(fd);
        continue;
      }
      // Join the finished handlers, so that a client reconnecting in a
      // tight loop does not pile up threads.
      std::erase_if(handlers_, [](const std::unique_ptr<Handler>& h) {
        if (!h->done) return false;
        h->thread.join();
        return true;
      });
      auto h = std::make_unique<Handler>();
      Handler* raw = h.get();
      h->thread = std::thread([this, fd, raw] {
        Serve(fd);
        raw->done = true;
      });
      handlers_.push_back(std::move(h));
    }
  }

  // --- sending ----------------------------------------------------------------

  // Writes all of `data` (false when the peer is gone or we are stopping).
  bool Send(int fd, std::string_view data) {
    while (!data.empty()) {
      if (Stopping()) return false;
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  // Waits `ms`, reading (and dropping) whatever the client sends; false
  // when the client closed the connection or we are stopping.
  bool Linger(int fd, int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
      if (Stopping()) return false;
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char buf[4096];
      const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return false;
    }
    return true;
  }

  // The protocol's header announcing an absurd length, and a few bytes.
  std::string HugeFrame() {
    const int k = huge_counter_++;
    switch (protocol_) {
      case Protocol::kResp:
      case Protocol::kRespCluster: {
        static const char* const kFrames[] = {"$4611686018427387904\r\nabc", "*4611686018427387904\r\n$3\r\nabc\r\n",
                                              "*2\r\n$4611686018427387904\r\nab"};
        return kFrames[k % 3];
      }
      case Protocol::kMemcached: {
        static const char* const kFrames[] = {"VA 18446744073709551615 c1\r\nabc",
                                              "VA 18446744073709551614 c1\r\nabc\r\n",
                                              "VALUE k 0 18446744073709551615\r\nabc"};
        return kFrames[k % 3];
      }
      case Protocol::kPostgres: {
        // A DataRow (a type libpq lets grow past 30000 bytes) of 2 GiB - 1,
        // of 2 GiB (negative as an int32) and of 1 GiB (which libpq makes
        // room for, untouched, and waits); in the handshake, the same
        // lengths on an authentication request.
        const char type = phase_ == Phase::kOpen ? 'R' : 'D';
        static const std::uint32_t kLengths[] = {0x7fffffffu, 0x80000000u, 0x40000000u};
        const std::uint32_t len = kLengths[k % 3];
        std::string f(1, type);
        AppendBe32(&f, len);
        f += std::string(16, '\0');
        return f;
      }
      case Protocol::kMariadb: {
        // A packet of 0xFFFFFF bytes (so: to be continued in the next), with
        // its sequence number, then little.
        std::string f("\xff\xff\xff", 3);
        f.push_back(phase_ == Phase::kOpen ? '\0' : '\1');
        f += "\x0a" "5.5.5-10.11.6-MariaDB";
        return f;
      }
    }
    return {};
  }

  // Before each hostility: a client that drops the connection reconnects
  // at once and fails again, so this keeps that loop to a few hundred
  // connections a second (on a machine the tests share).
  static void Pause() { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }

  // Delivers an answer: sanely, or with the server's hostility. False when
  // the connection is over.
  bool Deliver(int fd, Conn& c, const Answer& a) {
    if (a.none) return true;
    if (!a.hostile) return Send(fd, a.reply);
    ++hostile_;
    Pause();
    switch (mode_) {
      case Hostility::kGarbage: {
        // A terminal's escape sequence first (a client quoting the server
        // in a message must not pass it on), then random bytes.
        std::string g = "\x1b[2J\r";
        g.resize(256);
        for (std::size_t i = 5; i < g.size(); ++i) g[i] = static_cast<char>(c.rng() & 0xff);
        return Send(fd, g);
      }
      case Hostility::kTruncated:
        Send(fd, std::string_view(a.reply).substr(0, std::max<std::size_t>(1, a.reply.size() / 2)));
        shutdown(fd, SHUT_WR);
        return false;
      case Hostility::kHugeLength:
        return Send(fd, HugeFrame());
      case Hostility::kDrip:
        for (char c : a.reply) {
          if (!Send(fd, std::string_view(&c, 1)) || !Linger(fd, 1000)) return false;
        }
        return true;
      case Hostility::kReset: {
        linger l{1, 0};
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        return false;
      }
    }
    return false;
  }

  // --- serving ----------------------------------------------------------------

  void Serve(int fd) {
    std::string in;
    Conn c;
    c.rng.seed(static_cast<unsigned>(20261207 + fd));
    bool open = true;
    if (protocol_ == Protocol::kMariadb) {
      Answer greeting;
      greeting.reply = MariadbGreeting();
      greeting.hostile = phase_ == Phase::kOpen;
      open = Deliver(fd, c, greeting);
    }
    while (open && !Stopping()) {
      // Answer every complete request in the buffer.
      for (;;) {
        Answer a;
        const std::size_t used = Next(in, &c, &a);
        if (used == 0) break;
        in.erase(0, used);
        if (a.close || !Deliver(fd, c, a)) {
          open = false;
          break;
        }
      }
      if (!open) break;
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      char buf[16384];
      const ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
      if (in.size() > kMaxInput) break;
    }
    close(fd);
  }

  // Decodes the request at the front of `in` into *a; the bytes it spans,
  // 0 when it is not complete yet.
  std::size_t Next(std::string_view in, Conn* c, Answer* a) {
    switch (protocol_) {
      case Protocol::kResp:
      case Protocol::kRespCluster: return NextResp(in, a);
      case Protocol::kMemcached: return NextMemcached(in, a);
      case Protocol::kPostgres: return NextPostgres(in, c, a);
      case Protocol::kMariadb: return NextMariadb(in, &c->stage, a);
    }
    return 0;
  }

  static std::string Upper(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
  }

  // RESP: an array of bulk strings.
  std::size_t NextResp(std::string_view in, Answer* a) {
    std::vector<std::string_view> args;
    std::size_t pos = 0;
    auto line = [&](std::string_view* out) {
      const std::size_t eol = in.find("\r\n", pos);
      if (eol == std::string_view::npos) return false;
      *out = in.substr(pos, eol - pos);
      pos = eol + 2;
      return true;
    };
    std::string_view l;
    if (!line(&l)) return 0;
    long n = 0;
    if (!l.empty() && l[0] == '*') {
      n = std::strtol(std::string(l.substr(1)).c_str(), nullptr, 10);
    } else {  // an inline command: its words
      for (std::size_t p = 0; p < l.size();) {
        std::size_t sp = l.find(' ', p);
        if (sp == std::string_view::npos) sp = l.size();
        if (sp > p) args.push_back(l.substr(p, sp - p));
        p = sp + 1;
      }
    }
    for (long i = 0; i < n; ++i) {
      if (!line(&l) || l.empty() || l[0] != '$') return 0;
      const std::size_t len = std::strtoul(std::string(l.substr(1)).c_str(), nullptr, 10);
      if (in.size() < pos + len + 2) return 0;
      args.push_back(in.substr(pos, len));
      pos += len + 2;
    }
    const std::string cmd = args.empty() ? "" : Upper(args[0]);
    const std::string sub = args.size() > 1 ? Upper(args[1]) : "";
    const bool sane_cmd = cmd == "PING" || (cmd == "SCRIPT" && sub == "LOAD") || (cmd == "CLUSTER" && sub == "SLOTS");
    a->hostile = phase_ == Phase::kOpen || !sane_cmd;
    if (cmd == "PING") {
      a->reply = "+PONG\r\n";
    } else if (cmd == "SCRIPT") {
      a->reply = "$40\r\n" + std::string(40, 'a') + "\r\n";
    } else if (cmd == "CLUSTER") {
      a->reply = "*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$9\r\n127.0.0.1\r\n:" + std::to_string(port_) + "\r\n";
    } else {
      a->reply = "*2\r\n$6\r\nfield0\r\n$10\r\n0123456789\r\n";
    }
    return pos;
  }

  // memcached: a line, and for a set its data block.
  std::size_t NextMemcached(std::string_view in, Answer* a) {
    const std::size_t eol = in.find("\r\n");
    if (eol == std::string_view::npos) return 0;
    std::string_view line = in.substr(0, eol);
    std::vector<std::string_view> tok;
    for (std::size_t p = 0; p <= line.size();) {
      std::size_t sp = line.find(' ', p);
      if (sp == std::string_view::npos) sp = line.size();
      if (sp > p) tok.push_back(line.substr(p, sp - p));
      p = sp + 1;
    }
    std::size_t used = eol + 2;
    const std::string_view cmd = tok.empty() ? "" : tok[0];
    std::size_t data = 0;
    if (cmd == "ms" && tok.size() > 2) data = std::strtoul(std::string(tok[2]).c_str(), nullptr, 10) + 2;
    if (cmd == "set" && tok.size() > 4) data = std::strtoul(std::string(tok[4]).c_str(), nullptr, 10) + 2;
    if (in.size() < used + data) return 0;
    used += data;
    a->hostile = phase_ == Phase::kOpen || !(cmd == "version" || cmd == "mn");
    if (cmd == "version") a->reply = "VERSION 1.6.99\r\n";
    else if (cmd == "mn") a->reply = "MN\r\n";
    else if (cmd == "mg") a->reply = "VA 10 c1\r\n0123456789\r\n";
    else if (cmd == "ms") a->reply = "HD c2\r\n";
    else if (cmd == "md") a->reply = "HD\r\n";
    else if (cmd == "stats") a->reply = "STAT version 1.6.99\r\nEND\r\n";
    else a->reply = "ERROR\r\n";
    return used;
  }

  static void AppendBe32(std::string* s, std::uint32_t v) {
    for (int i = 3; i >= 0; --i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  static void AppendBe16(std::string* s, std::uint16_t v) {
    s->push_back(static_cast<char>(v >> 8));
    s->push_back(static_cast<char>(v & 0xff));
  }
  static std::uint32_t Be32(std::string_view s) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(s[static_cast<std::size_t>(i)]);
    return v;
  }
  // A PostgreSQL backend message.
  static std::string PgMessage(char type, std::string_view body) {
    std::string m(1, type);
    AppendBe32(&m, static_cast<std::uint32_t>(body.size() + 4));
    m.append(body);
    return m;
  }
  static std::string CStr(std::string_view s) { return std::string(s) + '\0'; }

  // PostgreSQL: the startup (untyped) message, then typed messages; an
  // extended-query batch is answered as a whole at its Sync.
  std::size_t NextPostgres(std::string_view in, Conn* c, Answer* a) {
    if (c->stage == 0) {
      if (in.size() < 8) return 0;
      const std::uint32_t len = Be32(in);
      if (len < 8 || len > 10000) return in.size();  // not ours: drop it
      if (in.size() < len) return 0;
      const std::uint32_t code = Be32(in.substr(4));
      if (code == 80877103 || code == 80877104) {  // SSLRequest, GSSENCRequest: no
        a->reply = "N";
        return len;
      }
      c->stage = 1;
      std::string r = PgMessage('R', std::string("\0\0\0\0", 4));  // AuthenticationOk
      for (auto [k, v] : {std::pair{"server_version", "16.0"}, {"client_encoding", "UTF8"},
                          {"standard_conforming_strings", "on"}, {"integer_datetimes", "on"},
                          {"server_encoding", "UTF8"}, {"DateStyle", "ISO, MDY"}}) {
        r += PgMessage('S', CStr(k) + CStr(v));
      }
      r += PgMessage('K', std::string("\0\0\0\x2a\0\0\0\x07", 8));
      r += PgMessage('Z', "I");
      a->reply = std::move(r);
      a->hostile = phase_ == Phase::kOpen;
      return len;
    }
    // Collect one batch: up to and including a Sync (or one simple Query).
    std::size_t pos = 0;
    std::string reply;
    bool hostile = false;
    for (;;) {
      if (in.size() < pos + 5) return 0;
      const char type = in[pos];
      const std::uint32_t len = Be32(in.substr(pos + 1));
      if (len < 4 || len > kMaxInput) return in.size();
      if (in.size() < pos + 1 + len) return 0;
      const std::string_view body = in.substr(pos + 5, len - 4);
      pos += 1 + len;
      switch (type) {
        case 'X':
          a->close = true;
          return pos;
        case 'Q':
          a->reply = PgMessage('C', CStr("SET")) + PgMessage('Z', "I");
          a->hostile = phase_ == Phase::kOpen;
          return pos;
        case 'P': {  // Parse: name, query, types
          const std::string_view name = body.substr(0, body.find('\0'));
          const std::string_view rest = body.substr(name.size() + 1);
          const std::string query(rest.substr(0, rest.find('\0')));
          if (name.empty()) c->unnamed_query = query;
          else c->named_queries.emplace_back(std::string(name), query);
          reply += PgMessage('1', "");
          break;
        }
        case 'B': {  // Bind: portal, statement, ...
          const std::string_view portal = body.substr(0, body.find('\0'));
          const std::string_view rest = body.substr(portal.size() + 1);
          const std::string stmt(rest.substr(0, rest.find('\0')));
          c->bound_query = c->unnamed_query;
          for (const auto& [n, q] : c->named_queries) {
            if (n == stmt) c->bound_query = q;
          }
          if (!stmt.empty()) hostile = true;  // a prepared statement: the workload's operations
          reply += PgMessage('2', "");
          break;
        }
        case 'D': {  // Describe (a portal, or a statement)
          std::string query = c->bound_query;
          if (!body.empty() && body[0] == 'S') {
            reply += PgMessage('t', std::string("\0\0", 2));  // no parameters
            const std::string stmt(body.substr(1, body.find('\0', 1) - 1));
            query = c->unnamed_query;
            for (const auto& [n, q] : c->named_queries) {
              if (n == stmt) query = q;
            }
          }
          if (query.starts_with("SELECT a.attname")) {
            std::string col = CStr("attname");
            AppendBe32(&col, 0);      // table oid
            AppendBe16(&col, 0);      // column
            AppendBe32(&col, 25);     // text
            AppendBe16(&col, 0xffff); // size -1
            AppendBe32(&col, 0xffffffffu);
            AppendBe16(&col, 0);      // text format
            std::string rd;
            AppendBe16(&rd, 1);
            reply += PgMessage('T', rd + col);
          } else {
            reply += PgMessage('n', "");
          }
          break;
        }
        case 'E':  // Execute
          if (c->bound_query.starts_with("SELECT a.attname")) {
            for (int i = -1; i < 10; ++i) {
              const std::string v = i < 0 ? "ycsb_key" : "field" + std::to_string(i);
              std::string row;
              AppendBe16(&row, 1);
              AppendBe32(&row, static_cast<std::uint32_t>(v.size()));
              row += v;
              reply += PgMessage('D', row);
            }
            reply += PgMessage('C', CStr("SELECT 11"));
          } else if (c->bound_query.starts_with("INSERT")) {
            reply += PgMessage('C', CStr("INSERT 0 1"));
          } else {
            const std::string word = c->bound_query.substr(0, c->bound_query.find(' '));
            reply += PgMessage('C', CStr(word + " 1"));
          }
          break;
        case 'C':  // Close
          reply += PgMessage('3', "");
          break;
        case 'S':  // Sync: the batch is complete
          reply += PgMessage('Z', "I");
          a->reply = std::move(reply);
          a->hostile = phase_ == Phase::kOpen || hostile;
          return pos;
        default:  // Flush and others: no reply of their own
          break;
      }
    }
  }

  // MariaDB packets: 3-byte length, sequence number, payload.
  static std::string MyPacket(std::uint8_t seq, std::string_view payload) {
    std::string p;
    const std::size_t n = payload.size();
    p.push_back(static_cast<char>(n & 0xff));
    p.push_back(static_cast<char>((n >> 8) & 0xff));
    p.push_back(static_cast<char>((n >> 16) & 0xff));
    p.push_back(static_cast<char>(seq));
    p.append(payload);
    return p;
  }
  static std::string LenEnc(std::string_view s) { return std::string(1, static_cast<char>(s.size())) + std::string(s); }
  static std::string MyOk() { return std::string("\x00\x00\x00\x02\x00\x00\x00", 7); }
  static std::string MyEof() { return std::string("\xfe\x00\x00\x02\x00", 5); }

  std::string MariadbGreeting() const {
    std::string g("\x0a");
    g += CStr("5.5.5-10.11.6-MariaDB-hostile");
    g += std::string("\x07\x00\x00\x00", 4);   // connection id
    g += "abcdefgh";                            // scramble, first part
    g.push_back('\0');
    const std::uint32_t caps = 0x1 | 0x2 | 0x4 | 0x8 | 0x200 | 0x2000 | 0x8000 | 0x20000 | 0x80000;
    g.push_back(static_cast<char>(caps & 0xff));
    g.push_back(static_cast<char>((caps >> 8) & 0xff));
    g.push_back(33);                            // utf8_general_ci
    g += std::string("\x02\x00", 2);            // status: autocommit
    g.push_back(static_cast<char>((caps >> 16) & 0xff));
    g.push_back(static_cast<char>((caps >> 24) & 0xff));
    g.push_back(21);                            // scramble length
    g += std::string(10, '\0');                 // reserved (and MariaDB's extended capabilities)
    g += CStr("ijklmnopqrst");                  // scramble, second part
    g += CStr("mysql_native_password");
    return MyPacket(0, g);
  }

  std::size_t NextMariadb(std::string_view in, int* stage, Answer* a) {
    if (in.size() < 4) return 0;
    const std::size_t len = static_cast<unsigned char>(in[0]) | static_cast<unsigned char>(in[1]) << 8 |
                            static_cast<std::size_t>(static_cast<unsigned char>(in[2])) << 16;
    if (in.size() < 4 + len) return 0;
    const auto seq = static_cast<std::uint8_t>(in[3]);
    const std::string_view payload = in.substr(4, len);
    if (*stage == 0) {  // the handshake response
      *stage = 1;
      a->reply = MyPacket(static_cast<std::uint8_t>(seq + 1), MyOk());
      return 4 + len;
    }
    const char cmd = payload.empty() ? 0 : payload[0];
    const std::string_view arg = payload.substr(payload.empty() ? 0 : 1);
    switch (cmd) {
      case 0x01:  // COM_QUIT
        a->close = true;
        break;
      case 0x19:  // COM_STMT_CLOSE: no reply
      case 0x18:  // COM_STMT_SEND_LONG_DATA: no reply
        a->none = true;
        break;
      case 0x03:  // COM_QUERY: the open's statements, answered sanely
        if (arg.starts_with("SELECT COLUMN_NAME")) {
          std::string r = MyPacket(1, "\x01");
          std::string def = LenEnc("def") + LenEnc("information_schema") + LenEnc("COLUMNS") + LenEnc("COLUMNS") +
                            LenEnc("COLUMN_NAME") + LenEnc("COLUMN_NAME");
          def += std::string("\x0c\x21\x00\xc0\x00\x00\x00\xfd\x01\x00\x00\x00\x00", 13);
          r += MyPacket(2, def);
          r += MyPacket(3, MyEof());
          std::uint8_t s = 4;
          for (int i = -1; i < 10; ++i) r += MyPacket(s++, LenEnc(i < 0 ? "YCSB_KEY" : "field" + std::to_string(i)));
          r += MyPacket(s, MyEof());
          a->reply = std::move(r);
        } else {
          a->reply = MyPacket(1, MyOk());
        }
        break;
      case 0x16: {  // COM_STMT_PREPARE: an OK with no columns and no parameters
        std::string ok("\x00", 1);
        ok += std::string("\x01\x00\x00\x00", 4);   // statement id
        ok += std::string("\x00\x00\x00\x00\x00\x00\x00", 7);  // columns, params, filler, warnings
        a->reply = MyPacket(1, ok);
        a->hostile = true;
        break;
      }
      case 0x17:  // COM_STMT_EXECUTE
        a->reply = MyPacket(1, MyOk());
        a->hostile = true;
        break;
      default:
        a->reply = MyPacket(1, MyOk());
        break;
    }
    return 4 + len;
  }

  const Protocol protocol_;
  const Hostility mode_;
  const Phase phase_;
  const std::chrono::steady_clock::time_point end_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> hostile_{0};
  std::atomic<int> huge_counter_{0};
  std::thread acceptor_;
  std::vector<std::unique_ptr<Handler>> handlers_;  // the acceptor's, then the destructor's
};

}  // namespace storebench::test_util
