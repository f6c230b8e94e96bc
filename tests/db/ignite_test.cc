// Tests of the ignite binding against real Ignite nodes: the shared node the
// test command starts (STOREBENCH_TEST_SERVER_IGNITE, scripts/servers/
// ignite.sh), one table per test so tests never see each other's records.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/registry.h"
#include "test_util.h"

namespace storebench {
namespace {

using test_util::FieldMap;
using test_util::FieldViews;
using test_util::Owned;
using test_util::Settings;

class IgniteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    STOREBENCH_NEED_BINDING("ignite");
    STOREBENCH_NEED_SERVER("ignite", server_);
    table_ = test_util::UniqueTable("ign");
  }
  Properties Props(const Owned& extra = {}) const {
    Owned all = {{"fieldcount", "3"}};
    all.insert(all.end(), extra.begin(), extra.end());
    return test_util::ServerProps(server_, table_, all);
  }
  std::unique_ptr<Store> Open(const Owned& extra = {}) const {
    return FindBinding("ignite").open(Props(extra), OpenContext{});
  }
  std::map<std::string, std::string> ReadAll(Session* s, const std::string& key, Status* st) const {
    RecordSet rs;
    *st = s->Read(table_, key, FieldSelector{}, &rs);
    return st->ok() ? FieldMap(rs, 0) : std::map<std::string, std::string>{};
  }

  Settings server_;
  std::string table_;
};

TEST_F(IgniteTest, InsertReadUpdateDelete) {
  auto store = Open();
  auto s = store->NewSession(0);
  const Owned rec = {{"field0", "zero"}, {"field1", "one"}, {"field2", "two"}};
  auto views = FieldViews(rec);
  ASSERT_TRUE(s->Insert(table_, "user1", views).ok());
  Status st;
  EXPECT_EQ(ReadAll(s.get(), "user1", &st),
            (std::map<std::string, std::string>{{"field0", "zero"}, {"field1", "one"}, {"field2", "two"}}));
  ASSERT_TRUE(st.ok());

  // One field: get, merge, replace-if-equals; the other fields stay.
  const Owned one = {{"field1", "ONE"}};
  auto one_views = FieldViews(one);
  ASSERT_TRUE(s->Update(table_, "user1", one_views).ok());
  EXPECT_EQ(ReadAll(s.get(), "user1", &st),
            (std::map<std::string, std::string>{{"field0", "zero"}, {"field1", "ONE"}, {"field2", "two"}}));

  // Every field: one replace.
  const Owned all = {{"field0", "a"}, {"field1", "b"}, {"field2", "c"}};
  auto all_views = FieldViews(all);
  ASSERT_TRUE(s->Update(table_, "user1", all_views).ok());
  EXPECT_EQ(ReadAll(s.get(), "user1", &st),
            (std::map<std::string, std::string>{{"field0", "a"}, {"field1", "b"}, {"field2", "c"}}));

  // Named fields only.
  RecordSet rs;
  const std::string_view names[] = {"field2"};
  FieldSelector sel{false, names};
  ASSERT_TRUE(s->Read(table_, "user1", sel, &rs).ok());
  EXPECT_EQ(FieldMap(rs, 0), (std::map<std::string, std::string>{{"field2", "c"}}));

  EXPECT_EQ(s->Update(table_, "nobody", one_views).code(), Status::kNotFound);
  EXPECT_EQ(s->Update(table_, "nobody", all_views).code(), Status::kNotFound);
  EXPECT_TRUE(s->Delete(table_, "user1").ok());
  EXPECT_EQ(s->Delete(table_, "user1").code(), Status::kNotFound);
  ReadAll(s.get(), "user1", &st);
  EXPECT_EQ(st.code(), Status::kNotFound);
}

}  // namespace
}  // namespace storebench

namespace storebench {
namespace {

// Records past 255 and 65535 bytes: the objects' field offsets take 2 and 4
// bytes; a merge must keep every other field intact.
TEST_F(IgniteTest, MergeKeepsFieldsOfLargeRecords) {
  for (std::size_t len : {100, 7000}) {
    auto store = Open({{"fieldcount", "10"}});
    auto s = store->NewSession(0);
    Owned rec;
    std::map<std::string, std::string> want;
    for (int i = 0; i < 10; ++i) {
      rec.emplace_back("field" + std::to_string(i), std::string(len, static_cast<char>('a' + i)));
      want[rec.back().first] = rec.back().second;
    }
    auto views = FieldViews(rec);
    ASSERT_TRUE(s->Insert(table_, "k", views).ok());
    for (int i : {3, 0, 9}) {
      const Owned one = {{"field" + std::to_string(i), std::string(len / 2, 'Z')}};
      auto v = FieldViews(one);
      ASSERT_TRUE(s->Update(table_, "k", v).ok());
      want[one[0].first] = one[0].second;
      Status st;
      EXPECT_EQ(ReadAll(s.get(), "k", &st), want) << len << " after field" << i;
    }
  }
}

// Many clients per thread, each thread's sharing one connection per node
// (connections x ignite.pipeline fibers): every request gets its own answer
// though the node answers a connection's requests out of order, and the
// handshake of a shared connection is never taken for a reply. The whole
// CLI, load then run, with every record read checked.
TEST_F(IgniteTest, PipelinedClientsGetTheirOwnAnswers) {
  std::vector<std::string> common = {"-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada", "-p",
                                     "table=" + table_, "-p", "recordcount=2000", "-p", "dataintegrity=true",
                                     "-p", "threadcount=2", "-p", "connections=2", "-p", "ignite.pipeline=4"};
  for (const auto& [k, v] : server_) {
    common.push_back("-p");
    common.push_back(k + "=" + v);
  }
  test_util::TempDir dir;
  auto run = [&](const std::string& command, std::vector<std::string> extra) {
    std::vector<std::string> args = {command, "ignite"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), extra.begin(), extra.end());
    test_util::ProcessOptions options;
    options.cwd = dir.path().string();
    options.kill_after_s = 120;
    return test_util::RunProcess(STOREBENCH_BINARY, args, options);
  };
  const test_util::ProcessResult load = run("load", {});
  ASSERT_EQ(load.code, 0) << load.err;
  EXPECT_NE(load.out.find("[INSERT], Return=OK, 2000"), std::string::npos) << load.out;
  const test_util::ProcessResult r = run("run", {"-p", "operationcount=20000"});
  ASSERT_EQ(r.code, 0) << r.err;
  int ok = 0;
  for (const char* op : {"[READ]", "[UPDATE]"}) {
    const std::string prefix = std::string(op) + ", Return=OK, ";
    const std::size_t at = r.out.find(prefix);
    ASSERT_NE(at, std::string::npos) << r.out;
    ok += std::stoi(r.out.substr(at + prefix.size()));
  }
  EXPECT_EQ(ok, 20000) << r.out;
  EXPECT_EQ(r.out.find("Return=ERROR"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("IntegrityFailures"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace storebench
