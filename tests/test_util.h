// Helpers shared by the tests.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <chrono>
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

}  // namespace storebench::test_util
