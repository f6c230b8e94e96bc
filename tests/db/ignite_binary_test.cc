// Expected values come from Apache Ignite 2.17.0's own classes, run in jshell
// against ignite-core-2.17.0.jar (String.hashCode, BinaryBasicIdMapper(true),
// BinaryUtils.updateSchemaId, BinaryObjectBuilderImpl with compactFooter=false),
// not from this codec.
#include "db/ignite/binary.h"
#include "db/ignite_test_bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace storebench::ignite {
using namespace test_bytes;  // Hex, Le, I16, I32, I64, Str (db/ignite_test_bytes.h)
namespace {

TEST(IgniteBinary, JavaStringHashCode) {
  EXPECT_EQ(JavaHash(""), 0);
  EXPECT_EQ(JavaHash("usertable"), 358348515);
  EXPECT_EQ(JavaHash("user6284781860667377211"), -594971599);
  EXPECT_EQ(JavaHash("Aa"), JavaHash("BB"));  // Java's classic collision
  // Non-ASCII: é (2 bytes), € (3 bytes), U+1D11E (4 bytes: a surrogate pair in Java).
  EXPECT_EQ(JavaHash("h\xC3\xA9llo\xE2\x82\xAC\xF0\x9D\x84\x9E"), 403414152);
  EXPECT_EQ(CacheId("usertable"), 358348515);
}

TEST(IgniteBinary, LowerCaseIdsAsBinaryBasicIdMapper) {
  EXPECT_EQ(TypeId("UserTableRecord"), 1383623924);
  EXPECT_EQ(FieldId("FIELD0"), -1274708362);
  EXPECT_EQ(FieldId("field0"), -1274708362);
  EXPECT_EQ(FieldId("field1"), -1274708361);
}

TEST(IgniteBinary, SchemaIdIsFnv1OverFieldIds) {
  std::int32_t s = UpdateSchemaId(kSchemaInitialId, FieldId("field0"));
  EXPECT_EQ(s, -768275764);
  EXPECT_EQ(UpdateSchemaId(s, FieldId("field1")), -372870140);
}

// BinaryObjectBuilderImpl(ctx, "UserTableRecord") with field0 = "abc",
// field1 = "xy", compact footer off. (The builder ran with a stub marshaller
// context that made it hash the type name without lower-casing; the type id
// is an input here, so the layout check is unaffected.)
constexpr std::int32_t kBuilderTypeId = 1138342100;
const char* const kTwoFieldObject =
    "67 01 0b00 d4b8d943 eb817e0d 31000000 0474c6e9 27000000"
    "09 03000000 616263  09 02000000 7879"
    "767e05b4 18  777e05b4 20";

TEST(IgniteBinary, WritesObjectAsIgnitesBuilder) {
  const FieldView fields[] = {{"field0", "abc"}, {"field1", "xy"}};
  const std::int32_t ids[] = {FieldId("field0"), FieldId("field1")};
  std::string buf;
  Writer w(buf);
  WriteStringObject(w, kBuilderTypeId, fields, ids, 2);
  EXPECT_EQ(buf, Hex(kTwoFieldObject));
}

TEST(IgniteBinary, TwoByteOffsetsPastOffset255) {
  // Ignite: field0 = 300 x "x", field1 = "y": 347 bytes, flags 0x13, schema at 335.
  const std::string big(300, 'x');
  const FieldView fields[] = {{"field0", big}, {"field1", "y"}};
  const std::int32_t ids[] = {FieldId("field0"), FieldId("field1")};
  std::string buf;
  Writer w(buf);
  WriteStringObject(w, kBuilderTypeId, fields, ids, 2);
  ASSERT_EQ(buf.size(), 347u);
  EXPECT_EQ(buf.substr(0, 24), Hex("67011300d4b8d9438ee6dc6d5b0100000474c6e94f010000"));
  EXPECT_EQ(buf.substr(347 - 16), Hex("00000079767e05b41800777e05b44901"));
}

TEST(IgniteBinary, ReadsObjectFields) {
  const std::string in = Hex(kTwoFieldObject) + "tail";
  Reader r(in);
  ObjectView o;
  ASSERT_TRUE(ReadObject(r, &o));
  EXPECT_EQ(r.pos(), 49u);
  EXPECT_EQ(o.type_id, kBuilderTypeId);
  EXPECT_EQ(o.schema_id, -372870140);
  EXPECT_EQ(o.field_count, 2u);
  std::string_view v;
  ASSERT_TRUE(ObjectStringField(o, FieldId("field1"), &v));
  EXPECT_EQ(v, "xy");
  ASSERT_TRUE(ObjectStringField(o, FieldId("field0"), &v));
  EXPECT_EQ(v, "abc");
  EXPECT_FALSE(ObjectStringField(o, FieldId("field2"), &v));
}

TEST(IgniteBinary, ReadsCompactFooterObjects) {
  // The same object as Ignite writes it by default (compact footer, flag
  // 0x20): the schema holds offsets only.
  const std::string in = Hex("67 01 2b00 d4b8d943 eb817e0d 29000000 0474c6e9 27000000"
                             "09 03000000 616263  09 02000000 7879  18 20");
  Reader r(in);
  ObjectView o;
  ASSERT_TRUE(ReadObject(r, &o));
  ASSERT_EQ(o.field_count, 2u);
  std::int32_t id;
  std::string_view v;
  ASSERT_TRUE(ObjectField(o, 1, &id, &v));
  EXPECT_EQ(v, Hex("09 02000000 7879"));
}

TEST(IgniteBinary, RejectsMalformedObjects) {
  std::string in = Hex(kTwoFieldObject);
  for (std::size_t cut = 0; cut < in.size(); ++cut) {
    Reader r(std::string_view(in).substr(0, cut));
    ObjectView o;
    EXPECT_FALSE(ReadObject(r, &o)) << cut;
  }
  std::string bad_schema = in;
  bad_schema[20] = 0x7f;  // schema offset past the end
  Reader r(bad_schema);
  ObjectView o;
  EXPECT_FALSE(ReadObject(r, &o));
}

TEST(IgniteBinary, TypedValues) {
  std::string buf;
  Writer w(buf);
  WriteString(w, "ab");
  WriteByteArray(w, "c");
  WriteLong(w, -2);
  WriteInt(w, 5);
  WriteNull(w);
  EXPECT_EQ(buf, Hex("09 02000000 6162  0c 01000000 63  04 feffffffffffffff  03 05000000  65"));
  Reader r(buf);
  std::string_view s;
  bool present;
  ASSERT_TRUE(ReadStringOrNull(r, &s, &present));
  EXPECT_EQ(s, "ab");
  EXPECT_TRUE(SkipValue(r));
  EXPECT_TRUE(SkipValue(r));
  EXPECT_TRUE(SkipValue(r));
  ASSERT_TRUE(ReadStringOrNull(r, &s, &present));
  EXPECT_FALSE(present);
  EXPECT_EQ(r.remaining(), 0u);
}

}  // namespace
}  // namespace storebench::ignite
