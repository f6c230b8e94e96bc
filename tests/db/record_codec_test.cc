#include "db/record_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace storebench {
namespace {

using Owned = std::vector<std::pair<std::string, std::string>>;

std::vector<Field> Views(const Owned& owned) {
  std::vector<Field> out;
  for (const auto& [n, v] : owned) out.push_back({n, v});
  return out;
}

std::string Encode(const Owned& owned) {
  std::string out;
  auto fields = Views(owned);
  EncodeRecord(fields, &out);
  return out;
}

// Decodes into a fresh one-record RecordSet and returns its fields.
Owned Decode(std::string_view data, const FieldSelector& sel = {}) {
  RecordSet rs;
  rs.BeginRecord("k");
  EXPECT_TRUE(DecodeRecord(data, sel, &rs));
  Owned out;
  for (std::size_t i = 0; i < rs.field_count(0); ++i) {
    Field f = rs.field(0, i);
    out.emplace_back(std::string(f.name), std::string(f.value));
  }
  return out;
}

Owned TenFields() {
  Owned rec;
  for (int i = 0; i < 10; ++i) {
    rec.emplace_back("field" + std::to_string(i), std::string(100, static_cast<char>('a' + i)));
  }
  return rec;
}

TEST(RecordCodecTest, RoundTripKeepsFieldsInOrder) {
  Owned rec = TenFields();
  std::string enc = Encode(rec);
  EXPECT_EQ(enc.size(), 1080u);  // per field: 1-byte varint + 6-byte name + 1-byte varint + 100 bytes
  EXPECT_EQ(Decode(enc), rec);
}

TEST(RecordCodecTest, ExactFormatIsVarintLengthPrefixed) {
  EXPECT_EQ(Encode({{"a", "xyz"}}), std::string("\x01" "a" "\x03" "xyz"));
  EXPECT_EQ(Encode({{"", ""}}), std::string("\x00\x00", 2));
  // 300 = 0b10'0101100: low group first with the continuation bit.
  std::string enc = Encode({{"n", std::string(300, 'v')}});
  EXPECT_EQ(enc.substr(0, 4), std::string("\x01n\xac\x02"));
  EXPECT_EQ(enc.size(), 4u + 300u);
}

TEST(RecordCodecTest, EmptyRecordEncodesAsEmptyString) {
  EXPECT_EQ(Encode({}), "");
  RecordSet rs;
  rs.BeginRecord("k");
  EXPECT_TRUE(DecodeRecord("", FieldSelector{}, &rs));
  EXPECT_EQ(rs.record_count(), 1u);
  EXPECT_EQ(rs.field_count(0), 0u);
}

TEST(RecordCodecTest, EmptyNamesAndValues) {
  Owned rec = {{"empty", ""}, {"", "noname"}, {"", ""}, {"last", "x"}};
  EXPECT_EQ(Decode(Encode(rec)), rec);
}

TEST(RecordCodecTest, BinaryBytesAndLongValues) {
  std::string binary;
  for (int c = 0; c < 256; ++c) binary.push_back(static_cast<char>(c));
  Owned rec = {{std::string("n\0ame", 5), binary},
               {std::string("\xff\x80", 2), std::string(20000, '\0')},  // 3-byte varint
               {"big", std::string(1 << 21, '\x80')}};                    // 4-byte varint
  EXPECT_EQ(Decode(Encode(rec)), rec);
}

TEST(RecordCodecTest, SelectedFieldsOnlyInStoredOrder) {
  Owned rec = TenFields();
  std::string enc = Encode(rec);
  std::string_view names[] = {"field7", "field3", "nosuchfield"};
  FieldSelector sel{false, names};
  Owned got = Decode(enc, sel);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], rec[3]);
  EXPECT_EQ(got[1], rec[7]);

  FieldSelector none{false, {}};
  EXPECT_TRUE(Decode(enc, none).empty());
}

TEST(RecordCodecTest, DecodeAddsToTheCurrentRecord) {
  RecordSet rs;
  rs.BeginRecord("first");
  rs.AddField("pre", "existing");
  rs.BeginRecord("second");
  ASSERT_TRUE(DecodeRecord(Encode({{"a", "1"}, {"b", "2"}}), FieldSelector{}, &rs));
  ASSERT_EQ(rs.record_count(), 2u);
  EXPECT_EQ(rs.field_count(0), 1u);
  ASSERT_EQ(rs.field_count(1), 2u);
  EXPECT_EQ(rs.key(1), "second");
  EXPECT_EQ(rs.Find(1, "b"), std::optional<std::string_view>("2"));
}

TEST(RecordCodecTest, EncodeClearsOutputAndReusesCapacity) {
  std::string out = "stale bytes";
  Owned big_owned = TenFields();
  auto big = Views(big_owned);
  EncodeRecord(big, &out);
  const char* data = out.data();
  std::size_t cap = out.capacity();
  Owned small_owned = {{"x", "y"}};
  auto small = Views(small_owned);
  EncodeRecord(small, &out);
  EXPECT_EQ(out, std::string("\x01x\x01y"));
  EXPECT_EQ(out.data(), data);
  EXPECT_EQ(out.capacity(), cap);
}

TEST(RecordCodecTest, EveryTruncationIsDetectedExceptAtFieldBoundaries) {
  Owned rec = {{"alpha", "one"}, {"beta", std::string(200, 'z')}, {"gamma", ""}};
  std::string enc = Encode(rec);
  std::vector<std::size_t> boundaries = {0};
  for (const auto& [n, v] : rec) {
    std::size_t field = 1 + n.size() + (v.size() < 128 ? 1 : 2) + v.size();
    boundaries.push_back(boundaries.back() + field);
  }
  ASSERT_EQ(boundaries.back(), enc.size());
  for (std::size_t len = 0; len <= enc.size(); ++len) {
    bool boundary = std::find(boundaries.begin(), boundaries.end(), len) != boundaries.end();
    EXPECT_EQ(IsValidRecord(std::string_view(enc).substr(0, len)), boundary) << "prefix " << len;
  }
}

TEST(RecordCodecTest, CorruptDataIsRejectedAndOutputUntouched) {
  const std::string corrupt[] = {
      std::string("\x05" "ab", 3),                 // name longer than the data
      std::string("\x01" "a" "\x09" "short", 7),   // value longer than the data
      std::string("\x80", 1),                      // varint never ends
      std::string(11, '\x80') + "\x01",            // varint longer than 10 bytes
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10),  // huge length
      Encode({{"ok", "fine"}}) + "\x02",           // garbage after a good field
  };
  for (const auto& data : corrupt) {
    RecordSet rs;
    rs.BeginRecord("k");
    rs.AddField("keep", "me");
    EXPECT_FALSE(DecodeRecord(data, FieldSelector{}, &rs)) << testing::PrintToString(data);
    EXPECT_FALSE(IsValidRecord(data));
    ASSERT_EQ(rs.field_count(0), 1u);
    EXPECT_EQ(rs.field(0, 0).name, "keep");
  }
}

std::string Merge(const std::string& existing, const Owned& updates, bool expect_ok = true) {
  std::string out = "stale";
  auto u = Views(updates);
  EXPECT_EQ(MergeRecord(existing, u, &out), expect_ok);
  return out;
}

TEST(RecordCodecTest, MergeOverridesGivenFieldsAndKeepsOthers) {
  Owned rec = TenFields();
  Owned got = Decode(Merge(Encode(rec), {{"field3", "NEW"}}));
  Owned want = rec;
  want[3].second = "NEW";
  EXPECT_EQ(got, want);
}

TEST(RecordCodecTest, MergeAppendsNewFieldsInGivenOrder) {
  Owned got = Decode(Merge(Encode({{"a", "1"}, {"b", "2"}}), {{"z", "26"}, {"b", "two"}, {"c", "3"}}));
  Owned want = {{"a", "1"}, {"b", "two"}, {"z", "26"}, {"c", "3"}};
  EXPECT_EQ(got, want);
}

TEST(RecordCodecTest, MergeRepeatedUpdateLastWins) {
  Owned got = Decode(Merge(Encode({{"a", "1"}}), {{"a", "x"}, {"n", "p"}, {"a", "y"}, {"n", "q"}}));
  Owned want = {{"a", "y"}, {"n", "q"}};
  EXPECT_EQ(got, want);
}

TEST(RecordCodecTest, MergeIntoEmptyAndWithNoUpdates) {
  EXPECT_EQ(Decode(Merge("", {{"a", "1"}})), (Owned{{"a", "1"}}));
  Owned rec = TenFields();
  EXPECT_EQ(Merge(Encode(rec), {}), Encode(rec));
}

TEST(RecordCodecTest, MergeManyUpdates) {
  Owned existing, updates, want;
  for (int i = 0; i < 100; ++i) existing.emplace_back("f" + std::to_string(i), "old");
  for (int i = 50; i < 150; ++i) updates.emplace_back("f" + std::to_string(i), "new" + std::to_string(i));
  for (int i = 0; i < 150; ++i) {
    want.emplace_back("f" + std::to_string(i), i < 50 ? std::string("old") : "new" + std::to_string(i));
  }
  EXPECT_EQ(Decode(Merge(Encode(existing), updates)), want);
}

TEST(RecordCodecTest, MergeOfCorruptExistingFailsWithJustTheUpdates) {
  std::string out = Merge(std::string("\x09oops", 5), {{"a", "1"}, {"a", "2"}}, /*expect_ok=*/false);
  EXPECT_EQ(Decode(out), (Owned{{"a", "2"}}));
}

// A stored record that repeats a name (we never write one, but stored data is
// outside input) takes the update at every repeat. Each repeat once grew the
// output past its precomputed bound: a heap overflow found by
// tests/fuzz/record_codec_fuzz.cc (its input is in the corpus).
TEST(RecordCodecTest, MergeIntoRecordRepeatingAnUpdatedName) {
  Owned existing;
  for (int i = 0; i < 100; ++i) existing.emplace_back("", "");
  existing.emplace_back("b", std::string(1000, 'b'));  // a kept field after the repeats
  Owned want(100, {"", std::string(50, 'x')});
  want.emplace_back("b", std::string(1000, 'b'));
  want.emplace_back("c", "3");
  EXPECT_EQ(Decode(Merge(Encode(existing), {{"", std::string(50, 'x')}, {"c", "3"}})), want);
}

}  // namespace
}  // namespace storebench
