// Memory-binding specifics (operation semantics: conformance_test.cc).
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "db/binding.h"
#include "db/registry.h"

namespace storebench {
namespace {

std::unique_ptr<Store> OpenMemory(const std::string& shards = "") {
  Properties p;
  if (!shards.empty()) p.Set("memory.shards", shards);
  return FindBinding("memory").open(p, OpenContext{});
}

TEST(MemoryBindingTest, ShardCountIsValidated) {
  EXPECT_THROW(OpenMemory("0"), ConfigError);
  EXPECT_THROW(OpenMemory("many"), ConfigError);
  auto one = OpenMemory("1");
  std::map<std::string, std::string> stats;
  for (const auto& [k, v] : one->Stats()) stats[k] = v;
  EXPECT_EQ(stats["memory.shards"], "1");
  EXPECT_EQ(OpenMemory()->Stats().back().second, "64");  // the documented default
  EXPECT_FALSE(one->capabilities().persistent);
  EXPECT_FALSE(one->DiskUsageBytes().has_value());
  EXPECT_FALSE(FindBinding("memory").uses_dir);
}

TEST(MemoryBindingTest, StatsCountRecords) {
  auto store = OpenMemory("4");
  auto s = store->NewSession(0);
  Field f{"f", "0123456789"};
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(s->Insert("t", "k" + std::to_string(i), std::span<const Field>(&f, 1)), Status::Ok());
  }
  ASSERT_EQ(s->Delete("t", "k3"), Status::Ok());
  std::map<std::string, std::string> stats;
  for (const auto& [k, v] : store->Stats()) stats[k] = v;
  EXPECT_EQ(stats["memory.records"], "9");
  EXPECT_EQ(stats["memory.data_bytes"], std::to_string(9 * (2 + 13)));  // key + encoded record
}

// Inserts and deletes of the SAME keys from several threads while others
// scan: the ordered index must end consistent with the hash shards.
TEST(MemoryBindingTest, IndexStaysConsistentUnderConcurrentInsertDelete) {
  auto store = OpenMemory("8");
  constexpr int kKeys = 64;
  std::atomic<int> failures{0};
  std::atomic<bool> stop{false};
  auto key = [](int i) { return "key" + std::to_string(100 + i); };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      auto s = store->NewSession(t);
      Field f{"field0", "v"};
      for (int round = 0; round < 200; ++round) {
        for (int i = 0; i < kKeys; ++i) {
          Status st = (round + i + t) % 2 ? s->Insert("t", key(i), std::span<const Field>(&f, 1))
                                          : s->Delete("t", key(i));
          if (st != Status::Ok()) ++failures;
        }
      }
    });
  }
  std::thread scanner([&] {
    auto s = store->NewSession(9);
    RecordSet rs;
    while (!stop) {
      if (s->Scan("t", "", kKeys, FieldSelector{}, &rs) != Status::Ok()) ++failures;
      for (std::size_t r = 1; r < rs.record_count(); ++r) {
        if (!(rs.key(r - 1) < rs.key(r))) ++failures;
      }
    }
  });
  for (auto& th : threads) th.join();
  stop = true;
  scanner.join();
  EXPECT_EQ(failures.load(), 0);

  // Whatever survived, a full scan must list exactly the keys a read finds.
  auto s = store->NewSession(0);
  RecordSet rs;
  std::vector<std::string> readable;
  for (int i = 0; i < kKeys; ++i) {
    if (s->Read("t", key(i), FieldSelector{}, &rs) == Status::Ok()) readable.push_back(key(i));
  }
  ASSERT_EQ(s->Scan("t", "", 1000, FieldSelector{}, &rs), Status::Ok());
  std::vector<std::string> scanned;
  for (std::size_t r = 0; r < rs.record_count(); ++r) scanned.emplace_back(rs.key(r));
  EXPECT_EQ(scanned, readable);
  // And re-inserting everything makes every key visible to both.
  Field f{"field0", "v"};
  for (int i = 0; i < kKeys; ++i) ASSERT_EQ(s->Insert("t", key(i), std::span<const Field>(&f, 1)), Status::Ok());
  ASSERT_EQ(s->Scan("t", "", 1000, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), static_cast<std::size_t>(kKeys));
}

// One shard, so its table grows through many rehashes, with tombstones from
// deletes, and records that grow (new block) and shrink (in place).
TEST(MemoryBindingTest, TableSurvivesGrowthDeletesAndResizedRecords) {
  auto store = OpenMemory("1");
  auto s = store->NewSession(0);
  auto key = [](int i) { return "key" + std::to_string(i); };
  auto value = [](int i, int round) { return std::string(static_cast<std::size_t>((i * 7 + round * 13) % 300), 'a' + static_cast<char>(i % 26)); };
  constexpr int kKeys = 5000;
  for (int i = 0; i < kKeys; ++i) {
    std::string v = value(i, 0);
    Field f{"f", v};
    ASSERT_EQ(s->Insert("t", key(i), std::span<const Field>(&f, 1)), Status::Ok());
  }
  for (int i = 0; i < kKeys; i += 2) ASSERT_EQ(s->Delete("t", key(i)), Status::Ok());
  for (int round = 1; round <= 3; ++round) {
    for (int i = 1; i < kKeys; i += 2) {
      std::string v = value(i, round);
      Field f{"f", v};
      ASSERT_EQ(s->Update("t", key(i), std::span<const Field>(&f, 1)), Status::Ok());
    }
  }
  for (int i = 0; i < kKeys; i += 4) {  // re-insert a quarter into tombstoned slots
    std::string v = value(i, 9);
    Field f{"f", v};
    ASSERT_EQ(s->Insert("t", key(i), std::span<const Field>(&f, 1)), Status::Ok());
  }
  RecordSet rs;
  int present = 0;
  for (int i = 0; i < kKeys; ++i) {
    Status st = s->Read("t", key(i), FieldSelector{}, &rs);
    if (i % 2 == 1) {
      ASSERT_EQ(st, Status::Ok()) << key(i);
      EXPECT_EQ(rs.Find(0, "f"), std::optional<std::string_view>(value(i, 3))) << key(i);
    } else if (i % 4 == 0) {
      ASSERT_EQ(st, Status::Ok()) << key(i);
      EXPECT_EQ(rs.Find(0, "f"), std::optional<std::string_view>(value(i, 9))) << key(i);
    } else {
      EXPECT_EQ(st, Status::NotFound()) << key(i);
      continue;
    }
    ++present;
  }
  std::map<std::string, std::string> stats;
  for (const auto& [k, v] : store->Stats()) stats[k] = v;
  EXPECT_EQ(stats["memory.records"], std::to_string(present));
  ASSERT_EQ(s->Scan("t", "", 100000, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), static_cast<std::size_t>(present));
}

// A scan longer than one internal batch of keys still returns every record.
TEST(MemoryBindingTest, LongScanCrossesBatches) {
  auto store = OpenMemory();
  auto s = store->NewSession(0);
  Field f{"field0", "v"};
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(s->Insert("t", "k" + std::to_string(10000 + i), std::span<const Field>(&f, 1)), Status::Ok());
  }
  RecordSet rs;
  ASSERT_EQ(s->Scan("t", "k10100", 600, FieldSelector{}, &rs), Status::Ok());
  ASSERT_EQ(rs.record_count(), 600u);
  for (std::size_t r = 0; r < 600; ++r) EXPECT_EQ(rs.key(r), "k" + std::to_string(10100 + r));
  ASSERT_EQ(s->Scan("t", "k10100", 5000, FieldSelector{}, &rs), Status::Ok());
  EXPECT_EQ(rs.record_count(), 900u);
}

}  // namespace
}  // namespace storebench
