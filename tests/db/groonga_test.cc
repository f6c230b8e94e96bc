// Groonga-specific behaviour: properties, the on-disk layout (table, column
// names, types), setup errors (locked directory, stale Groonga locks, table
// type mismatch), hash tables without scans, key limits and Stats.
// (The operation semantics are covered by conformance_test.cc.)
//
// Some tests open the database with Groonga's own C API to check what the
// binding wrote; they do so only while no store is open (the binding calls
// grn_init/grn_fin around its stores, and so does RawDb here).
#include <groonga.h>
#include <gtest/gtest.h>

#include <atomic>
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

namespace storebench {
namespace {

namespace fs = std::filesystem;

// The database opened directly with Groonga, for inspection.
class RawDb {
 public:
  explicit RawDb(const std::string& path) {
    EXPECT_EQ(grn_init(), GRN_SUCCESS);
    grn_ctx_init(&ctx_, 0);
    db_ = grn_db_open(&ctx_, path.c_str());
    EXPECT_NE(db_, nullptr) << ctx_.errbuf;
  }
  ~RawDb() {
    if (db_ != nullptr) grn_obj_close(&ctx_, db_);
    grn_ctx_fin(&ctx_);
    grn_fin();
  }
  grn_ctx* ctx() { return &ctx_; }
  grn_obj* Get(const std::string& name) { return grn_ctx_get(&ctx_, name.data(), static_cast<int>(name.size())); }
  bool ok() const { return db_ != nullptr; }

 private:
  grn_ctx ctx_;
  grn_obj* db_ = nullptr;
};

class GroongaTest : public test_util::BindingTest {
 protected:
  GroongaTest() : BindingTest("groonga") {}

  // Records of several fields, and reads of whole records.
  using BindingTest::Put;
  static Status Put(Store* store, const std::string& key, const std::vector<Field>& fields,
                    std::string_view table = "usertable") {
    auto s = store->NewSession(0);
    return s->Insert(table, key, fields);
  }
  static Status Get(Store* store, const std::string& key, RecordSet* rs, std::string_view table = "usertable") {
    auto s = store->NewSession(0);
    return s->Read(table, key, FieldSelector{}, rs);
  }
};

TEST_F(GroongaTest, CreatesTheDatabaseInMissingParentDirectories) {
  auto store = Open(Props("a/b/db"));
  EXPECT_TRUE(fs::is_regular_file(Dir("a/b/db") + "/db"));
  EXPECT_TRUE(store->capabilities().persistent);
  EXPECT_TRUE(store->capabilities().scan);
  EXPECT_TRUE(FindBinding("groonga").uses_dir);
  store->Close();
}

TEST_F(GroongaTest, DirBelowARegularFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub"));
  EXPECT_NE(msg.find("groonga.dir"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/file/sub"), std::string::npos) << msg;
}

TEST_F(GroongaTest, AFileThatIsNotAGroongaDatabaseIsASetupError) {
  fs::create_directories(Dir());
  std::ofstream(Dir() + "/db") << "this is not a Groonga database, just some bytes";
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("groonga.dir '" + Dir() + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a Groonga database"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

TEST_F(GroongaTest, BadPropertyValuesAreConfigErrorsBeforeTouchingTheDisk) {
  for (auto [name, value] : std::vector<std::pair<std::string, std::string>>{{"groonga.table_type", "btree"},
                                                                             {"groonga.value_type", "Blob"},
                                                                             {"groonga.compression", "gzip"},
                                                                             {"groonga.lockfree_reads", "maybe"},
                                                                             {"groonga.clear_lock", "2"},
                                                                             {"groonga.destroy", "yes please"}}) {
    Properties p = Props();
    p.Set(name, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(name), std::string::npos) << msg;
  }
  Properties p = Props();
  p.Set("groonga.dir", "");
  EXPECT_NE(MessageOf<ConfigError>(p).find("groonga.dir"), std::string::npos);
  EXPECT_FALSE(fs::exists(Dir()));
}

TEST_F(GroongaTest, ASecondOpenOfTheSameDirectoryFailsUntilTheFirstCloses) {
  auto first = Open(Props());
  ASSERT_EQ(Put(first.get(), "k", "v"), Status::Ok());
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find(Dir()), std::string::npos) << msg;
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  RecordSet rs;
  EXPECT_EQ(Get(first.get(), "k", &rs), Status::Ok()) << "the first store is unaffected";
  first->Close();
  first.reset();
  auto second = Open(Props());
  EXPECT_EQ(Get(second.get(), "k", &rs), Status::Ok());
  second->Close();
}

TEST_F(GroongaTest, FieldsAreColumnsWithDocumentedNamesAndTypes) {
  {
    Properties p = Props();
    p.Set("groonga.value_type", "ShortText");
    p.Set("groonga.compression", "zstd");
    auto store = Open(p);
    std::string nul("n\0m", 3);
    ASSERT_EQ(Put(store.get(), "k", {{"field0", "a"}, {"x_1", "b"}, {"_hidden", "c"}, {nul, "d"}, {"", "e"}}),
              Status::Ok());
    ASSERT_EQ(Put(store.get(), "k", {{"v", "1"}}, "my-table"), Status::Ok());
    RecordSet rs;
    ASSERT_EQ(Get(store.get(), "k", &rs), Status::Ok());
    ASSERT_EQ(rs.field_count(0), 5u);
    EXPECT_EQ(rs.field(0, 1).name, "x_1");
    EXPECT_EQ(rs.field(0, 3).name, nul);
    EXPECT_EQ(rs.field(0, 4).name, "");
    EXPECT_EQ(rs.field(0, 4).value, "e");
    store->Close();
  }
  RawDb raw(Dir() + "/db");
  ASSERT_TRUE(raw.ok());
  grn_obj* table = raw.Get("usertable");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->header.type, GRN_TABLE_PAT_KEY);
  for (std::string col : {"field0", "x_785f31", "x_5f68696464656e", "x_6e006d", "x_", "x__fields"}) {
    grn_obj* c = raw.Get("usertable." + col);
    ASSERT_NE(c, nullptr) << col;
    if (col == "x__fields") {
      EXPECT_EQ(grn_obj_get_range(raw.ctx(), c), static_cast<grn_id>(GRN_DB_UINT32));
      continue;
    }
    EXPECT_EQ(grn_obj_get_range(raw.ctx(), c), static_cast<grn_id>(GRN_DB_SHORT_TEXT)) << col;
    EXPECT_EQ(grn_column_get_flags(raw.ctx(), c) & GRN_OBJ_COMPRESS_MASK, GRN_OBJ_COMPRESS_ZSTD) << col;
  }
  EXPECT_EQ(raw.Get("usertable.x_1"), nullptr) << "x_1 is encoded, not stored as is";
  EXPECT_NE(raw.Get("x_6d792d7461626c65.v"), nullptr) << "table 'my-table' is encoded";
}

TEST_F(GroongaTest, DefaultColumnsAreUncompressedLongText) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  RawDb raw(Dir() + "/db");
  grn_obj* c = raw.Get("usertable.field0");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(grn_obj_get_range(raw.ctx(), c), static_cast<grn_id>(GRN_DB_LONG_TEXT));
  EXPECT_EQ(grn_column_get_flags(raw.ctx(), c) & GRN_OBJ_COMPRESS_MASK, GRN_OBJ_COMPRESS_NONE);
}

TEST_F(GroongaTest, HashTablesRefuseScansButStoreRecords) {
  Properties p = Props();
  p.Set("groonga.table_type", "hash");
  auto store = Open(p);
  Capabilities caps = store->capabilities();
  EXPECT_FALSE(caps.scan);
  EXPECT_NE(caps.why_no_scan.find("groonga.table_type=hash"), std::string::npos) << caps.why_no_scan;
  ASSERT_EQ(Put(store.get(), std::string("k\0\xff", 3), "v"), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(Get(store.get(), std::string("k\0\xff", 3), &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field0"), "v");
  auto s = store->NewSession(0);
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::NotImplemented());
  EXPECT_EQ(StatsOf(store.get())["groonga.table_type"], "hash");
  store->Close();
  store.reset();

  RawDb raw(Dir() + "/db");
  grn_obj* table = raw.Get("usertable");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->header.type, GRN_TABLE_HASH_KEY);
}

TEST_F(GroongaTest, ExistingTablesDecideTheTypeUnlessGivenExplicitly) {
  {
    Properties p = Props();
    p.Set("groonga.table_type", "hash");
    auto store = Open(p);
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  {
    auto store = Open(Props());  // no table_type: the hash table is kept
    EXPECT_FALSE(store->capabilities().scan);
    EXPECT_NE(store->capabilities().why_no_scan.find("hash"), std::string::npos);
    RecordSet rs;
    EXPECT_EQ(Get(store.get(), "k", &rs), Status::Ok());
    store->Close();
  }
  Properties p = Props();
  p.Set("groonga.table_type", "pat");
  std::string msg = MessageOf<SetupError>(p);
  EXPECT_NE(msg.find("groonga.table_type"), std::string::npos) << msg;
  EXPECT_NE(msg.find("usertable"), std::string::npos) << msg;
  EXPECT_NE(msg.find(Dir()), std::string::npos) << msg;

  p.Set("groonga.destroy", "true");  // a clean start with the other type works
  auto store = Open(p);
  EXPECT_TRUE(store->capabilities().scan);
  RecordSet rs;
  EXPECT_EQ(Get(store.get(), "k", &rs), Status::NotFound());
  store->Close();
}

TEST_F(GroongaTest, DestroyRemovesOnlyGroongasFiles) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  std::ofstream(Dir() + "/notes.txt") << "keep me";
  Properties p = Props();
  p.Set("groonga.destroy", "true");
  auto store = Open(p);
  RecordSet rs;
  EXPECT_EQ(Get(store.get(), "k", &rs), Status::NotFound());
  EXPECT_TRUE(fs::exists(Dir() + "/notes.txt"));
  ASSERT_EQ(Put(store.get(), "k2", "v"), Status::Ok());
  store->Close();
}

TEST_F(GroongaTest, AStaleGroongaLockIsRefusedUntilClearLockIsSet) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  {
    // A writer that dies holding the table's lock: lock, then close without
    // unlocking (the counter lives in the file).
    RawDb raw(Dir() + "/db");
    grn_obj* table = raw.Get("usertable");
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(grn_obj_lock(raw.ctx(), table, GRN_ID_NIL, 1000), GRN_SUCCESS);
    ASSERT_GT(grn_obj_is_locked(raw.ctx(), table), 0u);
  }
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find("usertable"), std::string::npos) << msg;
  EXPECT_NE(msg.find("groonga.clear_lock=true"), std::string::npos) << msg;
  EXPECT_NE(msg.find(Dir()), std::string::npos) << msg;

  Properties p = Props();
  p.Set("groonga.clear_lock", "true");
  auto store = Open(p);
  EXPECT_EQ(StatsOf(store.get())["groonga.cleared_stale_lock"], "true");
  ASSERT_EQ(Put(store.get(), "k2", "v2"), Status::Ok());
  RecordSet rs;
  EXPECT_EQ(Get(store.get(), "k", &rs), Status::Ok());
  store->Close();
  store.reset();
  auto again = Open(Props());  // the lock is gone for good
  EXPECT_EQ(StatsOf(again.get()).count("groonga.cleared_stale_lock"), 0u);
  again->Close();
}

TEST_F(GroongaTest, KeysOfOneTo4096BytesWorkOthersAreErrorsAndTheStoreGoesOn) {
  auto store = Open(Props());
  RecordSet rs;
  std::string longest(4096, '\xff');
  ASSERT_EQ(Put(store.get(), longest, "v"), Status::Ok());
  ASSERT_EQ(Get(store.get(), longest, &rs), Status::Ok());
  EXPECT_EQ(rs.key(0), longest);
  EXPECT_EQ(Put(store.get(), std::string(4097, 'a'), "v"), Status::Error());
  EXPECT_EQ(Put(store.get(), "", "v"), Status::Error());
  EXPECT_EQ(Get(store.get(), "", &rs), Status::NotFound());
  ASSERT_EQ(Put(store.get(), "after", "v"), Status::Ok());
  EXPECT_EQ(Get(store.get(), "after", &rs), Status::Ok());
  store->Close();
}

TEST_F(GroongaTest, MissingKeysAndTablesAndBuiltinNames) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Read("never", "k", FieldSelector{}, &rs), Status::NotFound());
  EXPECT_EQ(s->Scan("never", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 0u);
  Field f{"field0", "v"};
  EXPECT_EQ(s->Update("never", "k", std::span<const Field>(&f, 1)), Status::NotFound());
  EXPECT_EQ(s->Delete("usertable", "k"), Status::NotFound());
  // "select" is a Groonga command, an object of the database already.
  EXPECT_EQ(s->Insert("select", "k", std::span<const Field>(&f, 1)), Status::Error());
  EXPECT_EQ(s->Insert("usertable", "k", std::span<const Field>(&f, 1)), Status::Ok());
  s.reset();
  store->Close();
}

TEST_F(GroongaTest, StatsReportVersionRecordsAndColumns) {
  auto store = Open(Props());
  std::vector<Field> rec;
  std::vector<std::string> names;
  for (int i = 0; i < 10; ++i) names.push_back("field" + std::to_string(i));
  for (const auto& n : names) rec.push_back({n, "value"});
  for (int i = 0; i < 30; ++i) ASSERT_EQ(Put(store.get(), "user" + std::to_string(i), rec), Status::Ok());
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["groonga.version"], grn_get_version());
  EXPECT_EQ(stats["groonga.records"], "30");
  EXPECT_EQ(stats["groonga.field_columns"], "10");
  EXPECT_EQ(stats["groonga.tables"], "usertable");
  EXPECT_EQ(stats["groonga.value_type"], "LongText");
  EXPECT_EQ(stats["groonga.lockfree_reads"], "false");
  auto usage = store->DiskUsageBytes();
  ASSERT_TRUE(usage.has_value());
  EXPECT_GT(*usage, 0u);
  // Groonga's files are sparse: the blocks they occupy (DiskUsage) are fewer
  // than their sizes.
  auto file_bytes = std::stoull(StatsOf(store.get())["groonga.file_bytes"]);
  EXPECT_LT(*usage, file_bytes);
  store->Close();
}

TEST_F(GroongaTest, LockFreeReadsRunBesideAWriter) {
  Properties p = Props();
  p.Set("groonga.lockfree_reads", "true");
  auto store = Open(p);
  EXPECT_EQ(StatsOf(store.get())["groonga.lockfree_reads"], "true");
  for (int i = 0; i < 200; ++i) ASSERT_EQ(Put(store.get(), "k" + std::to_string(i), "v0"), Status::Ok());
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread writer([&] {
    auto s = store->NewSession(1);
    for (int round = 1; round <= 5; ++round) {
      for (int i = 0; i < 200; ++i) {
        std::string v = "v" + std::to_string(round);
        Field f{"field0", v};
        if (s->Update("usertable", "k" + std::to_string(i), std::span<const Field>(&f, 1)) != Status::Ok()) ++bad;
      }
    }
    done = true;
  });
  auto s = store->NewSession(2);
  RecordSet rs;
  do {
    for (int i = 0; i < 200; ++i) {
      if (s->Read("usertable", "k" + std::to_string(i), FieldSelector{}, &rs) != Status::Ok() ||
          rs.field_count(0) != 1 || rs.field(0, 0).value.size() != 2) {
        ++bad;
      }
    }
  } while (!done.load());
  writer.join();
  EXPECT_EQ(bad.load(), 0);
  ASSERT_EQ(Get(store.get(), "k7", &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field0"), "v5");
  s.reset();
  store->Close();
}

}  // namespace
}  // namespace storebench
