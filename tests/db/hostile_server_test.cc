// The network bindings against hostile servers (tests/net/hostile_server.h):
// garbage, truncated replies, huge length prefixes, a one-byte-per-second
// drip and connection resets, in the store's open and in its operations.
// Each case runs the real CLI and checks that it ends normally (no signal;
// exit 0 with the failures counted per status when the run got going, exit
// 2 with one line on stderr when the open failed), on time
// (maxexecutiontime + the binding's timeout + slack), and with its memory
// bounded (max RSS from wait4, relative to a run of the null binding, so a
// 2^62 length was never allocated). The five modes of one binding and
// phase run side by side, each against its own server.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "net/hostile_server.h"
#include "test_util.h"

namespace storebench {
namespace {

using test_util::HostileServer;
using test_util::Hostility;
using test_util::Phase;
using test_util::Protocol;

constexpr int kMaxExecutionS = 3;
constexpr int kTimeoutMs = 500;
// Beyond maxexecutiontime and one timeout: the run's start and end, the
// statistics read after it (each with its own timeout), a loaded machine.
constexpr int kSlackMs = 4000;

// Runs storebench with `args` in `dir`, measuring its wall time and peak
// RSS; kills it (a failure: code 128 + SIGKILL) after `kill_after_s`.
test_util::ProcessResult RunMeasured(const std::vector<std::string>& args, const std::string& dir,
                                     int kill_after_s = 60) {
  test_util::ProcessOptions o;
  o.cwd = dir;
  o.kill_after_s = kill_after_s;
  return test_util::RunProcess(STOREBENCH_BINARY, args, o);
}

// The peak RSS of a short run of the null binding: what the binary needs
// anyway (much more under ASan), the base the bound is relative to.
long BaselineRssKb() {
  static const long kb = [] {
    test_util::TempDir dir("storebench-hostile");
    test_util::ProcessResult m = RunMeasured({"run", "null", "-P", std::string(STOREBENCH_SOURCE_DIR) +
                                              "/workloads/workloada", "-p", "recordcount=1000", "-p",
                                              "operationcount=1000"},
                                             dir.path().string());
    EXPECT_EQ(m.code, 0) << m.err;
    return m.max_rss_kb;
  }();
  return kb;
}
// How far above the baseline a run against a hostile server may go: the
// client libraries' buffers (MariaDB's 16 MiB packet) fit, a gigabyte does
// not. ASan keeps up to 256 MiB of freed memory in quarantine, which a run
// that reconnects thousands of times fills.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kRssHeadroomKb = (192 + 320) * 1024;
#else
constexpr long kRssHeadroomKb = 192 * 1024;
#endif

// Operations counted per status in the text output ("[READ], Return=ERROR, 12"):
// the sum over statuses other than OK and NOT_FOUND (`ok`: over OK only).
long CountOps(const std::string& out, bool ok) {
  long failed = 0, succeeded = 0;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto at = line.find(", Return=");
    if (at == std::string::npos) continue;
    const auto comma = line.find(", ", at + 9);
    if (comma == std::string::npos) continue;
    const std::string status = line.substr(at + 9, comma - at - 9);
    const long n = std::atol(line.c_str() + comma + 2);
    if (status == "OK") succeeded += n;
    else if (status != "NOT_FOUND") failed += n;
  }
  return ok ? succeeded : failed;
}
long FailedOps(const std::string& out) { return CountOps(out, false); }
long OkOps(const std::string& out) { return CountOps(out, true); }

struct Binding {
  const char* name;       // the test's name for it
  const char* binding;    // the CLI's
  Protocol protocol;
};
void PrintTo(const Binding& b, std::ostream* os) { *os << b.name; }

const Binding kBindings[] = {
    {"redis", "redis", Protocol::kResp},
    {"redis_cluster", "redis", Protocol::kRespCluster},
    {"memcached", "memcached", Protocol::kMemcached},
    {"postgresql", "postgresql", Protocol::kPostgres},
    {"mariadb", "mariadb", Protocol::kMariadb},
};

const Hostility kModes[] = {Hostility::kGarbage, Hostility::kTruncated, Hostility::kHugeLength, Hostility::kDrip,
                            Hostility::kReset};

// The -p arguments that point `b` at 127.0.0.1:port with a short timeout.
std::vector<std::string> StoreArgs(const Binding& b, int port) {
  const std::string p = std::to_string(port), t = std::to_string(kTimeoutMs);
  switch (b.protocol) {
    case Protocol::kResp:
      return {"-p", "redis.host=127.0.0.1", "-p", "redis.port=" + p, "-p", "redis.timeout_ms=" + t};
    case Protocol::kRespCluster:
      return {"-p", "redis.host=127.0.0.1", "-p", "redis.port=" + p, "-p", "redis.timeout_ms=" + t,
              "-p", "redis.cluster=true"};
    case Protocol::kMemcached:
      return {"-p", "memcached.hosts=127.0.0.1:" + p, "-p", "memcached.timeout_ms=" + t};
    case Protocol::kPostgres:
      return {"-p", "postgresql.host=127.0.0.1", "-p", "postgresql.port=" + p, "-p", "postgresql.timeout_ms=" + t,
              "-p", "postgresql.user=storebench", "-p", "postgresql.dbname=storebench"};
    case Protocol::kMariadb:
      return {"-p", "mariadb.host=127.0.0.1", "-p", "mariadb.port=" + p, "-p", "mariadb.timeout_ms=" + t,
              "-p", "mariadb.user=storebench", "-p", "mariadb.password=x", "-p", "mariadb.database=storebench"};
  }
  return {};
}

struct Case {
  Hostility mode;
  test_util::ProcessResult run;
  int hostile_replies = 0;
  int connections = 0;
};

// Runs `b` against a hostile server in each mode, side by side.
std::vector<Case> RunAllModes(const Binding& b, Phase phase) {
  std::vector<Case> cases;
  for (Hostility m : kModes) cases.push_back({m, {}, 0, 0});
  std::vector<std::thread> threads;
  for (Case& c : cases) {
    threads.emplace_back([&b, &c, phase] {
      HostileServer server(b.protocol, c.mode, phase, /*lifetime_ms=*/40000);
      if (server.port() == 0) return;
      test_util::TempDir dir("storebench-hostile");
      std::vector<std::string> args = {"run", b.binding, "-P",
                                       std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada",
                                       "-p", "recordcount=1000", "-p", "operationcount=100000000",
                                       "-p", "maxexecutiontime=" + std::to_string(kMaxExecutionS)};
      for (auto& a : StoreArgs(b, server.port())) args.push_back(a);
      c.run = RunMeasured(args, dir.path().string());
      c.hostile_replies = server.hostile_replies();
      c.connections = server.connections();
    });
  }
  for (auto& t : threads) t.join();
  return cases;
}

std::string Describe(const Binding& b, Phase phase, const Case& c) {
  std::ostringstream s;
  s << b.name << " / " << (phase == Phase::kOpen ? "open" : "operations") << " / " << HostilityName(c.mode)
    << ": exit " << c.run.code << ", " << c.run.wall_ms << " ms, max RSS " << c.run.max_rss_kb / 1024 << " MiB, "
    << c.connections << " connections, " << c.hostile_replies << " hostile replies, " << FailedOps(c.run.out)
    << " failed operations";
  return s.str();
}

class HostileServerTest : public ::testing::TestWithParam<Binding> {};

// Hostile once the store is open: the run gets going, every failure is
// counted under its status, and it ends at maxexecutiontime.
TEST_P(HostileServerTest, OperationsFailCountedOnTimeInBoundedMemory) {
  const Binding& b = GetParam();
  STOREBENCH_NEED_BINDING(b.binding);
  const long baseline = BaselineRssKb();
  for (const Case& c : RunAllModes(b, Phase::kOperations)) {
    const std::string what = Describe(b, Phase::kOperations, c);
    std::printf("  %s\n", what.c_str());
    EXPECT_EQ(c.run.code, 0) << what << "\n" << c.run.err;
    EXPECT_GT(c.hostile_replies, 0) << what;
    // An absurd length ends its connection: rejected at once, or waited
    // for until the timeout. A client that takes it for a reply and reads
    // on is out of step with its server.
    if (c.mode == Hostility::kHugeLength) {
      EXPECT_LE(c.hostile_replies, c.connections) << what;
    }
    EXPECT_GT(FailedOps(c.run.out), 0) << what << "\n" << c.run.out;
    // Every reply to an operation was hostile: none may pass for a success.
    EXPECT_EQ(OkOps(c.run.out), 0) << what << "\n" << c.run.out;
    EXPECT_LE(c.run.wall_ms, kMaxExecutionS * 1000 + kTimeoutMs + kSlackMs) << what;
    EXPECT_LE(c.run.max_rss_kb, baseline + kRssHeadroomKb) << what << " (baseline " << baseline / 1024 << " MiB)";
  }
}

// Hostile from the first byte: the open fails with one line naming the
// store, exit 2, within the timeout.
TEST_P(HostileServerTest, OpenFailsWithOneLineOnTimeInBoundedMemory) {
  const Binding& b = GetParam();
  STOREBENCH_NEED_BINDING(b.binding);
  const long baseline = BaselineRssKb();
  for (const Case& c : RunAllModes(b, Phase::kOpen)) {
    const std::string what = Describe(b, Phase::kOpen, c);
    std::printf("  %s: %s", what.c_str(), c.run.err.c_str());
    EXPECT_EQ(c.run.code, 2) << what << "\n" << c.run.err << c.run.out;
    EXPECT_GT(c.hostile_replies, 0) << what;
    std::string err = c.run.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    EXPECT_FALSE(err.empty()) << what;
    EXPECT_EQ(err.find('\n'), std::string::npos) << what << "\n" << c.run.err;
    // The message may quote the server, but not its control bytes.
    EXPECT_TRUE(std::none_of(err.begin(), err.end(), [](char ch) { return ch >= 0 && ch < 0x20; }))
        << what << "\n" << c.run.err;
    EXPECT_NE(err.find(b.binding), std::string::npos) << what << "\n" << c.run.err;
    EXPECT_LE(c.run.wall_ms, kTimeoutMs + kSlackMs) << what;
    EXPECT_LE(c.run.max_rss_kb, baseline + kRssHeadroomKb) << what << " (baseline " << baseline / 1024 << " MiB)";
  }
}

INSTANTIATE_TEST_SUITE_P(Bindings, HostileServerTest, ::testing::ValuesIn(kBindings),
                         [](const ::testing::TestParamInfo<Binding>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace storebench
