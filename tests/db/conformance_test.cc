// The binding conformance suite: one set of tests run against every binding
// in the registry except "null" (which stores nothing by design), so a
// binding added to bindings.def is covered without touching this file.
//
// Semantics every storing binding must follow:
//  - Insert creates or overwrites a record with exactly the given fields.
//  - Read returns the stored fields (all, or the selected ones) in the order
//    they were written; NOT_FOUND for a missing key, with `out` cleared.
//  - Update sets the given fields and keeps the others; NOT_FOUND (and no
//    record created) for a missing key.
//  - Delete removes the record; deleting a missing key is OK or NOT_FOUND,
//    never ERROR.
//  - Scan returns up to `count` records in key order from start_key
//    inclusive, fewer at the end of the key space.
//  - BatchInsert writes every record of the batch as Insert does (exactly
//    its fields, overwriting); an empty batch is OK and writes nothing.
//  - Sessions of one store may be used concurrently by their own threads.
//  - A persistent binding keeps its data across Close and reopen, and
//    reports a positive DiskUsageBytes once it holds data.
#include <gtest/gtest.h>

#include <chrono>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/binding_test_util.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

using Owned = std::vector<std::pair<std::string, std::string>>;

std::vector<Field> Views(const Owned& owned) {
  std::vector<Field> out;
  for (const auto& [n, v] : owned) out.push_back({n, v});
  return out;
}

// A deterministic 10-field record of 100-byte values for `key`.
Owned MakeRecord(const std::string& key, int version = 0) {
  Owned rec;
  for (int i = 0; i < 10; ++i) {
    std::string v = key + "/" + std::to_string(i) + "/v" + std::to_string(version) + "/";
    while (v.size() < 100) v += static_cast<char>('a' + (v.size() + i) % 26);
    rec.emplace_back("field" + std::to_string(i), v);
  }
  return rec;
}

Owned FieldsOf(const RecordSet& rs, std::size_t r) {
  Owned out;
  for (std::size_t i = 0; i < rs.field_count(r); ++i) {
    Field f = rs.field(r, i);
    out.emplace_back(std::string(f.name), std::string(f.value));
  }
  return out;
}

std::string MakeTempDir() {
  std::string tmpl = (fs::temp_directory_path() / "storebench-conformance-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  return tmpl;
}

std::vector<const BindingInfo*> StoringBindings() {
  std::vector<const BindingInfo*> out;
  for (const BindingInfo* b : AllBindings()) {
    if (b->name != "null") out.push_back(b);
  }
  return out;
}


// A binding and the server it is tested against: its own
// (STOREBENCH_TEST_SERVER_<BINDING>), or, for a variant, another server's
// settings (STOREBENCH_TEST_SERVER_<SERVER>) and extra properties, named
// <binding>_<variant> in test listings.
struct Target {
  const BindingInfo* binding;
  std::string server;   // whose STOREBENCH_TEST_SERVER_* settings (server bindings)
  Owned extra;          // properties set after the server's
  std::string variant;  // "" for the binding against its own server
};

// Every storing binding, then the variants of those in this build:
// memcached over the classic protocol against memcached, and through
// twemproxy (which speaks only the classic protocol) in front of two.
std::vector<Target> Targets() {
  std::vector<Target> out;
  for (const BindingInfo* b : StoringBindings()) out.push_back({b, b->name, {}, ""});
  for (const BindingInfo* b : StoringBindings()) {
    if (b->name == "memcached") {
      out.push_back({b, "memcached", {{"memcached.protocol", "classic"}}, "classic"});
      out.push_back({b, "twemproxy", {}, "twemproxy"});  // its settings say memcached.protocol=classic
    }
  }
  return out;
}

class ConformanceTest : public ::testing::TestWithParam<Target> {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    if (binding().server) {
      // A shared server: this test's own table keeps it apart from the others.
      STOREBENCH_NEED_SERVER(GetParam().server, server_);
      server_.insert(server_.end(), GetParam().extra.begin(), GetParam().extra.end());
      table_ = test_util::UniqueTable();
    }
    Open();
  }
  void TearDown() override {
    CloseStore();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  const BindingInfo& binding() const { return *GetParam().binding; }

  std::string table_ = "usertable";
  std::vector<std::pair<std::string, std::string>> server_;

  Properties Props() const {
    Properties p;
    if (binding().uses_dir) p.Set(binding().name + ".dir", dir_ + "/db");
    for (const auto& [k, v] : server_) p.Set(k, v);
    p.Set("table", table_);
    return p;
  }
  void Open() {
    Properties p = Props();
    OpenContext ctx;
    ctx.loading = true;
    ctx.thread_count = 4;
    store_ = binding().open(p, ctx);
    ASSERT_NE(store_, nullptr);
    session_ = store_->NewSession(0);
    ASSERT_NE(session_, nullptr);
  }
  void CloseStore() {
    session_.reset();
    if (store_) store_->Close();
    store_.reset();
  }

  Status Insert(const std::string& key, const Owned& rec) {
    auto v = Views(rec);
    return session_->Insert(table_, key, v);
  }
  Status Update(const std::string& key, const Owned& rec) {
    auto v = Views(rec);
    return session_->Update(table_, key, v);
  }
  Status Read(const std::string& key, const FieldSelector& sel = {}) {
    return session_->Read(table_, key, sel, &out_);
  }
  // Reads `key` (all fields) and expects exactly `want`, in any order: a
  // store that keeps a record's columns sorted by name (HBase) returns them
  // so, not in the order they were first written.
  void ExpectRecord(const std::string& key, const Owned& want) {
    ASSERT_EQ(Read(key), Status::Ok()) << key;
    ASSERT_EQ(out_.record_count(), 1u);
    EXPECT_EQ(out_.key(0), key);
    Owned got = FieldsOf(out_, 0), sorted_want = want;
    std::sort(got.begin(), got.end());
    std::sort(sorted_want.begin(), sorted_want.end());
    EXPECT_EQ(got, sorted_want) << key;
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Session> session_;
  RecordSet out_;
};

TEST_P(ConformanceTest, DeclaresThatItStoresData) {
  EXPECT_TRUE(store_->capabilities().stores_data);
}

TEST_P(ConformanceTest, InsertThenReadAllFields) {
  Owned rec = MakeRecord("user1");
  ASSERT_EQ(Insert("user1", rec), Status::Ok());
  ExpectRecord("user1", rec);
}

TEST_P(ConformanceTest, ReadSelectedFields) {
  Owned rec = MakeRecord("user1");
  ASSERT_EQ(Insert("user1", rec), Status::Ok());
  std::string_view names[] = {"field5", "field2", "nosuchfield"};
  ASSERT_EQ(Read("user1", FieldSelector{false, names}), Status::Ok());
  ASSERT_EQ(out_.record_count(), 1u);
  EXPECT_EQ(FieldsOf(out_, 0), (Owned{rec[2], rec[5]}));  // stored order
  EXPECT_FALSE(out_.Find(0, "field9").has_value());
}

// A batch read: every record found (in any order), NOT_FOUND when one is
// missing, the selected fields only, an empty batch OK.
TEST_P(ConformanceTest, BatchReadReturnsEveryRecordFound) {
  std::map<std::string, Owned> stored;
  for (const char* k : {"b1", "b2", "b3"}) {
    stored[k] = MakeRecord(k);
    ASSERT_EQ(Insert(k, stored[k]), Status::Ok());
  }
  auto records = [&]() {
    std::map<std::string, Owned> got;
    for (std::size_t r = 0; r < out_.record_count(); ++r) got[std::string(out_.key(r))] = FieldsOf(out_, r);
    return got;
  };
  const std::string_view three[] = {"b3", "b1", "b2"};
  ASSERT_EQ(session_->BatchRead(table_, three, FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(records(), stored);
  const std::string_view with_missing[] = {"b2", "nobody", "b1"};
  EXPECT_EQ(session_->BatchRead(table_, with_missing, FieldSelector{}, &out_), Status::NotFound());
  EXPECT_EQ(records(), (std::map<std::string, Owned>{{"b1", stored["b1"]}, {"b2", stored["b2"]}}));
  const std::string_view names[] = {"field4"};
  ASSERT_EQ(session_->BatchRead(table_, std::span<const std::string_view>(three, 1), FieldSelector{false, names}, &out_),
            Status::Ok());
  EXPECT_EQ(records(), (std::map<std::string, Owned>{{"b3", {stored["b3"][4]}}}));
  ASSERT_EQ(session_->BatchRead(table_, {}, FieldSelector{}, &out_), Status::Ok());
  EXPECT_EQ(out_.record_count(), 0u);
}

TEST_P(ConformanceTest, ReadOfMissingKeyIsNotFoundAndClearsOutput) {
  ASSERT_EQ(Insert("user1", MakeRecord("user1")), Status::Ok());
  ASSERT_EQ(Read("user1"), Status::Ok());  // out_ now holds a record
  EXPECT_EQ(Read("user2"), Status::NotFound());
  EXPECT_EQ(out_.record_count(), 0u);
  EXPECT_EQ(Read("user"), Status::NotFound());  // a prefix of a stored key
  EXPECT_EQ(Read("user10"), Status::NotFound());
}

TEST_P(ConformanceTest, UpdateSetsGivenFieldsAndKeepsOthers) {
  Owned rec = MakeRecord("user1");
  ASSERT_EQ(Insert("user1", rec), Status::Ok());
  ASSERT_EQ(Update("user1", {{"field3", "changed"}}), Status::Ok());
  Owned want = rec;
  want[3].second = "changed";
  ExpectRecord("user1", want);

  // Several fields at once, one of them new.
  ASSERT_EQ(Update("user1", {{"field0", "zero"}, {"extra", "added"}, {"field9", ""}}), Status::Ok());
  want[0].second = "zero";
  want[9].second = "";
  want.emplace_back("extra", "added");
  ExpectRecord("user1", want);
}

TEST_P(ConformanceTest, UpdateOfMissingKeyIsNotFoundAndCreatesNothing) {
  EXPECT_EQ(Update("ghost", {{"field0", "x"}}), Status::NotFound());
  EXPECT_EQ(Read("ghost"), Status::NotFound());
}

TEST_P(ConformanceTest, DeleteThenReadIsNotFound) {
  ASSERT_EQ(Insert("user1", MakeRecord("user1")), Status::Ok());
  ASSERT_EQ(Insert("user2", MakeRecord("user2")), Status::Ok());
  ASSERT_EQ(session_->Delete(table_, "user1"), Status::Ok());
  EXPECT_EQ(Read("user1"), Status::NotFound());
  EXPECT_EQ(Update("user1", {{"field0", "x"}}), Status::NotFound());
  ExpectRecord("user2", MakeRecord("user2"));  // the neighbour is untouched
  Status again = session_->Delete(table_, "user1");
  EXPECT_TRUE(again == Status::Ok() || again == Status::NotFound()) << again.name();
  if (store_->capabilities().scan) {
    ASSERT_EQ(session_->Scan(table_, "", 10, FieldSelector{}, &out_), Status::Ok());
    ASSERT_EQ(out_.record_count(), 1u);
    EXPECT_EQ(out_.key(0), "user2");
  }
  // Re-inserting a deleted key works.
  ASSERT_EQ(Insert("user1", MakeRecord("user1", 7)), Status::Ok());
  ExpectRecord("user1", MakeRecord("user1", 7));
}

TEST_P(ConformanceTest, InsertOverwritesWholeRecord) {
  ASSERT_EQ(Insert("user1", MakeRecord("user1")), Status::Ok());
  Owned replacement = {{"field0", "only"}, {"other", "two"}};
  ASSERT_EQ(Insert("user1", replacement), Status::Ok());
  ExpectRecord("user1", replacement);
}

TEST_P(ConformanceTest, EmptyAndBinaryValuesAndKeys) {
  std::string binary;
  for (int c = 0; c < 256; ++c) binary.push_back(static_cast<char>(c));
  Owned rec = {{"empty", ""}, {"bin", binary}, {std::string("n\0m", 3), std::string(5000, '\xff')}};
  std::string key("k\0ey\xff", 5);
  ASSERT_EQ(Insert(key, rec), Status::Ok());
  ExpectRecord(key, rec);
  EXPECT_EQ(Read(std::string("k")), Status::NotFound());
  ASSERT_EQ(Insert("nofields", {}), Status::Ok());
  ExpectRecord("nofields", {});
}

TEST_P(ConformanceTest, LargeValuesOfOneMebibyte) {
  std::string big(1u << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131 + i / 4096) & 0xff);
  Owned rec = {{"field0", big}, {"field1", "small"}, {"field2", std::string(big.rbegin(), big.rend())}};
  for (int i = 0; i < 8; ++i) {
    std::string k = "big" + std::to_string(i);
    rec[1].second = k;
    ASSERT_EQ(Insert(k, rec), Status::Ok()) << k;
  }
  rec[1].second = "big3";
  ExpectRecord("big3", rec);
  // Updating the small field keeps both large ones intact.
  ASSERT_EQ(Update("big5", {{"field1", "changed"}}), Status::Ok());
  rec[1].second = "changed";
  ExpectRecord("big5", rec);
  // And a large value can replace a small one.
  ASSERT_EQ(Update("big6", {{"field1", big}}), Status::Ok());
  rec[1].second = big;
  ExpectRecord("big6", rec);
}

TEST_P(ConformanceTest, ManyRecordsInHashedOrderAllReadBack) {
  // 5000 records inserted in a scattered order (as insertorder=hashed does).
  constexpr int kRecords = 5000;
  std::vector<int> order(kRecords);
  for (int i = 0; i < kRecords; ++i) order[static_cast<std::size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  for (int i : order) {
    std::string k = "user" + std::to_string(1000000 + i);
    ASSERT_EQ(Insert(k, MakeRecord(k)), Status::Ok()) << k;
  }
  for (int i = 0; i < kRecords; i += 37) {
    std::string k = "user" + std::to_string(1000000 + i);
    ExpectRecord(k, MakeRecord(k));
  }
  if (store_->capabilities().scan) {
    ASSERT_EQ(session_->Scan(table_, "user", kRecords + 10, FieldSelector{}, &out_), Status::Ok());
    ASSERT_EQ(out_.record_count(), static_cast<std::size_t>(kRecords));
    for (std::size_t r = 0; r < out_.record_count(); ++r) {
      ASSERT_EQ(out_.key(r), "user" + std::to_string(1000000 + r));
    }
  }
}

TEST_P(ConformanceTest, ScanReturnsCountRecordsInKeyOrderFromStartInclusive) {
  if (!store_->capabilities().scan) GTEST_SKIP() << binding().name << " does not scan";
  std::vector<int> order(50);
  for (int i = 0; i < 50; ++i) order[static_cast<std::size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(42));
  auto key = [](int i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "scan%03d", i);
    return std::string(buf);
  };
  for (int i : order) ASSERT_EQ(Insert(key(i), MakeRecord(key(i))), Status::Ok());

  auto scan = [&](const std::string& start, std::uint64_t count, const FieldSelector& sel = {}) {
    std::vector<std::string> keys;
    EXPECT_EQ(session_->Scan(table_, start, count, sel, &out_), Status::Ok());
    for (std::size_t r = 0; r < out_.record_count(); ++r) keys.emplace_back(out_.key(r));
    return keys;
  };

  EXPECT_EQ(scan(key(10), 5), (std::vector<std::string>{key(10), key(11), key(12), key(13), key(14)}));
  for (std::size_t r = 0; r < out_.record_count(); ++r) {
    EXPECT_EQ(FieldsOf(out_, r), MakeRecord(std::string(out_.key(r))));
  }
  // A start key between two stored keys starts at the next one.
  EXPECT_EQ(scan("scan0105", 2), (std::vector<std::string>{key(11), key(12)}));
  // Fewer at the end; none past the end; none for count 0.
  EXPECT_EQ(scan(key(47), 10), (std::vector<std::string>{key(47), key(48), key(49)}));
  EXPECT_TRUE(scan("scan999", 10).empty());
  EXPECT_TRUE(scan(key(0), 0).empty());
  // Everything from the beginning.
  std::vector<std::string> all = scan("", 1000);
  ASSERT_EQ(all.size(), 50u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  // Selected fields apply to every record.
  std::string_view names[] = {"field1"};
  ASSERT_EQ(scan(key(20), 3, FieldSelector{false, names}).size(), 3u);
  for (std::size_t r = 0; r < 3; ++r) {
    ASSERT_EQ(out_.field_count(r), 1u);
    EXPECT_EQ(out_.field(r, 0).value, MakeRecord(key(20 + static_cast<int>(r)))[1].second);
  }
}

TEST_P(ConformanceTest, ConcurrentSessionsOnDisjointKeys) {
  constexpr int kThreads = 4;
  constexpr int kKeys = 250;
  auto key = [](int t, int i) { return "t" + std::to_string(t) + "-" + std::to_string(1000 + i); };
  std::atomic<int> failures{0};
  std::atomic<bool> writers_done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto s = store_->NewSession(t + 1);
      RecordSet rs;
      for (int i = 0; i < kKeys; ++i) {
        auto rec = MakeRecord(key(t, i));
        auto v = Views(rec);
        if (s->Insert(table_, key(t, i), v) != Status::Ok()) ++failures;
      }
      for (int i = 0; i < kKeys; ++i) {
        if (s->Read(table_, key(t, i), FieldSelector{}, &rs) != Status::Ok() ||
            FieldsOf(rs, 0) != MakeRecord(key(t, i))) {
          ++failures;
        }
        Owned upd = {{"field4", "updated-" + key(t, i)}};
        auto v = Views(upd);
        if (s->Update(table_, key(t, i), v) != Status::Ok()) ++failures;
      }
    });
  }
  // A scanner running alongside the writers: results always in key order.
  const bool scans = store_->capabilities().scan;
  std::thread scanner([&] {
    if (!scans) return;
    auto s = store_->NewSession(kThreads + 1);
    RecordSet rs;
    do {
      if (s->Scan(table_, "t", 100, FieldSelector{}, &rs) != Status::Ok()) ++failures;
      for (std::size_t r = 1; r < rs.record_count(); ++r) {
        if (!(rs.key(r - 1) < rs.key(r))) ++failures;
      }
    } while (!writers_done.load());
  });
  for (auto& th : threads) th.join();
  writers_done = true;
  scanner.join();
  EXPECT_EQ(failures.load(), 0);

  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kKeys; ++i) {
      Owned want = MakeRecord(key(t, i));
      want[4].second = "updated-" + key(t, i);
      ExpectRecord(key(t, i), want);
    }
  }
  if (scans) {
    ASSERT_EQ(session_->Scan(table_, "", 10000, FieldSelector{}, &out_), Status::Ok());
    EXPECT_EQ(out_.record_count(), static_cast<std::size_t>(kThreads * kKeys));
  }
}

// A binding that declares atomic updates keeps every field when several
// threads update different fields of one record at once; one that does not
// (a plain read-merge-write) is not held to it.
TEST_P(ConformanceTest, DeclaredAtomicUpdatesLoseNoField) {
  if (!store_->capabilities().atomic_update) GTEST_SKIP() << binding().name << " does not declare atomic updates";
  // Repeated so that a lost update would show whatever the scheduling: five
  // rounds, but no new round after 20 s (a store over the network, such as
  // gluster, takes ~30 s a round; two rounds of it stay well within the
  // test timeout, under ASan too).
  const auto t0 = std::chrono::steady_clock::now();
  for (int round = 0; round < 5; ++round) {
    if (round >= 2 && std::chrono::steady_clock::now() - t0 > std::chrono::seconds(20)) break;
    EXPECT_EQ(test_util::LostUpdates(store_.get(), 2000), 0) << "round " << round;
  }
}

TEST_P(ConformanceTest, PersistentBindingKeepsDataAcrossReopen) {
  if (!store_->capabilities().persistent) GTEST_SKIP() << binding().name << " is not persistent";
  for (int i = 0; i < 100; ++i) {
    std::string k = "user" + std::to_string(i);
    ASSERT_EQ(Insert(k, MakeRecord(k)), Status::Ok());
  }
  ASSERT_EQ(Update("user7", {{"field1", "after-update"}}), Status::Ok());
  ASSERT_EQ(session_->Delete(table_, "user8"), Status::Ok());
  CloseStore();
  Open();
  for (int i = 0; i < 100; ++i) {
    std::string k = "user" + std::to_string(i);
    if (i == 8) {
      EXPECT_EQ(Read(k), Status::NotFound());
      continue;
    }
    Owned want = MakeRecord(k);
    if (i == 7) want[1].second = "after-update";
    ExpectRecord(k, want);
  }
}

TEST_P(ConformanceTest, DiskUsageOfPersistentBindingIsPositive) {
  for (int i = 0; i < 200; ++i) {
    std::string k = "user" + std::to_string(i);
    ASSERT_EQ(Insert(k, MakeRecord(k)), Status::Ok());
  }
  std::optional<std::uint64_t> bytes = store_->DiskUsageBytes();
  // A server may keep its data in memory (redis, memcached): no disk figure.
  if (store_->capabilities().persistent && (!binding().server || bytes.has_value())) {
    ASSERT_TRUE(bytes.has_value());
    EXPECT_GT(*bytes, 0u);
  }
  ExpectRecord("user5", MakeRecord("user5"));  // still usable afterwards
}

TEST_P(ConformanceTest, DocumentedPropertiesAreReadAndTheirDefaultsParse) {
  EXPECT_FALSE(binding().summary.empty());
  CloseStore();
  Properties p;
  for (const PropertySpec& spec : binding().properties) {
    EXPECT_EQ(spec.name.rfind(binding().name + ".", 0), 0u) << spec.name << " is not namespaced";
    EXPECT_FALSE(spec.help.empty()) << spec.name;
    p.Set(spec.name, spec.default_value, "default");
  }
  if (binding().uses_dir) p.Set(binding().name + ".dir", dir_ + "/defaults");
  for (const auto& [k, v] : server_) p.Set(k, v);  // where the test's server is
  p.Set("table", table_);
  store_ = binding().open(p, OpenContext{});
  for (const PropertySpec& spec : binding().properties) {
    EXPECT_TRUE(p.IsKnown(spec.name)) << spec.name << " is documented but never read";
  }
  session_ = store_->NewSession(0);
  ASSERT_EQ(Insert("k", MakeRecord("k")), Status::Ok());
  ExpectRecord("k", MakeRecord("k"));
}

// Batch insert (Session::BatchInsert): every record of the batch written
// with exactly its fields, an existing record overwritten, natively or by
// the default loop.
TEST_P(ConformanceTest, BatchInsertWritesEveryRecordExactlyAndOverwrites) {
  Owned old = MakeRecord("batch07", 0);
  old.emplace_back("extra", "only in the old record");
  ASSERT_EQ(Insert("batch07", old), Status::Ok());
  ASSERT_EQ(Insert("other", MakeRecord("other")), Status::Ok());

  std::map<std::string, Owned> want;
  RecordBatch batch;
  for (int i = 0; i < 25; ++i) {
    const std::string key = "batch" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    Owned rec = MakeRecord(key, 1);
    if (i == 7) rec.resize(3);  // the overwritten record: exactly these fields afterwards
    const auto views = Views(rec);
    batch.Add(key, views);
    want[key] = rec;
  }
  ASSERT_EQ(batch.size(), 25u);
  ASSERT_EQ(session_->BatchInsert(table_, batch), Status::Ok());
  for (const auto& [key, rec] : want) ExpectRecord(key, rec);
  ExpectRecord("other", MakeRecord("other"));  // untouched

  // The same batch object again, cleared and refilled (buffers reused).
  batch.Clear();
  const Owned again = MakeRecord("batch03", 2);
  const auto views = Views(again);
  batch.Add("batch03", views);
  ASSERT_EQ(session_->BatchInsert(table_, batch), Status::Ok());
  ExpectRecord("batch03", again);
  ExpectRecord("batch04", want["batch04"]);
}

TEST_P(ConformanceTest, EmptyBatchInsertIsOkAndWritesNothing) {
  RecordBatch batch;
  EXPECT_EQ(session_->BatchInsert(table_, batch), Status::Ok());
  EXPECT_EQ(Read("batch00"), Status::NotFound());
  // On a table that exists too.
  ASSERT_EQ(Insert("user1", MakeRecord("user1")), Status::Ok());
  EXPECT_EQ(session_->BatchInsert(table_, batch), Status::Ok());
  ExpectRecord("user1", MakeRecord("user1"));
}

}  // namespace

// Test listings show the binding's name, not the pointer.
void PrintTo(const BindingInfo* b, std::ostream* os) { *os << (b ? b->name : "null"); }

namespace {

// (In this namespace, where Target is: gtest finds it by argument-dependent lookup.)
void PrintTo(const Target& t, std::ostream* os) {
  *os << t.binding->name << (t.variant.empty() ? "" : " (" + t.variant + ")");
}

std::string BindingName(const ::testing::TestParamInfo<Target>& info) {
  std::string n = info.param.binding->name + (info.param.variant.empty() ? "" : "_" + info.param.variant);
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(AllBindings, ConformanceTest, ::testing::ValuesIn(Targets()), BindingName);

TEST(RegistryTest, EveryBindingIsWellFormedAndFindable) {
  std::vector<std::string> names;
  for (const BindingInfo* b : AllBindings()) {
    ASSERT_NE(b, nullptr);
    EXPECT_FALSE(b->name.empty());
    EXPECT_TRUE(static_cast<bool>(b->open)) << b->name;
    EXPECT_EQ(&FindBinding(b->name), b);
    names.push_back(b->name);
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end()) << "duplicate binding name";
  for (const char* required : {"rocksdb", "memory", "null"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), required), names.end()) << required;
  }
  // Every storing binding is in the conformance suite.
  EXPECT_EQ(StoringBindings().size(), names.size() - 1);
}

TEST(RegistryTest, UnknownBindingSuggestsTheClosest) {
  try {
    FindBinding("memroy");
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'memory'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace storebench
