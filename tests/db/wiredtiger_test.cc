// WiredTiger-specific behaviour: setup errors, locking, properties
// (compression, log, checkpoints, statistics, raw config), transactional
// updates, DiskUsageBytes and Stats. (Operation semantics: conformance_test.cc.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/registry.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

class WiredTigerTest : public test_util::BindingTest {
 protected:
  WiredTigerTest() : BindingTest("wiredtiger") {}

  bool HasFileStartingWith(const std::string& sub, const std::string& prefix) const {
    for (const auto& e : fs::directory_iterator(root_ + "/" + sub)) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) return true;
    }
    return false;
  }
};

TEST_F(WiredTigerTest, CreatesMissingParentDirectoriesAndATablePerYcsbTable) {
  auto store = Open(Props("a/b/db"));
  EXPECT_TRUE(store->capabilities().persistent);
  EXPECT_TRUE(store->capabilities().scan);
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Read("other", "k", FieldSelector{}, &rs), Status::NotFound());
  Field f{"field0", "x"};
  EXPECT_EQ(s->Update("other", "k", std::span<const Field>(&f, 1)), Status::NotFound());
  EXPECT_EQ(s->Scan("other", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 0u);
  EXPECT_EQ(s->Delete("other", "k"), Status::Ok());
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/other.wt")) << "reading a table creates nothing";
  ASSERT_EQ(Put(s.get(), "k", "in-other", "other"), Status::Ok());
  ASSERT_EQ(Put(s.get(), "k", "in-usertable"), Status::Ok());
  ASSERT_EQ(s->Read("other", "k", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field0").value_or(""), "in-other");
  EXPECT_TRUE(fs::exists(root_ + "/a/b/db/other.wt"));
  EXPECT_TRUE(fs::exists(root_ + "/a/b/db/usertable.wt"));
  EXPECT_EQ(StatsOf(store.get())["wiredtiger.tables"], "other,usertable");
}

TEST_F(WiredTigerTest, DirBelowARegularFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub"));
  EXPECT_NE(msg.find(root_ + "/file/sub"), std::string::npos) << msg;
  EXPECT_NE(msg.find("wiredtiger.dir"), std::string::npos) << msg;
}

TEST_F(WiredTigerTest, OpeningTheSameDirTwiceIsASetupErrorAboutTheLock) {
  auto first = Open(Props());
  auto s = first->NewSession(0);
  ASSERT_EQ(Put(s.get(), "k", "v"), Status::Ok());
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(Get(s.get(), "k"), Status::Ok()) << "the first store still works";
  s.reset();
  first->Close();
  first.reset();
  auto second = Open(Props());  // free again once closed
  auto s2 = second->NewSession(0);
  EXPECT_EQ(Get(s2.get(), "k"), Status::Ok());
}

TEST_F(WiredTigerTest, DatabaseLockedByAnotherProcessIsASetupError) {
  {
    auto store = Open(Props());  // a database, closed again
    store->Close();
  }
  // The POSIX lock WiredTiger uses on its lock file.
  test_util::LockHeldByChild other;
  ASSERT_NO_FATAL_FAILURE(other.Hold(root_ + "/db/WiredTiger.lock", test_util::LockKind::kFcntlWrite));
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  other.Release();
  auto store = Open(Props());  // free again once the other process is gone
  auto s = store->NewSession(0);
  EXPECT_EQ(Put(s.get(), "k", "v"), Status::Ok());
}

TEST_F(WiredTigerTest, BadPropertiesAreConfigErrorsNamingTheProperty) {
  for (auto [key, value, extra] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"wiredtiger.cache_size", "lots", ""},
           {"wiredtiger.cache_size", "512k", "at least 1M"},
           {"wiredtiger.checkpoint", "-1", ""},
           {"wiredtiger.log", "maybe", ""},
           {"wiredtiger.block_compressor", "gzip", "snappy"},
           {"wiredtiger.block_compressor", "lz4", ""},
           {"wiredtiger.statistics", "2", ""},
           {"wiredtiger.config", "no_such_option=1", "WiredTiger rejects it"},
           {"wiredtiger.config", "cache_size=(", "WiredTiger rejects it"},
           {"wiredtiger.table_config", "leaf_page_max=banana", "WiredTiger rejects it"},
       }) {
    Properties p = Props();
    p.Set(key, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(key), std::string::npos) << key << "=" << value << ": " << msg;
    EXPECT_NE(msg.find(extra), std::string::npos) << key << "=" << value << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_FALSE(fs::exists(root_ + "/db")) << "checked before touching the disk: " << key;
  }
  Properties p = Props();
  p.Set("wiredtiger.sync", "true");
  std::string msg = MessageOf<ConfigError>(p);
  EXPECT_NE(msg.find("wiredtiger.sync"), std::string::npos) << msg;
  EXPECT_NE(msg.find("wiredtiger.log=true"), std::string::npos) << msg;
}

// Debian ships snappy and zlib as extension libraries; compressible values
// then take far less disk than with none, and a table created compressed
// reads back whatever the current choice.
TEST_F(WiredTigerTest, CompressorsShrinkCompressibleDataAndReopenWithAnyChoice) {
  std::map<std::string, std::uint64_t> usage;
  for (const std::string name : {"none", "snappy", "zlib"}) {
    Properties p = Props(name);
    p.Set("wiredtiger.block_compressor", name);
    auto store = Open(p);
    auto s = store->NewSession(0);
    for (int i = 0; i < 200; ++i) ASSERT_EQ(Put(s.get(), "k" + std::to_string(i), std::string(10000, 'c')), Status::Ok());
    auto bytes = store->DiskUsageBytes();
    ASSERT_TRUE(bytes.has_value());
    usage[name] = *bytes;
    s.reset();
    store->Close();
  }
  EXPECT_GT(usage["none"], 2000000u);
  EXPECT_LT(usage["snappy"] * 4, usage["none"]) << usage["snappy"];
  EXPECT_LT(usage["zlib"] * 4, usage["none"]) << usage["zlib"];
  Properties p = Props("snappy");  // default block_compressor=none
  auto store = Open(p);
  auto s = store->NewSession(0);
  std::string v;
  ASSERT_EQ(Get(s.get(), "k7", &v), Status::Ok());
  EXPECT_EQ(v, std::string(10000, 'c'));
}

TEST_F(WiredTigerTest, LogWritesLogFilesAndSyncWorksWithIt) {
  {
    auto store = Open(Props("nolog"));
    auto s = store->NewSession(0);
    ASSERT_EQ(Put(s.get(), "k", "v"), Status::Ok());
    EXPECT_FALSE(HasFileStartingWith("nolog", "WiredTigerLog."));
  }
  Properties p = Props("log");
  p.Set("wiredtiger.log", "true");
  p.Set("wiredtiger.sync", "true");
  auto store = Open(p);
  auto s = store->NewSession(0);
  for (int i = 0; i < 10; ++i) ASSERT_EQ(Put(s.get(), "k" + std::to_string(i), "v"), Status::Ok());
  Field f{"field1", "u"};
  ASSERT_EQ(s->Update("usertable", "k3", std::span<const Field>(&f, 1)), Status::Ok());
  EXPECT_TRUE(HasFileStartingWith("log", "WiredTigerLog."));
  EXPECT_NE(StatsOf(store.get())["wiredtiger.config"].find("log=(enabled=true),transaction_sync=(enabled=true"),
            std::string::npos);
}

TEST_F(WiredTigerTest, StatisticsAndRawConfigShowInStats) {
  Properties p = Props();
  p.Set("wiredtiger.statistics", "true");
  p.Set("wiredtiger.cache_size", "64M");
  p.Set("wiredtiger.config", "cache_size=50M");  // appended last: wins
  auto store = Open(p);
  auto s = store->NewSession(0);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Put(s.get(), "k" + std::to_string(i), "v"), Status::Ok());
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Get(s.get(), "k" + std::to_string(i)), Status::Ok());
  auto m = StatsOf(store.get());
  EXPECT_EQ(m["wiredtiger.version"].rfind("3.", 0), 0u) << m["wiredtiger.version"];
  // WiredTiger counts its own metadata cursors too.
  EXPECT_GE(std::stoi(m["wiredtiger.stat.cursor.cursor_insert_calls"]), 100);
  EXPECT_GE(std::stoi(m["wiredtiger.stat.cursor.cursor_search_calls"]), 100);
  EXPECT_EQ(m["wiredtiger.stat.cache.maximum_bytes_configured"], std::to_string(50u << 20));
  EXPECT_TRUE(m.count("wiredtiger.stat.cache.bytes_currently_in_the_cache"));
  EXPECT_TRUE(m.count("wiredtiger.stat.transaction.update_conflicts"));
  const std::string checkpoints = m["wiredtiger.stat.transaction.transaction_checkpoints"];
  store->DiskUsageBytes();
  EXPECT_EQ(std::stoi(StatsOf(store.get())["wiredtiger.stat.transaction.transaction_checkpoints"]),
            std::stoi(checkpoints) + 1)
      << "DiskUsageBytes checkpoints";
  s.reset();
  store->Close();
  auto off = Open(Props());  // off by default: no counters
  for (const auto& [k, v] : off->Stats()) EXPECT_NE(k.rfind("wiredtiger.stat.", 0), 0u) << k;
}

TEST_F(WiredTigerTest, CheckpointPropertyCheckpointsInTheBackground) {
  Properties p = Props();
  p.Set("wiredtiger.statistics", "true");
  p.Set("wiredtiger.checkpoint", "1");
  auto store = Open(p);
  auto s = store->NewSession(0);
  ASSERT_EQ(Put(s.get(), "k", "v"), Status::Ok());
  const int before = std::stoi(StatsOf(store.get())["wiredtiger.stat.transaction.transaction_checkpoints"]);
  int after = before;
  for (int i = 0; i < 30 && after == before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    after = std::stoi(StatsOf(store.get())["wiredtiger.stat.transaction.transaction_checkpoints"]);
  }
  EXPECT_GT(after, before) << "no checkpoint within 3 s with wiredtiger.checkpoint=1";
}

TEST_F(WiredTigerTest, DiskUsageCheckpointsSoTheTableFileHoldsTheData) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  std::string value(1000, 'x');
  for (int i = 0; i < 500; ++i) {
    for (std::size_t j = 0; j < value.size(); j += 7) value[j] = static_cast<char>('a' + (i * 31 + j) % 26);
    ASSERT_EQ(Put(s.get(), "user" + std::to_string(i), value), Status::Ok());
  }
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(fs::file_size(root_ + "/db/usertable.wt"), 500u * 1000u) << "checkpointed into the table file";
  EXPECT_GE(*bytes, fs::file_size(root_ + "/db/usertable.wt"));
}

TEST_F(WiredTigerTest, CloseIsIdempotentAndDataSurvivesReopen) {
  auto store = Open(Props());
  {
    auto s = store->NewSession(0);
    ASSERT_EQ(Put(s.get(), "k", "v"), Status::Ok());
  }
  store->Close();
  store->Close();
  EXPECT_THROW(store->NewSession(0), SetupError);
  auto again = Open(Props());
  auto s = again->NewSession(0);
  std::string v;
  ASSERT_EQ(Get(s.get(), "k", &v), Status::Ok());
  EXPECT_EQ(v, "v");
}

}  // namespace
}  // namespace storebench
