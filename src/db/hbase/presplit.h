// hbase.presplit: the split keys of a table pre-split into N regions on
// YCSB's key space. The same points as the test server's launcher
// (servers/hbase/src/main/java/storebench/HBaseStandalone.java,
// splitPoints), so a table created by either has the same regions: keys are
// "user" + a decimal number, and the n - 1 points are
// "user" + (1000 + i * (9999 - 1000) / n) for i = 1..n-1, in integer
// arithmetic (the scheme YCSB's HBase binding documents). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace storebench::hbase {

// The largest hbase.presplit (the launcher's bound too).
inline constexpr int kMaxPresplitRegions = 1000;

// The regions - 1 split keys, ascending; none for regions <= 1.
inline std::vector<std::string> PresplitKeys(int regions) {
  std::vector<std::string> out;
  for (int i = 1; i < regions; ++i) out.push_back("user" + std::to_string(1000 + i * (9999 - 1000) / regions));
  return out;
}

}  // namespace storebench::hbase
