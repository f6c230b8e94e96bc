// LMDB-specific behaviour: setup errors, options, a full map, key limits,
// named databases per table, sharing between processes, DiskUsageBytes,
// Stats. (The operation semantics are covered by conformance_test.cc.)
// What it shares with the other ordered KV engines (directories, a second
// store, bad values, Close; for the LSM trees locks and destroy) is in
// ordered_kv_engine_test.cc.
#include <gtest/gtest.h>
#include <lmdb.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
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

class LmdbTest : public test_util::BindingTest {
 protected:
  LmdbTest() : BindingTest("lmdb") {}

  using BindingTest::Open;
  // Opened for `threads` threads (OpenContext::thread_count).
  static std::unique_ptr<Store> Open(const Properties& p, int threads) {
    OpenContext ctx;
    ctx.thread_count = threads;
    return FindBinding("lmdb").open(p, ctx);
  }
};

TEST_F(LmdbTest, AMapTooLargeForTheAddressSpaceIsASetupError) {
  Properties p = Props();
  p.Set("lmdb.mapsize", "1000000T");  // 2^60 bytes: more than any address space
  std::string msg = MessageOf<SetupError>(p);
  EXPECT_NE(msg.find("lmdb.mapsize"), std::string::npos) << msg;
  EXPECT_NE(msg.find(root_ + "/db"), std::string::npos) << msg;
  // The failed open did not leave the directory marked as open.
  auto store = Open(Props());
  EXPECT_EQ(Put(store.get(), "k", "v"), Status::Ok());
}

// (A second store on the same spelling: ordered_kv_engine_test.cc.)
TEST_F(LmdbTest, AnotherSpellingOfAnOpenEnvironmentIsASetupError) {
  auto first = Open(Props());
  Properties other;
  other.Set("lmdb.dir", root_ + "/./db/");
  EXPECT_NE(MessageOf<SetupError>(other).find("in use by another store in this process"), std::string::npos);
}

TEST_F(LmdbTest, AnotherProcessSharesTheEnvironment) {
  auto store = Open(Props());
  ASSERT_EQ(Put(store.get(), "from-parent", "p"), Status::Ok());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child opens the same environment with LMDB's C API (this process
    // has no other threads): it sees the parent's record and adds its own.
    alarm(30);
    MDB_env* env = nullptr;
    MDB_txn* txn = nullptr;
    MDB_dbi dbi;
    if (mdb_env_create(&env) != 0 || mdb_env_set_maxdbs(env, 64) != 0 ||
        mdb_env_set_mapsize(env, 16ull << 30) != 0 ||
        mdb_env_open(env, (root_ + "/db").c_str(), 0, 0644) != 0 ||
        mdb_txn_begin(env, nullptr, 0, &txn) != 0 || mdb_dbi_open(txn, "usertable", 0, &dbi) != 0) {
      _exit(3);
    }
    MDB_val k{11, const_cast<char*>("from-parent")}, v;
    if (mdb_get(txn, dbi, &k, &v) != 0) _exit(4);
    const std::string rec = std::string("\x06") + "field0" + "\x01" + "c";
    MDB_val ck{10, const_cast<char*>("from-child")}, cv{rec.size(), const_cast<char*>(rec.data())};
    if (mdb_put(txn, dbi, &ck, &cv, 0) != 0 || mdb_txn_commit(txn) != 0) _exit(5);
    mdb_env_close(env);
    _exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(child, &wstatus, 0), child);
  ASSERT_TRUE(WIFEXITED(wstatus));
  ASSERT_EQ(WEXITSTATUS(wstatus), 0) << "3: open, 4: parent's record missing, 5: write";
  std::string v;
  ASSERT_EQ(Get(store.get(), "from-child", &v), Status::Ok()) << "the parent sees the child's commit";
  EXPECT_EQ(v, "c");
}

TEST_F(LmdbTest, AFullMapIsAnErrorReportedOnceAndTheStoreKeepsWorking) {
  Properties p = Props();
  p.Set("lmdb.mapsize", "256k");  // 64 pages of 4k
  auto store = Open(p);
  auto s = store->NewSession(0);
  const std::string value(1000, 'v');
  testing::internal::CaptureStderr();
  int ok = 0, errors = 0;
  for (int i = 0; i < 400; ++i) {
    Status st = Put(s.get(), "user" + std::to_string(1000 + i), value);
    if (st == Status::Ok()) {
      ++ok;
    } else {
      EXPECT_EQ(st, Status::Error()) << i;
      ++errors;
    }
  }
  // A 1 MiB value cannot fit either; an update that grows a record neither.
  EXPECT_EQ(Put(s.get(), "big", std::string(1u << 20, 'b')), Status::Error());
  const std::string large(100000, 'g');
  Field grow{"field1", large};
  EXPECT_EQ(s->Update("usertable", "user1000", std::span<const Field>(&grow, 1)), Status::Error());
  ++errors;
  ++errors;
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_GT(ok, 10);
  EXPECT_GT(errors, 100);
  EXPECT_EQ(err, "storebench: lmdb: the map is full (lmdb.mapsize=262144 bytes): raise lmdb.mapsize\n");
  EXPECT_EQ(StatsOf(store.get())["lmdb.map_full_errors"], std::to_string(errors));
  // Reads still succeed, and so does a write that needs no new page.
  RecordSet rs;
  for (int i = 0; i < ok; ++i)
    ASSERT_EQ(s->Read("usertable", "user" + std::to_string(1000 + i), FieldSelector{}, &rs), Status::Ok())
        << i;
  ASSERT_EQ(s->Scan("usertable", "", 1000, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), static_cast<std::size_t>(ok));
  EXPECT_EQ(s->Read("usertable", "user1000", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.Find(0, "field0").value_or(""), value) << "the failed update changed nothing";
  s.reset();
  store->Close();
  // Reopened with a larger map, everything is there and writes work again.
  auto bigger = Open(Props());
  for (int i = 0; i < ok; ++i)
    ASSERT_EQ(Get(bigger.get(), "user" + std::to_string(1000 + i)), Status::Ok()) << i;
  EXPECT_EQ(Put(bigger.get(), "big", std::string(1u << 20, 'b')), Status::Ok());
}

TEST_F(LmdbTest, KeysLmdbCannotStoreAreBadRequests) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  RecordSet rs;
  const Status bad(Status::kBadRequest);
  const std::string longest(511, 'k'), too_long(512, 'k');
  Field f{"field0", "v"};
  ASSERT_EQ(Put(s.get(), longest, "v"), Status::Ok());
  EXPECT_EQ(s->Read("usertable", longest, FieldSelector{}, &rs), Status::Ok());
  for (const std::string& key : {too_long, std::string(100000, 'k'), std::string()}) {
    EXPECT_EQ(Put(s.get(), key, "v"), bad) << key.size();
    EXPECT_EQ(s->Read("usertable", key, FieldSelector{}, &rs), bad) << key.size();
    EXPECT_EQ(s->Update("usertable", key, std::span<const Field>(&f, 1)), bad) << key.size();
    EXPECT_EQ(s->Delete("usertable", key), bad) << key.size();
  }
  EXPECT_EQ(s->Scan("usertable", too_long, 10, FieldSelector{}, &rs), bad);
  // An empty start key scans from the first record.
  ASSERT_EQ(s->Scan("usertable", "", 10, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(rs.key(0), longest);
  EXPECT_EQ(StatsOf(store.get())["lmdb.maxkeysize"], "511");
}

TEST_F(LmdbTest, EachTableIsANamedDatabaseKeptAcrossReopen) {
  {
    auto store = Open(Props());
    auto s = store->NewSession(0);
    for (const char* table : {"usertable", "other"}) {
      ASSERT_EQ(Put(s.get(), "k1", table, table), Status::Ok());
      ASSERT_EQ(Put(s.get(), "k2", table, table), Status::Ok());
    }
    RecordSet rs;
    ASSERT_EQ(s->Scan("other", "", 10, FieldSelector{}, &rs), Status::Ok());
    ASSERT_EQ(rs.record_count(), 2u);
    EXPECT_EQ(rs.Find(0, "field0").value_or(""), "other");
    // A table never written: nothing, and nothing created.
    Field f{"field0", "x"};
    EXPECT_EQ(s->Read("never", "k1", FieldSelector{}, &rs), Status::NotFound());
    EXPECT_EQ(s->Update("never", "k1", std::span<const Field>(&f, 1)), Status::NotFound());
    EXPECT_EQ(s->Scan("never", "", 10, FieldSelector{}, &rs), Status::Ok());
    EXPECT_EQ(rs.record_count(), 0u);
    EXPECT_EQ(s->Insert(std::string("bad\0name", 8), "k1", std::span<const Field>(&f, 1)),
              Status(Status::kBadRequest));
    EXPECT_EQ(s->Delete("other", "k1"), Status::Ok());
    EXPECT_EQ(s->Delete("other", "k1"), Status::NotFound()) << "already gone";
    EXPECT_EQ(s->Read("usertable", "k1", FieldSelector{}, &rs), Status::Ok())
        << "the other table's key untouched";
    auto stats = StatsOf(store.get());
    EXPECT_EQ(stats["lmdb.tables"], "other,usertable");
    EXPECT_EQ(stats["lmdb.entries.usertable"], "2");
    EXPECT_EQ(stats["lmdb.entries.other"], "1");
    EXPECT_EQ(stats["lmdb.entries"], "3");
    s.reset();
    store->Close();
  }
  // The layout as documented, read with LMDB's own API.
  MDB_env* env = nullptr;
  ASSERT_EQ(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 8);
  ASSERT_EQ(mdb_env_open(env, (root_ + "/db").c_str(), MDB_RDONLY, 0644), 0);
  MDB_txn* txn = nullptr;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, "usertable", 0, &dbi), 0);
  MDB_val k{2, const_cast<char*>("k1")}, v;
  ASSERT_EQ(mdb_get(txn, dbi, &k, &v), 0);
  EXPECT_EQ(std::string(static_cast<char*>(v.mv_data), v.mv_size),
            std::string("\x06") + "field0\x09usertable");
  EXPECT_EQ(mdb_dbi_open(txn, "never", 0, &dbi), MDB_NOTFOUND);
  mdb_txn_abort(txn);
  mdb_env_close(env);
}

TEST_F(LmdbTest, FlagPropertiesReachTheEnvironment) {
  {
    auto store = Open(Props("defaults"));
    EXPECT_EQ(StatsOf(store.get())["lmdb.flags"], "NOTLS,NOSYNC");
  }
  Properties p = Props("flags");
  p.Set("lmdb.nosync", "false");
  p.Set("lmdb.nometasync", "true");
  p.Set("lmdb.nordahead", "true");
  p.Set("lmdb.writemap", "true");
  p.Set("lmdb.mapsize", "64M");
  auto store = Open(p);
  EXPECT_EQ(StatsOf(store.get())["lmdb.flags"], "NOTLS,NOMETASYNC,WRITEMAP,NORDAHEAD");
  ASSERT_EQ(Put(store.get(), "k", "v"), Status::Ok());
  std::string v;
  ASSERT_EQ(Get(store.get(), "k", &v), Status::Ok());
  EXPECT_EQ(v, "v");
  // With a writable map the file is as large as the map (sparse), while
  // DiskUsageBytes counts the pages in use.
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["lmdb.file_size"], std::to_string(64u << 20));
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_LT(*bytes, 1u << 20);
  EXPECT_EQ(std::to_string(*bytes), stats["lmdb.used_bytes"]);
}

TEST_F(LmdbTest, MaxReadersBoundsTheSessions) {
  Properties p = Props();
  p.Set("lmdb.maxreaders", "2");
  auto store = Open(p, 8);  // an explicit value is kept, even below the thread count
  EXPECT_EQ(StatsOf(store.get())["lmdb.maxreaders"], "2");
  auto a = store->NewSession(0);
  auto b = store->NewSession(1);
  try {
    store->NewSession(2);
    FAIL() << "a third session found a reader slot";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("lmdb.maxreaders=2"), std::string::npos) << e.what();
  }
  // Both sessions work, reads and writes (a write needs no reader slot).
  ASSERT_EQ(Put(a.get(), "k", "v"), Status::Ok());
  RecordSet rs;
  EXPECT_EQ(b->Read("usertable", "k", FieldSelector{}, &rs), Status::Ok());
  b.reset();
  EXPECT_NE(store->NewSession(2), nullptr) << "a slot is free again";
}

TEST_F(LmdbTest, MaxReadersDefaultsToTheThreadsPlusAMargin) {
  {
    auto store = Open(Props("few"), 4);
    EXPECT_EQ(StatsOf(store.get())["lmdb.maxreaders"], "126");
  }
  auto store = Open(Props("many"), 200);
  EXPECT_EQ(StatsOf(store.get())["lmdb.maxreaders"], "216");
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 200; ++i) sessions.push_back(store->NewSession(i));
  ASSERT_EQ(Put(sessions.back().get(), "k", "v"), Status::Ok());
}

TEST_F(LmdbTest, DiskUsageIsThePagesInUseAndStatsDescribeTheTree) {
  auto store = Open(Props());
  auto s = store->NewSession(0);
  for (int i = 0; i < 2000; ++i)
    ASSERT_EQ(Put(s.get(), "user" + std::to_string(100000 + i), std::string(1000, 'x')), Status::Ok());
  auto bytes = store->DiskUsageBytes();
  ASSERT_TRUE(bytes.has_value());
  EXPECT_GT(*bytes, 2000u * 1000);
  auto stats = StatsOf(store.get());
  EXPECT_EQ(stats["lmdb.version"].rfind("LMDB 0.9.", 0), 0u) << stats["lmdb.version"];
  EXPECT_EQ(stats["lmdb.entries"], "2000");
  EXPECT_EQ(stats["lmdb.entries.usertable"], "2000");
  EXPECT_EQ(stats["lmdb.tables"], "usertable");
  EXPECT_GE(std::stoi(stats["lmdb.depth"]), 2);
  EXPECT_GE(std::stoull(stats["lmdb.leaf_pages"]), 500u);  // 3 records of 1 KB at most per 4k page
  EXPECT_GE(std::stoull(stats["lmdb.branch_pages"]), 1u);
  EXPECT_EQ(stats["lmdb.overflow_pages"], "0");
  EXPECT_EQ(stats["lmdb.pagesize"], "4096");
  EXPECT_EQ(stats["lmdb.mapsize"], std::to_string(16ull << 30));
  EXPECT_EQ(stats["lmdb.map_full_errors"], "0");
  EXPECT_EQ(std::to_string(*bytes), stats["lmdb.used_bytes"]);
  EXPECT_EQ(std::to_string((std::stoull(stats["lmdb.last_pgno"]) + 1) * 4096), stats["lmdb.used_bytes"]);
  EXPECT_LE(*bytes, std::stoull(stats["lmdb.file_size"])) << "the file holds every page in use";
}

// BatchInsert is one write transaction: lmdb.last_txnid moves by one for
// 100 records (by 100 for 100 Inserts).
TEST_F(LmdbTest, BatchInsertIsOneWriteTransaction) {
  auto store = Open(Props());
  EXPECT_TRUE(store->capabilities().native_batch_insert);
  auto session = store->NewSession(0);
  ASSERT_EQ(Put(session.get(), "first", "x"), Status::Ok());  // the table exists from here on
  auto txnid = [&] {
    for (const auto& [k, v] : store->Stats()) {
      if (k == "lmdb.last_txnid") return std::stoll(v);
    }
    return -1LL;
  };
  const long long before = txnid();
  RecordBatch batch;
  for (int i = 0; i < 100; ++i) {
    const std::string v = "v" + std::to_string(i);
    Field f{"field0", v};
    batch.Add("k" + std::to_string(i), std::span<const Field>(&f, 1));
  }
  ASSERT_EQ(session->BatchInsert("usertable", batch), Status::Ok());
  EXPECT_EQ(txnid(), before + 1);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(Put(session.get(), "s" + std::to_string(i), "x"), Status::Ok());
  EXPECT_EQ(txnid(), before + 101);
  std::string v;
  ASSERT_EQ(Get(session.get(), "k42", &v), Status::Ok());
  EXPECT_EQ(v, "v42");
}

}  // namespace
}  // namespace storebench
