// What the embedded engines with a store directory share, run once per
// engine (LevelDb/..., Lmdb/..., RocksDb/..., KyotoCabinet/...,
// TokyoCabinet/...): creating the directory, refusing a second store on it,
// checking properties before touching the disk, Close. The engines whose
// files another process can lock, and that have NAME.destroy (all but LMDB,
// which shares its environment between processes): that lock and destroy.
// The table-file engines, Kyoto and Tokyo Cabinet (src/db/table_files.h):
// one file per table, an ordered and a hash type, atomic hash updates.
// What only one engine has stays in its own test file; the operation
// semantics are in conformance_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/registry.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

// One engine of the suite. Empty fields are not checked.
struct Engine {
  std::string binding = {};                     // "leveldb"
  std::vector<std::string> created_files = {};  // what opening writes into the directory
  std::string dir_error_says = {};              // a directory below a file: the message holds this
  std::string in_use_says = "locked";           // a second store on the directory: the message holds this
  bool names_the_property = true;               // ... and "NAME.dir 'DIR'" (else just DIR)
  bool has_destroy = true;                      // NAME.destroy exists
  std::vector<std::pair<std::string, std::string>> bad = {};  // property values that are ConfigErrors
  std::string choice_property = {};  // a choice property: a bad value
  std::string choice_bad = {};       // lists the choices,
  std::string choice_listed = {};    // this one among them
  std::optional<std::size_t> stats_when_closed = {};  // Stats() entries once closed
  bool no_disk_usage_when_closed = false;
  // Another process's lock: the file (in the directory) the engine locks,
  // and whether the message names it.
  std::string lock_file = {};
  bool lock_named_in_message = false;
  // Table-file engines: the types, the files' extensions, the record count in Stats.
  std::string ordered_type = {};  // the default type: "tree"
  std::string ordered_ext = {};   // its files' extension: ".kct"
  std::string hash_ext = {};      // the hash type's: ".kch"
  std::string count_stat = {};    // Stats' summed record count: "count"
};

class EmbeddedEngineTest : public test_util::BindingTest, public ::testing::WithParamInterface<Engine> {
 protected:
  EmbeddedEngineTest() : BindingTest(GetParam().binding) {}

  const Engine& engine() const { return GetParam(); }
  // The property or Stats entry NAME of this binding: "leveldb.NAME".
  std::string Prop(const std::string& name) const { return engine().binding + "." + name; }
  Properties HashProps(const std::string& sub = "db") const {
    Properties p = Props(sub);
    p.Set(Prop("type"), "hash");
    return p;
  }
};

// Engines whose files another process can lock, with NAME.destroy.
class LockingEngineTest : public EmbeddedEngineTest {};
// Kyoto and Tokyo Cabinet: one file per table, two types.
class TableFileEngineTest : public EmbeddedEngineTest {};

TEST_P(EmbeddedEngineTest, CreatesMissingParentDirectories) {
  auto store = Open(Props("a/b/c/db"));
  EXPECT_TRUE(fs::is_directory(root_ + "/a/b/c/db"));
  for (const std::string& file : engine().created_files) {
    EXPECT_TRUE(fs::exists(root_ + "/a/b/c/db/" + file)) << file;
  }
  EXPECT_TRUE(store->capabilities().persistent);
  EXPECT_TRUE(store->capabilities().scan);
  EXPECT_TRUE(FindBinding(engine().binding).uses_dir);
}

TEST_P(EmbeddedEngineTest, DirBelowARegularFileIsASetupErrorNamingThePath) {
  std::ofstream(root_ + "/file") << "not a directory";
  std::string msg = MessageOf<SetupError>(Props("file/sub/db"));
  EXPECT_NE(msg.find(engine().dir_error_says), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/file/sub/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
}

TEST_P(EmbeddedEngineTest, BadValuesAreConfigErrorsNamingTheProperty) {
  for (const auto& [name, value] : engine().bad) {
    Properties p = Props();
    p.Set(name, value);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(name), std::string::npos) << name << "=" << value << ": " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  if (!engine().choice_property.empty()) {
    Properties p = Props();
    p.Set(engine().choice_property, engine().choice_bad);
    std::string msg = MessageOf<ConfigError>(p);
    EXPECT_NE(msg.find(engine().choice_property), std::string::npos) << msg;
    EXPECT_NE(msg.find(engine().choice_listed), std::string::npos) << "lists the choices: " << msg;
  }
  EXPECT_FALSE(fs::exists(root_ + "/db")) << "properties are checked before touching the disk";
}

TEST_P(EmbeddedEngineTest, OpeningTheSameDirTwiceIsASetupError) {
  auto first = Open(Props());
  ASSERT_EQ(Put(first.get(), "k", "v"), Status::Ok());
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find(engine().in_use_says), std::string::npos) << msg;
  const std::string dir = engine().names_the_property ? Prop("dir") + " '" + root_ + "/db'" : root_ + "/db";
  EXPECT_NE(msg.find(dir), std::string::npos) << msg;
  if (engine().has_destroy) {
    // With destroy=true too: the open database must not be wiped.
    Properties p = Props();
    p.Set(Prop("destroy"), "true");
    msg = MessageOf<SetupError>(p);
    EXPECT_NE(msg.find(engine().in_use_says), std::string::npos) << msg;
  }
  EXPECT_EQ(Get(first.get(), "k"), Status::Ok()) << "the first store still works";
  first->Close();
  first.reset();
  auto second = Open(Props());  // free again once closed
  EXPECT_EQ(Get(second.get(), "k"), Status::Ok());
}

TEST_P(EmbeddedEngineTest, CloseIsIdempotentAndTheDataSurvives) {
  auto store = Open(Props());
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  store->Close();
  store->Close();
  EXPECT_THROW(store->NewSession(0), SetupError);
  if (engine().stats_when_closed) {
    EXPECT_EQ(store->Stats().size(), *engine().stats_when_closed) << "just the version once closed";
  }
  if (engine().no_disk_usage_when_closed) {
    EXPECT_FALSE(store->DiskUsageBytes().has_value());
  }
  auto again = Open(Props());
  EXPECT_EQ(Get(again.get(), "k"), Status::Ok());
}

TEST_P(LockingEngineTest, LockedByAnotherProcessIsASetupErrorAtOnce) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  const std::string path = root_ + "/db/" + engine().lock_file;
  // The store made the file (LockHeldByChild would create a missing one).
  ASSERT_TRUE(fs::is_regular_file(path));
  // The POSIX write lock every one of these engines takes on the whole file.
  test_util::LockHeldByChild other;
  ASSERT_NO_FATAL_FAILURE(other.Hold(path, test_util::LockKind::kFcntlWrite));
  auto start = std::chrono::steady_clock::now();
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "a try-lock: no waiting";
  EXPECT_NE(msg.find("locked"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  if (engine().lock_named_in_message) {
    EXPECT_NE(msg.find(engine().lock_file), std::string::npos) << msg;
  }
  other.Release();
  auto store = Open(Props());  // free again once the other process is gone
  EXPECT_EQ(Get(store.get(), "k"), Status::Ok());
  EXPECT_EQ(Put(store.get(), "k2", "v"), Status::Ok());
}

TEST_P(LockingEngineTest, DestroyWipesEveryTable) {
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
  p.Set(Prop("destroy"), "true");
  auto store = Open(p);
  EXPECT_EQ(Get(store.get(), "k"), Status::NotFound());
  EXPECT_EQ(Get(store.get(), "k", nullptr, "other"), Status::NotFound());
  if (!engine().count_stat.empty()) {
    EXPECT_EQ(StatsOf(store.get())[Prop(engine().count_stat)], "0");
  }
  ASSERT_EQ(Put(store.get(), "k2", "v"), Status::Ok());
}

TEST_P(TableFileEngineTest, OrderedIsTheDefaultOneFilePerTableCreatedOnFirstInsert) {
  const std::string ext = engine().ordered_ext;
  auto store = Open(Props("a/b/db"));
  EXPECT_TRUE(FindBinding(engine().binding).uses_dir);
  EXPECT_TRUE(store->capabilities().scan);
  EXPECT_TRUE(store->capabilities().persistent);
  EXPECT_TRUE(fs::is_directory(root_ + "/a/b/db"));
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/usertable" + ext));
  auto s = store->NewSession(0);
  RecordSet rs;
  // A table never written has nothing, and reading it creates nothing.
  EXPECT_EQ(s->Read("usertable", "k", FieldSelector{}, &rs), Status::NotFound());
  Field f{"field0", "v"};
  EXPECT_EQ(s->Update("usertable", "k", std::span<const Field>(&f, 1)), Status::NotFound());
  EXPECT_EQ(s->Delete("usertable", "k"), Status::NotFound());
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 0u);
  EXPECT_FALSE(fs::exists(root_ + "/a/b/db/usertable" + ext));
  ASSERT_EQ(s->Insert("usertable", "k", std::span<const Field>(&f, 1)), Status::Ok());
  ASSERT_EQ(s->Insert("other", "k", std::span<const Field>(&f, 1)), Status::Ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/a/b/db/usertable" + ext));
  EXPECT_TRUE(fs::is_regular_file(root_ + "/a/b/db/other" + ext));
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats[Prop("type")], engine().ordered_type);
  EXPECT_EQ(stats[Prop("tables")], "other,usertable");
  EXPECT_EQ(stats[Prop(engine().count_stat)], "2");
}

TEST_P(TableFileEngineTest, TablesAreFoundAgainOnReopenAndStayApart) {
  {
    auto store = Open(Props());
    ASSERT_EQ(Put(store.get(), "user1", "in-usertable"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "user1", "in-other", "other"), Status::Ok());
    ASSERT_EQ(Put(store.get(), "user2", "in-other", "other"), Status::Ok());
    store->Close();
  }
  auto store = Open(Props());
  EXPECT_EQ(StatsOf(store.get())[Prop("tables")], "other,usertable");
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

TEST_P(TableFileEngineTest, TableNamesThatAreNotPlainFileNamesAreErrors) {
  const std::string ext = engine().ordered_ext;
  auto store = Open(Props());
  for (const std::string table : {"../escape", "a/b", ".hidden", ""}) {
    EXPECT_EQ(Put(store.get(), "k", "v", table), Status::Error()) << table;
    EXPECT_EQ(Get(store.get(), "k", nullptr, table), Status::NotFound()) << table;
  }
  EXPECT_FALSE(fs::exists(root_ + "/escape" + ext));
  EXPECT_EQ(Put(store.get(), "k", "v", "Table_1-x.y"), Status::Ok());
  EXPECT_TRUE(fs::exists(root_ + "/db/Table_1-x.y" + ext));
}

TEST_P(TableFileEngineTest, HashTypeCannotScanAndSaysWhy) {
  auto store = Open(HashProps());
  Capabilities c = store->capabilities();
  EXPECT_FALSE(c.scan);
  EXPECT_EQ(c.why_no_scan, Prop("type") + "=hash keeps no key order");
  EXPECT_TRUE(c.persistent);
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  EXPECT_TRUE(fs::is_regular_file(root_ + "/db/usertable" + engine().hash_ext));
  std::string v;
  ASSERT_EQ(Get(store.get(), "k", &v), Status::Ok());
  EXPECT_EQ(v, "v");
  auto s = store->NewSession(0);
  RecordSet rs;
  EXPECT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Error());
  EXPECT_EQ(StatsOf(store.get())[Prop("type")], "hash");
}

TEST_P(TableFileEngineTest, OpeningTheOtherTypesFilesIsAConfigError) {
  {
    auto store = Open(HashProps());
    ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
    store->Close();
  }
  std::string msg = MessageOf<ConfigError>(Props());  // the ordered type by default
  EXPECT_NE(msg.find("usertable" + engine().hash_ext), std::string::npos) << msg;
  EXPECT_NE(msg.find(Prop("type") + "=" + engine().ordered_type), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
}

TEST_P(TableFileEngineTest, AFileThatIsNotADatabaseOfTheEngineIsASetupErrorNamingIt) {
  const std::string file = "usertable" + engine().ordered_ext;
  fs::create_directories(root_ + "/db");
  std::ofstream(root_ + "/db/" + file) << std::string(4096, 'x');
  std::string msg = MessageOf<SetupError>(Props());
  EXPECT_NE(msg.find(file), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_P(TableFileEngineTest, ConcurrentUpdatesOfOneRecordAreAtomic) {
  // The hash type; the ordered one, the default, is checked by the conformance suite.
  auto store = Open(HashProps("hash"));
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(test_util::LostUpdates(store.get(), 2000), 0) << "round " << round;
  }
}

const Engine kLevelDb{
    .binding = "leveldb",
    .created_files = {"CURRENT"},
    .dir_error_says = "leveldb.dir",
    .bad = {{"leveldb.compression", "zstd"},
            {"leveldb.cache_size", "lots"},
            {"leveldb.write_buffer_size", "1k"},
            {"leveldb.write_buffer_size", "2G"},
            {"leveldb.block_size", "512"},
            {"leveldb.block_size", "8M"},
            {"leveldb.bloom_bits", "-1"},
            {"leveldb.bloom_bits", "ten"},
            {"leveldb.max_open_files", "10"},
            {"leveldb.sync", "maybe"},
            {"leveldb.destroy", "2"}},
    .choice_property = "leveldb.compression",
    .choice_bad = "zstd",
    .choice_listed = "snappy",
    .stats_when_closed = 1,
    .lock_file = "LOCK",
};

const Engine kLmdb{
    .binding = "lmdb",
    .created_files = {"data.mdb", "lock.mdb"},
    .dir_error_says = "lmdb.dir",
    .in_use_says = "in use by another store in this process",
    .has_destroy = false,
    .bad = {{"lmdb.mapsize", "lots"},
            {"lmdb.mapsize", "1k"},
            {"lmdb.maxreaders", "-1"},
            {"lmdb.maxreaders", "many"},
            {"lmdb.nosync", "maybe"},
            {"lmdb.nometasync", "2"},
            {"lmdb.writemap", "yes-ish"},
            {"lmdb.nordahead", "never"}},
    .stats_when_closed = 1,
    .no_disk_usage_when_closed = true,
};

const Engine kRocksDb{
    .binding = "rocksdb",
    .dir_error_says = "Not a directory",
    .names_the_property = false,
    .bad = {{"rocksdb.cache_size", "lots"}, {"rocksdb.sync", "maybe"}},
    .choice_property = "rocksdb.compression",
    .choice_bad = "gzip",
    .choice_listed = "zstd",
    .lock_file = "LOCK",
};

const Engine kKyotoCabinet{
    .binding = "kyotocabinet",
    .dir_error_says = "kyotocabinet.dir",
    .bad = {{"kyotocabinet.type", "btree"},
            {"kyotocabinet.bnum", "-1"},
            {"kyotocabinet.bnum", "many"},
            {"kyotocabinet.msiz", "lots"},
            {"kyotocabinet.pccap", "1X"},
            {"kyotocabinet.compress", "gzip"},
            {"kyotocabinet.sync", "maybe"},
            {"kyotocabinet.destroy", "yes please"},
            {"kyotocabinet.msiz", "4T"}},
    .choice_property = "kyotocabinet.compress",
    .choice_bad = "gzip",
    .choice_listed = "lzma",
    .lock_file = "usertable.kct",
    .lock_named_in_message = true,
    .ordered_type = "tree",
    .ordered_ext = ".kct",
    .hash_ext = ".kch",
    .count_stat = "count",
};

const Engine kTokyoCabinet{
    .binding = "tokyocabinet",
    .dir_error_says = "tokyocabinet.dir",
    .bad = {{"tokyocabinet.type", "tree"},
            {"tokyocabinet.bnum", "-1"},
            {"tokyocabinet.bnum", "many"},
            {"tokyocabinet.lmemb", "-5"},
            {"tokyocabinet.nmemb", "x"},
            {"tokyocabinet.lcnum", "2G"},
            {"tokyocabinet.ncnum", "-1"},
            {"tokyocabinet.xmsiz", "lots"},
            {"tokyocabinet.xmsiz", "4T"},
            {"tokyocabinet.compress", "zlib"},
            {"tokyocabinet.large", "maybe"},
            {"tokyocabinet.sync", "maybe"},
            {"tokyocabinet.destroy", "yes please"}},
    .choice_property = "tokyocabinet.compress",
    .choice_bad = "gzip",
    .choice_listed = "tcbs",
    .lock_file = "usertable.tcb",
    .lock_named_in_message = true,
    .ordered_type = "btree",
    .ordered_ext = ".tcb",
    .hash_ext = ".tch",
    .count_stat = "rnum",
};

INSTANTIATE_TEST_SUITE_P(LevelDb, EmbeddedEngineTest, ::testing::Values(kLevelDb));
INSTANTIATE_TEST_SUITE_P(Lmdb, EmbeddedEngineTest, ::testing::Values(kLmdb));
INSTANTIATE_TEST_SUITE_P(RocksDb, EmbeddedEngineTest, ::testing::Values(kRocksDb));
INSTANTIATE_TEST_SUITE_P(KyotoCabinet, EmbeddedEngineTest, ::testing::Values(kKyotoCabinet));
INSTANTIATE_TEST_SUITE_P(TokyoCabinet, EmbeddedEngineTest, ::testing::Values(kTokyoCabinet));
INSTANTIATE_TEST_SUITE_P(LevelDb, LockingEngineTest, ::testing::Values(kLevelDb));
INSTANTIATE_TEST_SUITE_P(RocksDb, LockingEngineTest, ::testing::Values(kRocksDb));
INSTANTIATE_TEST_SUITE_P(KyotoCabinet, LockingEngineTest, ::testing::Values(kKyotoCabinet));
INSTANTIATE_TEST_SUITE_P(TokyoCabinet, LockingEngineTest, ::testing::Values(kTokyoCabinet));
INSTANTIATE_TEST_SUITE_P(KyotoCabinet, TableFileEngineTest, ::testing::Values(kKyotoCabinet));
INSTANTIATE_TEST_SUITE_P(TokyoCabinet, TableFileEngineTest, ::testing::Values(kTokyoCabinet));

}  // namespace
}  // namespace storebench
