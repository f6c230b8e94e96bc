// SQLite-specific behaviour: the schema and column-name encoding, properties,
// setup errors, busy handling, schema changes seen by other sessions and
// stores, DiskUsageBytes and Stats. (Operation semantics: conformance_test.cc.)
#include <gtest/gtest.h>
#include <sqlite3.h>

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
#include "db/sql_test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

using test_util::FieldsOf;
using test_util::Owned;

class SqliteTest : public test_util::BindingTest {
 protected:
  SqliteTest() : BindingTest("sqlite") {}

  std::string DbPath(const std::string& sub = "db") const { return root_ + "/" + sub + "/storebench.db"; }
  static Status Insert(Session* s, const std::string& key, const Owned& rec, const std::string& table = "usertable") {
    return test_util::Insert(s, table, key, rec);
  }
  static Status Update(Session* s, const std::string& key, const Owned& rec) {
    return test_util::Update(s, "usertable", key, rec);
  }

  // A raw connection to the database file, to look at what the binding wrote.
  struct Raw {
    explicit Raw(const std::string& path) { EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK); }
    ~Raw() { sqlite3_close(db); }
    // Column `col` of every row of `sql` as text ("NULL" for NULL), rows joined by '|'.
    std::string Query(const std::string& sql, int col = 0) const {
      sqlite3_stmt* s = nullptr;
      if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) return "ERROR: " + std::string(sqlite3_errmsg(db));
      std::string out;
      while (sqlite3_step(s) == SQLITE_ROW) {
        if (!out.empty()) out += "|";
        const unsigned char* t = sqlite3_column_text(s, col);
        out += t ? std::string(reinterpret_cast<const char*>(t), static_cast<std::size_t>(sqlite3_column_bytes(s, col)))
                 : "NULL";
      }
      sqlite3_finalize(s);
      return out;
    }
    sqlite3* db = nullptr;
  };
};

TEST_F(SqliteTest, TableHasYcsbJdbcSchemaWithFieldcountColumns) {
  Properties p = Props();
  p.Set("fieldcount", "3");
  p.Set("fieldnameprefix", "f");
  auto store = Open(p);
  auto s = store->NewSession(0);
  ASSERT_EQ(Insert(s.get(), "user1", {{"f0", "a"}, {"f2", "c"}}), Status::Ok());
  Raw raw(DbPath());
  EXPECT_EQ(raw.Query("SELECT name FROM pragma_table_info('usertable') ORDER BY cid"), "YCSB_KEY|f0|f1|f2");
  EXPECT_EQ(raw.Query("SELECT type FROM pragma_table_info('usertable') ORDER BY cid"), "VARCHAR(255)|BLOB|BLOB|BLOB");
  // Keys and values are BLOBs; an absent field is NULL.
  EXPECT_EQ(raw.Query("SELECT typeof(YCSB_KEY), typeof(f0), typeof(f1) FROM usertable", 0), "blob");
  EXPECT_EQ(raw.Query("SELECT typeof(f0) FROM usertable"), "blob");
  EXPECT_EQ(raw.Query("SELECT typeof(f1) FROM usertable"), "null");
  EXPECT_EQ(raw.Query("SELECT f2 FROM usertable WHERE YCSB_KEY = CAST('user1' AS BLOB)"), "c");
  EXPECT_EQ(raw.Query("PRAGMA journal_mode"), "wal");
}

TEST_F(SqliteTest, FieldNamesAreEncodedSoCaseAndOddBytesNeverCollide) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  Owned rec = {{"field0", "lower"},   {"Field0", "upper"}, {"FIELD0", "all-upper"}, {"x_41", "prefix"},
               {"A", "A"},            {"ycsb_key", "key"}, {"", "empty-name"},       {std::string("n\0m", 3), "nul"},
               {"with space", "sp"},  {"\"quoted\"", "q"}};
  ASSERT_EQ(Insert(s.get(), "user1", rec), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(s->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok());
  // field0 is an existing column, so it comes first; the others are new
  // columns, in the order they were first written.
  EXPECT_EQ(FieldsOf(rs, 0), rec);
  std::string_view want[] = {"Field0", "x_41"};
  ASSERT_EQ(s->Read("usertable", "user1", FieldSelector{false, want}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"Field0", "upper"}, {"x_41", "prefix"}}));

  Raw raw(DbPath());
  std::string cols = raw.Query("SELECT name FROM pragma_table_info('usertable') ORDER BY cid");
  EXPECT_NE(cols.find("|field0|"), std::string::npos) << cols;
  EXPECT_NE(cols.find("|x_4669656c6430|"), std::string::npos) << "Field0 as hex: " << cols;
  EXPECT_NE(cols.find("|x_785f3431|"), std::string::npos) << "x_41 as hex: " << cols;
  EXPECT_NE(cols.find("|x_796373625f6b6579|"), std::string::npos) << "ycsb_key as hex: " << cols;
  EXPECT_NE(cols.find("|x_|"), std::string::npos) << "empty name: " << cols;
  EXPECT_NE(cols.find("|x_6e006d|"), std::string::npos) << "NUL byte: " << cols;
}

TEST_F(SqliteTest, ScanIsInByteOrderOfBinaryKeys) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  std::vector<std::string> keys = {std::string("a\xff", 2), "b", std::string("a\0", 2), "a", std::string("\x80", 1),
                                   "A", std::string("a\0\0", 3)};
  for (const auto& k : keys) ASSERT_EQ(Insert(s.get(), k, {{"field0", k}}), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(s->Scan("usertable", "", 100, FieldSelector{}, &rs), Status::Ok());
  std::vector<std::string> got;
  for (std::size_t r = 0; r < rs.record_count(); ++r) {
    got.emplace_back(rs.key(r));
    EXPECT_EQ(rs.Find(r, "field0").value_or("?"), rs.key(r));
  }
  std::sort(keys.begin(), keys.end());  // std::string order is memcmp order
  EXPECT_EQ(got, keys);
  ASSERT_EQ(s->Scan("usertable", std::string("a\0", 2), 2, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 2u);
  EXPECT_EQ(rs.key(0), std::string("a\0", 2));
  EXPECT_EQ(rs.key(1), std::string("a\0\0", 3));
}

TEST_F(SqliteTest, ColumnAddedBySessionIsSeenByOtherSessionsOfTheStore) {
  auto store = Open(Props());
  auto a = store->NewSession(0);
  auto b = store->NewSession(1);
  RecordSet rs;
  ASSERT_EQ(Insert(a.get(), "user1", {{"field0", "x"}}), Status::Ok());
  ASSERT_EQ(b->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok());  // b prepares its statements
  ASSERT_EQ(Update(a.get(), "user1", {{"extra", "new"}}), Status::Ok());           // a adds a column
  ASSERT_EQ(b->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"field0", "x"}, {"extra", "new"}}));
  // And b can write it at once.
  ASSERT_EQ(Insert(b.get(), "user2", {{"extra", "from-b"}}), Status::Ok());
  ASSERT_EQ(a->Read("usertable", "user2", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"extra", "from-b"}}));
}

TEST_F(SqliteTest, TwoStoresOnOneFileShareItAndTheirColumns) {
  // SQLite lets several processes (here: stores) open a database: no lock error.
  auto first = Open(Props());
  auto second = Open(Props());
  auto a = first->NewSession(0);
  auto b = second->NewSession(0);
  ASSERT_EQ(Insert(a.get(), "user1", {{"field0", "a"}}), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(b->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"field0", "a"}}));
  // A column the first store adds is found (not added twice) by the second.
  ASSERT_EQ(Insert(a.get(), "user2", {{"extra", "a"}}), Status::Ok());
  ASSERT_EQ(Insert(b.get(), "user3", {{"extra", "b"}}), Status::Ok());
  ASSERT_EQ(a->Read("usertable", "user3", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"extra", "b"}}));
  a.reset();
  b.reset();
  first->Close();
  second->Close();
}

TEST_F(SqliteTest, WriteLockedByAnotherConnectionIsServiceUnavailableAfterTheBusyTimeout) {
  Properties p = Props();
  p.Set("sqlite.busy_timeout_ms", "100");
  auto store = Open(p);
  auto s = store->NewSession(0);
  ASSERT_EQ(Insert(s.get(), "user1", {{"field0", "a"}}), Status::Ok());
  Raw other(DbPath());
  ASSERT_EQ(sqlite3_exec(other.db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Insert(s.get(), "user2", {{"field0", "b"}}), Status(Status::kServiceUnavailable));
  EXPECT_EQ(Update(s.get(), "user1", {{"field0", "c"}}), Status(Status::kServiceUnavailable));
  EXPECT_EQ(s->Delete("usertable", "user1"), Status(Status::kServiceUnavailable));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(ms, 250) << "each write waited for the busy timeout";
  RecordSet rs;
  ASSERT_EQ(s->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok()) << "WAL: readers do not wait";
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"field0", "a"}}));
  ASSERT_EQ(sqlite3_exec(other.db, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(Insert(s.get(), "user2", {{"field0", "b"}}), Status::Ok()) << "works again once the lock is gone";
}

TEST_F(SqliteTest, JournalModeSynchronousCacheAndMmapApply) {
  Properties p = Props();
  p.Set("sqlite.journal_mode", "delete");
  p.Set("sqlite.synchronous", "FULL");
  p.Set("sqlite.cache_size", "-4096");
  p.Set("sqlite.mmap_size", "1M");
  auto store = Open(p);
  auto s = store->NewSession(0);
  ASSERT_EQ(Insert(s.get(), "user1", {{"field0", "a"}}), Status::Ok());
  EXPECT_FALSE(fs::exists(DbPath() + "-wal"));
  auto m = StatsOf(store.get());
  EXPECT_EQ(m["sqlite.journal_mode"], "delete");
  EXPECT_EQ(m["sqlite.synchronous"], "2");
  EXPECT_EQ(m["sqlite.cache_size"], "-4096");
  EXPECT_EQ(m["sqlite.mmap_size"], "1048576");
  s.reset();
  store->Close();
  // Back to WAL (the default) once the file is free.
  auto wal = Open(Props());
  auto m2 = StatsOf(wal.get());
  EXPECT_EQ(m2["sqlite.journal_mode"], "wal");
  EXPECT_EQ(m2["sqlite.synchronous"], "1");
  EXPECT_EQ(m2["sqlite.cache_size"], "-2000");
}

TEST_F(SqliteTest, LeavingWalWhileAnotherStoreHasTheFileOpenIsASetupError) {
  auto wal = Open(Props());
  auto s = wal->NewSession(0);
  ASSERT_EQ(Insert(s.get(), "user1", {{"field0", "a"}}), Status::Ok());
  Properties p = Props();
  p.Set("sqlite.journal_mode", "TRUNCATE");
  std::string msg = MessageOf<SetupError>(p);
  EXPECT_NE(msg.find("sqlite.journal_mode"), std::string::npos) << msg;
  EXPECT_NE(msg.find(DbPath()), std::string::npos) << msg;
  RecordSet rs;
  EXPECT_EQ(s->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok()) << "the first store still works";
}

TEST_F(SqliteTest, BadPropertiesAreConfigErrorsNamingTheProperty) {
  for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"sqlite.journal_mode", "fast"},
           {"sqlite.synchronous", "maybe"},
           {"sqlite.cache_size", "big"},
           {"sqlite.mmap_size", "-1"},
           {"sqlite.busy_timeout_ms", "-5"},
           {"sqlite.serialize_writes", "perhaps"},
           {"sqlite.file", "a/b.db"},
           {"sqlite.file", ""},
           {"fieldcount", "2000"},
       }) {
    Properties p = Props();
    p.Set(key, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(key), std::string::npos) << key << "=" << value << ": " << msg;
    EXPECT_FALSE(fs::exists(root_ + "/db")) << "checked before touching the disk: " << key;
  }
}

TEST_F(SqliteTest, UnusableDirOrFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub"));
  EXPECT_NE(msg.find(root_ + "/file/sub"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sqlite.dir"), std::string::npos) << msg;

  fs::create_directories(root_ + "/junk");
  std::ofstream(root_ + "/junk/storebench.db") << std::string(8192, 'j');
  msg = MessageOf<SetupError>(Props("junk"));
  EXPECT_NE(msg.find(root_ + "/junk/storebench.db"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not a database"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  fs::create_directories(root_ + "/dir/storebench.db");
  msg = MessageOf<SetupError>(Props("dir"));
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
}

TEST_F(SqliteTest, TooManyColumnsIsAnErrorAndTheStoreKeepsWorking) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  Owned wide;
  for (int i = 0; i < 2000; ++i) wide.emplace_back("c" + std::to_string(i), "v");
  EXPECT_EQ(Insert(s.get(), "wide", wide), Status::Error());
  ASSERT_EQ(Insert(s.get(), "user1", {{"field0", "a"}}), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(s->Read("usertable", "user1", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldsOf(rs, 0), (Owned{{"field0", "a"}}));
}

TEST_F(SqliteTest, EachTableIsAnSqlTableCreatedOnFirstWrite) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Read("other", "k", FieldSelector{}, &rs), Status::NotFound());
  EXPECT_EQ(Update(s.get(), "k", {{"field0", "x"}}), Status::NotFound());
  EXPECT_EQ(s->Scan("other", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 0u);
  EXPECT_EQ(s->Delete("other", "k"), Status::NotFound());
  ASSERT_EQ(Insert(s.get(), "k", {{"field0", "in-other"}}, "other"), Status::Ok());
  ASSERT_EQ(Insert(s.get(), "k", {{"field0", "in-usertable"}}), Status::Ok());
  ASSERT_EQ(s->Read("other", "k", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field0").value_or(""), "in-other");
  auto m = StatsOf(store.get());
  EXPECT_EQ(m["sqlite.tables"], "other,usertable");
  EXPECT_EQ(m["sqlite.other.rows"], "1");
  EXPECT_EQ(m["sqlite.usertable.field_columns"], "10");
}

TEST_F(SqliteTest, DiskUsageCheckpointsTheWalAndStatsDescribeTheFile) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  for (int i = 0; i < 300; ++i) ASSERT_EQ(Insert(s.get(), "user" + std::to_string(i), {{"field0", std::string(1000, 'v')}}), Status::Ok());
  ASSERT_GT(fs::file_size(DbPath() + "-wal"), 0u) << "writes go to the WAL first";
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(fs::file_size(DbPath() + "-wal"), 0u) << "checkpointed and truncated";
  EXPECT_EQ(*bytes, fs::file_size(DbPath()));
  EXPECT_GT(*bytes, 300u * 1000u);
  auto m = StatsOf(store.get());
  EXPECT_EQ(m["sqlite.version"], sqlite3_libversion());
  EXPECT_EQ(m["sqlite.page_size"], "4096");
  EXPECT_EQ(std::stoull(m["sqlite.page_count"]) * 4096, *bytes);
  EXPECT_TRUE(m.count("sqlite.freelist_count"));
  EXPECT_EQ(m["sqlite.usertable.rows"], "300");
}

TEST_F(SqliteTest, CloseIsIdempotentAndRemovesTheWal) {
  auto store = Open(Props());
  {
    auto s = store->NewSession(0);
    ASSERT_EQ(Insert(s.get(), "user1", {{"field0", "a"}}), Status::Ok());
  }
  store->Close();
  store->Close();
  EXPECT_THROW(store->NewSession(0), SetupError);
  EXPECT_FALSE(fs::exists(DbPath() + "-wal")) << "the last connection checkpoints and removes the WAL";
  Raw raw(DbPath());
  EXPECT_EQ(raw.Query("SELECT count(*) FROM usertable"), "1");
}

// BatchInsert is one transaction: the WAL grows by a few frames (the
// pages the 100 rows touch, committed once), where 100 autocommit Inserts
// append at least one frame each.
TEST_F(SqliteTest, BatchInsertIsOneTransaction) {
  auto store = Open(Props());
  EXPECT_TRUE(store->capabilities().native_batch_insert);
  auto session = store->NewSession(0);
  ASSERT_EQ(Put(session.get(), "first", "x"), Status::Ok());  // table and column exist
  const std::string wal = DbPath() + "-wal";
  auto frames = [&] { return static_cast<long long>(fs::file_size(wal)); };
  const long long before = frames();
  RecordBatch batch;
  for (int i = 0; i < 100; ++i) {
    const std::string v = "v" + std::to_string(i);
    Field f{"field0", v};
    batch.Add("k" + std::to_string(100 + i), std::span<const Field>(&f, 1));
  }
  ASSERT_EQ(session->BatchInsert("usertable", batch), Status::Ok());
  const long long page = std::stoll(Raw(DbPath()).Query("PRAGMA page_size"));
  const long long batch_frames = (frames() - before) / (page + 24);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Put(session.get(), "s" + std::to_string(100 + i), "x"), Status::Ok());
  const long long loop_frames = (frames() - before) / (page + 24) - batch_frames;
  EXPECT_LE(batch_frames, 3);
  EXPECT_GE(loop_frames, 100);
  EXPECT_EQ(Raw(DbPath()).Query("SELECT count(*) FROM usertable"), "201");
  std::string v;
  ASSERT_EQ(Get(session.get(), "k142", &v), Status::Ok());
  EXPECT_EQ(v, "v42");
}

}  // namespace
}  // namespace storebench
