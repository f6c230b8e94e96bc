// The hbase binding's routing on bytes (db/hbase/routing.h): the region
// cache's lookup by row, replacement of overlapping regions, drops, and the
// hbase:meta rows and search keys, as HBase writes and reads them.
#include "db/hbase/routing.h"

#include <gtest/gtest.h>

#include <string>

namespace storebench::hbase {
namespace {

Region R(std::string start, std::string end, int server, std::string name = "") {
  Region r;
  r.start_key = std::move(start);
  r.end_key = std::move(end);
  r.server = server;
  r.name = name.empty() ? "t," + r.start_key + ",1.x." : std::move(name);
  return r;
}

TEST(HBaseRouting, LookupFindsTheRegionHoldingTheRow) {
  RegionCache c;
  c.Add("t", R("", "user3", 0));
  c.Add("t", R("user3", "user6", 1));
  c.Add("t", R("user6", "", 2));
  Region r;
  ASSERT_TRUE(c.Lookup("t", "", &r));
  EXPECT_EQ(r.server, 0);
  ASSERT_TRUE(c.Lookup("t", "user2999", &r));
  EXPECT_EQ(r.server, 0);
  ASSERT_TRUE(c.Lookup("t", "user3", &r));  // start keys are inclusive
  EXPECT_EQ(r.server, 1);
  ASSERT_TRUE(c.Lookup("t", "user5", &r));
  EXPECT_EQ(r.server, 1);
  ASSERT_TRUE(c.Lookup("t", "user6", &r));  // end keys exclusive
  EXPECT_EQ(r.server, 2);
  ASSERT_TRUE(c.Lookup("t", "zzzz", &r));
  EXPECT_EQ(r.server, 2);
  EXPECT_FALSE(c.Lookup("other", "user1", &r));
}

TEST(HBaseRouting, HolesAreMisses) {
  RegionCache c;
  c.Add("t", R("user3", "user6", 1));
  Region r;
  EXPECT_FALSE(c.Lookup("t", "user1", &r));
  EXPECT_FALSE(c.Lookup("t", "user7", &r));
  EXPECT_TRUE(c.Lookup("t", "user4", &r));
}

TEST(HBaseRouting, AddReplacesOverlappingRegions) {
  RegionCache c;
  c.Add("t", R("", "", 0, "whole"));
  EXPECT_EQ(c.Count("t"), 1u);
  // The table split: the daughters replace the parent.
  c.Add("t", R("", "m", 1, "left"));
  EXPECT_EQ(c.Count("t"), 1u);
  c.Add("t", R("m", "", 2, "right"));
  EXPECT_EQ(c.Count("t"), 2u);
  Region r;
  ASSERT_TRUE(c.Lookup("t", "a", &r));
  EXPECT_EQ(r.name, "left");
  ASSERT_TRUE(c.Lookup("t", "z", &r));
  EXPECT_EQ(r.name, "right");
  // A merge replaces both.
  c.Add("t", R("", "", 3, "merged"));
  EXPECT_EQ(c.Count("t"), 1u);
}

TEST(HBaseRouting, DropAndDropServer) {
  RegionCache c;
  c.Add("t", R("", "m", 1, "left"));
  c.Add("t", R("m", "", 2, "right"));
  c.Add("u", R("", "", 2, "u"));
  c.Drop("t", "left");
  Region r;
  EXPECT_FALSE(c.Lookup("t", "a", &r));
  EXPECT_TRUE(c.Lookup("t", "z", &r));
  c.DropServer(2);
  EXPECT_FALSE(c.Lookup("t", "z", &r));
  EXPECT_FALSE(c.Lookup("u", "a", &r));
}

TEST(HBaseRouting, MetaSearchKeysAsHBasesClient) {
  std::string start, stop;
  MetaSearchKeys("usertable", "user42", &start, &stop);
  EXPECT_EQ(start, "usertable,user42,99999999999999");
  EXPECT_EQ(stop, "usertable,,");
}

TEST(HBaseRouting, RegionNames) {
  pb::RegionInfo ri;
  ri.set_region_id(1);
  ri.mutable_table_name()->set_namespace_("hbase");
  ri.mutable_table_name()->set_qualifier("meta");
  EXPECT_EQ(OldFormatRegionName(ri), "hbase:meta,,1");
  ri.mutable_table_name()->set_namespace_("default");
  ri.mutable_table_name()->set_qualifier("usertable");
  EXPECT_EQ(TableNameString(ri.table_name()), "usertable");
}

pb::Result MetaResult(const std::string& row, const std::string& regioninfo, const std::string& server) {
  pb::Result r;
  auto add = [&](const std::string& q, const std::string& v) {
    pb::Cell* c = r.add_cell();
    c->set_row(row);
    c->set_family("info");
    c->set_qualifier(q);
    c->set_value(v);
  };
  add("regioninfo", regioninfo);
  if (!server.empty()) add("server", server);
  add("serverstartcode", std::string(8, '\0'));
  return r;
}

std::string RegionInfoBytes(const std::string& table, const std::string& start, const std::string& end, bool split) {
  pb::RegionInfo ri;
  ri.set_region_id(1700000000000);
  ri.mutable_table_name()->set_namespace_("default");
  ri.mutable_table_name()->set_qualifier(table);
  ri.set_start_key(start);
  ri.set_end_key(end);
  if (split) {
    ri.set_offline(true);
    ri.set_split(true);
  }
  return "PBUF" + ri.SerializeAsString();
}

TEST(HBaseRouting, ParsesAMetaRow) {
  const std::string name = "usertable,user3,1700000000000.0123456789abcdef0123456789abcdef.";
  MetaRow m;
  std::string error;
  ASSERT_TRUE(ParseMetaRow(MetaResult(name, RegionInfoBytes("usertable", "user3", "user6", false), "127.0.0.1:16020"),
                           &m, &error))
      << error;
  EXPECT_EQ(m.name, name);
  EXPECT_EQ(m.table, "usertable");
  EXPECT_EQ(m.info.start_key(), "user3");
  EXPECT_EQ(m.info.end_key(), "user6");
  EXPECT_EQ(m.host, "127.0.0.1");
  EXPECT_EQ(m.port, 16020);
  EXPECT_FALSE(m.offline());
}

TEST(HBaseRouting, MetaRowOfASplitParentOrUnassignedRegion) {
  MetaRow m;
  std::string error;
  ASSERT_TRUE(ParseMetaRow(MetaResult("usertable,,1.a.", RegionInfoBytes("usertable", "", "", true), "h:1"), &m, &error));
  EXPECT_TRUE(m.offline());
  ASSERT_TRUE(ParseMetaRow(MetaResult("usertable,,1.a.", RegionInfoBytes("usertable", "", "", false), ""), &m, &error));
  EXPECT_TRUE(m.host.empty());
}

TEST(HBaseRouting, BadMetaRowsAreErrors) {
  MetaRow m;
  std::string error;
  EXPECT_FALSE(ParseMetaRow(MetaResult("r", "nomagic", "h:1"), &m, &error));
  EXPECT_FALSE(ParseMetaRow(MetaResult("r", "PBUF\xff\xff\xff", "h:1"), &m, &error));
  EXPECT_FALSE(ParseMetaRow(MetaResult("r", RegionInfoBytes("t", "", "", false), "noport"), &m, &error));
  EXPECT_FALSE(ParseMetaRow(MetaResult("r", RegionInfoBytes("t", "", "", false), "h:99999999"), &m, &error));
  EXPECT_FALSE(ParseMetaRow(pb::Result(), &m, &error));
  EXPECT_FALSE(error.empty());
}

TEST(HBaseRouting, ClassifiesExceptions) {
  EXPECT_TRUE(IsRegionMoved("org.apache.hadoop.hbase.NotServingRegionException"));
  EXPECT_TRUE(IsRegionMoved("org.apache.hadoop.hbase.exceptions.RegionMovedException"));
  EXPECT_FALSE(IsRegionMoved("org.apache.hadoop.hbase.RegionTooBusyException"));
  EXPECT_TRUE(IsRetryable("org.apache.hadoop.hbase.RegionTooBusyException"));
  EXPECT_TRUE(IsRetryable("org.apache.hadoop.hbase.exceptions.RegionOpeningException"));
  EXPECT_FALSE(IsRetryable("org.apache.hadoop.hbase.DoNotRetryIOException"));
  EXPECT_FALSE(IsRetryable("org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException"));
}

}  // namespace
}  // namespace storebench::hbase
