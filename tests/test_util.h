// Helpers shared by the tests.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/properties.h"
#include "db/binding.h"
#include "db/registry.h"
#include "measure/result.h"

namespace storebench::test_util {

// A file with the given content under /tmp, removed when this goes away.
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/storebench_test_XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The whole content of a file ("" when it cannot be read).
inline std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The message of the ConfigError that `f()` throws; "(no error)" when it throws none.
template <class F>
std::string ConfigErrorOf(F&& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// What a finished process left: its exit code (128 + the signal when a
// signal ended it) and what it wrote.
struct ProcessResult {
  int code = -1;
  std::string out, err;
  long wall_ms = 0;     // from start to exit
  long max_rss_kb = 0;  // the program's peak resident set (wait4)
};

// How RunProcess runs a program.
struct ProcessOptions {
  std::string cwd;                                        // where it runs; its stdout and stderr files go there
  std::vector<std::pair<std::string, std::string>> env;  // set in the child (overriding)
  int signal_after_ms = 0;                                // > 0: send signal_number after this long
  int signal_number = SIGINT;
  // Non-empty: the signal is sent signal_after_ms after the program's stderr
  // first holds this text (not counting from the start), so that a slow
  // start on a loaded machine does not move where the signal lands.
  std::string signal_after_stderr;
  // The signal is already pending, blocked, when the program starts (as a
  // Ctrl-C that a parent forwarded before the program's handler was set up).
  bool signal_pending_at_start = false;
  // Run as user and group 65534 (nobody) when the tests run as root, so that
  // file permissions apply to it (root passes every permission check).
  bool as_nobody = false;
  // > 0: the program is killed (SIGKILL; code 137) if it still runs after this long.
  int kill_after_s = 0;
};

// Polls the file at `path` every 10 ms until it holds `text`; gives up when
// `give_up()` returns true or after a minute. Whether the text came.
inline bool WaitForText(const std::string& path, std::string_view text, const std::function<bool()>& give_up) {
  for (int i = 0; i < 6000 && !give_up(); ++i) {
    if (Slurp(path).find(text) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// Runs `program` with `args` in options.cwd and waits for it; stdout and
// stderr go to the files "stdout" and "stderr" there, and are read back.
inline ProcessResult RunProcess(const std::string& program, const std::vector<std::string>& args,
                                const ProcessOptions& options) {
  const std::string out = options.cwd + "/stdout", err = options.cwd + "/stderr";
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(options.cwd.c_str()) != 0) _exit(99);
    for (const auto& [name, value] : options.env) setenv(name.c_str(), value.c_str(), 1);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(98);
    if (options.as_nobody && geteuid() == 0 && (setgroups(0, nullptr) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) {
      _exit(96);
    }
    if (options.signal_pending_at_start) {
      sigset_t s;
      sigemptyset(&s);
      sigaddset(&s, options.signal_number);
      sigprocmask(SIG_BLOCK, &s, nullptr);
      raise(options.signal_number);
    }
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(program.c_str(), cargv.data());
    _exit(97);
  }
  int status = 0;
  rusage usage{};
  bool ended = false;
  auto poll_ended = [&] { return ended = ended || wait4(pid, &status, WNOHANG, &usage) == pid; };
  if (!options.signal_after_stderr.empty()) {
    // Signals anyway after a minute without the text; not when the program ended.
    WaitForText(err, options.signal_after_stderr, poll_ended);
  }
  if (!ended && (options.signal_after_ms > 0 || !options.signal_after_stderr.empty())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options.signal_after_ms));
    kill(pid, options.signal_number);
  }
  if (!ended && options.kill_after_s > 0) {
    const auto deadline = start + std::chrono::seconds(options.kill_after_s);
    while (!poll_ended() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!ended) kill(pid, SIGKILL);
  }
  if (!ended) wait4(pid, &status, 0, &usage);
  ProcessResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.wall_ms = static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
  r.max_rss_kb = usage.ru_maxrss;
  r.out = Slurp(out);
  r.err = Slurp(err);
  return r;
}

// The result of the operation named `name` ("READ", "READ-FAILED", ...), or null.
inline const OpResult* FindOp(const PhaseResult& r, const std::string& name) {
  for (const auto& op : r.ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

// `property=value` pairs, in order: a server's settings.
using Settings = std::vector<std::pair<std::string, std::string>>;

// The `property=value` items of a space-separated line, as the scripts in
// scripts/servers/ print them on start ("redis.host=127.0.0.1 redis.port=40123").
inline Settings ParseSettings(std::string_view line) {
  Settings out;
  std::istringstream in{std::string(line)};
  std::string item;
  while (in >> item) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

// The value of `key` in `settings`, or "" when absent.
inline std::string SettingOf(const Settings& settings, const std::string& key) {
  for (const auto& [k, v] : settings) {
    if (k == key) return v;
  }
  return "";
}

// The settings as properties, for opening a binding directly.
inline Properties PropsOf(const Settings& settings) {
  Properties p;
  for (const auto& [k, v] : settings) p.Set(k, v);
  return p;
}

// Owned name/value pairs, in order: a test's record fields, or extra properties.
using Owned = std::vector<std::pair<std::string, std::string>>;

// The properties of a binding test against a server: the server's
// settings, then table=`table`, then `extra` (later ones win).
inline Properties ServerProps(const Settings& server, const std::string& table, const Owned& extra = {}) {
  Properties p = PropsOf(server);
  p.Set("table", table);
  for (const auto& [k, v] : extra) p.Set(k, v);
  return p;
}

// Views of rec's fields (valid while rec lives), for Insert/Update.
inline std::vector<Field> FieldViews(const Owned& rec) {
  std::vector<Field> v;
  for (const auto& [n, val] : rec) v.push_back({n, val});
  return v;
}

// Record r of `rs` as name -> value (field order not compared).
inline std::map<std::string, std::string> FieldMap(const RecordSet& rs, std::size_t r) {
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < rs.field_count(r); ++i) out[std::string(rs.field(r, i).name)] = rs.field(r, i).value;
  return out;
}

// A TCP socket bound to a free port on 127.0.0.1 (port 0), its port in
// *port; the caller listens on it or closes it. -1 on failure.
inline int BindLoopback(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  EXPECT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

// A loopback TCP port nothing listens on (bound to port 0, then released).
inline int UnusedLoopbackPort() {
  int port = 0;
  close(BindLoopback(&port));
  return port;
}

// The server a test of a network binding talks to, as started by the test
// command (scripts/test.sh via scripts/servers/): the environment variable
// True when this build has the binding `name` (each is a build option,
// STOREBENCH_WITH_<NAME>); tests of one left out skip with
// STOREBENCH_NEED_BINDING.
inline bool BindingBuilt(std::string_view name) {
  for (const BindingInfo* b : AllBindings()) {
    if (b->name == name) return true;
  }
  return false;
}
#define STOREBENCH_NEED_BINDING(name)                                                     \
  do {                                                                                    \
    if (!::storebench::test_util::BindingBuilt(name)) {                                  \
      GTEST_SKIP() << "binding " << (name) << " is not in this build (STOREBENCH_WITH_*)"; \
    }                                                                                     \
  } while (0)

// STOREBENCH_TEST_SERVER_<NAME> (NAME upper-cased, e.g. REDIS, REDIS_CLUSTER,
// POSTGRESQL) holds space-separated `property=value` settings such as
// "redis.host=127.0.0.1 redis.port=40123". nullopt when it is not set.
inline std::optional<Settings> ServerSettings(const std::string& name) {
  std::string var = "STOREBENCH_TEST_SERVER_";
  for (char c : name) var += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const char* v = std::getenv(var.c_str());
  if (v == nullptr) return std::nullopt;
  return ParseSettings(v);
}

// True when the test command started every server (STOREBENCH_REQUIRE_SERVERS=1):
// a missing server is then a failure, not a skip; but for a server `name`
// the test command could not start (STOREBENCH_SERVERS_NOT_STARTED, space-
// separated names, e.g. "aerospike" where there is no asd).
inline bool ServersRequired(std::string_view name = {}) {
  const char* v = std::getenv("STOREBENCH_REQUIRE_SERVERS");
  if (v == nullptr || std::string(v) != "1") return false;
  const char* absent = std::getenv("STOREBENCH_SERVERS_NOT_STARTED");
  if (absent == nullptr || name.empty()) return true;
  std::istringstream in{std::string(absent)};
  std::string item;
  while (in >> item) {
    if (item == name) return false;
  }
  return true;
}

// In a test body: sets `out` (a vector of property pairs) to the settings
// of server `name`, or skips the test (fails it when servers are required).
#define STOREBENCH_NEED_SERVER(name, out)                                                         \
  do {                                                                                           \
    auto settings_ = ::storebench::test_util::ServerSettings(name);                              \
    if (!settings_) {                                                                            \
      if (::storebench::test_util::ServersRequired(name)) FAIL() << "no server for " << (name);  \
      GTEST_SKIP() << "no server for " << (name) << ": run scripts/test.sh, or start one with "  \
                   << "scripts/servers/" << (name) << ".sh and set STOREBENCH_TEST_SERVER_*";    \
    }                                                                                            \
    (out) = *settings_;                                                                          \
  } while (0)

// A table name no other test (or earlier run) uses, for tests that share a server.
inline std::string UniqueTable(const std::string& prefix = "t") {
  static int counter = 0;
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return prefix + std::to_string(getpid()) + "_" + std::to_string(now % 1000000007) + "_" +
         std::to_string(counter++);
}

// A fresh directory under the system's temporary directory, removed with
// everything in it when this goes away.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "storebench-test") {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr) << tmpl;
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The `-p` arguments that point a CLI run of `binding` at a store: NAME.dir
// under `dir` for a binding that keeps files; for a network binding, the
// server's settings and a table no other test uses (the server is shared).
inline std::vector<std::string> StoreArgs(const BindingInfo& binding, const std::filesystem::path& dir,
                                          const Settings& server) {
  std::vector<std::string> out;
  if (binding.uses_dir) out.insert(out.end(), {"-p", binding.name + ".dir=" + (dir / "db").string()});
  if (binding.server) {
    for (const auto& [k, v] : server) out.insert(out.end(), {"-p", k + "=" + v});
    out.insert(out.end(), {"-p", "table=" + UniqueTable()});
  }
  return out;
}

// What `binding` can do, asked of a store opened with `server`'s settings
// (and, for one that keeps files, in a scratch directory under `dir`,
// removed afterwards).
inline Capabilities ProbeCapabilities(const BindingInfo& binding, const std::filesystem::path& dir,
                                      const Settings& server) {
  Properties p;
  const std::filesystem::path probe = dir / "probe";
  if (binding.uses_dir) p.Set(binding.name + ".dir", probe.string());
  for (const auto& [k, v] : server) p.Set(k, v);
  Capabilities c = binding.open(p, OpenContext{})->capabilities();
  std::error_code ec;
  std::filesystem::remove_all(probe, ec);
  return c;
}

// A server-side count once it has settled: reads `read()` every 50 ms until
// it has returned the same value `same_reads` times in a row after the
// first (or `max_reads` reads have passed), and returns the last value. For
// counters a server updates a moment after the event (a closed connection).
template <typename Read>
auto SettledValue(Read read, int same_reads, int max_reads) {
  auto value = read();
  for (int same = 0, i = 0; same < same_reads && i < max_reads; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto now = read();
    same = now == value ? same + 1 : 0;
    value = now;
  }
  return value;
}

#ifdef STOREBENCH_BINARY
// YCSB's workload A through the CLI as a user runs it: `storebench load` of
// `records` records, then `run` of `operations` operations on 4 threads,
// both with dataintegrity=true, with the server's settings, table=`table`
// and `extra` properties: both exit 0, every record is inserted, and the
// run reads and updates with no integrity failure and no failed operation.
// (In a temporary folder: the CLI's stdout and stderr files go there.)
inline void ExpectWorkloadAVerified(const std::string& binding, const Settings& server, const std::string& table,
                                    const Owned& extra, int records, int operations) {
  TempDir tmp{"storebench-workloada"};
  std::vector<std::string> common = {"-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada", "-p",
                                     "table=" + table, "-p", "recordcount=" + std::to_string(records), "-p",
                                     "dataintegrity=true", "-threads", "4"};
  for (const auto& [k, v] : server) common.insert(common.end(), {"-p", k + "=" + v});
  for (const auto& [k, v] : extra) common.insert(common.end(), {"-p", k + "=" + v});
  ProcessOptions o;
  o.cwd = tmp.path().string();
  std::vector<std::string> load = {"load", binding};
  load.insert(load.end(), common.begin(), common.end());
  const ProcessResult l = RunProcess(STOREBENCH_BINARY, load, o);
  ASSERT_EQ(l.code, 0) << l.out << l.err;
  EXPECT_NE(l.out.find("[INSERT], Return=OK, " + std::to_string(records) + "\n"), std::string::npos) << l.out;
  std::vector<std::string> run = {"run", binding, "-p", "operationcount=" + std::to_string(operations)};
  run.insert(run.end(), common.begin(), common.end());
  const ProcessResult r = RunProcess(STOREBENCH_BINARY, run, o);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("IntegrityFailures"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[READ], Return=OK"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[UPDATE], Return=OK"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Return=ERROR"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Return=NOT_FOUND"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("integrity"), std::string::npos) << r.err;
}
#endif

}  // namespace storebench::test_util
