// The files binding's own behaviour: layout, properties, O_DIRECT, the
// ordered index, atomic writes and setup errors. (The operation semantics are
// covered by conformance_test.cc, end to end by integrity_test.cc.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <tuple>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/record_codec.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

class FilesTest : public test_util::BindingTest {
 protected:
  FilesTest() : BindingTest("files") {}

  // Every regular file under `dir`, relative to it, sorted.
  static std::vector<std::string> FilesUnder(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(FilesTest, OneFilePerRecordUnderHashFanOutWithEscapedNames) {
  for (int fanout : {0, 1, 2}) {
    Properties p = Props("db" + std::to_string(fanout));
    p.Set("files.fanout", std::to_string(fanout));
    auto store = Open(p);
    ASSERT_EQ(Put(store.get(), "user1", "v"), Status::Ok());
    ASSERT_EQ(Put(store.get(), std::string("a/b\0.", 5), "v", "my.table"), Status::Ok());
    std::vector<std::string> files = FilesUnder(Dir("db" + std::to_string(fanout)));
    ASSERT_EQ(files.size(), 2u) << fanout;
    // my%2etable/../ka%2fb%00%2e and usertable/../kuser1
    const std::string want_dirs[] = {"my%2etable", "usertable"};
    const std::string want_names[] = {"ka%2fb%00%2e", "kuser1"};
    for (int i = 0; i < 2; ++i) {
      fs::path f(files[i]);
      EXPECT_EQ(f.filename().string(), want_names[i]);
      std::vector<std::string> parts;
      for (const auto& c : f.parent_path()) parts.push_back(c.string());
      ASSERT_EQ(parts.size(), 1u + fanout) << files[i];
      EXPECT_EQ(parts[0], want_dirs[i]);
      for (int l = 1; l <= fanout; ++l) EXPECT_EQ(parts[l].size(), 2u) << files[i];
    }
  }
}

TEST_F(FilesTest, FileHoldsExactlyTheCodecEncodingAndNoTemporaryFileIsLeft) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  const std::string big(3000, 'x');
  Field f[] = {{"field0", "zero"}, {"field1", big}};
  ASSERT_EQ(s->Insert("usertable", "k1", f), Status::Ok());
  Field g[] = {{"field1", "one"}};
  ASSERT_EQ(s->Update("usertable", "k1", g), Status::Ok());
  std::vector<std::string> files = FilesUnder(Dir());
  ASSERT_EQ(files.size(), 1u) << "no .t temporary file remains";
  Field want[] = {{"field0", "zero"}, {"field1", "one"}};
  std::string enc;
  EncodeRecord(want, &enc);
  EXPECT_EQ(test_util::Slurp(Dir() + "/" + files[0]), enc);
}

TEST_F(FilesTest, ScansNeedOrderedAndSaySoUpFront) {
  auto store = Open(Props());
  Capabilities c = store->capabilities();
  EXPECT_FALSE(c.scan);
  EXPECT_NE(c.why_no_scan.find("files.ordered=true"), std::string::npos) << c.why_no_scan;
  EXPECT_TRUE(c.persistent);
  EXPECT_TRUE(c.atomic_update);
  RecordSet rs;
  EXPECT_EQ(store->NewSession(0)->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::NotImplemented());
}

TEST_F(FilesTest, OrderedIndexIsRebuiltFromTheDirectoryOnReopen) {
  {
    auto store = Open(Props());  // written without the index
    for (const std::string& k : {std::string("b"), std::string("d"), std::string("a"), std::string("c"),
                                 std::string("c\xff", 2)}) {
      ASSERT_EQ(Put(store.get(), k, "v-" + k), Status::Ok());
    }
    store->Close();
  }
  Properties p = Props();
  p.Set("files.ordered", "true");
  auto store = Open(p);
  EXPECT_TRUE(store->capabilities().scan);
  auto s = store->NewSession(0);
  RecordSet rs;
  ASSERT_EQ(s->Scan("usertable", "b", 3, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 3u);
  EXPECT_EQ(rs.key(0), "b");
  EXPECT_EQ(rs.key(1), "c");
  EXPECT_EQ(rs.key(2), std::string("c\xff", 2));
  EXPECT_EQ(rs.Find(0, "field0").value_or(""), "v-b");
  // Inserts and deletes of this process keep the index current.
  ASSERT_EQ(Put(s.get(), "bb", "new"), Status::Ok());
  ASSERT_EQ(s->Delete("usertable", "c"), Status::Ok());
  ASSERT_EQ(s->Scan("usertable", "b", 10, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 4u);
  EXPECT_EQ(rs.key(1), "bb");
  EXPECT_EQ(rs.key(2), std::string("c\xff", 2));
  EXPECT_EQ(rs.key(3), "d");
}

// Workload E (scans, inserts) end to end with the ordered index, which the
// integrity suite skips for files (it runs the default, unordered).
TEST_F(FilesTest, WorkloadEWithOrderedIndexLoadsAndRunsClean) {
  test_util::ProcessOptions po;
  po.cwd = root_;
  const std::string wl = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloade";
  std::vector<std::string> common = {"-P", wl, "-p", "recordcount=500", "-p", "operationcount=500", "-p",
                                     "dataintegrity=true", "-p", "files.ordered=true", "-p", "files.dir=" + Dir()};
  std::vector<std::string> load = {"load", "files"}, run = {"run", "files", "-threads", "2"};
  load.insert(load.end(), common.begin(), common.end());
  run.insert(run.end(), common.begin(), common.end());
  auto r = test_util::RunProcess(STOREBENCH_BINARY, load, po);
  ASSERT_EQ(r.code, 0) << r.err;
  r = test_util::RunProcess(STOREBENCH_BINARY, run, po);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("[SCAN], Return=OK"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("FAILED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Return=ERROR"), std::string::npos) << r.out;
}

TEST_F(FilesTest, DirectIoRoundTripsRecordsOfEverySizeAroundTheBlock) {
  Properties p = Props();
  p.Set("files.direct", "true");
  std::unique_ptr<Store> store;
  try {
    store = Open(p);
  } catch (const SetupError& e) {
    GTEST_SKIP() << "this file system refuses O_DIRECT: " << e.what();
  }
  auto s = store->NewSession(0);
  for (std::size_t n : {0u, 1u, 4000u, 4096u, 4097u, 8191u, (1u << 20) + 3}) {
    std::string v(n, '\0');
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<char>(i * 7 + n);
    const std::string key = "k" + std::to_string(n);
    ASSERT_EQ(Put(s.get(), key, v), Status::Ok()) << n;
    std::string got;
    ASSERT_EQ(Get(s.get(), key, &got), Status::Ok()) << n;
    EXPECT_EQ(got, v) << n;
    Field u[] = {{"field1", "x"}};
    ASSERT_EQ(s->Update("usertable", key, u), Status::Ok()) << n;
    ASSERT_EQ(Get(s.get(), key, &got), Status::Ok()) << n;
    EXPECT_EQ(got, v) << n;
  }
  // Files hold the record's bytes only (the padding is truncated away).
  Field f[] = {{"field0", "abc"}};
  std::string enc;
  EncodeRecord(f, &enc);
  ASSERT_EQ(s->Insert("usertable", "small", f), Status::Ok());
  for (const auto& name : FilesUnder(Dir())) {
    if (name.ends_with("/ksmall")) {
      EXPECT_EQ(fs::file_size(Dir() + "/" + name), enc.size());
    }
  }
}

TEST_F(FilesTest, EveryFsyncModeWritesAndReads) {
  for (const char* mode : {"none", "per-op", "end"}) {
    Properties p = Props(std::string("db-") + mode);
    p.Set("files.fsync", mode);
    auto store = Open(p);
    auto s = store->NewSession(0);
    ASSERT_EQ(Put(s.get(), "k", "v"), Status::Ok()) << mode;
    Field u[] = {{"field0", "w"}};
    ASSERT_EQ(s->Update("usertable", "k", u), Status::Ok()) << mode;
    std::string v;
    ASSERT_EQ(Get(s.get(), "k", &v), Status::Ok()) << mode;
    EXPECT_EQ(v, "w");
    ASSERT_EQ(s->Delete("usertable", "k"), Status::Ok()) << mode;
    EXPECT_EQ(s->Delete("usertable", "k"), Status::NotFound()) << mode;
    s.reset();
    store->Close();
  }
}

TEST_F(FilesTest, ReadersNeverSeeATornRecord) {
  auto store = Open(Props());
  const std::string a(200000, 'a'), b(150000, 'b');
  ASSERT_EQ(Put(store.get(), "hot", a), Status::Ok());
  std::atomic<bool> done{false};
  std::thread writer([&] {
    auto s = store->NewSession(1);
    for (int i = 0; i < 300; ++i) EXPECT_EQ(Put(s.get(), "hot", i % 2 ? a : b), Status::Ok());
    done = true;
  });
  auto s = store->NewSession(0);
  int reads = 0;
  while (!done || reads < 10) {
    std::string v;
    ASSERT_EQ(Get(s.get(), "hot", &v), Status::Ok());
    ASSERT_TRUE(v == a || v == b) << "torn record of " << v.size() << " bytes";
    ++reads;
  }
  writer.join();
}

TEST_F(FilesTest, KeyTooLongForAFileNameIsBadRequest) {
  auto store = Open(Props());
  EXPECT_EQ(Put(store.get(), std::string(254, 'k'), "v"), Status::Ok());  // file name of 255 bytes
  EXPECT_EQ(Put(store.get(), std::string(255, 'k'), "v"), Status(Status::kBadRequest));
  EXPECT_EQ(Put(store.get(), std::string(100, '/'), "v"), Status(Status::kBadRequest));  // 300 escaped bytes
}

TEST_F(FilesTest, BadPropertiesAreConfigErrors) {
  for (auto [key, value, want] : {std::tuple{"files.fsync", "always", "per-op"},
                                  std::tuple{"files.direct", "maybe", "files.direct"},
                                  std::tuple{"files.ordered", "2", "files.ordered"},
                                  std::tuple{"files.fanout", "4", "files.fanout"},
                                  std::tuple{"files.dir", "", "files.dir"}}) {
    Properties p = Props();
    p.Set(key, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(want), std::string::npos) << key << ": " << msg;
  }
  EXPECT_FALSE(fs::exists(Dir())) << "properties are checked before touching the disk";
}

TEST_F(FilesTest, DirBelowARegularFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub"));
  EXPECT_NE(msg.find(root_ + "/file/sub"), std::string::npos) << msg;
  EXPECT_NE(msg.find("files.dir"), std::string::npos) << msg;
}

TEST_F(FilesTest, UnwritableDirIsASetupErrorNamingThePath) {
  // /proc refuses new entries even to root.
  Properties p;
  p.Set("files.dir", "/proc/storebench-files-test");
  std::string msg = MessageOf<SetupError>(p);
  EXPECT_NE(msg.find("/proc/storebench-files-test"), std::string::npos) << msg;
  if (geteuid() != 0) {
    fs::create_directories(Dir("ro"));
    fs::permissions(Dir("ro"), fs::perms::owner_read | fs::perms::owner_exec);
    msg = MessageOf<SetupError>(Props("ro"));
    EXPECT_NE(msg.find(Dir("ro")), std::string::npos) << msg;
    fs::permissions(Dir("ro"), fs::perms::owner_all);
  }
}

TEST_F(FilesTest, DiskUsageAndStatsCountTheRecordFiles) {
  auto store = Open(Props());
  ASSERT_EQ(Put(store.get(), "k", std::string(10000, 'z')), Status::Ok());
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GE(*bytes, 10000u);
  auto stats = StatsOf(store.get());
  EXPECT_GE(std::stoull(stats.at("files.file_bytes")), 10000u);
  EXPECT_EQ(stats.at("files.fanout"), "1");
}

}  // namespace
}  // namespace storebench
