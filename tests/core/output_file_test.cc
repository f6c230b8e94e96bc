// The output writer against every kind of thing a path can name: new paths,
// regular files, symlinks, hard links, devices, FIFOs, sockets, this
// process's descriptors, folders and missing folders.
#include "core/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using test_util::Slurp;
using test_util::TempDir;

// The names in `dir`, to show that no temporary file stayed.
std::vector<std::string> Names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

struct stat Lstat(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(lstat(p.c_str(), &st), 0) << p << ": " << std::strerror(errno);
  return st;
}

// Reads everything from fd until EOF, on a thread.
class Reader {
 public:
  explicit Reader(std::function<int()> open_fd)
      : t_([this, open_fd] {
          const int fd = open_fd();
          if (fd < 0) return;
          char buf[4096];
          ssize_t n;
          while ((n = read(fd, buf, sizeof buf)) > 0) got_.append(buf, static_cast<std::size_t>(n));
          close(fd);
        }) {}
  std::string Take() {
    t_.join();
    return got_;
  }

 private:
  std::string got_;
  std::thread t_;
};

TEST(OutputFileTest, NewFileIsWrittenWholeWithUmaskModeAndNothingElseLeft) {
  TempDir d;
  const fs::path p = d.path() / "r.json";
  const mode_t old = umask(027);
  WriteOutputFile(p.string(), "{}\n", "the JSON result");
  umask(old);
  EXPECT_EQ(Slurp(p.string()), "{}\n");
  EXPECT_EQ(Lstat(p).st_mode & 07777, 0640u);
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"r.json"});
  EXPECT_EQ(CheckOutputPath(p.string(), "x"), OutputKind::kAtomic);
}

TEST(OutputFileTest, RegularFileIsReplacedAndKeepsItsMode) {
  TempDir d;
  const fs::path p = d.path() / "r.json";
  std::ofstream(p) << "old content that is longer than the new";
  chmod(p.c_str(), 0604);
  const ino_t before = Lstat(p).st_ino;
  WriteOutputFile(p.string(), "new", "the JSON result");
  EXPECT_EQ(Slurp(p.string()), "new");
  EXPECT_EQ(Lstat(p).st_mode & 07777, 0604u);
  EXPECT_NE(Lstat(p).st_ino, before) << "replaced by a rename, not rewritten in place";
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"r.json"});
}

TEST(OutputFileTest, SymlinkStaysALinkAndItsTargetIsReplaced) {
  TempDir d;
  fs::create_directory(d.path() / "real");
  std::ofstream(d.path() / "real" / "target.json") << "old";
  // A chain: a -> b (relative) -> real/target.json (absolute).
  fs::create_symlink(d.path() / "real" / "target.json", d.path() / "b");
  fs::create_symlink("b", d.path() / "a");
  WriteOutputFile((d.path() / "a").string(), "new", "the JSON result");
  EXPECT_TRUE(S_ISLNK(Lstat(d.path() / "a").st_mode));
  EXPECT_TRUE(S_ISLNK(Lstat(d.path() / "b").st_mode));
  EXPECT_EQ(Slurp((d.path() / "real" / "target.json").string()), "new");
  EXPECT_EQ(Names(d.path() / "real"), std::vector<std::string>{"target.json"});
  // A dangling link: its target is made.
  fs::create_symlink("real/made.json", d.path() / "dangling");
  WriteOutputFile((d.path() / "dangling").string(), "made", "the JSON result");
  EXPECT_TRUE(S_ISLNK(Lstat(d.path() / "dangling").st_mode));
  EXPECT_EQ(Slurp((d.path() / "real" / "made.json").string()), "made");
}

TEST(OutputFileTest, HardLinkedFileIsWrittenInPlaceSoEveryNameSeesIt) {
  TempDir d;
  std::ofstream(d.path() / "one") << "old old old";
  fs::create_hard_link(d.path() / "one", d.path() / "two");
  EXPECT_EQ(CheckOutputPath((d.path() / "one").string(), "x"), OutputKind::kInPlace);
  WriteOutputFile((d.path() / "one").string(), "new", "the JSON result");
  EXPECT_EQ(Slurp((d.path() / "one").string()), "new");
  EXPECT_EQ(Slurp((d.path() / "two").string()), "new");
}

TEST(OutputFileTest, DevNullAndAMadeCharacterDeviceStayDevices) {
  WriteOutputFile("/dev/null", "into the void", "the JSON result");
  EXPECT_TRUE(S_ISCHR(Lstat("/dev/null").st_mode));
  TempDir d;
  const fs::path dev = d.path() / "null-like";
  if (mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) GTEST_SKIP() << "mknod: " << std::strerror(errno);
  EXPECT_EQ(CheckOutputPath(dev.string(), "x"), OutputKind::kInPlace);
  WriteOutputFile(dev.string(), "{}", "the JSON result");
  EXPECT_TRUE(S_ISCHR(Lstat(dev).st_mode));
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"null-like"});
}

TEST(OutputFileTest, FifoReaderGetsTheContentAndTheFifoStays) {
  TempDir d;
  const fs::path fifo = d.path() / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // Checking a FIFO must not open it (that would wait for a reader).
  EXPECT_EQ(CheckOutputPath(fifo.string(), "x"), OutputKind::kInPlace);
  Reader reader([&] { return open(fifo.c_str(), O_RDONLY); });
  WriteOutputFile(fifo.string(), "through the pipe", "the JSON result");
  EXPECT_EQ(reader.Take(), "through the pipe");
  EXPECT_TRUE(S_ISFIFO(Lstat(fifo).st_mode));
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"pipe"});
}

TEST(OutputFileTest, UnixSocketIsConnectedToAndStays) {
  TempDir d;
  const fs::path sock = d.path() / "sock";
  const int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  Reader reader([&] { return accept(listener, nullptr, nullptr); });
  WriteOutputFile(sock.string(), "over the socket", "the JSON result");
  EXPECT_EQ(reader.Take(), "over the socket");
  close(listener);
  EXPECT_TRUE(S_ISSOCK(Lstat(sock).st_mode));
}

TEST(OutputFileTest, OwnDescriptorsAreWrittenAtTheirOffset) {
  TempDir d;
  const fs::path p = d.path() / "redirected";
  const int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "printed first, ", 15), 15);
  for (const char* name : {"/proc/self/fd/", "/dev/fd/"}) {
    EXPECT_EQ(CheckOutputPath(std::string(name) + std::to_string(fd), "x"), OutputKind::kDescriptor);
  }
  WriteOutputFile("/proc/self/fd/" + std::to_string(fd), "then the JSON", "the JSON result");
  close(fd);
  EXPECT_EQ(Slurp(p.string()), "printed first, then the JSON");
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"redirected"});

  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  WriteOutputFile("/dev/fd/" + std::to_string(fds[1]), "piped", "the JSON result");
  close(fds[1]);
  char buf[16] = {};
  EXPECT_EQ(read(fds[0], buf, sizeof buf), 5);
  EXPECT_STREQ(buf, "piped");
  close(fds[0]);
  // A descriptor open for reading only, or not open at all, is refused.
  const int ro = open("/dev/null", O_RDONLY);
  EXPECT_THROW(CheckOutputPath("/dev/fd/" + std::to_string(ro), "x"), ConfigError);
  close(ro);
  EXPECT_THROW(CheckOutputPath("/dev/fd/999999", "x"), ConfigError);
  // /dev/stdout itself stays a link, however it is written.
  EXPECT_EQ(CheckOutputPath("/dev/stdout", "x"), OutputKind::kDescriptor);
}

TEST(OutputFileTest, FoldersMissingFoldersAndBlockDevicesAreRefusedWithOneLine) {
  TempDir d;
  auto message = [](const std::string& path) {
    try {
      CheckOutputPath(path, "the JSON result");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message(d.path().string()), "cannot write the JSON result '" + d.path().string() + "': it is a folder");
  const std::string missing = (d.path() / "no" / "such" / "r.json").string();
  EXPECT_EQ(message(missing),
            "cannot write the JSON result '" + missing + "': folder '" + (d.path() / "no" / "such").string() +
                "' does not exist");
  std::ofstream(d.path() / "file") << "x";
  EXPECT_NE(message((d.path() / "file" / "r.json").string()).find("is not a folder"), std::string::npos);
  EXPECT_EQ(message(""), "cannot write the JSON result: the path is empty");
  EXPECT_THROW(OutputFile((d.path() / "no" / "r.json").string(), "x"), ConfigError);
  const fs::path blk = d.path() / "disk";
  if (mknod(blk.c_str(), S_IFBLK | 0600, makedev(7, 0)) == 0) {
    EXPECT_NE(message(blk.string()).find("block device"), std::string::npos);
    EXPECT_TRUE(S_ISBLK(Lstat(blk).st_mode));
  }
  // A place no one can create files in, root included.
  EXPECT_NE(message("/proc/storebench-result.json").find("cannot create a file in folder '/proc'"), std::string::npos)
      << message("/proc/storebench-result.json");
}

TEST(OutputFileTest, UncommittedOutputLeavesTheTargetAndNoTemporaryFile) {
  TempDir d;
  const fs::path p = d.path() / "log.hlog";
  std::ofstream(p) << "previous";
  {
    OutputFile f(p.string(), "the HdrHistogram log");
    f.stream() << "half of a log";
    f.Flush();
    EXPECT_EQ(Names(d.path()).size(), 2u) << "the temporary file is beside the target";
  }
  EXPECT_EQ(Slurp(p.string()), "previous");
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"log.hlog"});
  // A signal handler's cleanup removes an open output's temporary file.
  OutputFile f(p.string(), "the HdrHistogram log");
  f.stream() << "more";
  f.Flush();
  RemoveUncommittedOutputs();
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"log.hlog"});
}

TEST(OutputFileTest, StreamedOutputAppearsOnlyWhenCommitted) {
  TempDir d;
  const fs::path p = d.path() / "log.hlog";
  OutputFile f(p.string(), "the HdrHistogram log");
  EXPECT_EQ(f.kind(), OutputKind::kAtomic);
  for (int i = 0; i < 10000; ++i) f.stream() << "line " << i << "\n";
  f.Flush();
  EXPECT_FALSE(fs::exists(p));
  f.Commit();
  const std::string got = Slurp(p.string());
  EXPECT_EQ(got.substr(0, 7), "line 0\n");
  EXPECT_NE(got.find("line 9999\n"), std::string::npos);
  EXPECT_EQ(Names(d.path()), std::vector<std::string>{"log.hlog"});
}

TEST(OutputFileTest, AFifoWhoseReaderLeftGivesAnErrorNotADeadProcess) {
  TempDir d;
  const fs::path fifo = d.path() / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Reader reader([&] { return open(fifo.c_str(), O_RDONLY); });  // reads nothing, closes at EOF
  OutputFile f(fifo.string(), "the JSON result");
  f.Commit();  // the reader sees EOF and leaves
  reader.Take();
  Reader gone([&] {
    const int fd = open(fifo.c_str(), O_RDONLY);
    close(fd);  // leaves before anything is written
    return -1;
  });
  OutputFile g(fifo.string(), "the JSON result");
  gone.Take();
  g.stream() << std::string(1 << 20, 'x');
  EXPECT_THROW(g.Commit(), SetupError);  // EPIPE, and no SIGPIPE ended this test
}

}  // namespace
}  // namespace storebench
