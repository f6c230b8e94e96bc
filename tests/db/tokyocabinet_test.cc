// Tokyo Cabinet-specific behaviour: tuning properties, compression, Stats.
// What it shares with the other table-file engine (tables as files, types,
// locks, destroy, bad properties, atomic updates) is in
// table_file_engine_test.cc; the operation semantics in conformance_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
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

class TokyoCabinetTest : public test_util::BindingTest {
 protected:
  TokyoCabinetTest() : BindingTest("tokyocabinet") {}
};

TEST_F(TokyoCabinetTest, BtreeTuningWithHashIsAConfigError) {
  for (const std::string name : {"tokyocabinet.lmemb", "tokyocabinet.nmemb", "tokyocabinet.lcnum", "tokyocabinet.ncnum"}) {
    Properties p = Props();
    p.Set("tokyocabinet.type", "hash");
    p.Set(name, "100");
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
    EXPECT_NE(msg.find("type=hash"), std::string::npos) << msg;
  }
}

// Disk usage of `n` compressible records with the given properties.
std::uint64_t UsageWith(Properties p, int n) {
  auto store = FindBinding("tokyocabinet").open(p, OpenContext{});
  auto s = store->NewSession(0);
  // Compressible (one bit of entropy a byte) but not a run of one byte:
  // TCBS's block sort takes seconds on degenerate input.
  std::string value(5000, 'a');
  std::uint32_t x = 12345;
  for (char& c : value) {
    x = x * 1103515245u + 12345u;
    c = "ab"[(x >> 16) & 1];
  }
  for (int i = 0; i < n; ++i) {
    Field f{"field0", value};
    EXPECT_EQ(s->Insert("usertable", "user" + std::to_string(i), std::span<const Field>(&f, 1)), Status::Ok());
  }
  RecordSet rs;
  EXPECT_EQ(s->Read("usertable", "user0", FieldSelector{}, &rs), Status::Ok());
  EXPECT_TRUE(rs.Find(0, "field0").value_or("") == value);
  auto bytes = store->DiskUsageBytes();
  EXPECT_TRUE(bytes.has_value());
  s.reset();
  store->Close();
  return bytes.value_or(0);
}

TEST_F(TokyoCabinetTest, CompressionShrinksTheFilesAndEveryCompressorWorks) {
  const std::vector<std::pair<std::string, int>> compressors = {{"deflate", 60}, {"bzip", 60}, {"tcbs", 60}};
  for (const std::string type : {"btree", "hash"}) {
    for (const auto& [comp, n] : compressors) {
      Properties plain = Props("plain-" + type + "-" + comp);
      plain.Set("tokyocabinet.type", type);
      const std::uint64_t uncompressed = UsageWith(plain, n);
      EXPECT_GT(uncompressed, n * 5000u) << type;
      Properties p = Props(comp + "-" + type);
      p.Set("tokyocabinet.type", type);
      p.Set("tokyocabinet.compress", comp);
      EXPECT_LT(UsageWith(p, n) + n * 2500u, uncompressed) << type << " " << comp;
      // Reopened (compression is a property of the file): still readable.
      auto store = Open(p);
      EXPECT_EQ(Get(store.get(), "user" + std::to_string(n - 1)), Status::Ok()) << type << " " << comp;
    }
  }
}

TEST_F(TokyoCabinetTest, TuningPropertiesReachTokyoCabinet) {
  {
    auto store = Open(Props("defaults"));
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    auto stats = StatsOf(store.get());
    EXPECT_EQ(stats["tokyocabinet.usertable.lmemb"], "128");  // TC's defaults
    EXPECT_EQ(stats["tokyocabinet.usertable.lcnum"], "1024");
    EXPECT_EQ(stats["tokyocabinet.usertable.bnum"], "32749");
    EXPECT_EQ(stats["tokyocabinet.usertable.xmsiz"], std::to_string(64 << 20));
    EXPECT_EQ(stats["tokyocabinet.usertable.opts"], "1") << "TLARGE by default";
  }
  Properties p = Props();
  p.Set("tokyocabinet.bnum", "5003");
  p.Set("tokyocabinet.lmemb", "64");
  p.Set("tokyocabinet.nmemb", "128");
  p.Set("tokyocabinet.lcnum", "4096");
  p.Set("tokyocabinet.ncnum", "1024");
  p.Set("tokyocabinet.xmsiz", "1M");
  p.Set("tokyocabinet.large", "false");
  p.Set("tokyocabinet.compress", "deflate");
  auto store = Open(p);
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  auto stats = StatsOf(store.get());
  // TC rounds the bucket count up to a prime.
  EXPECT_GE(std::stoull(stats["tokyocabinet.usertable.bnum"]), 5003u);
  EXPECT_LT(std::stoull(stats["tokyocabinet.usertable.bnum"]), 6000u);
  EXPECT_EQ(stats["tokyocabinet.usertable.lmemb"], "64");
  EXPECT_EQ(stats["tokyocabinet.usertable.nmemb"], "128");
  EXPECT_EQ(stats["tokyocabinet.usertable.lcnum"], "4096");
  EXPECT_EQ(stats["tokyocabinet.usertable.ncnum"], "1024");
  EXPECT_EQ(stats["tokyocabinet.usertable.xmsiz"], std::to_string(1 << 20));
  EXPECT_EQ(stats["tokyocabinet.usertable.opts"], "2") << "deflate, no TLARGE";
  // A hash file's bucket array is sized by bnum when the file is created.
  Properties small = Props("small");
  small.Set("tokyocabinet.type", "hash");
  small.Set("tokyocabinet.bnum", "1000");
  small.Set("tokyocabinet.large", "false");
  Properties big = Props("big");
  big.Set("tokyocabinet.type", "hash");
  big.Set("tokyocabinet.bnum", "1000000");
  big.Set("tokyocabinet.large", "false");
  EXPECT_LT(UsageWith(small, 1) + 3000000, UsageWith(big, 1));
}

// With sync, every write reaches the file at once; without it the B+ tree
// keeps new leaves in its cache until a sync or close. (A second reader in
// this process cannot check: TC refuses to open a file twice in a process.)
TEST_F(TokyoCabinetTest, SyncWritesEveryChangeToTheFile) {
  const std::string big(300000, 'b');
  {
    auto store = Open(Props("nosync"));
    ASSERT_EQ(Put(store.get(), "k0", big), Status::Ok());
    EXPECT_LT(fs::file_size(root_ + "/nosync/usertable.tcb"), big.size()) << "cached, not yet written";
  }
  Properties p = Props();
  p.Set("tokyocabinet.sync", "true");
  auto store = Open(p);
  auto s = store->NewSession(0);
  Field f{"field0", big};
  ASSERT_EQ(s->Insert("usertable", "k0", std::span<const Field>(&f, 1)), Status::Ok());
  EXPECT_GT(fs::file_size(root_ + "/db/usertable.tcb"), big.size());
  ASSERT_EQ(s->Update("usertable", "k0", std::span<const Field>(&f, 1)), Status::Ok());
  ASSERT_EQ(s->Delete("usertable", "k0"), Status::Ok());
  EXPECT_EQ(s->Delete("usertable", "k0"), Status::NotFound());
}

// Hash reads copy into the session's buffer (4 KiB at first) and grow it:
// values just under, at and over its size, and far over, read back whole.
TEST_F(TokyoCabinetTest, HashReadsOfEverySizeReadBackWhole) {
  for (const std::string compress : {"none", "deflate"}) {
    Properties p = Props("db-" + compress);
    p.Set("tokyocabinet.type", "hash");
    p.Set("tokyocabinet.compress", compress);
    auto store = Open(p);
    auto s = store->NewSession(0);
    for (std::size_t size : {0u, 1u, 4080u, 4081u, 4082u, 4083u, 4090u, 4095u, 4096u, 4097u, 8200u, 1u << 20, 10u}) {
      std::string value(size, '\0');
      for (std::size_t i = 0; i < size; ++i) value[i] = static_cast<char>((i * 131 + size) & 0xff);
      Field f{"field0", value};
      ASSERT_EQ(s->Insert("usertable", "k", std::span<const Field>(&f, 1)), Status::Ok());
      RecordSet rs;
      ASSERT_EQ(s->Read("usertable", "k", FieldSelector{}, &rs), Status::Ok()) << size;
      EXPECT_TRUE(rs.Find(0, "field0").value_or("<missing>") == value) << compress << " " << size;
    }
  }
}

// A scan while another thread inserts and deletes in the same key range:
// every scan returns strictly increasing keys, at most `count` of them.
TEST_F(TokyoCabinetTest, ScansDuringConcurrentWritesReturnIncreasingKeys) {
  Properties p = Props();
  p.Set("tokyocabinet.lmemb", "8");  // small leaves: many splits and merges
  auto store = Open(p);
  for (int i = 0; i < 400; i += 2) ASSERT_EQ(Put(store.get(), "k" + std::to_string(1000 + i), "v"), Status::Ok());
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    auto s = store->NewSession(1);
    Field f{"field0", "w"};
    for (int round = 0; !stop.load(); ++round) {
      for (int i = 1; i < 400; i += 2) {
        const std::string key = "k" + std::to_string(1000 + i);
        if (round % 2 == 0) {
          s->Insert("usertable", key, std::span<const Field>(&f, 1));
        } else {
          s->Delete("usertable", key);
        }
      }
    }
  });
  auto s = store->NewSession(0);
  RecordSet rs;
  int bad = 0;
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(s->Scan("usertable", "k1" + std::to_string(i % 40), 50, FieldSelector{}, &rs), Status::Ok());
    if (rs.record_count() > 50) ++bad;
    for (std::size_t r = 1; r < rs.record_count(); ++r) {
      if (!(rs.key(r - 1) < rs.key(r))) ++bad;
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(bad, 0);
}

TEST_F(TokyoCabinetTest, StatsReportVersionCountAndSize) {
  auto store = Open(Props());
  for (int i = 0; i < 50; ++i) ASSERT_EQ(Put(store.get(), "user" + std::to_string(i), std::string(1000, 'x')), Status::Ok());
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["tokyocabinet.version"].rfind("1.4.", 0), 0u) << stats["tokyocabinet.version"];
  EXPECT_EQ(stats["tokyocabinet.rnum"], "50");
  EXPECT_GT(std::stoull(stats["tokyocabinet.fsiz"]), 50u * 1000);
  EXPECT_GT(*bytes, 50u * 1000);
  EXPECT_LE(std::stoull(stats["tokyocabinet.fsiz"]), MeasurePath(root_ + "/db")->file_bytes);
  EXPECT_EQ(stats["tokyocabinet.compress"], "none");
  EXPECT_EQ(stats["tokyocabinet.type"], "btree");
  EXPECT_EQ(stats["tokyocabinet.tables"], "usertable");
  store->Close();
  auto closed = StatsOf(store.get());
  EXPECT_EQ(closed.count("tokyocabinet.rnum"), 0u);
  EXPECT_THROW(store->NewSession(0), SetupError);
}

}  // namespace
}  // namespace storebench
