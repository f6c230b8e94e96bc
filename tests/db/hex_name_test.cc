// The "x_" + hex spelling of names a store would refuse (db/hex_name.h), as
// the SQL bindings' column codec (db/sql/columns.h) uses it.
#include <gtest/gtest.h>

#include <string>

#include "db/hex_name.h"
#include "db/sql/columns.h"

namespace storebench {
namespace {

TEST(HexNameTest, SpellsEveryByteAsTwoLowerCaseHexDigits) {
  std::string out = "keep:";
  AppendHexName(std::string("a B\xff\x00", 5), &out);
  EXPECT_EQ(out, "keep:x_612042ff00");
}

TEST(HexNameTest, ReadsBackWholePairsOnly) {
  std::string out;
  EXPECT_TRUE(AppendHexBytes("612042ff00", &out));
  EXPECT_EQ(out, std::string("a B\xff\x00", 5));
  for (const char* bad : {"6", "6g", "612", "6A"}) {
    std::string o;
    EXPECT_FALSE(AppendHexBytes(bad, &o)) << bad;
  }
}

TEST(HexNameTest, SqlColumnsKeepPlainNamesAndRoundTripTheOthers) {
  EXPECT_EQ(sql::EncodeColumn("field0"), "field0");
  EXPECT_EQ(sql::EncodeColumn("Field 0"), "x_4669656c642030");
  EXPECT_EQ(sql::EncodeColumn("ycsb_key"), "x_796373625f6b6579");  // the key column's name is reserved
  const std::string names[] = {"field0", "Field 0", "x_1", "ycsb_key", std::string("\0\xff", 2), ""};
  for (const std::string& name : names) {
    EXPECT_EQ(sql::DecodeColumn(sql::EncodeColumn(name)), name) << name;
  }
  // A server may fold the name's case; a malformed hex name reads as itself.
  EXPECT_EQ(sql::DecodeColumn("X_4669656C642030"), "Field 0");
  EXPECT_EQ(sql::DecodeColumn("x_zz"), "x_zz");
}

}  // namespace
}  // namespace storebench
