// Kyoto Cabinet-specific behaviour: tuning properties, compression, Stats.
// What it shares with the other table-file engine (tables as files, types,
// locks, destroy, bad properties, atomic updates) is in
// table_file_engine_test.cc; the operation semantics in conformance_test.cc.
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

TEST_F(KyotoCabinetTest, PageCacheWithHashIsAConfigError) {
  Properties p = Props();
  p.Set("kyotocabinet.type", "hash");
  p.Set("kyotocabinet.pccap", "1M");
  std::string msg = MessageOf<ConfigError>(p);
  EXPECT_NE(msg.find("kyotocabinet.pccap"), std::string::npos) << msg;
  EXPECT_NE(msg.find("type=hash"), std::string::npos) << msg;
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

}  // namespace
}  // namespace storebench
