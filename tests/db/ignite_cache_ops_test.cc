// Expected bytes follow docs/_docs/binary-client-protocol/{key-value-queries,
// cache-configuration,sql-and-scan-queries}.adoc and the server's readers
// (ClientCacheRequest, ClientCacheDataRequest, ClientCacheConfigurationSerializer
// .read/readQueryEntity, ClientCacheSqlFieldsQueryRequest, ClientTxStartRequest,
// ClientCachePartitionAwarenessGroup), spelled out field by field here.
#include "db/ignite/cache_ops.h"
#include "db/ignite_test_bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::ignite {
using namespace test_bytes;  // Hex, Le, I16, I32, I64, Str (db/ignite_test_bytes.h)
namespace {

std::string Message(std::int16_t op, std::int64_t id, const std::string& payload) {
  return I32(static_cast<std::int32_t>(10 + payload.size())) + I16(op) + I64(id) + payload;
}

TEST(IgniteCacheOps, GetCarriesCacheIdFlagsAndKey) {
  std::string buf;
  Writer w(buf);
  EncodeGet(w, 7, {CacheId("usertable"), 0, false}, {1, 7, 0}, "user1");
  EXPECT_EQ(buf, Message(1000, 7, I32(358348515) + Hex("01") + Str("user1")));
}

TEST(IgniteCacheOps, TransactionIdFrom15Only) {
  std::string buf;
  Writer w(buf);
  EncodeRemoveKey(w, 1, {5, 77, true}, {1, 5, 0}, "k");
  EXPECT_EQ(buf, Message(1016, 1, I32(5) + Hex("03") + I32(77) + Str("k")));
  buf.clear();
  EncodeRemoveKey(w, 1, {5, 77, true}, {1, 4, 0}, "k");
  EXPECT_EQ(buf, Message(1016, 1, I32(5) + Hex("01") + Str("k")));
}

TEST(IgniteCacheOps, PutAndReplaceWriteKeyThenObject) {
  const FieldView fields[] = {{"field0", "abc"}, {"field1", "xy"}};
  const std::int32_t ids[] = {FieldId("field0"), FieldId("field1")};
  RecordView rec{"user1", fields, ids, 2};
  std::string object;
  Writer ow(object);
  WriteStringObject(ow, 99, fields, ids, 2);
  std::string buf;
  Writer w(buf);
  EncodePut(w, 2, {5, 0, false}, {1, 7, 0}, 99, rec);
  EXPECT_EQ(buf, Message(1001, 2, I32(5) + Hex("01") + Str("user1") + object));
  buf.clear();
  EncodeReplace(w, 3, {5, 0, false}, {1, 7, 0}, 99, rec);
  EXPECT_EQ(buf, Message(1009, 3, I32(5) + Hex("01") + Str("user1") + object));
  buf.clear();
  // Replace-if-equals: the expected object goes out byte for byte as given.
  EncodeReplaceIfEquals(w, 7, {5, 0, false}, {1, 7, 0}, 99, "OLD", rec);
  EXPECT_EQ(buf, Message(1010, 7, I32(5) + Hex("01") + Str("user1") + "OLD" + object));
  buf.clear();
  const RecordView two[] = {rec, rec};
  EncodePutAll(w, 4, {5, 0, false}, {1, 7, 0}, 99, two, 2);
  EXPECT_EQ(buf, Message(1004, 4, I32(5) + Hex("01") + I32(2) + Str("user1") + object + Str("user1") + object));
}

TEST(IgniteCacheOps, KeyBatches) {
  const std::string_view keys[] = {"a", "bc"};
  std::string buf;
  Writer w(buf);
  EncodeGetAll(w, 5, {5, 0, false}, {1, 7, 0}, keys, 2);
  EXPECT_EQ(buf, Message(1003, 5, I32(5) + Hex("01") + I32(2) + Str("a") + Str("bc")));
  buf.clear();
  EncodeRemoveKeys(w, 6, {5, 0, false}, {1, 7, 0}, keys, 2);
  EXPECT_EQ(buf, Message(1018, 6, I32(5) + Hex("01") + I32(2) + Str("a") + Str("bc")));
}

TEST(IgniteCacheOps, DecodesGetAndGetAll) {
  const FieldView fields[] = {{"field0", "v"}};
  const std::int32_t ids[] = {FieldId("field0")};
  std::string object;
  Writer ow(object);
  WriteStringObject(ow, 99, fields, ids, 1);
  {
    Reader r(object);
    ObjectView o;
    bool found;
    ASSERT_TRUE(DecodeGetValue(r, &o, &found));
    EXPECT_TRUE(found);
    std::string_view v;
    ASSERT_TRUE(ObjectStringField(o, ids[0], &v));
    EXPECT_EQ(v, "v");
  }
  {
    // A node answers a get with the object wrapped (type 27: length, bytes,
    // offset), as Ignite 2.17 did for storebench's own put: seen on the wire.
    const std::string wrapped = Hex("1b") + I32(static_cast<std::int32_t>(object.size() + 2)) + "xy" + object + I32(2) +
                                Str("after");
    Reader r(wrapped);
    ObjectView o;
    bool found = false;
    ASSERT_TRUE(DecodeGetValue(r, &o, &found));
    EXPECT_TRUE(found);
    EXPECT_EQ(o.bytes, object);
    std::string_view v;
    ASSERT_TRUE(ObjectStringField(o, ids[0], &v));
    EXPECT_EQ(v, "v");
    std::string_view after;
    bool present;
    ASSERT_TRUE(ReadStringOrNull(r, &after, &present));  // the reader stands past the wrapper
    EXPECT_EQ(after, "after");
    Reader skip(wrapped);
    ASSERT_TRUE(SkipValue(skip));
    EXPECT_EQ(skip.remaining(), Str("after").size());
    const std::string bad_offset = Hex("1b") + I32(static_cast<std::int32_t>(object.size())) + object + I32(1);
    Reader rb(bad_offset);
    EXPECT_FALSE(DecodeGetValue(rb, &o, &found));
  }
  {
    const std::string null = Hex("65");
    Reader r(null);
    ObjectView o;
    bool found = true;
    ASSERT_TRUE(DecodeGetValue(r, &o, &found));
    EXPECT_FALSE(found);
  }
  {
    const std::string in = I32(2) + Str("a") + object + Str("b") + object;
    Reader r(in);
    std::string keys;
    ASSERT_TRUE(DecodeGetAll(r, [&](std::string_view k, const ObjectView&) { keys.append(k); }));
    EXPECT_EQ(keys, "ab");
    const std::string bad = I32(3) + Str("a") + object;
    Reader rb(bad);
    EXPECT_FALSE(DecodeGetAll(rb, [](std::string_view, const ObjectView&) {}));
  }
}

TEST(IgniteCacheOps, GetOrCreateWithConfiguration) {
  const QueryField columns[] = {{"YCSB_KEY", "java.lang.String"}, {"field0", "java.lang.String"}};
  CacheConfig c;
  c.name = "usertable";
  c.atomicity = Atomicity::kTransactional;
  c.backups = 1;
  c.write_sync = WriteSync::kFullSync;
  c.value_type = "UserTableRecord";
  c.table_name = "usertable";
  c.key_field = "YCSB_KEY";
  c.fields = columns;
  c.field_count = 2;
  std::string buf;
  Writer w(buf);
  EncodeGetOrCreateCache(w, 8, {1, 7, 0}, c);
  // Property count 5; NAME 0, ATOMICITY_MODE 2 (TRANSACTIONAL = ordinal 0),
  // BACKUPS 3, WRITE_SYNCHRONIZATION_MODE 4 (FULL_SYNC = 0), QUERY_ENTITIES 200.
  std::string cfg = I16(5) + I16(0) + Str("usertable") + I16(2) + I32(0) + I16(3) + I32(1) + I16(4) + I32(0);
  cfg += I16(200) + I32(1) + Str("java.lang.String") + Str("UserTableRecord") + Str("usertable") + Str("YCSB_KEY") +
         Hex("65") + I32(2);
  // Each field: name, type, is key, not null, default (null), precision, scale.
  cfg += Str("YCSB_KEY") + Str("java.lang.String") + Hex("01 00 65") + I32(-1) + I32(-1);
  cfg += Str("field0") + Str("java.lang.String") + Hex("00 00 65") + I32(-1) + I32(-1);
  cfg += I32(0) + I32(0);  // aliases, indexes
  EXPECT_EQ(buf, Message(1054, 8, I32(static_cast<std::int32_t>(cfg.size())) + cfg));
  // 1.1 and older have no precision and scale.
  buf.clear();
  EncodeGetOrCreateCache(w, 8, {1, 1, 0}, c);
  EXPECT_EQ(buf.size(), Message(1054, 8, I32(0) + cfg).size() - 16);
  // A cache group: GROUP_NAME 400 after the write synchronization mode.
  buf.clear();
  c.group = "tests";
  EncodeGetOrCreateCache(w, 8, {1, 7, 0}, c);
  std::string grouped = I16(6) + cfg.substr(2, cfg.find(I16(200)) - 2) + I16(400) + Str("tests") +
                        cfg.substr(cfg.find(I16(200)));
  EXPECT_EQ(buf, Message(1054, 8, I32(static_cast<std::int32_t>(grouped.size())) + grouped));
}

TEST(IgniteCacheOps, CachePartitionsRoundTrip) {
  std::string buf;
  Writer w(buf);
  const std::int32_t ids[] = {11};
  EncodeCachePartitions(w, 9, ids, 1);
  EXPECT_EQ(buf, Message(1101, 9, I32(1) + I32(11)));

  // Topology 4.0; group 1: not applicable, cache 12; group 2: applicable,
  // caches 11 (no key config) and 13 (one key config), nodes A: {0, 2}, B: {1, 3}.
  const std::string uuid_a = Hex("0a") + I64(1) + I64(2), uuid_b = Hex("0a") + I64(3) + I64(4);
  const std::string in = I64(4) + I32(0) + I32(2) + Hex("00") + I32(1) + I32(12) + Hex("01") + I32(2) + I32(11) +
                         I32(0) + I32(13) + I32(1) + I32(100) + I32(200) + I32(2) + uuid_a + I32(2) + I32(0) +
                         I32(2) + uuid_b + I32(2) + I32(1) + I32(3);
  PartitionMap m;
  Reader r(in);
  ASSERT_TRUE(DecodeCachePartitions(r, 11, &m));
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_TRUE(m.applicable);
  EXPECT_FALSE(m.has_custom_key_config);
  EXPECT_EQ(m.topology_version, 4);
  ASSERT_EQ(m.nodes.size(), 2u);
  EXPECT_EQ(m.nodes[1], (Uuid{3, 4}));
  ASSERT_EQ(m.partition_node.size(), 4u);
  EXPECT_EQ(m.partition_node[0], 0);
  EXPECT_EQ(m.partition_node[1], 1);
  EXPECT_EQ(m.partition_node[2], 0);
  EXPECT_EQ(m.partition_node[3], 1);

  Reader r12(in);
  ASSERT_TRUE(DecodeCachePartitions(r12, 12, &m));
  EXPECT_FALSE(m.applicable);
  Reader r13(in);
  ASSERT_TRUE(DecodeCachePartitions(r13, 13, &m));
  EXPECT_TRUE(m.has_custom_key_config);
  Reader r99(in);
  EXPECT_FALSE(DecodeCachePartitions(r99, 99, &m));
  for (std::size_t cut = 0; cut < in.size(); ++cut) {
    Reader rc(std::string_view(in).substr(0, cut));
    EXPECT_FALSE(DecodeCachePartitions(rc, 11, &m)) << cut;
  }
}

TEST(IgniteCacheOps, SqlFieldsQueryAndPages) {
  SqlArg args[2];
  args[0].text = "user1";
  args[0].is_text = true;
  args[1].i = 10;
  SqlQuery q;
  q.sql = "SELECT field0 FROM usertable WHERE _key >= ? ORDER BY _key LIMIT ?";
  q.args = args;
  q.arg_count = 2;
  q.distributed_joins = true;
  q.page_size = 10;
  std::string buf;
  Writer w(buf);
  EncodeSqlFields(w, 20, {5, 0, false}, {1, 7, 0}, q);
  // cache id, flags, schema (null), page size, max rows, sql, args, statement
  // type, 6 bools, timeout (long), include field names.
  const std::string payload = I32(5) + Hex("01 65") + I32(10) + I32(0) + Str(q.sql) + I32(2) + Str("user1") +
                              Hex("04") + I64(10) + Hex("00 01 0000000000") + I64(0) + Hex("00");
  EXPECT_EQ(buf, Message(2004, 20, payload));
  buf.clear();
  EncodeSqlFieldsPage(w, 21, 0x55);
  EXPECT_EQ(buf, Message(2005, 21, I64(0x55)));
  buf.clear();
  EncodeResourceClose(w, 22, 0x55);
  EXPECT_EQ(buf, Message(0, 22, I64(0x55)));

  // First page: cursor id, column count, row count, rows, has more.
  const std::string first = I64(0x55) + I32(2) + I32(2) + Str("k1") + Str("v1") + Str("k2") + Hex("65") + Hex("01");
  Reader r(first);
  std::int32_t columns = 0;
  std::int64_t cursor = 0;
  bool more = false;
  std::string seen;
  ASSERT_TRUE(DecodeSqlPage(r, true, &columns, &cursor, &more, [&](std::int32_t, std::int32_t, Reader& cell) {
    std::string_view s;
    bool present;
    if (!ReadStringOrNull(cell, &s, &present)) return false;
    seen.append(present ? s : "-");
    return true;
  }));
  EXPECT_EQ(cursor, 0x55);
  EXPECT_EQ(columns, 2);
  EXPECT_TRUE(more);
  EXPECT_EQ(seen, "k1v1k2-");
  // A later page: row count, rows, has more.
  const std::string next = I32(1) + Str("k3") + Str("v3") + Hex("00");
  Reader rn(next);
  ASSERT_TRUE(DecodeSqlPage(rn, false, &columns, &cursor, &more, [](std::int32_t, std::int32_t, Reader& cell) {
    return SkipValue(cell);
  }));
  EXPECT_FALSE(more);
}

TEST(IgniteCacheOps, Transactions) {
  std::string buf;
  Writer w(buf);
  EncodeTxStart(w, 30, TxConcurrency::kPessimistic, TxIsolation::kRepeatableRead, 5000);
  // concurrency (PESSIMISTIC = 1), isolation (REPEATABLE_READ = 1), timeout, label (null).
  EXPECT_EQ(buf, Message(4000, 30, Hex("01 01") + I64(5000) + Hex("65")));
  buf.clear();
  EncodeTxEnd(w, 31, 12, true);
  EXPECT_EQ(buf, Message(4001, 31, I32(12) + Hex("01")));
  const std::string in = I32(12);
  Reader r(in);
  std::int32_t tx = 0;
  ASSERT_TRUE(DecodeTxStart(r, &tx));
  EXPECT_EQ(tx, 12);
}

}  // namespace
}  // namespace storebench::ignite
