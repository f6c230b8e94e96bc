// The split of one job's work over N client processes (--part K/N).
#include "job/part.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace storebench {
namespace {

// The N slices tile [start, start+count) exactly, in order, and differ in
// size by at most one, the larger ones first.
void ExpectTiles(std::int64_t start, std::int64_t count, std::int64_t n) {
  std::int64_t next = start;
  for (std::int64_t k = 0; k < n; ++k) {
    const Slice s = SplitRange(start, count, k, n);
    EXPECT_EQ(s.start, next) << "k=" << k << " n=" << n << " count=" << count;
    EXPECT_TRUE(s.count == count / n || s.count == count / n + 1) << s.count;
    EXPECT_EQ(s.count, count / n + (k < count % n ? 1 : 0));
    next = s.start + s.count;
  }
  EXPECT_EQ(next, start + count);
}

TEST(SplitRange, DivisibleCounts) {
  EXPECT_EQ(SplitRange(0, 1000, 0, 4), (Slice{0, 250}));
  EXPECT_EQ(SplitRange(0, 1000, 3, 4), (Slice{750, 250}));
  EXPECT_EQ(SplitRange(100, 10, 1, 2), (Slice{105, 5}));
}

TEST(SplitRange, RemainderGoesToTheFirstSlices) {
  // 10 over 3: 4, 3, 3.
  EXPECT_EQ(SplitRange(0, 10, 0, 3), (Slice{0, 4}));
  EXPECT_EQ(SplitRange(0, 10, 1, 3), (Slice{4, 3}));
  EXPECT_EQ(SplitRange(0, 10, 2, 3), (Slice{7, 3}));
  // 1001 over 3 from 50: 334, 334, 333.
  EXPECT_EQ(SplitRange(50, 1001, 0, 3), (Slice{50, 334}));
  EXPECT_EQ(SplitRange(50, 1001, 1, 3), (Slice{384, 334}));
  EXPECT_EQ(SplitRange(50, 1001, 2, 3), (Slice{718, 333}));
}

TEST(SplitRange, FewerItemsThanPartsAndEdgeCases) {
  EXPECT_EQ(SplitRange(0, 2, 0, 5), (Slice{0, 1}));
  EXPECT_EQ(SplitRange(0, 2, 1, 5), (Slice{1, 1}));
  EXPECT_EQ(SplitRange(0, 2, 4, 5), (Slice{2, 0}));
  EXPECT_EQ(SplitRange(7, 0, 2, 3), (Slice{7, 0}));
  EXPECT_EQ(SplitRange(7, 9, 0, 1), (Slice{7, 9}));
}

TEST(SplitRange, AlwaysTilesTheRange) {
  for (std::int64_t n = 1; n <= 9; ++n) {
    for (std::int64_t count : {0, 1, 2, 5, 8, 9, 10, 99, 1000, 1001, 123457}) ExpectTiles(13, count, n);
  }
  ExpectTiles(0, std::int64_t{1} << 40, 7);
}

TEST(ParsePart, AcceptsKOfN) {
  const PartSpec p = ParsePart("2/5", "--part");
  EXPECT_EQ(p.id, 2);
  EXPECT_EQ(p.count, 5);
  EXPECT_EQ(ParsePart("0/1", "--part").count, 1);
}

TEST(ParsePart, RejectsWithOneLineNamingTheInput) {
  auto message = [](const std::string& text) {
    try {
      ParsePart(text, "--part");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_NE(message("3/3").find("K must be in 0 .. N-1"), std::string::npos);
  EXPECT_NE(message("1/0").find("N must be at least 1"), std::string::npos);
  for (const char* bad : {"", "3", "a/b", "1/", "/2", "1/2/3", "-1/2", "1 /2", "1.5/2"}) {
    const std::string m = message(bad);
    EXPECT_NE(m.find("--part '" + std::string(bad) + "'"), std::string::npos) << bad << ": " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace storebench
