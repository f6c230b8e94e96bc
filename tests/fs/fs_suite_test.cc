// The `storebench fs` suite: every phase on a small local directory, data
// verification that catches corruption, ENOSPC with partial results, the
// table, the JSON result and the command's errors.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "vfs/backend.h"
#include "vfs/gluster.h"
#include "fs/suite.h"
#include "report/json_report.h"
#include "test_util.h"

namespace storebench::fs_suite {
namespace {

namespace fs = std::filesystem;

class FsSuiteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "storebench-fs-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  static FsOptions Small() {
    FsOptions o;
    o.size = 1 << 20;
    o.chunk = 8192;
    o.files = 64;
    o.file_size = 300;
    o.threads = 2;
    o.seekers = 3;
    o.seeks = 500;
    o.stream_count = 2;
    o.stream_size = (1 << 20) + 4096;  // a partial last piece
    o.groups = {"chr", "block", "seeks", "files", "stream"};
    return o;
  }
  static const PhaseResult* Phase(const FsResult& r, const std::string& name) {
    for (const auto& p : r.phases) {
      if (p.phase == name) return &p;
    }
    return nullptr;
  }
  std::string root_;
};

const std::vector<std::string> kAllPhases = {
    "seq-write-chr", "seq-write-block", "rewrite",    "seq-read-chr", "seq-read-block",
    "random-seeks",  "seq-create",      "seq-stat",   "seq-delete",   "rand-create",
    "rand-stat",     "rand-delete",     "stream-write", "stream-read"};

TEST_F(FsSuiteTest, EveryPhaseRunsAndEveryByteReadBackMatches) {
  PosixBackend b(root_);
  FsOptions o = Small();
  FsResult r = RunSuite(&b, o);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.integrity_failures, 0u);
  ASSERT_EQ(r.phases.size(), kAllPhases.size());
  for (std::size_t i = 0; i < kAllPhases.size(); ++i) {
    const PhaseResult& p = r.phases[i];
    EXPECT_EQ(p.phase, kAllPhases[i]);
    EXPECT_EQ(p.stop_reason, "complete") << p.phase;
    EXPECT_EQ(p.integrity_failures, 0u) << p.phase;
    ASSERT_FALSE(p.ops.empty()) << p.phase;
    EXPECT_GT(p.ops[0].service.count(), 0u) << p.phase;
    EXPECT_GT(p.throughput_ops_per_s, 0) << p.phase;
    EXPECT_GE(r.extras[i].cpu_percent, 0) << p.phase;
  }
  // Counts: 1 MiB in 8 KiB chunks; 4096-byte groups for the per-char phases.
  EXPECT_EQ(Phase(r, "seq-write-block")->ops[0].service.count(), 128u);
  EXPECT_EQ(Phase(r, "seq-write-chr")->ops[0].service.count(), 256u);
  EXPECT_EQ(Phase(r, "rewrite")->ops[0].service.count(), 128u);
  EXPECT_EQ(Phase(r, "random-seeks")->ops[0].name, "SEEK");
  EXPECT_EQ(Phase(r, "random-seeks")->ops[0].service.count(), 500u);
  EXPECT_EQ(Phase(r, "random-seeks")->threads, 3);
  for (const char* f : {"seq-create", "seq-stat", "seq-delete", "rand-create", "rand-stat", "rand-delete"}) {
    EXPECT_EQ(Phase(r, f)->ops[0].service.count(), 64u) << f;
    EXPECT_EQ(Phase(r, f)->threads, 2) << f;
  }
  EXPECT_EQ(Phase(r, "stream-write")->ops[0].service.count(), 4u);  // 2 files x (1 MiB + 4 KiB)
  EXPECT_EQ(r.extras[12].file_mb_per_s.size(), 2u);
  EXPECT_EQ(r.extras[4].bytes, 1u << 20);
  // Read back: chr + rewrite + block reads + seeks + file contents + stream.
  EXPECT_GE(r.verified_bytes, 3u * (1 << 20) + 500u * 8192 + 128u * 300 + 2u * o.stream_size);
  EXPECT_TRUE(fs::is_empty(root_)) << "the work directory is removed";
}

TEST_F(FsSuiteTest, ChrSyscallModeWritesAndReadsOneByteAtATime) {
  PosixBackend posix(root_);
  struct Counting : FsBackendWrapper {
    using FsBackendWrapper::FsBackendWrapper;
    ssize_t Write(int h, const void* b, std::size_t n) override {
      if (n != 1) ++wide;
      return FsBackendWrapper::Write(h, b, n);
    }
    int wide = 0;
  } b(&posix);
  FsOptions o = Small();
  o.size = 64 << 10;
  o.groups = {"chr"};
  o.chr_syscall = true;
  FsResult r = RunSuite(&b, o);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_EQ(r.integrity_failures, 0u);
  EXPECT_EQ(r.verified_bytes, 64u << 10);
  EXPECT_EQ(b.wide, 0) << "every write is one byte";
}

TEST_F(FsSuiteTest, PatternDependsOnIndexAndGeneration) {
  Pattern p(1), q(2);
  std::vector<char> a(8192), b(8192), c(8192), d(8192);
  p.Fill(5, 0, a.data(), a.size());
  p.Fill(5, 0, b.data(), b.size());
  EXPECT_EQ(a, b);
  p.Fill(6, 0, c.data(), c.size());
  EXPECT_NE(a, c);
  p.Fill(5, 1, c.data(), c.size());
  EXPECT_NE(a, c);
  q.Fill(5, 0, d.data(), d.size());
  EXPECT_NE(a, d);
}

// Flips one byte of every `every`-th read of the data file (or of any file).
class CorruptingBackend : public FsBackendWrapper {
 public:
  CorruptingBackend(FsBackend* t, int every) : FsBackendWrapper(t), every_(every) {}
  ssize_t Read(int h, void* buf, std::size_t n) override { return Flip(FsBackendWrapper::Read(h, buf, n), buf); }
  ssize_t PRead(int h, void* buf, std::size_t n, off_t off) override {
    return Flip(FsBackendWrapper::PRead(h, buf, n, off), buf);
  }

 private:
  ssize_t Flip(ssize_t r, void* buf) {
    if (r > 0 && ++reads_ % every_ == 0) static_cast<char*>(buf)[r / 2] ^= 0x20;
    return r;
  }
  int every_;
  std::atomic<int> reads_{0};
};

TEST_F(FsSuiteTest, CorruptedReadsAreCountedAsIntegrityFailuresOfTheirPhase) {
  PosixBackend posix(root_);
  CorruptingBackend b(&posix, 3);
  FsResult r = RunSuite(&b, Small());
  EXPECT_EQ(r.error, "") << "a mismatch does not stop the suite";
  EXPECT_EQ(r.phases.size(), kAllPhases.size());
  EXPECT_GT(r.integrity_failures, 0u);
  for (const char* phase : {"rewrite", "seq-read-chr", "seq-read-block", "random-seeks", "seq-stat", "rand-stat",
                            "stream-read"}) {
    const PhaseResult* p = Phase(r, phase);
    ASSERT_NE(p, nullptr);
    EXPECT_GT(p->integrity_failures, 0u) << phase;
    ASSERT_FALSE(p->notes.empty()) << phase;
    EXPECT_NE(p->notes[0].find("verification failed"), std::string::npos) << p->notes[0];
  }
  EXPECT_EQ(Phase(r, "seq-write-block")->integrity_failures, 0u);
}

// Writes fail with ENOSPC once `budget` bytes have been written.
class FullDiskBackend : public FsBackendWrapper {
 public:
  FullDiskBackend(FsBackend* t, std::int64_t budget) : FsBackendWrapper(t), budget_(budget) {}
  ssize_t Write(int h, const void* buf, std::size_t n) override {
    if ((budget_ -= static_cast<std::int64_t>(n)) < 0) return -ENOSPC;
    return FsBackendWrapper::Write(h, buf, n);
  }
  ssize_t PWrite(int h, const void* buf, std::size_t n, off_t off) override {
    if ((budget_ -= static_cast<std::int64_t>(n)) < 0) return -ENOSPC;
    return FsBackendWrapper::PWrite(h, buf, n, off);
  }

 private:
  std::atomic<std::int64_t> budget_;
};

TEST_F(FsSuiteTest, EnospcStopsTheSuiteKeepingThePhasesDoneAndThePartialOne) {
  PosixBackend posix(root_);
  // Enough for the per-char and block writes, not for the rewrite.
  FullDiskBackend b(&posix, 2 * (1 << 20) + 10 * 8192);
  FsResult r = RunSuite(&b, Small());
  EXPECT_TRUE(r.out_of_space);
  EXPECT_NE(r.error.find("rewrite"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("No space left"), std::string::npos) << r.error;
  ASSERT_EQ(r.phases.size(), 3u);
  EXPECT_EQ(r.phases[0].stop_reason, "complete");
  EXPECT_EQ(r.phases[1].stop_reason, "complete");
  EXPECT_EQ(r.phases[2].phase, "rewrite");
  EXPECT_EQ(r.phases[2].stop_reason, "ENOSPC");
  EXPECT_EQ(r.phases[2].ops[0].service.count(), 10u) << "the rewrites done before the disk filled";
  EXPECT_TRUE(fs::is_empty(root_)) << "cleaned up after the error";
}

TEST_F(FsSuiteTest, BadOptionsAreConfigErrors) {
  PosixBackend b(root_);
  FsOptions o = Small();
  o.size = 100;  // less than one chunk
  EXPECT_THROW(RunSuite(&b, o), ConfigError);
  o = Small();
  o.chunk = 2 << 20;
  EXPECT_THROW(RunSuite(&b, o), ConfigError);
  o = Small();
  o.groups = {"seeks"};
  EXPECT_THROW(RunSuite(&b, o), ConfigError);
  o = Small();
  o.stream_count = 0;
  EXPECT_THROW(RunSuite(&b, o), ConfigError);
}

TEST_F(FsSuiteTest, TableIsShapedLikeBonnies) {
  PosixBackend b(root_);
  FsOptions o = Small();
  FsResult r = RunSuite(&b, o);
  std::ostringstream out;
  WriteFsTable(r, o, "box", out);
  const std::string t = out.str();
  for (const char* want : {"------Sequential Output------ --Sequential Input- --Random-",
                           "-Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--",
                           "Machine        Size K/sec %CP K/sec %CP K/sec %CP K/sec %CP K/sec %CP  /sec %CP",
                           "box              1M", "------Sequential Create------ --------Random Create--------",
                           "files  /sec %CP", "64:300", "Latency max", "Latency p99", "stream-write: 2 x ",
                           "stream-read: 2 x ", "all matched"}) {
    EXPECT_NE(t.find(want), std::string::npos) << want << "\n" << t;
  }
  // The rate rows keep bonnie++'s 10-character columns.
  std::istringstream lines(t);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("box ", 0) == 0) {
      EXPECT_EQ(line.size(), 19u + 6 * 10) << line;
    }
  }
}

TEST(FsGlusterTest, MalformedSpecIsAConfigError) {
  EXPECT_THROW(vfs::OpenGlusterBackend("novolume"), ConfigError);
  EXPECT_THROW(vfs::OpenGlusterBackend("host:notaport:vol"), ConfigError);
  EXPECT_THROW(vfs::OpenGlusterBackend(":vol"), ConfigError);
}

// The command through the binary.
class FsCommandTest : public FsSuiteTest {
 protected:
  test_util::ProcessResult Run(const std::vector<std::string>& args) {
    test_util::ProcessOptions o;
    o.cwd = root_ + "/cwd";
    fs::create_directories(o.cwd);
    return test_util::RunProcess(STOREBENCH_BINARY, args, o);
  }
};

TEST_F(FsCommandTest, RunsPrintsTheTableAndWritesAJsonResultThatReadsBack) {
  fs::create_directories(root_ + "/target");
  auto r = Run({"fs", root_ + "/target", "--size", "512k", "--files", "32", "--seeks", "100", "--stream", "2x1M",
                "--json", root_ + "/fs.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("--Sequential Input-"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("less than twice the RAM"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stream-read...done"), std::string::npos) << r.err;
  std::ifstream in(root_ + "/fs.json");
  RunReport rep = ReadJson(in);
  EXPECT_EQ(rep.command, "fs");
  ASSERT_EQ(rep.phases.size(), kAllPhases.size());
  EXPECT_EQ(rep.phases[0].phase, "seq-write-chr");
  bool has_kb = false;
  for (const auto& [k, v] : rep.phases[1].store_stats) has_kb = has_kb || k == "fs.kb_per_s";
  EXPECT_TRUE(has_kb);
  EXPECT_TRUE(fs::is_empty(root_ + "/target"));
}

TEST_F(FsCommandTest, MissingDirectoryAndBadOptionsExitWithTwo) {
  auto r = Run({"fs", root_ + "/nope", "--size", "1M"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(root_ + "/nope"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  r = Run({"fs", root_, "--size", "lots"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--size"), std::string::npos) << r.err;
  r = Run({"fs", root_, "--sise", "1M"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown option"), std::string::npos) << r.err;
  r = Run({"fs", root_, "--phases", "block,disks"});
  EXPECT_EQ(r.code, 2);
  r = Run({"fs"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no directory given"), std::string::npos) << r.err;
  r = Run({"fs", "--help"});
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--stream NxSIZE"), std::string::npos);
}

TEST_F(FsCommandTest, TooLittleFreeSpaceIsAWarningBeforeTheSuiteStarts) {
  // 1000 TiB fits nowhere; `--phases seeks` alone is then refused (no data
  // file), so nothing is written after the warning.
  auto r = Run({"fs", root_, "--size", "1000T", "--phases", "seeks"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("warning: " + root_), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("expect ENOSPC"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("seeks phase needs a data file"), std::string::npos) << r.err;
  // What fits gives no warning.
  fs::create_directories(root_ + "/t");
  r = Run({"fs", root_ + "/t", "--phases", "stream", "--stream", "1x1M"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("expect ENOSPC"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace storebench::fs_suite
