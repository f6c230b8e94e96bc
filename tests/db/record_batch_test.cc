// RecordBatch (db/binding.h): copies what it is given, keeps every view
// valid as its arena grows, and reuses its buffers after Clear.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/binding.h"

namespace storebench {
namespace {

TEST(RecordBatchTest, CopiesRecordsAndKeepsViewsValidAsItGrows) {
  RecordBatch batch;
  EXPECT_TRUE(batch.empty());
  for (int i = 0; i < 200; ++i) {
    std::string key = "key" + std::to_string(i);
    std::string v0(static_cast<std::size_t>(i % 50), 'a');
    std::string v1 = "value" + std::to_string(i);
    Field fields[] = {{"f0", v0}, {"f1", v1}};
    batch.Add(key, i % 7 == 0 ? std::span<const Field>(fields, 1) : std::span<const Field>(fields));
    key.assign("overwritten");  // the batch holds its own copy
    v1.assign("overwritten");
  }
  ASSERT_EQ(batch.size(), 200u);
  for (int i = 0; i < 200; ++i) {
    const auto r = static_cast<std::size_t>(i);
    EXPECT_EQ(batch.key(r), "key" + std::to_string(i));
    const auto values = batch.values(r);
    ASSERT_EQ(values.size(), i % 7 == 0 ? 1u : 2u) << i;
    EXPECT_EQ(values[0].name, "f0");
    EXPECT_EQ(values[0].value, std::string(static_cast<std::size_t>(i % 50), 'a'));
    if (values.size() == 2) {
      EXPECT_EQ(values[1].name, "f1");
      EXPECT_EQ(values[1].value, "value" + std::to_string(i));
    }
  }
}

TEST(RecordBatchTest, ReusesItsBuffersAfterClear) {
  RecordBatch batch;
  auto fill = [&batch] {
    batch.Clear();
    for (int i = 0; i < 100; ++i) {
      const std::string key = "user" + std::to_string(1000 + i);
      const std::string value(100, static_cast<char>('a' + i % 26));
      Field f{"field0", value};
      batch.Add(key, std::span<const Field>(&f, 1));
    }
  };
  fill();
  const char* key_bytes = batch.key(0).data();
  const Field* fields = batch.values(0).data();
  fill();
  EXPECT_EQ(batch.key(0).data(), key_bytes) << "the arena was reallocated";
  EXPECT_EQ(batch.values(0).data(), fields) << "the field views were reallocated";
  EXPECT_EQ(batch.size(), 100u);
  EXPECT_EQ(batch.key(99), "user1099");
  batch.Clear();
  EXPECT_TRUE(batch.empty());
}

}  // namespace
}  // namespace storebench
