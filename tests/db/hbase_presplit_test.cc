// hbase.presplit's split keys against the test server's launcher
// (servers/hbase/src/main/java/storebench/HBaseStandalone.java, splitPoints:
// "user" + (1000 + i * (9999 - 1000) / n) for i = 1..n-1, Java int
// arithmetic: the product first, then the division, truncated).
#include "db/hbase/presplit.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "db/hbase/options.h"

#include <algorithm>
#include <string>
#include <vector>

namespace storebench::hbase {
namespace {

using Keys = std::vector<std::string>;

TEST(HBasePresplitTest, OneRegionHasNoSplitKey) {
  EXPECT_TRUE(PresplitKeys(1).empty());
  EXPECT_TRUE(PresplitKeys(0).empty());
}

TEST(HBasePresplitTest, KeysAreTheJavaLaunchersPoints) {
  // n = 2: 1 * 8999 / 2 = 4499 -> 5499.
  EXPECT_EQ(PresplitKeys(2), (Keys{"user5499"}));
  // n = 3: 8999 / 3 = 2999, 17998 / 3 = 5999.
  EXPECT_EQ(PresplitKeys(3), (Keys{"user3999", "user6999"}));
  // n = 4: 8999 / 4 = 2249, 17998 / 4 = 4499, 26997 / 4 = 6749.
  EXPECT_EQ(PresplitKeys(4), (Keys{"user3249", "user5499", "user7749"}));
  // n = 7: 8999/7 = 1285, 17998/7 = 2571, 26997/7 = 3856, 35996/7 = 5142,
  // 44995/7 = 6427, 53994/7 = 7713.
  EXPECT_EQ(PresplitKeys(7), (Keys{"user2285", "user3571", "user4856", "user6142", "user7427", "user8713"}));
}

TEST(HBasePresplitTest, AThousandRegionsAscendAndStayInTheKeySpace) {
  const Keys k = PresplitKeys(1000);
  ASSERT_EQ(k.size(), 999u);
  EXPECT_EQ(k.front(), "user1008");  // 8999 / 1000 = 8
  EXPECT_EQ(k.back(), "user9990");   // 999 * 8999 / 1000 = 8990
  EXPECT_TRUE(std::is_sorted(k.begin(), k.end()));
  EXPECT_EQ(std::adjacent_find(k.begin(), k.end()), k.end()) << "no empty region";
}

Options Parse(const std::string& presplit) {
  Properties p;
  p.Set("hbase.master", "127.0.0.1:16000");  // parsing does not connect
  if (!presplit.empty()) p.Set("hbase.presplit", presplit);
  return ParseOptions(p);
}

TEST(HBasePresplitTest, OptionDefaultsToOneRegionAndIsChecked) {
  EXPECT_EQ(Parse("").presplit_regions, 1);
  EXPECT_EQ(Parse("4").presplit_regions, 4);
  EXPECT_EQ(Parse("1000").presplit_regions, 1000);
  for (const char* bad : {"0", "-3", "1001", "four"}) {
    try {
      Parse(bad);
      ADD_FAILURE() << "accepted hbase.presplit=" << bad;
    } catch (const ConfigError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("hbase.presplit"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
    }
  }
}

}  // namespace
}  // namespace storebench::hbase
