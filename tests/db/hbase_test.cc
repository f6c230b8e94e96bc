// Tests of the hbase binding against a real HBase (scripts/servers/hbase.sh,
// started once by the test command: STOREBENCH_TEST_SERVER_HBASE). Each test
// makes its own table (the binding creates it through the master), so tests
// never see each other's rows. A load is checked with HBase's own Java
// client (hbase.sh count, when STOREBENCH_TEST_HBASE_DIR names the server's
// directory).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/hbase/client.h"
#include "db/hbase/options.h"
#include "db/registry.h"
#include "measure/clock.h"
#include "net/socket.h"
#include "runner/runner.h"
#include "test_util.h"
#include "workload/core_workload.h"

namespace storebench {
namespace {

using test_util::FieldMap;
using test_util::FieldViews;
using test_util::Owned;
using test_util::Settings;

class HBaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_BINDING("hbase");
    STOREBENCH_NEED_SERVER("hbase", server_);
    table_ = test_util::UniqueTable("hb");
  }
  Properties Props(const Owned& extra = {}) const { return test_util::ServerProps(server_, table_, extra); }
  std::unique_ptr<Store> Open(const Owned& extra = {}) const {
    return FindBinding("hbase").open(Props(extra), OpenContext{});
  }
  std::string Server(const std::string& key) const {
    for (const auto& [k, v] : server_) {
      if (k == key) return v;
    }
    return "";
  }

  Settings server_;
  std::string table_;
};

TEST_F(HBaseTest, InsertReadUpdateDelete) {
  auto store = Open();
  auto s = store->NewSession(0);
  const Owned rec = {{"field0", "zero"}, {"field1", "one"}, {"field2", std::string("t\0wo\xff", 5)}};
  auto views = FieldViews(rec);
  ASSERT_EQ(s->Insert(table_, "user1", views), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{
                                 {"field0", "zero"}, {"field1", "one"}, {"field2", std::string("t\0wo\xff", 5)}}));
  EXPECT_EQ(rs.key(0), "user1");

  // An update sets its columns and keeps the others (one Put).
  const Owned one = {{"field1", "ONE"}};
  auto one_views = FieldViews(one);
  ASSERT_EQ(s->Update(table_, "user1", one_views), Status::Ok());
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0).at("field1"), "ONE");
  EXPECT_EQ(FieldMap(rs, 0).at("field0"), "zero");

  // Chosen fields only.
  const std::string_view names[] = {"field2", "nosuch"};
  ASSERT_EQ(s->Read(table_, "user1", FieldSelector{false, names}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"field2", std::string("t\0wo\xff", 5)}}));

  EXPECT_EQ(s->Read(table_, "user2", FieldSelector{}, &rs), Status::NotFound());
  ASSERT_EQ(s->Delete(table_, "user1"), Status::Ok());
  EXPECT_EQ(s->Read(table_, "user1", FieldSelector{}, &rs), Status::NotFound());
}

TEST_F(HBaseTest, ScanReturnsRowsInKeyOrderFromTheStartRow) {
  auto store = Open();
  auto s = store->NewSession(0);
  for (int i = 0; i < 50; ++i) {
    const std::string k = "user" + std::to_string(1000 + i);
    const Owned rec = {{"field0", "v" + std::to_string(i)}, {"field1", "w"}};
    auto v = FieldViews(rec);
    ASSERT_EQ(s->Insert(table_, k, v), Status::Ok());
  }
  RecordSet rs;
  ASSERT_EQ(s->Scan(table_, "user1010", 15, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 15u);
  for (std::size_t r = 0; r < 15; ++r) {
    EXPECT_EQ(rs.key(r), "user" + std::to_string(1010 + r));
    EXPECT_EQ(FieldMap(rs, r).at("field0"), "v" + std::to_string(10 + r));
  }
  const std::string_view names[] = {"field1"};
  ASSERT_EQ(s->Scan(table_, "user1045", 100, FieldSelector{false, names}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 5u);
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"field1", "w"}}));
}

TEST_F(HBaseTest, ManyThreadsAndPipelinedClientsShareConnections) {
  auto store = Open({{"hbase.pipeline", "4"}});
  EXPECT_EQ(store->capabilities().pipeline, 4);
  auto a = store->NewClientSession(ClientSlot{0, 0, 0});
  auto b = store->NewClientSession(ClientSlot{0, 0, 1});
  const Owned rec = {{"field0", "x"}};
  auto v = FieldViews(rec);
  ASSERT_EQ(a->Insert(table_, "k1", v), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(b->Read(table_, "k1", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0).at("field0"), "x");
}

TEST_F(HBaseTest, DurabilityIsAccepted) {
  for (const char* d : {"SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL", "USE_DEFAULT"}) {
    auto store = Open({{"hbase.durability", d}});
    auto s = store->NewSession(0);
    const Owned rec = {{"field0", d}};
    auto v = FieldViews(rec);
    ASSERT_EQ(s->Insert(table_, "k", v), Status::Ok()) << d;
    RecordSet rs;
    ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &rs), Status::Ok());
    EXPECT_EQ(FieldMap(rs, 0).at("field0"), d);
  }
}

// hbase.update=put is YCSB's hbase2 update: a plain Put, which creates a
// missing row; the default (check) leaves a missing row missing.
TEST_F(HBaseTest, UpdatePutCreatesAMissingRowAndCheckDoesNot) {
  const Owned rec = {{"field0", "u"}};
  auto v = FieldViews(rec);
  RecordSet rs;
  {
    auto store = Open();
    auto s = store->NewSession(0);
    EXPECT_EQ(s->Update(table_, "ghost-check", v), Status::NotFound());
    EXPECT_EQ(s->Read(table_, "ghost-check", FieldSelector{}, &rs), Status::NotFound());
  }
  auto store = Open({{"hbase.update", "put"}});
  auto s = store->NewSession(0);
  EXPECT_EQ(s->Update(table_, "ghost-put", v), Status::Ok());
  ASSERT_EQ(s->Read(table_, "ghost-put", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0).at("field0"), "u");
}

TEST_F(HBaseTest, BadPropertiesAreOneLineConfigErrors) {
  EXPECT_THROW(FindBinding("hbase").open(Properties(), OpenContext{}), ConfigError);
  EXPECT_THROW(Open({{"hbase.durability", "SOMETIMES"}}), ConfigError);
  EXPECT_THROW(Open({{"hbase.timeout_ms", "0"}}), ConfigError);
  EXPECT_THROW(Open({{"hbase.presplit", "0"}}), ConfigError);
}

TEST_F(HBaseTest, NoMasterIsASetupError) {
  // A port nothing listens on (the master's port + 1 is the region server's
  // at most; use a port from the reserved low range instead).
  try {
    Open({{"hbase.master", "127.0.0.1:1"}, {"hbase.timeout_ms", "2000"}});
    FAIL() << "opened without a master";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:1"), std::string::npos) << e.what();
  }
}

TEST_F(HBaseTest, MissingTableWithoutCreateIsASetupError) {
  EXPECT_THROW(Open({{"hbase.create_table", "false"}, {"hbase.timeout_ms", "3000"}}), SetupError);
}

// A load through the CLI, counted by HBase's own Java client.
TEST_F(HBaseTest, LoadIsCountedByHBasesJavaClient) {
  const char* dir = std::getenv("STOREBENCH_TEST_HBASE_DIR");
  std::vector<std::string> args = {"load", "hbase", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada",
                                   "-p", "recordcount=2000", "-p", "table=" + table_, "-threads", "4"};
  for (const auto& [k, v] : server_) {
    args.push_back("-p");
    args.push_back(k + "=" + v);
  }
  test_util::TempDir tmp;
  test_util::ProcessOptions po;
  po.cwd = tmp.path().string();
  auto r = test_util::RunProcess(STOREBENCH_BINARY, args, po);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("[INSERT], Return=OK, 2000"), std::string::npos) << r.out;
  if (dir == nullptr) GTEST_SKIP() << "STOREBENCH_TEST_HBASE_DIR not set: the row count by HBase's client is skipped";
  r = test_util::RunProcess("/bin/bash", {std::string(STOREBENCH_SOURCE_DIR) + "/scripts/servers/hbase.sh", "count",
                                          dir, table_},
                            po);
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "2000\n") << r.err;
}

}  // namespace
}  // namespace storebench
namespace storebench {
namespace {
// hbase.clientbuffering: puts answer BATCHED_OK until the buffer is full;
// every record is in HBase once the session is gone (its last flush).
TEST_F(HBaseTest, ClientBufferingSendsEveryPut) {
  auto store = Open({{"hbase.clientbuffering", "true"}, {"hbase.writebuffersize", "2000"}});
  {
    auto s = store->NewSession(0);
    int batched = 0;
    for (int i = 0; i < 100; ++i) {
      const Owned rec = {{"field0", std::string(90, static_cast<char>('a' + i % 26))}};
      auto v = FieldViews(rec);
      const Status st = s->Insert(table_, "user" + std::to_string(1000 + i), v);
      ASSERT_TRUE(st.ok()) << st.name();
      if (st.code() == Status::kBatchedOk) ++batched;
    }
    EXPECT_GT(batched, 50);
    EXPECT_LT(batched, 100);  // 2000 bytes hold about 20 records: some puts flushed
  }
  auto s = store->NewSession(0);
  RecordSet rs;
  ASSERT_EQ(s->Scan(table_, "", 1000, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 100u);
  EXPECT_EQ(FieldMap(rs, 99).at("field0"), std::string(90, static_cast<char>('a' + 99 % 26)));
}

// hbase.clientbuffering with a buffer larger than every record: the
// runner's end-of-load Flush sends them all inside the timed phase, as
// CLEANUP (one per session), and the rows are there once the load returns.
TEST_F(HBaseTest, ClientBufferingFlushIsTimedInTheLoad) {
  auto store = Open({{"hbase.clientbuffering", "true"}, {"hbase.writebuffersize", std::to_string(64 << 20)}});
  CoreWorkloadOptions wo;
  wo.table = table_;
  wo.recordcount = 600;
  wo.insertcount = 600;
  CoreWorkload w(wo);
  RunnerOptions o;
  o.loading = true;
  o.threads = 3;
  o.operation_count = 600;
  o.binding = "hbase";
  SteadyClock clock;
  PhaseResult r = Runner(*store, w, o, clock, nullptr).Run();
  const OpResult* ins = test_util::FindOp(r, "INSERT");
  ASSERT_NE(ins, nullptr);
  EXPECT_EQ(ins->return_codes[Status::kBatchedOk], 600u) << "every insert was buffered";
  const OpResult* cleanup = test_util::FindOp(r, "CLEANUP");
  ASSERT_NE(cleanup, nullptr);
  EXPECT_EQ(cleanup->return_codes[Status::kOk], 3u) << "one flush per session, each OK";
  EXPECT_EQ(test_util::FindOp(r, "CLEANUP-FAILED"), nullptr);
  // The flushes ran inside the phase: its runtime is at least the slowest.
  EXPECT_GE(r.runtime_ms * 1'000'000 + 999'999, static_cast<std::int64_t>(cleanup->service.max()));
  EXPECT_EQ(r.operations, 600u);
  auto s = store->NewSession(0);
  RecordSet rs;
  ASSERT_EQ(s->Scan(table_, "", 1000, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 600u);
  for (int i = 0; i < 600; i += 97) {
    EXPECT_EQ(s->Read(table_, w.BuildKey(i), FieldSelector{}, &rs), Status::Ok()) << i;
  }
}

// hbase.presplit=4: the binding creates its table in 4 regions split at
// the launcher's points (db/hbase/presplit.h), and routes keys by them.
TEST_F(HBaseTest, PresplitTableHasFourRegionsOnTheKeySpace) {
  auto store = Open({{"hbase.presplit", "4"}});
  const std::vector<std::string> starts = {"", "user3249", "user5499", "user7749"};
  hbase::Cluster cluster(hbase::ParseOptions(Props()));
  hbase::Client client(&cluster, 1);
  const std::int64_t deadline = net::DeadlineAfterMs(30000);
  std::vector<std::string> names;
  // A key just before each split point, the point itself, and the last keys.
  const std::vector<std::pair<std::string, std::size_t>> rows = {
      {"user1000", 0}, {"user3248999", 0}, {"user3249", 1}, {"user5498", 1}, {"user5499000", 2},
      {"user7748", 2}, {"user7749", 3}, {"user9999999", 3}};
  for (const auto& [row, want] : rows) {
    hbase::Region region;
    ASSERT_EQ(client.Locate(table_, row, deadline, &region), Status::Ok()) << row;
    EXPECT_EQ(region.start_key, starts[want]) << row;
    EXPECT_EQ(region.end_key, want + 1 < starts.size() ? starts[want + 1] : "") << row;
    if (std::find(names.begin(), names.end(), region.name) == names.end()) names.push_back(region.name);
  }
  EXPECT_EQ(names.size(), 4u);
  // And the binding's operations reach every region.
  auto s = store->NewSession(0);
  const Owned rec = {{"field0", "v"}};
  auto v = FieldViews(rec);
  for (const auto& [row, want] : rows) ASSERT_EQ(s->Insert(table_, row, v), Status::Ok()) << row;
  RecordSet rs;
  ASSERT_EQ(s->Scan(table_, "", 100, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), rows.size()) << "a scan continues through the 4 regions";
}

// Empty values, on a fresh row and through the replace and update paths.
TEST_F(HBaseTest, EmptyValuesRoundTrip) {
  auto store = Open();
  auto s = store->NewSession(0);
  const Owned rec = {{"a", ""}, {"b", "x"}};
  auto v = FieldViews(rec);
  ASSERT_EQ(s->Insert(table_, "k", v), Status::Ok());
  RecordSet rs;
  ASSERT_EQ(s->Read(table_, "k", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"a", ""}, {"b", "x"}}));
  const Owned two = {{"c", ""}, {"b", "y"}};
  auto v2 = FieldViews(two);
  ASSERT_EQ(s->Insert(table_, "k2", v2), Status::Ok());
  ASSERT_EQ(s->Read(table_, "k2", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"c", ""}, {"b", "y"}}));
  const Owned upd = {{"b", ""}};
  auto v3 = FieldViews(upd);
  ASSERT_EQ(s->Update(table_, "k2", v3), Status::Ok());
  ASSERT_EQ(s->Read(table_, "k2", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"c", ""}, {"b", ""}}));
}

std::uint64_t StatOf(Store& store, const std::string& name) {
  for (const auto& [k, v] : store.Stats()) {
    if (k == name) return std::stoull(v);
  }
  ADD_FAILURE() << "no stat " << name;
  return 0;
}

// A batch goes out in requests of at most 2048 rows and about 4 MB, as
// HBase's own client splits them (a region server holds a request whole).
TEST_F(HBaseTest, LargeBatchesAreSplitIntoRequestsOfHBasesClientSize) {
  auto store = Open({{"hbase.insert", "put"}});
  auto s = store->NewSession(0);
  RecordBatch rows;
  for (int i = 0; i < 5000; ++i) {
    const std::string v = std::to_string(i);
    const Field f{"field0", v};
    rows.Add("row" + std::to_string(100000 + i), std::span<const Field>(&f, 1));
  }
  std::uint64_t before = StatOf(*store, "multi_requests");
  ASSERT_EQ(s->BatchInsert(table_, rows), Status::Ok());
  EXPECT_EQ(StatOf(*store, "multi_requests") - before, 3u) << "5000 rows: 2048 + 2048 + 904";

  RecordBatch big;
  const std::string value(1536 * 1024, 'v');
  for (int i = 0; i < 5; ++i) {
    const Field f{"field0", value};
    big.Add("big" + std::to_string(i), std::span<const Field>(&f, 1));
  }
  before = StatOf(*store, "multi_requests");
  ASSERT_EQ(s->BatchInsert(table_, big), Status::Ok());
  EXPECT_EQ(StatOf(*store, "multi_requests") - before, 2u) << "5 x 1.5 MB: 3 (4.5 MB) + 2";

  RecordSet rs;
  ASSERT_EQ(s->Scan(table_, "row", 6000, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 5000u);
  EXPECT_EQ(FieldMap(rs, 4999).at("field0"), "4999");
  ASSERT_EQ(s->Read(table_, "big4", FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(FieldMap(rs, 0).at("field0").size(), value.size());
}

// Rows answered BATCHED_OK whose flush then fails are counted (here: the
// table does not exist, which only the flush finds out).
TEST_F(HBaseTest, BufferedRowsOfAFailedFlushAreCounted) {
  auto store = Open({{"hbase.clientbuffering", "true"}, {"hbase.writebuffersize", "1000000"}});
  {
    auto s = store->NewSession(0);
    for (int i = 0; i < 10; ++i) {
      const std::string v = std::to_string(i);
      const Field f{"field0", v};
      EXPECT_EQ(s->Insert("no_such_table_for_storebench", "k" + v, std::span<const Field>(&f, 1)).code(),
                Status::kBatchedOk);
    }
    EXPECT_EQ(StatOf(*store, "buffered_rows_failed"), 0u);
  }  // the session's end flushes, and fails
  EXPECT_EQ(StatOf(*store, "buffered_rows_failed"), 10u);
}

// hbase.cellblocks: with cell blocks (the default) results' cells come in a
// block after the response, without them inside the protobuf Results; every
// path that reads cells (Get, Scan, Multi gets, replace's key-only gets,
// the hbase:meta lookup of a new table) gives the same records either way.
TEST_F(HBaseTest, EveryReadPathWithAndWithoutCellBlocks) {
  for (const char* on : {"true", "false"}) {
    SCOPED_TRACE(std::string("hbase.cellblocks=") + on);
    const std::string table = table_ + (on[0] == 't' ? "_cb" : "_pb");
    auto store = Open({{"hbase.cellblocks", on}, {"table", table}});
    auto s = store->NewSession(0);
    RecordBatch rows;
    const std::string bin("\0\xff", 2);
    for (int i = 0; i < 30; ++i) {
      const std::string v = "v" + std::to_string(i);
      const Field f[] = {{"field0", v}, {"field1", "w"}, {"field2", bin}};
      rows.Add("user" + std::to_string(100 + i), f);
    }
    ASSERT_EQ(s->BatchInsert(table, rows), Status::Ok());
    // Replace (key-only Get, then delete + put): field1 and field2 go.
    const Owned fewer = {{"field0", "only"}};
    auto fv = FieldViews(fewer);
    ASSERT_EQ(s->Insert(table, "user105", fv), Status::Ok());
    RecordBatch again;  // the batch's replace: its key-only gets are a Multi
    again.Add("user106", fv);
    again.Add("user107", fv);
    ASSERT_EQ(s->BatchInsert(table, again), Status::Ok());

    RecordSet rs;
    ASSERT_EQ(s->Read(table, "user104", FieldSelector{}, &rs), Status::Ok());
    EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{
                                   {"field0", "v4"}, {"field1", "w"}, {"field2", bin}}));
    for (const char* k : {"user105", "user106", "user107"}) {
      ASSERT_EQ(s->Read(table, k, FieldSelector{}, &rs), Status::Ok()) << k;
      EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"field0", "only"}})) << k;
    }
    EXPECT_EQ(s->Read(table, "user999", FieldSelector{}, &rs), Status::NotFound());

    ASSERT_EQ(s->Scan(table, "user103", 5, FieldSelector{}, &rs), Status::Ok());
    ASSERT_EQ(rs.record_count(), 5u);
    for (std::size_t r = 0; r < 5; ++r) EXPECT_EQ(rs.key(r), "user" + std::to_string(103 + r));
    EXPECT_EQ(FieldMap(rs, 0).at("field1"), "w");
    EXPECT_EQ(FieldMap(rs, 2), (std::map<std::string, std::string>{{"field0", "only"}}));

    const std::string_view keys[] = {"user101", "user105", "user129"};
    ASSERT_EQ(s->BatchRead(table, keys, FieldSelector{}, &rs), Status::Ok());
    ASSERT_EQ(rs.record_count(), 3u);
    std::map<std::string, std::map<std::string, std::string>> got;
    for (std::size_t r = 0; r < 3; ++r) got[std::string(rs.key(r))] = FieldMap(rs, r);
    EXPECT_EQ(got["user101"].at("field0"), "v1");
    EXPECT_EQ(got["user105"], (std::map<std::string, std::string>{{"field0", "only"}}));
    EXPECT_EQ(got["user129"].at("field2"), bin);
    const std::string_view missing[] = {"user101", "nosuch"};
    EXPECT_EQ(s->BatchRead(table, missing, FieldSelector{}, &rs), Status::NotFound());
  }
}
}  // namespace
}  // namespace storebench
