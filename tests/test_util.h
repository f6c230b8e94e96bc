// Helpers shared by the tests.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <chrono>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

// What a finished process left: its exit code (128 + the signal when a
// signal ended it) and what it wrote.
struct ProcessResult {
  int code = -1;
  std::string out, err;
};

// How RunProcess runs a program.
struct ProcessOptions {
  std::string cwd;                                        // where it runs; its stdout and stderr files go there
  std::vector<std::pair<std::string, std::string>> env;  // set in the child (overriding)
  int signal_after_ms = 0;                                // > 0: send signal_number after this long
  int signal_number = SIGINT;
};

// Runs `program` with `args` in options.cwd and waits for it; stdout and
// stderr go to the files "stdout" and "stderr" there, and are read back.
inline ProcessResult RunProcess(const std::string& program, const std::vector<std::string>& args,
                                const ProcessOptions& options) {
  const std::string out = options.cwd + "/stdout", err = options.cwd + "/stderr";
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(options.cwd.c_str()) != 0) _exit(99);
    for (const auto& [name, value] : options.env) setenv(name.c_str(), value.c_str(), 1);
    if (!freopen(out.c_str(), "w", stdout) || !freopen(err.c_str(), "w", stderr)) _exit(98);
    std::vector<char*> cargv;
    for (auto& a : argv) cargv.push_back(a.data());
    cargv.push_back(nullptr);
    execv(program.c_str(), cargv.data());
    _exit(97);
  }
  if (options.signal_after_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options.signal_after_ms));
    kill(pid, options.signal_number);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ProcessResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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

// The server a test of a network binding talks to, as started by the test
// command (scripts/test.sh via scripts/servers/): the environment variable
// STOREBENCH_TEST_SERVER_<NAME> (NAME upper-cased, e.g. REDIS, REDIS_CLUSTER,
// POSTGRESQL) holds space-separated `property=value` settings such as
// "redis.host=127.0.0.1 redis.port=40123". nullopt when it is not set.
inline std::optional<std::vector<std::pair<std::string, std::string>>> ServerSettings(const std::string& name) {
  std::string var = "STOREBENCH_TEST_SERVER_";
  for (char c : name) var += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const char* v = std::getenv(var.c_str());
  if (v == nullptr) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(v);
  std::string item;
  while (in >> item) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
  }
  return out;
}

// True when the test command started every server (STOREBENCH_REQUIRE_SERVERS=1):
// a missing server is then a failure, not a skip.
inline bool ServersRequired() {
  const char* v = std::getenv("STOREBENCH_REQUIRE_SERVERS");
  return v != nullptr && std::string(v) == "1";
}

// In a test body: sets `out` (a vector of property pairs) to the settings
// of server `name`, or skips the test (fails it when servers are required).
#define STOREBENCH_NEED_SERVER(name, out)                                                         \
  do {                                                                                           \
    auto settings_ = ::storebench::test_util::ServerSettings(name);                              \
    if (!settings_) {                                                                            \
      if (::storebench::test_util::ServersRequired()) FAIL() << "no server for " << (name);      \
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

}  // namespace storebench::test_util
