// Tokyo Cabinet-specific behaviour: types, tables as files, properties,
// setup errors (locks, bad files), atomic updates, Stats.
// (The operation semantics are covered by conformance_test.cc.)
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

TEST_F(TokyoCabinetTest, BtreeIsTheDefaultOneFilePerTableCreatedOnFirstInsert) {
  auto store = Open(Props("a/b/db"));
  EXPECT_TRUE(FindBinding("tokyocabinet").uses_dir);
  EXPECT_TRUE(store->capabilities().scan);
  EXPECT_TRUE(store->capabilities().persistent);
  EXPECT_TRUE(fs::is_directory(root_ + "/a/b/db"));
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/usertable.tcb"));
  auto s = store->NewSession(0);
  RecordSet rs;
  // A table never written has nothing, and reading it creates nothing.
  EXPECT_EQ(s->Read("usertable", "k", FieldSelector{}, &rs), Status::NotFound());
  Field f{"field0", "v"};
  EXPECT_EQ(s->Update("usertable", "k", std::span<const Field>(&f, 1)), Status::NotFound());
  EXPECT_EQ(s->Delete("usertable", "k"), Status::NotFound());
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 0u);
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/usertable.tcb"));
  ASSERT_EQ(s->Insert("usertable", "k", std::span<const Field>(&f, 1)), Status::Ok());
  ASSERT_EQ(s->Insert("other", "k", std::span<const Field>(&f, 1)), Status::Ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/a/b/db/usertable.tcb"));
  EXPECT_TRUE(fs::is_regular_file(root_ + "/a/b/db/other.tcb"));
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["tokyocabinet.type"], "btree");
  EXPECT_EQ(stats["tokyocabinet.tables"], "other,usertable");
  EXPECT_EQ(stats["tokyocabinet.rnum"], "2");
}

TEST_F(TokyoCabinetTest, TablesAreFoundAgainOnReopenAndStayApart) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "user1", "in-usertable"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "user1", "in-other", "other"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "user2", "in-other", "other"), Status::Ok());
    store->Close();
  }
  auto store = Open(Props());
  EXPECT_EQ(StatsOf(store.get())["tokyocabinet.tables"], "other,usertable");
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

TEST_F(TokyoCabinetTest, TableNamesThatAreNotPlainFileNamesAreErrors) {
  auto store = Open(Props());
  for (const std::string table : {"../escape", "a/b", ".hidden", ""}) {
    EXPECT_EQ(Put(store.get(), "k", "v", table), Status::Error()) << table;
    EXPECT_EQ(Get(store.get(), "k", nullptr, table), Status::NotFound()) << table;
  }
  EXPECT_FALSE(fs::exists(root_ + "/escape.tcb"));
  EXPECT_EQ(Put(store.get(), "k", "v", "Table_1-x.y"), Status::Ok());
  EXPECT_TRUE(fs::exists(root_ + "/db/Table_1-x.y.tcb"));
}

TEST_F(TokyoCabinetTest, HashTypeCannotScanAndSaysWhy) {
  Properties p = Props();
  p.Set("tokyocabinet.type", "hash");
  auto store = Open(p);
  Capabilities c = store->capabilities();
  EXPECT_FALSE(c.scan);
  EXPECT_EQ(c.why_no_scan, "tokyocabinet.type=hash keeps no key order");
  EXPECT_TRUE(c.persistent);
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/db/usertable.tch"));
  std::string v;
  ASSERT_EQ(Get(store.get(), "k", &v), Status::Ok());
  EXPECT_EQ(v, "v");
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Error());
  EXPECT_EQ(StatsOf(store.get())["tokyocabinet.type"], "hash");
}

TEST_F(TokyoCabinetTest, OpeningTheOtherTypesFilesIsAConfigError) {
  {
    Properties p = Props();
    p.Set("tokyocabinet.type", "hash");
    auto store = Open(p);
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  std::string msg = MessageOf<ConfigError>(Props());  // type=btree by default
  EXPECT_NE(msg.find("usertable.tch"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tokyocabinet.type=btree"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
}

TEST_F(TokyoCabinetTest, BadPropertyValuesAreConfigErrorsNamingTheProperty) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"tokyocabinet.type", "tree"},      {"tokyocabinet.bnum", "-1"},     {"tokyocabinet.bnum", "many"},
      {"tokyocabinet.lmemb", "-5"},       {"tokyocabinet.nmemb", "x"},     {"tokyocabinet.lcnum", "2G"},
      {"tokyocabinet.ncnum", "-1"},       {"tokyocabinet.xmsiz", "lots"},  {"tokyocabinet.xmsiz", "4T"},
      {"tokyocabinet.compress", "zlib"},  {"tokyocabinet.large", "maybe"}, {"tokyocabinet.sync", "maybe"},
      {"tokyocabinet.destroy", "yes please"},
  };
  for (const auto& [name, value] : bad) {
    Properties p = Props();
    p.Set(name, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(name), std::string::npos) << name << "=" << value << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  Properties p = Props();
  p.Set("tokyocabinet.compress", "gzip");
  EXPECT_NE(MessageOf<ConfigError>(p).find("tcbs"), std::string::npos) << "lists the choices";
  EXPECT_FALSE(fs::exists(root_ + "/db")) << "properties are checked before touching the disk";
}

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

TEST_F(TokyoCabinetTest, DirBelowARegularFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub/db"));
  EXPECT_NE(msg.find(root_ + "/file/sub/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(TokyoCabinetTest, AFileThatIsNotATokyoCabinetDatabaseIsASetupErrorNamingIt) {
  fs::create_directories(root_ + "/db");
  std::ofstream(root_ + "/db/usertable.tcb") << std::string(4096, 'x');
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("usertable.tcb"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(TokyoCabinetTest, OpeningTheSameDirTwiceInOneProcessIsASetupError) {
  auto first = Open(Props());
  ASSERT_EQ(Put(first.get(), "k", "v"), Status::Ok());
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  // With destroy=true too: the open database must not be wiped.
  Properties d = Props();
  d.Set("tokyocabinet.destroy", "true");
  EXPECT_NE(MessageOf<SetupError>(d).find("locked"), std::string::npos);
  EXPECT_EQ(Get(first.get(), "k"), Status::Ok()) << "the first store still works";
  first->Close();
  first.reset();
  auto second = Open(Props());  // free again once closed
  EXPECT_EQ(Get(second.get(), "k"), Status::Ok());
}

TEST_F(TokyoCabinetTest, TableFileLockedByAnotherProcessIsASetupErrorAtOnce) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  const std::string path = root_ + "/db/usertable.tcb";
  // The store made the file (LockHeldByChild would create a missing one).
  ASSERT_TRUE(fs::is_regular_file(path));
  // The fcntl write lock TC takes on the whole file (tclock).
  test_util::LockHeldByChild other;
  ASSERT_NO_FATAL_FAILURE(other.Hold(path, test_util::LockKind::kFcntlWrite));
  auto start = std::chrono::steady_clock::now();
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "OTRYLOCK: no waiting";
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find("usertable.tcb"), std::string::npos) << msg;
  other.Release();
  auto store = Open(Props());  // free again once the other process is gone
  EXPECT_EQ(Get(store.get(), "k"), Status::Ok());
}

TEST_F(TokyoCabinetTest, DestroyClearsEveryTable) {
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
  p.Set("tokyocabinet.destroy", "true");
  auto store = Open(p);
  EXPECT_EQ(Get(store.get(), "k"), Status::NotFound());
  EXPECT_EQ(Get(store.get(), "k", nullptr, "other"), Status::NotFound());
  EXPECT_EQ(StatsOf(store.get())["tokyocabinet.rnum"], "0");
  ASSERT_EQ(Put(store.get(), "k2", "v"), Status::Ok());
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

TEST_F(TokyoCabinetTest, ConcurrentUpdatesOfOneRecordAreAtomic) {
  // The hash type; btree, the default, is checked by the conformance suite.
  for (const std::string type : {"hash"}) {
    Properties p = Props(type);
    p.Set("tokyocabinet.type", type);
    auto store = Open(p);
    for (int round = 0; round < 3; ++round) EXPECT_EQ(test_util::LostUpdates(store.get(), 2000), 0) << type << " round " << round;
  }
}

}  // namespace
}  // namespace storebench
