// LevelDB-specific behaviour: setup errors, options, the table prefixes,
// DiskUsageBytes, Stats. (The operation semantics are covered by
// conformance_test.cc.)
// What it shares with the other ordered KV engines (directories, a second
// store, bad values, Close; for the LSM trees locks and destroy) is in
// ordered_kv_engine_test.cc.
#include <gtest/gtest.h>
#include <leveldb/db.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/registry.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

class LevelDbTest : public test_util::BindingTest {
 protected:
  LevelDbTest() : BindingTest("leveldb") {}

  // 400 records of 1000 compressible bytes: 400 KB, several memtables' worth
  // at a 64k write buffer, so SST files get written.
  static void Fill(Store* store, int n = 400) {
    for (int i = 0; i < n; ++i) {
      std::string v(1000, static_cast<char>('a' + i % 26));
      ASSERT_EQ(Put(store, "user" + std::to_string(10000 + i), v), Status::Ok());
    }
  }
  // The concatenated bytes of every table file (.ldb) in the database.
  std::string TableFileBytes(const std::string& sub = "db") const {
    std::string all;
    for (const auto& e : fs::directory_iterator(root_ + "/" + sub)) {
      if (e.path().extension() != ".ldb") continue;
      std::ifstream in(e.path(), std::ios::binary);
      all.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return all;
  }
};

TEST_F(LevelDbTest, TablesAreKeyPrefixesThatNeverOverlap) {
  {
    auto store = Open(Props());
    auto s = store->NewSession(0);
    // "user" is a prefix of "usertable": its range must not swallow it.
    for (const char* table : {"usertable", "user", "usertable2"}) {
      Field f{"field0", table};
      for (const char* key : {"k1", "k2"}) {
        ASSERT_EQ(s->Insert(table, key, std::span<const Field>(&f, 1)), Status::Ok()) << table;
      }
    }
    RecordSet rs;
    for (const char* table : {"usertable", "user", "usertable2"}) {
      ASSERT_EQ(s->Scan(table, "", 100, FieldSelector{}, &rs), Status::Ok());
      ASSERT_EQ(rs.record_count(), 2u) << table;
      EXPECT_EQ(rs.key(0), "k1");
      EXPECT_EQ(rs.key(1), "k2");
      EXPECT_EQ(rs.Find(1, "field0").value_or(""), table);
    }
    // A table never written: nothing, and nothing created.
    EXPECT_EQ(s->Read("never", "k1", FieldSelector{}, &rs), Status::NotFound());
    Field f{"field0", "x"};
    EXPECT_EQ(s->Update("never", "k1", std::span<const Field>(&f, 1)), Status::NotFound());
    EXPECT_EQ(s->Scan("never", "", 10, FieldSelector{}, &rs), Status::Ok());
    EXPECT_EQ(rs.record_count(), 0u);
    // A table name with the separator byte in it is refused.
    const std::string nul_table("user\0table", 10);
    EXPECT_EQ(s->Insert(nul_table, "k1", std::span<const Field>(&f, 1)), Status(Status::kBadRequest));
    EXPECT_EQ(s->Read(nul_table, "k1", FieldSelector{}, &rs), Status(Status::kBadRequest));
    EXPECT_EQ(s->Delete("user", "k1"), Status::Ok());
    EXPECT_EQ(s->Read("usertable", "k1", FieldSelector{}, &rs), Status::Ok())
        << "another table's key untouched";
    auto stats = StatsOf(store.get());
    EXPECT_EQ(stats["leveldb.tables"], "user,usertable,usertable2");
    s.reset();
    store->Close();
  }
  // The layout as documented: table, NUL, key; the value in the record codec.
  leveldb::DB* raw = nullptr;
  ASSERT_TRUE(leveldb::DB::Open(leveldb::Options(), root_ + "/db", &raw).ok());
  std::unique_ptr<leveldb::DB> db(raw);
  std::string value;
  ASSERT_TRUE(db->Get(leveldb::ReadOptions(), std::string("usertable\0k1", 12), &value).ok());
  EXPECT_EQ(value, std::string("\x06"
                               "field0\x09usertable"));
  EXPECT_TRUE(db->Get(leveldb::ReadOptions(), std::string("user\0k1", 7), &value).IsNotFound());
}

TEST_F(LevelDbTest, CompressionShrinksTheTableFiles) {
  std::map<std::string, std::uint64_t> sst_bytes;
  for (const char* comp : {"none", "snappy"}) {
    Properties p = Props(comp);
    p.Set("leveldb.compression", comp);
    p.Set("leveldb.write_buffer_size", "64k");
    auto store = Open(p);
    Fill(store.get());
    sst_bytes[comp] = std::stoull(StatsOf(store.get())["leveldb.sstables.bytes"]);
    std::string v;
    ASSERT_EQ(Get(store.get(), "user10003", &v), Status::Ok());
    EXPECT_EQ(v, std::string(1000, 'd'));
  }
  EXPECT_GT(sst_bytes["none"], 200000u) << "most of the 400 KB is in table files";
  EXPECT_LT(sst_bytes["snappy"] * 5, sst_bytes["none"]) << "runs of one letter compress well";
}

TEST_F(LevelDbTest, BloomBitsWriteAFilterBlockAndZeroWritesNone) {
  for (const char* bits : {"0", "10"}) {
    Properties p = Props(std::string("bloom") + bits);
    p.Set("leveldb.bloom_bits", bits);
    p.Set("leveldb.write_buffer_size", "64k");
    auto store = Open(p);
    Fill(store.get());
    EXPECT_EQ(Get(store.get(), "user10001"), Status::Ok());
    EXPECT_EQ(Get(store.get(), "nosuchkey"), Status::NotFound());
    store->Close();
    std::string files = TableFileBytes(std::string("bloom") + bits);
    ASSERT_FALSE(files.empty()) << "no table file written";
    const bool has_filter = files.find("filter.leveldb.BuiltinBloomFilter2") != std::string::npos;
    EXPECT_EQ(has_filter, std::string(bits) != "0") << "bloom_bits=" << bits;
  }
}

TEST_F(LevelDbTest, CacheSizeBoundsTheBlockCache) {
  std::map<std::string, std::uint64_t> memory;
  for (const char* cache : {"0", "8M"}) {
    const std::string sub = std::string("cache") + cache;
    Properties p = Props(sub);
    p.Set("leveldb.cache_size", cache);
    p.Set("leveldb.write_buffer_size", "64k");
    // Snappy, as by default: LevelDB reads uncompressed blocks straight from
    // its mmap of the table file and caches only blocks it had to copy.
    {
      auto store = Open(p);
      Fill(store.get());
      store->Close();
    }
    auto store = Open(p);  // a fresh memtable: reads go to the table files
    const std::uint64_t before = std::stoull(StatsOf(store.get())["leveldb.approximate-memory-usage"]);
    for (int i = 0; i < 400; ++i)
      ASSERT_EQ(Get(store.get(), "user" + std::to_string(10000 + i)), Status::Ok());
    memory[cache] = std::stoull(StatsOf(store.get())["leveldb.approximate-memory-usage"]) - before;
  }
  EXPECT_EQ(memory["0"], 0u) << "cache_size=0 caches no block";
  EXPECT_GT(memory["8M"], 300000u) << "the ~100 4k blocks read stay in the 8M cache";
}

TEST_F(LevelDbTest, SyncWritesMaxOpenFilesAndBlockSizeWork) {
  Properties p = Props();
  p.Set("leveldb.sync", "true");
  p.Set("leveldb.max_open_files", "100");
  p.Set("leveldb.block_size", "64k");
  auto store = Open(p);
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  std::string v;
  EXPECT_EQ(Get(store.get(), "k", &v), Status::Ok());
  EXPECT_EQ(v, "v");
}

TEST_F(LevelDbTest, DiskUsageCountsTheLogWithoutFlushingAndStatsDescribeTheFiles) {
  auto store = Open(Props());  // 4M write buffer: 100 KB stay in the memtable
  for (int i = 0; i < 100; ++i)
    ASSERT_EQ(Put(store.get(), "user" + std::to_string(i), std::string(1000, 'x')), Status::Ok());
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(*bytes, 100000u) << "the write-ahead log holds the records";
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["leveldb.sstables.count"], "0") << "DiskUsageBytes wrote no table file";
  EXPECT_EQ(stats["leveldb.version"], "1.23");
  EXPECT_EQ(stats["leveldb.tables"], "usertable");
  for (int level = 0; level < 7; ++level) {
    EXPECT_EQ(stats["leveldb.num-files-at-level" + std::to_string(level)], "0") << level;
  }
  EXPECT_GT(std::stoull(stats["leveldb.approximate-memory-usage"]), 100000u) << "the memtable";
  EXPECT_NE(stats["leveldb.stats"].find("Compactions"), std::string::npos) << stats["leveldb.stats"];
  EXPECT_TRUE(stats.count("leveldb.approximate-size.usertable"));
}

TEST_F(LevelDbTest, StatsCountTableFilesOnceWritten) {
  Properties p = Props();
  p.Set("leveldb.write_buffer_size", "64k");
  auto store = Open(p);
  Fill(store.get());
  auto stats = StatsOf(store.get());
  std::uint64_t files = 0;
  for (int level = 0; level < 7; ++level)
    files += std::stoull(stats["leveldb.num-files-at-level" + std::to_string(level)]);
  EXPECT_GT(files, 0u);
  EXPECT_EQ(std::to_string(files), stats["leveldb.sstables.count"]);
  EXPECT_GT(std::stoull(stats["leveldb.sstables.bytes"]), 0u);
  EXPECT_GT(std::stoull(stats["leveldb.approximate-size.usertable"]), 0u);
  EXPECT_LE(std::stoull(stats["leveldb.sstables.bytes"]), *store->DiskUsageBytes());
}

// BatchInsert is one WriteBatch: the write-ahead log gets one record (7
// bytes of header, 12 of batch header) for the 100 puts, where 100 Inserts
// write 100 of each.
TEST_F(LevelDbTest, BatchInsertIsOneWriteBatch) {
  auto store = Open(Props());
  EXPECT_TRUE(store->capabilities().native_batch_insert);
  auto session = store->NewSession(0);
  auto log_bytes = [&] {
    std::uintmax_t n = 0;
    for (const auto& e : fs::directory_iterator(Dir())) {
      if (e.path().extension() == ".log") n += e.file_size();
    }
    return n;
  };
  const std::uintmax_t before = log_bytes();
  RecordBatch batch;
  for (int i = 0; i < 100; ++i) {
    const std::string v = "v" + std::to_string(100 + i);
    Field f{"field0", v};
    batch.Add("b" + std::to_string(100 + i), std::span<const Field>(&f, 1));
  }
  ASSERT_EQ(session->BatchInsert("usertable", batch), Status::Ok());
  const std::uintmax_t batch_bytes = log_bytes() - before;
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Put(session.get(), "s" + std::to_string(100 + i), "v" + std::to_string(100 + i)), Status::Ok());
  const std::uintmax_t loop_bytes = log_bytes() - before - batch_bytes;
  EXPECT_EQ(loop_bytes - batch_bytes, 99u * (7 + 12));
  std::string v;
  ASSERT_EQ(Get(session.get(), "b142", &v), Status::Ok());
  EXPECT_EQ(v, "v142");
}

}  // namespace
}  // namespace storebench
