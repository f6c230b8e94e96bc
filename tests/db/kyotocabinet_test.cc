// Kyoto Cabinet-specific behaviour: types, tables as files, properties,
// setup errors (locks, bad files), atomic updates, Stats.
// (The operation semantics are covered by conformance_test.cc.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/registry.h"
#include "db/store_dir.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

class KyotoCabinetTest : public test_util::BindingTest {
 protected:
  KyotoCabinetTest() : BindingTest("kyotocabinet") {}
};

TEST_F(KyotoCabinetTest, TreeIsTheDefaultOneFilePerTableCreatedOnFirstInsert) {
  auto store = Open(Props("a/b/db"));
  EXPECT_TRUE(FindBinding("kyotocabinet").uses_dir);
  EXPECT_TRUE(store->capabilities().scan);
  EXPECT_TRUE(store->capabilities().persistent);
  EXPECT_TRUE(fs::is_directory(root_ + "/a/b/db"));
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/usertable.kct"));
  auto s = store->NewSession(0);
  RecordSet rs;
  // A table never written has nothing, and reading it creates nothing.
  EXPECT_EQ(s->Read("usertable", "k", FieldSelector{}, &rs), Status::NotFound());
  Field f{"field0", "v"};
  EXPECT_EQ(s->Update("usertable", "k", std::span<const Field>(&f, 1)), Status::NotFound());
  EXPECT_EQ(s->Delete("usertable", "k"), Status::NotFound());
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 0u);
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/usertable.kct"));
  ASSERT_EQ(s->Insert("usertable", "k", std::span<const Field>(&f, 1)), Status::Ok());
  ASSERT_EQ(s->Insert("other", "k", std::span<const Field>(&f, 1)), Status::Ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/a/b/db/usertable.kct"));
  EXPECT_TRUE(fs::is_regular_file(root_ + "/a/b/db/other.kct"));
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["kyotocabinet.type"], "tree");
  EXPECT_EQ(stats["kyotocabinet.tables"], "other,usertable");
  EXPECT_EQ(stats["kyotocabinet.count"], "2");
}

TEST_F(KyotoCabinetTest, TablesAreFoundAgainOnReopenAndStayApart) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "user1", "in-usertable"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "user1", "in-other", "other"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "user2", "in-other", "other"), Status::Ok());
    store->Close();
  }
  auto store = Open(Props());
  EXPECT_EQ(StatsOf(store.get())["kyotocabinet.tables"], "other,usertable");
  std::string v;
  ASSERT_EQ(Get(store.get(), "user1", &v), Status::Ok());
  EXPECT_EQ(v, "in-usertable");
  ASSERT_EQ(Get(store.get(), "user1", &v, "other"), Status::Ok());
  EXPECT_EQ(v, "in-other");
  // One session switching tables: its cached table and cursor follow.
  auto s = store->NewSession(0);
  RecordSet rs;
  ASSERT_EQ(s->Scan("other", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 2u);
  ASSERT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(s->Delete("other", "user1"), Status::Ok());
  EXPECT_EQ(s->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok());  // untouched
  ASSERT_EQ(s->Scan("other", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 1u);
}

TEST_F(KyotoCabinetTest, TableNamesThatAreNotPlainFileNamesAreErrors) {
  auto store = Open(Props());
  for (const std::string table : {"../escape", "a/b", ".hidden", ""}) {
    EXPECT_EQ(Put(store.get(), "k", "v", table), Status::Error()) << table;
    EXPECT_EQ(Get(store.get(), "k", nullptr, table), Status::NotFound()) << table;
  }
  EXPECT_FALSE(fs::exists(root_ + "/escape.kct"));
  EXPECT_EQ(Put(store.get(), "k", "v", "Table_1-x.y"), Status::Ok());
  EXPECT_TRUE(fs::exists(root_ + "/db/Table_1-x.y.kct"));
}

TEST_F(KyotoCabinetTest, HashTypeCannotScanAndSaysWhy) {
  Properties p = Props();
  p.Set("kyotocabinet.type", "hash");
  auto store = Open(p);
  Capabilities c = store->capabilities();
  EXPECT_FALSE(c.scan);
  EXPECT_EQ(c.why_no_scan, "kyotocabinet.type=hash keeps no key order");
  EXPECT_TRUE(c.persistent);
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/db/usertable.kch"));
  std::string v;
  ASSERT_EQ(Get(store.get(), "k", &v), Status::Ok());
  EXPECT_EQ(v, "v");
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Error());
  EXPECT_EQ(StatsOf(store.get())["kyotocabinet.type"], "hash");
}

TEST_F(KyotoCabinetTest, OpeningTheOtherTypesFilesIsAConfigError) {
  {
    Properties p = Props();
    p.Set("kyotocabinet.type", "hash");
    auto store = Open(p);
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  std::string msg = MessageOf<ConfigError>(Props());  // type=tree by default
  EXPECT_NE(msg.find("usertable.kch"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kyotocabinet.type=tree"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
}

TEST_F(KyotoCabinetTest, BadPropertyValuesAreConfigErrorsNamingTheProperty) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"kyotocabinet.type", "btree"}, {"kyotocabinet.bnum", "-1"},     {"kyotocabinet.bnum", "many"},
      {"kyotocabinet.msiz", "lots"},  {"kyotocabinet.pccap", "1X"},    {"kyotocabinet.compress", "gzip"},
      {"kyotocabinet.sync", "maybe"}, {"kyotocabinet.destroy", "yes please"}, {"kyotocabinet.msiz", "4T"},
  };
  for (const auto& [name, value] : bad) {
    Properties p = Props();
    p.Set(name, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(name), std::string::npos) << name << "=" << value << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  Properties p = Props();
  p.Set("kyotocabinet.compress", "gzip");
  EXPECT_NE(MessageOf<ConfigError>(p).find("lzma"), std::string::npos) << "lists the choices";
  EXPECT_FALSE(fs::exists(root_ + "/db")) << "properties are checked before touching the disk";
}

TEST_F(KyotoCabinetTest, PageCacheWithHashIsAConfigError) {
  Properties p = Props();
  p.Set("kyotocabinet.type", "hash");
  p.Set("kyotocabinet.pccap", "1M");
  std::string msg = MessageOf<ConfigError>(p);
  EXPECT_NE(msg.find("kyotocabinet.pccap"), std::string::npos) << msg;
  EXPECT_NE(msg.find("type=hash"), std::string::npos) << msg;
}

TEST_F(KyotoCabinetTest, DirBelowARegularFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub/db"));
  EXPECT_NE(msg.find(root_ + "/file/sub/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(KyotoCabinetTest, AFileThatIsNotAKyotoCabinetDatabaseIsASetupErrorNamingIt) {
  fs::create_directories(root_ + "/db");
  std::ofstream(root_ + "/db/usertable.kct") << std::string(4096, 'x');
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("usertable.kct"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(KyotoCabinetTest, OpeningTheSameDirTwiceInOneProcessIsASetupError) {
  auto first = Open(Props());
  ASSERT_EQ(Put(first.get(), "k", "v"), Status::Ok());
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  // With destroy=true too: the open database must not be wiped.
  Properties d = Props();
  d.Set("kyotocabinet.destroy", "true");
  EXPECT_NE(MessageOf<SetupError>(d).find("locked"), std::string::npos);
  EXPECT_EQ(Get(first.get(), "k"), Status::Ok()) << "the first store still works";
  first->Close();
  first.reset();
  auto second = Open(Props());  // free again once closed
  EXPECT_EQ(Get(second.get(), "k"), Status::Ok());
}

TEST_F(KyotoCabinetTest, TableFileLockedByAnotherProcessIsASetupErrorAtOnce) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  const std::string path = root_ + "/db/usertable.kct";
  // The store made the file (LockHeldByChild would create a missing one).
  ASSERT_TRUE(fs::is_regular_file(path));
  // The fcntl write lock KC takes on the whole file.
  test_util::LockHeldByChild other;
  ASSERT_NO_FATAL_FAILURE(other.Hold(path, test_util::LockKind::kFcntlWrite));
  auto start = std::chrono::steady_clock::now();
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "OTRYLOCK: no waiting";
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find("usertable.kct"), std::string::npos) << msg;
  other.Release();
  auto store = Open(Props());  // free again once the other process is gone
  EXPECT_EQ(Get(store.get(), "k"), Status::Ok());
}

TEST_F(KyotoCabinetTest, DestroyClearsEveryTable) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "k", "v", "other"), Status::Ok());
    store->Close();
  }
  {
    auto store = Open(Props());  // without destroy: kept
    EXPECT_EQ(Get(store.get(), "k"), Status::Ok());
    store->Close();
  }
  Properties p = Props();
  p.Set("kyotocabinet.destroy", "true");
  auto store = Open(p);
  EXPECT_EQ(Get(store.get(), "k"), Status::NotFound());
  EXPECT_EQ(Get(store.get(), "k", nullptr, "other"), Status::NotFound());
  EXPECT_EQ(StatsOf(store.get())["kyotocabinet.count"], "0");
  ASSERT_EQ(Put(store.get(), "k2", "v"), Status::Ok());
}

// Disk usage of `n` very compressible records with the given properties.
std::uint64_t UsageWith(Properties p, int n) {
  auto store = FindBinding("kyotocabinet").open(p, OpenContext{});
  auto s = store->NewSession(0);
  const std::string value(5000, 'c');
  for (int i = 0; i < n; ++i) {
    Field f{"field0", value};
    EXPECT_EQ(s->Insert("usertable", "user" + std::to_string(i), std::span<const Field>(&f, 1)), Status::Ok());
  }
  RecordSet rs;
  EXPECT_EQ(s->Read("usertable", "user0", FieldSelector{}, &rs), Status::Ok());
  EXPECT_TRUE(rs.Find(0, "field0").value_or("") == value);
  EXPECT_TRUE(store->DiskUsageBytes().has_value());  // synchronizes the files
  s.reset();
  store->Close();
  // The files' sizes: a hash file's bucket array is sparse until used, so the
  // blocks it occupies (DiskUsage) would not show bnum.
  auto usage = MeasurePath(p.Get("kyotocabinet.dir").value_or(""));
  EXPECT_TRUE(usage.has_value());
  return usage ? usage->file_bytes : 0;
}

TEST_F(KyotoCabinetTest, CompressionShrinksTheFilesAndEveryCompressorWorks) {
  // LZMA is slow (some 20 ms a call under ASan): fewer records for it.
  const std::vector<std::pair<std::string, int>> compressors = {{"zlib", 60}, {"lzo", 60}, {"lzma", 3}};
  for (const std::string type : {"tree", "hash"}) {
    for (const auto& [comp, n] : compressors) {
      Properties plain = Props("plain-" + type + "-" + comp);
      plain.Set("kyotocabinet.type", type);
      const std::uint64_t uncompressed = UsageWith(plain, n);
      EXPECT_GT(uncompressed, n * 5000u) << type;
      Properties p = Props(comp + "-" + type);
      p.Set("kyotocabinet.type", type);
      p.Set("kyotocabinet.compress", comp);
      EXPECT_LT(UsageWith(p, n) + n * 4000u, uncompressed) << type << " " << comp;
      // Reopened (compression is a property of the file): still readable.
      auto store = Open(p);
      EXPECT_EQ(Get(store.get(), "user" + std::to_string(n - 1)), Status::Ok()) << type << " " << comp;
    }
  }
}

TEST_F(KyotoCabinetTest, TuningPropertiesReachKyotoCabinet) {
  Properties p = Props();
  p.Set("kyotocabinet.bnum", "5000");
  p.Set("kyotocabinet.msiz", "1M");
  p.Set("kyotocabinet.pccap", "2M");
  p.Set("kyotocabinet.sync", "true");
  auto store = Open(p);
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["kyotocabinet.usertable.bnum"], "5000");
  EXPECT_EQ(stats["kyotocabinet.usertable.msiz"], std::to_string(1 << 20));
  EXPECT_EQ(stats["kyotocabinet.usertable.pccap"], std::to_string(2 << 20));
  // A hash file's bucket array is sized by bnum when the file is created.
  Properties small = Props("small");
  small.Set("kyotocabinet.type", "hash");
  small.Set("kyotocabinet.bnum", "1000");
  Properties big = Props("big");
  big.Set("kyotocabinet.type", "hash");
  EXPECT_LT(UsageWith(small, 1) + 4000000, UsageWith(big, 1));
}

TEST_F(KyotoCabinetTest, StatsReportVersionCountAndSize) {
  auto store = Open(Props());
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Put(store.get(), "user" + std::to_string(i), std::string(1000, 'x')), Status::Ok());
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["kyotocabinet.version"].rfind("1.", 0), 0u) << stats["kyotocabinet.version"];
  EXPECT_EQ(stats["kyotocabinet.count"], "50");
  EXPECT_GT(std::stoull(stats["kyotocabinet.size"]), 50u * 1000);
  EXPECT_GT(*bytes, 50u * 1000);
  EXPECT_EQ(std::stoull(stats["kyotocabinet.size"]), MeasurePath(root_ + "/db")->file_bytes);
  EXPECT_EQ(stats["kyotocabinet.compress"], "none");
  store->Close();
  auto closed = StatsOf(store.get());
  EXPECT_EQ(closed.count("kyotocabinet.count"), 0u);
  EXPECT_THROW(store->NewSession(0), SetupError);
}

TEST_F(KyotoCabinetTest, ConcurrentUpdatesOfOneRecordAreAtomic) {
  // The hash type; tree, the default, is checked by the conformance suite.
  for (const std::string type : {"hash"}) {
    Properties p = Props(type);
    p.Set("kyotocabinet.type", type);
    auto store = Open(p);
    for (int round = 0; round < 3; ++round) EXPECT_EQ(test_util::LostUpdates(store.get(), 2000), 0) << type << " round " << round;
  }
}

}  // namespace
}  // namespace storebench
