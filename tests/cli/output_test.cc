// Result files as a user points them: at /dev/stdout, /dev/null, a device, a
// FIFO with a reader, a symlink, a read-only folder, a missing folder. The
// target is never damaged, and a path that cannot take the result is refused
// before the run starts.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace {

namespace fs = std::filesystem;
using storebench::test_util::ProcessOptions;
using storebench::test_util::ProcessResult;
using storebench::test_util::Slurp;

class OutputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // 0755 so that a run as nobody can reach it (the read-only folder test).
    chmod(dir_.path().c_str(), 0755);
  }
  ProcessResult Run(std::vector<std::string> args, ProcessOptions o = {}) {
    o.cwd = dir_.path().string();
    return storebench::test_util::RunProcess(STOREBENCH_BINARY, args, o);
  }
  // A small run of the in-process memory store with extra arguments.
  std::vector<std::string> Small(std::vector<std::string> extra) {
    std::vector<std::string> a = {"run", "memory", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada",
                                  "-p", "recordcount=100", "-p", "operationcount=1000"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  // Files whose names say they are a writer's temporary files.
  std::vector<std::string> Leftovers(const fs::path& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string n = e.path().filename().string();
      if (n.find(".tmp") != std::string::npos) out.push_back(n);
    }
    return out;
  }
  // A one-line error, exit 2, and nothing run.
  void ExpectRefusedBeforeRunning(const ProcessResult& r, const std::string& needle) {
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("storebench: running"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }

  storebench::test_util::TempDir dir_{"storebench-output"};
};

TEST_F(OutputTest, JsonToDevStdoutFollowsTheTextAndLeavesDevStdoutALink) {
  struct stat before {};
  ASSERT_EQ(lstat("/dev/stdout", &before), 0);
  ProcessResult r = Run(Small({"--json", "/dev/stdout"}));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::size_t json_at = r.out.find("{");
  ASSERT_NE(json_at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[OVERALL], Throughput(ops/sec), "), std::string::npos) << r.out;
  EXPECT_LT(r.out.find("[OVERALL]"), json_at) << "the text summary comes first, then the JSON: " << r.out;
  const auto j = nlohmann::json::parse(r.out.substr(json_at));
  EXPECT_EQ(j["phases"][0]["operations"].get<long long>(), 1000);
  struct stat after {};
  ASSERT_EQ(lstat("/dev/stdout", &after), 0);
  EXPECT_EQ(S_ISLNK(after.st_mode), S_ISLNK(before.st_mode)) << "/dev/stdout was replaced";
  EXPECT_EQ(after.st_ino, before.st_ino);
}

TEST_F(OutputTest, JsonToDevNullAndToAMadeDeviceLeavesThemDevices) {
  ProcessResult r = Run(Small({"--json", "/dev/null", "--hdr-log", "/dev/null"}));
  ASSERT_EQ(r.code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(lstat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
  const fs::path dev = dir_.path() / "null-like";
  if (mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod needs root";
  r = Run(Small({"--json", dev.string()}));
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_EQ(lstat(dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced";
  EXPECT_TRUE(Leftovers(dir_.path()).empty());
}

TEST_F(OutputTest, FifoReadersGetTheJsonAndTheHdrLog) {
  const fs::path json = dir_.path() / "json.fifo", log = dir_.path() / "log.fifo";
  ASSERT_EQ(mkfifo(json.c_str(), 0600), 0);
  ASSERT_EQ(mkfifo(log.c_str(), 0600), 0);
  std::string got_json, got_log;
  auto reader = [](const fs::path& p, std::string* out) {
    return std::thread([p, out] {
      std::ifstream f(p);
      std::stringstream ss;
      ss << f.rdbuf();
      *out = ss.str();
    });
  };
  std::thread tj = reader(json, &got_json), tl = reader(log, &got_log);
  ProcessResult r = Run(Small({"--json", json.string(), "--hdr-log", log.string()}));
  tj.join();
  tl.join();
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(got_json)["phases"][0]["operations"].get<long long>(), 1000);
  EXPECT_EQ(got_log.rfind("#[Histogram log format version 1.3]", 0), 0u) << got_log;
  EXPECT_NE(got_log.find("Tag=READ,"), std::string::npos) << got_log;
  struct stat st {};
  ASSERT_EQ(lstat(json.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(OutputTest, SymlinkStaysALinkAndItsTargetGetsTheResult) {
  fs::create_directory(dir_.path() / "results");
  std::ofstream(dir_.path() / "results" / "latest.json") << "old";
  fs::create_symlink("results/latest.json", dir_.path() / "r.json");
  ProcessResult r = Run(Small({"--json", "r.json"}));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir_.path() / "r.json"));
  const auto j = nlohmann::json::parse(Slurp((dir_.path() / "results" / "latest.json").string()));
  EXPECT_EQ(j["phases"][0]["operations"].get<long long>(), 1000);
  EXPECT_TRUE(Leftovers(dir_.path()).empty());
}

TEST_F(OutputTest, MissingFolderAndFolderAreRefusedBeforeTheRun) {
  ExpectRefusedBeforeRunning(Run(Small({"--json", "no/such/r.json"})), "folder '");
  ExpectRefusedBeforeRunning(Run(Small({"--json", dir_.path().string()})), "it is a folder");
  ExpectRefusedBeforeRunning(Run(Small({"--hdr-log", "no/r.hlog"})), "cannot write the HdrHistogram log 'no/r.hlog'");
  ExpectRefusedBeforeRunning(Run(Small({"-p", "exporter=site.ycsb.measurements.exporter.TextMeasurementsExporter",
                                        "-p", "exportfile=no/r.txt"})),
                             "cannot write the text result 'no/r.txt'");
  // The other commands that write files refuse the same way.
  ProcessResult m = Run({"merge", "nothing.json", "-o", "no/total.json"});
  EXPECT_EQ(m.code, 2) << m.err;
  ProcessResult f = Run({"fs", dir_.path().string(), "--size", "1M", "--json", "no/fs.json"});
  ExpectRefusedBeforeRunning(
      f, "cannot write the JSON result 'no/fs.json': folder '" + (dir_.path() / "no").string() + "' does not exist");
  ProcessResult rep = Run({"report", "nothing.json", "-o", "no/report.html"});
  ExpectRefusedBeforeRunning(rep, "cannot write the report 'no/report.html'");
}

TEST_F(OutputTest, ReadOnlyFolderIsRefusedBeforeTheRun) {
  const fs::path ro = dir_.path() / "ro";
  fs::create_directory(ro);
  chmod(ro.c_str(), 0555);
  ProcessOptions o;
  o.as_nobody = true;
  ProcessResult probe = Run({"--help"}, o);
  if (probe.code != 0) GTEST_SKIP() << "the binary cannot run as nobody here (exit " << probe.code << ")";
  ProcessResult r = Run(Small({"--json", (ro / "r.json").string()}), o);
  ExpectRefusedBeforeRunning(r, "cannot create a file in folder '" + ro.string() + "': Permission denied");
  EXPECT_TRUE(fs::is_empty(ro));
}

TEST_F(OutputTest, CtrlCLeavesTheResultsAndNoTemporaryFile) {
  ProcessOptions o;
  o.signal_after_stderr = "storebench: running ";
  o.signal_after_ms = 300;
  ProcessResult r = Run({"run", "memory", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada", "-p",
                         "recordcount=100", "-p", "operationcount=0", "-p", "maxexecutiontime=20", "--json", "r.json",
                         "--hdr-log", "r.hlog"},
                        o);
  EXPECT_EQ(r.code, 130) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(Slurp((dir_.path() / "r.json").string()))["phases"][0]["interrupted"]);
  EXPECT_NE(Slurp((dir_.path() / "r.hlog").string()).find("Tag=READ,"), std::string::npos);
  EXPECT_TRUE(Leftovers(dir_.path()).empty());
}

// A second Ctrl-C ends the process at once: the HdrHistogram log's temporary
// file, open since the run began, is removed on the way out.
TEST_F(OutputTest, SecondCtrlCLeavesNoTemporaryFile) {
  const std::string err = (dir_.path() / "stderr").string();
  const pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir_.path().c_str()) != 0 || !freopen("stdout", "w", stdout) || !freopen("stderr", "w", stderr)) _exit(98);
    const std::string wl = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada";
    execl(STOREBENCH_BINARY, STOREBENCH_BINARY, "run", "null", "-P", wl.c_str(), "-p", "operationcount=0", "-p",
          "maxexecutiontime=20", "--hdr-log", "r.hlog", static_cast<char*>(nullptr));
    _exit(97);
  }
  int status = 0;
  ASSERT_TRUE(storebench::test_util::WaitForText(err, "storebench: running ", [&] { return waitpid(pid, &status, WNOHANG) == pid; }));
  EXPECT_EQ(Leftovers(dir_.path()).size(), 1u) << "the log is written to a temporary file while the run goes";
  kill(pid, SIGINT);
  usleep(1000);
  kill(pid, SIGINT);
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status) || WEXITSTATUS(status) == 130);
  EXPECT_TRUE(Leftovers(dir_.path()).empty());
}

}  // namespace
