// The HdrHistogram V2 encoder and log writer, checked against bytes worked
// out by hand and against an independent decoder (tests/hdr_log_decode.h).
#include "report/hdr_log.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "hdr_log_decode.h"

namespace storebench {
namespace {

std::string Hex(const std::string& b) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += d[c >> 4];
    s += d[c & 15];
  }
  return s;
}

TEST(HdrLogTest, TinyHistogramEncodesToHandComputedBytes) {
  Histogram h;
  h.Record(1);
  h.RecordN(3, 2);
  // Header: cookie 0x1c849313, payload length 4, normalizingIndexOffset 0,
  // 3 significant digits, lowestDiscernibleValue 1, highestTrackableValue
  // 2^42, conversion ratio 1.0 (0x3ff0000000000000). Payload, indexes 0..3:
  // counts 0,1,0,2; a lone zero is ZigZag 0, count 1 is 2, count 2 is 4.
  EXPECT_EQ(Hex(EncodeHdrV2(h)),
            "1c849313"
            "00000004"
            "00000000"
            "00000003"
            "0000000000000001"
            "0000040000000000"
            "3ff0000000000000"
            "00020004");
}

TEST(HdrLogTest, ZeroRunsAndLongVarints) {
  Histogram h;
  h.Record(2000);
  // Indexes 0..1999 are empty: -2000, ZigZag 3999 = 0xf9f, LEB128 9f 1f; then 1 -> 02.
  EXPECT_EQ(Hex(EncodeHdrV2(h).substr(40)), "9f1f02");

  Histogram big;
  big.RecordN(0, std::uint64_t{1} << 60);  // ZigZag 2^61: 62 bits, all nine bytes
  EXPECT_EQ(Hex(EncodeHdrV2(big).substr(40)), "808080808080808020");
  const auto d = hdr_test::DecodeV2(EncodeHdrV2(big));
  ASSERT_EQ(d.buckets.size(), 1u);
  EXPECT_EQ(d.buckets[0].second, std::uint64_t{1} << 60);
}

TEST(HdrLogTest, EmptyHistogramIsOneZeroCount) {
  Histogram h;
  EXPECT_EQ(Hex(EncodeHdrV2(h).substr(4, 4)), "00000001");
  EXPECT_EQ(Hex(EncodeHdrV2(h).substr(40)), "00");
}

TEST(HdrLogTest, RandomHistogramsRoundTripThroughTheIndependentDecoder) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20; ++round) {
    Histogram h;
    const int n = 1 + static_cast<int>(rng() % 5000);
    for (int i = 0; i < n; ++i) {
      // Log-uniform over 1 ns .. ~2^45 ns (beyond kMaxTrackable: clamped to the top bucket).
      const int bits = static_cast<int>(rng() % 46);
      h.RecordN(rng() & ((std::uint64_t{1} << bits) - 1), 1 + rng() % (round % 2 ? 3 : 100000));
    }
    const auto d = hdr_test::DecodeCompressed(EncodeHdrV2Compressed(h));
    EXPECT_EQ(d.cookie, 0x1c849313u);
    EXPECT_EQ(d.normalizing_index_offset, 0u);
    EXPECT_EQ(d.significant_digits, 3u);
    EXPECT_EQ(d.lowest_discernible, 1u);
    EXPECT_EQ(d.highest_trackable, Histogram::kMaxTrackable);
    EXPECT_EQ(d.conversion_ratio, 1.0);
    EXPECT_EQ(d.total, h.count());
    EXPECT_EQ(d.buckets, h.NonEmptyBuckets());
  }
}

TEST(HdrLogTest, Base64MatchesRfc4648Vectors) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64Encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode(std::string("\xff\x00\xfe", 3)), "/wD+");
}

TEST(HdrLogTest, WriterWritesHeaderAndTaggedIntervalLines) {
  std::ostringstream out;
  HdrLogWriter w(out, 1'700'000'000'250);
  Histogram h;
  h.Record(1'500'000);  // 1.5 ms
  h.Record(500);
  w.WriteInterval("READ", 1'700'000'001.250, 1.0, h);
  w.WriteInterval("UPDATE", 1'700'000'002.250, 0.5, Histogram());  // empty: no line
  const std::string text = out.str();
  const auto log = hdr_test::ParseLog(text);
  ASSERT_GE(log.header.size(), 4u);
  EXPECT_EQ(log.header[0], "#[Histogram log format version 1.3]");
  EXPECT_EQ(log.header[1].rfind("#[StartTime: 1700000000.250 (seconds since epoch), ", 0), 0u) << log.header[1];
  EXPECT_EQ(log.header[2], "#[BaseTime: 1700000000.250 (seconds since epoch)]");
  EXPECT_EQ(log.header.back(), "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"");
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_NE(text.find("\nTag=READ,1.000,1.000,1.500,HISTF"), std::string::npos) << text;
  EXPECT_EQ(log.lines[0].tag, "READ");
  EXPECT_EQ(log.lines[0].h.buckets, h.NonEmptyBuckets());
}

}  // namespace
}  // namespace storebench
