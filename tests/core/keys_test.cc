#include "core/keys.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "core/error.h"
#include "core/generators.h"

namespace storebench {
namespace {

// Expected values computed independently (FNV-1a 64 over the 8 bytes, least
// significant first, then Java's Math.abs as a signed long).
TEST(FnvHash64Test, MatchesYcsb) {
  EXPECT_EQ(FnvHash64(0), 6284781860667377211LL);
  EXPECT_EQ(FnvHash64(1), 8517097267634966620LL);
  EXPECT_EQ(FnvHash64(2), 1820151046732198393LL);
  EXPECT_EQ(FnvHash64(3), 4052466453699787802LL);
  EXPECT_EQ(FnvHash64(10), 2408371864701034737LL);
  // Raw hash of 999999 and 2^31 is already positive (no abs involved).
  EXPECT_EQ(FnvHash64(999999), 2744965632448235251LL);
  EXPECT_EQ(FnvHash64(2147483648LL), 5860980763039959109LL);
  EXPECT_EQ(FnvHash64(-1), 8289690350564177859LL);
  EXPECT_EQ(FnvHash64(std::numeric_limits<std::int64_t>::max()), 8289549613075766851LL);
  EXPECT_EQ(FnvHash64(std::numeric_limits<std::int64_t>::min()), 6284922598155788219LL);
}

TEST(KeyBuilderTest, HashedKnownKeys) {
  KeyBuilder kb(/*ordered=*/false, /*zeropadding=*/1);
  EXPECT_EQ(kb.Build(0), "user6284781860667377211");
  EXPECT_EQ(kb.Build(1), "user8517097267634966620");
  EXPECT_EQ(kb.Build(2), "user1820151046732198393");
  EXPECT_EQ(kb.Build(12345), "user1792800413050876852");
  EXPECT_EQ(kb.Build(999999), "user2744965632448235251");
}

TEST(KeyBuilderTest, BufferFormMatchesStringForm) {
  KeyBuilder kb(false, 1);
  char buf[KeyBuilder::kMaxKeyLength];
  std::size_t n = kb.Build(0, buf);
  EXPECT_EQ(std::string(buf, n), "user6284781860667377211");
  EXPECT_EQ(n, 23u);
}

TEST(KeyBuilderTest, OrderedAndPadding) {
  KeyBuilder plain(/*ordered=*/true, 1);
  EXPECT_EQ(plain.Build(0), "user0");
  EXPECT_EQ(plain.Build(7), "user7");
  EXPECT_EQ(plain.Build(1234567), "user1234567");
  KeyBuilder padded(true, 8);
  EXPECT_EQ(padded.Build(0), "user00000000");
  EXPECT_EQ(padded.Build(42), "user00000042");
  EXPECT_EQ(padded.Build(12345678), "user12345678");
  EXPECT_EQ(padded.Build(123456789), "user123456789");  // longer than the padding: no fill
  // Hashed keys are padded too (19-digit number, padding 22 -> 3 zeros).
  KeyBuilder hashed_padded(false, 22);
  EXPECT_EQ(hashed_padded.Build(2), "user0001820151046732198393");
}

TEST(KeyBuilderTest, EveryDigitCountRoundTrips) {
  // Exercises the digit-count estimate at every power-of-ten boundary.
  KeyBuilder kb(true, 1);
  std::uint64_t p = 1;
  for (int d = 1; d <= 19; ++d) {
    for (std::int64_t v : {static_cast<std::int64_t>(p) - 1, static_cast<std::int64_t>(p),
                           static_cast<std::int64_t>(p) + 1}) {
      if (v < 0) continue;
      EXPECT_EQ(kb.Build(v), "user" + std::to_string(v)) << v;
    }
    p *= 10;
  }
  EXPECT_EQ(kb.Build(std::numeric_limits<std::int64_t>::max()), "user9223372036854775807");
}

TEST(KeyBuilderTest, NegativeNumbersKeepTheSignAfterTheZeros) {
  // The '-' counts towards the padded length and the zeros precede it, as
  // YCSB's "user" + zeros + Long.toString(value).
  KeyBuilder padded(true, 4);
  EXPECT_EQ(padded.Build(-5), "user00-5");
  KeyBuilder kb(true, 1);
  EXPECT_EQ(kb.Build(std::numeric_limits<std::int64_t>::min()), "user-9223372036854775808");
  KeyBuilder wide(true, 25);
  EXPECT_EQ(wide.Build(std::numeric_limits<std::int64_t>::min()), "user00000-9223372036854775808");
}

TEST(KeyBuilderTest, MaxPaddingFitsTheBuffer) {
  KeyBuilder kb(true, KeyBuilder::kMaxZeroPadding);
  char buf[KeyBuilder::kMaxKeyLength];
  EXPECT_EQ(kb.Build(1, buf), KeyBuilder::kMaxKeyLength);
  EXPECT_EQ(kb.Build(1), "user" + std::string(59, '0') + "1");
}

TEST(KeyBuilderTest, RejectsBadPadding) {
  EXPECT_THROW(KeyBuilder(true, 0), ConfigError);
  EXPECT_THROW(KeyBuilder(true, KeyBuilder::kMaxZeroPadding + 1), ConfigError);
}

}  // namespace
}  // namespace storebench
