// The shared data-directory helpers: PrepareStoreDir's setup errors and
// MeasurePath/DiskBytes (sizes vs allocated blocks, recursion, sparse files).
#include "db/store_dir.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

class StoreDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "storebench-storedir-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void Write(const std::string& rel, std::size_t bytes) {
    fs::create_directories(fs::path(root_ + "/" + rel).parent_path());
    std::ofstream(root_ + "/" + rel, std::ios::binary) << std::string(bytes, 'x');
  }
  std::string root_;
};

TEST_F(StoreDirTest, PrepareCreatesParentsAndNamesThePropertyOnFailure) {
  PrepareStoreDir("x.dir", root_ + "/a/b/c");
  EXPECT_TRUE(fs::is_directory(root_ + "/a/b/c"));
  Write("file", 10);
  try {
    PrepareStoreDir("x.dir", root_ + "/file");
    FAIL() << "expected SetupError";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()), "x.dir '" + root_ + "/file': exists and is not a directory");
  }
  EXPECT_THROW(PrepareStoreDir("x.dir", root_ + "/file/sub"), SetupError);
}

TEST_F(StoreDirTest, MeasuresFilesRecursivelyAndSingleFiles) {
  Write("one", 100000);
  Write("sub/two", 50000);
  Write("sub/deeper/three", 25000);
  auto usage = MeasurePath(root_);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->file_bytes, 175000u);
  // Written data occupies at least its size in blocks (rounded up per file).
  EXPECT_GE(usage->allocated_bytes, 175000u);
  EXPECT_LT(usage->allocated_bytes, 175000u + 3 * 65536u);
  EXPECT_EQ(DiskBytes(root_), usage->allocated_bytes);
  auto single = MeasurePath(root_ + "/sub/two");
  ASSERT_TRUE(single.has_value());
  EXPECT_EQ(single->file_bytes, 50000u);
  EXPECT_FALSE(MeasurePath(root_ + "/missing").has_value());
  EXPECT_FALSE(DiskBytes(root_ + "/missing").has_value());
}

TEST_F(StoreDirTest, SparseFilesCountOnlyTheirAllocatedBlocks) {
  const std::string path = root_ + "/sparse";
  int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, 1 << 30), 0);  // 1 GiB of holes
  ASSERT_EQ(::pwrite(fd, "data", 4, 4096), 4);
  ::close(fd);
  auto usage = MeasurePath(root_);
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->file_bytes, 1u << 30);
  EXPECT_GT(usage->allocated_bytes, 0u);
  EXPECT_LT(usage->allocated_bytes, 1u << 20) << "a file system without sparse files?";
}

TEST_F(StoreDirTest, SymbolicLinksAreNotFollowed) {
  Write("real/data", 40000);
  fs::create_directory(root_ + "/measured");
  fs::create_directory_symlink(root_ + "/real", root_ + "/measured/link");
  auto usage = MeasurePath(root_ + "/measured");
  ASSERT_TRUE(usage.has_value());
  EXPECT_EQ(usage->file_bytes, 0u);
}

TEST_F(StoreDirTest, ADirectoryIsClaimedByOneStoreAtATimeWhateverItsSpelling) {
  PrepareStoreDir("x.dir", root_ + "/db");
  DirClaim first("x.dir", root_ + "/db");
  try {
    DirClaim again("x.dir", root_ + "/sub/../db");
    FAIL() << "expected SetupError";
  } catch (const SetupError& e) {
    EXPECT_EQ(std::string(e.what()),
              "x.dir '" + root_ + "/sub/../db': the database is locked, in use by another store in this process");
  }
  DirClaim other("x.dir", root_);  // a different directory is free
  DirClaim moved = std::move(first);
  EXPECT_THROW(DirClaim("x.dir", root_ + "/db"), SetupError) << "the claim moved with the object";
  moved.Release();
  DirClaim after("x.dir", root_ + "/db");  // free once released
}

TEST_F(StoreDirTest, SafeFileNames) {
  for (const char* ok : {"usertable", "a", "t-1.v_2", "UPPER"}) EXPECT_TRUE(IsSafeFileName(ok)) << ok;
  for (const char* bad : {"", ".hidden", "..", "a/b", "a b", "x\\y", "caf\xc3\xa9"}) EXPECT_FALSE(IsSafeFileName(bad)) << bad;
  EXPECT_TRUE(IsSafeFileName(std::string(200, 'a')));
  EXPECT_FALSE(IsSafeFileName(std::string(201, 'a')));
  EXPECT_FALSE(IsSafeFileName(std::string("a\0b", 3)));
}

}  // namespace
}  // namespace storebench
