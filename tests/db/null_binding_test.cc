#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/binding.h"
#include "db/registry.h"

namespace storebench {
namespace {

TEST(NullBindingTest, DescribedAsAStoreWithoutPropertiesOrDir) {
  const BindingInfo& b = FindBinding("null");
  EXPECT_EQ(b.name, "null");
  EXPECT_FALSE(b.summary.empty());
  EXPECT_TRUE(b.properties.empty());
  EXPECT_FALSE(b.uses_dir);
}

TEST(NullBindingTest, EveryOperationIsOkAndStoresNothing) {
  Properties props;
  auto store = FindBinding("null").open(props, OpenContext{});
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->capabilities().scan);
  EXPECT_FALSE(store->capabilities().persistent);
  EXPECT_FALSE(store->capabilities().stores_data);
  EXPECT_FALSE(store->DiskUsageBytes().has_value());

  auto s = store->NewSession(0);
  std::vector<Field> fields = {{"field0", "value0"}, {"field1", "value1"}};
  RecordSet out;
  out.BeginRecord("stale");
  out.AddField("f", "v");

  EXPECT_EQ(s->Insert("usertable", "user1", fields), Status::Ok());
  EXPECT_EQ(s->Update("usertable", "user1", fields), Status::Ok());
  EXPECT_EQ(s->Update("usertable", "never-inserted", fields), Status::Ok());
  EXPECT_EQ(s->Read("usertable", "user1", FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.record_count(), 0u);  // nothing stored, and the output is cleared
  out.BeginRecord("stale");
  EXPECT_EQ(s->Scan("usertable", "user0", 100, FieldSelector{}, &out), Status::Ok());
  EXPECT_EQ(out.record_count(), 0u);
  EXPECT_EQ(s->Delete("usertable", "user1"), Status::Ok());
  EXPECT_EQ(s->Delete("usertable", "never-inserted"), Status::Ok());

  s.reset();
  store->Close();
}

TEST(NullBindingTest, IgnoresAllPropertiesWithoutReadingThem) {
  Properties props;
  props.Set("null.anything", "x");
  auto store = FindBinding("null").open(props, OpenContext{});
  EXPECT_FALSE(props.IsKnown("null.anything"));  // so CheckUnknown would report it
}

}  // namespace
}  // namespace storebench
