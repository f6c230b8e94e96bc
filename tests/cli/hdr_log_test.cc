// --hdr-log end to end: the log written by the storebench binary adds up to
// the JSON result (decoded here), and HdrHistogram's own Java reader
// (Debian's libhdrhistogram-java, via tests/java/HdrLogCheck.java) reads the
// same counts and percentiles. The Java half is skipped, with a message,
// where javac or the jar is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "hdr_log_decode.h"
#include "measure/histogram.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kHdrJar = "/usr/share/java/hdrhistogram.jar";

using test_util::Slurp;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

// Runs a shell command; returns its exit code.
int Shell(const std::string& cmd) {
  const int rc = std::system(cmd.c_str());
  return rc == -1 ? -1 : WEXITSTATUS(rc);
}

// The path of `tool` on PATH, or "".
std::string Which(const std::string& tool) {
  FILE* p = popen(("command -v " + tool + " 2>/dev/null").c_str(), "r");
  if (!p) return "";
  char buf[4096] = {};
  std::string out = fgets(buf, sizeof buf, p) ? buf : "";
  pclose(p);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

struct Totals {
  std::uint64_t count = 0;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets;  // from the JSON, ascending
  std::uint64_t max = 0;
};

class HdrLogCliTest : public ::testing::Test {
 protected:
  // bench memory, workload A, 2 threads at 100000 ops/s for 0.2 s, 20 ms
  // series intervals (so that the log has about 10 lines per tag); writes
  // x.hlog and r.json.
  void RunBench() {
    const std::string cmd = "cd " + Quote(dir_.string()) + " && " + Quote(STOREBENCH_BINARY) +
                            " bench memory -P " + Quote(std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada") +
                            " -p recordcount=2000 -p operationcount=20000 -threads 2 -target 100000"
                            " -p timeseries.granularity=20 --hdr-log x.hlog --json r.json >out 2>err";
    ASSERT_EQ(Shell(cmd), 0) << Slurp(dir_ / "err");
  }

  // Per log tag, the JSON totals: the operation's OK and failed samples
  // (the log, like the series, holds both), in the series' latency kind
  // (service time: no target rate here). bench's load phase is LOAD-*.
  std::map<std::string, Totals> JsonTotals() {
    const Json j = Json::parse(Slurp(dir_ / "r.json"));
    std::map<std::string, Totals> t;
    for (const Json& ph : j.at("phases")) {
      const std::string prefix = ph.at("phase") == "load" ? "LOAD-" : "";
      for (const Json& op : ph.at("ops")) {
        std::string name = op.at("name");
        if (name.size() > 7 && name.compare(name.size() - 7, 7, "-FAILED") == 0) name.resize(name.size() - 7);
        Totals& x = t[prefix + name];
        const Json& h = op.at("histograms_ns").at("service");
        x.count += h.at("count").get<std::uint64_t>();
        x.max = std::max(x.max, h.at("max").get<std::uint64_t>());
        std::map<std::uint32_t, std::uint64_t> merged(x.buckets.begin(), x.buckets.end());
        for (const Json& b : h.at("buckets")) merged[b.at(0).get<std::uint32_t>()] += b.at(1).get<std::uint64_t>();
        x.buckets.assign(merged.begin(), merged.end());
      }
    }
    std::erase_if(t, [](const auto& kv) { return kv.second.count == 0; });  // no samples: no log line
    return t;
  }

  storebench::test_util::TempDir tmp_{"storebench-hdrlog"};
  const fs::path dir_ = tmp_.path();
};

// The bucket index holding the k-th smallest sample (k from 1).
std::uint32_t BucketAtRank(const std::vector<std::pair<std::uint32_t, std::uint64_t>>& b, std::uint64_t k) {
  std::uint64_t c = 0;
  for (const auto& [i, n] : b) {
    c += n;
    if (c >= k) return i;
  }
  return b.empty() ? 0 : b.back().first;
}

TEST_F(HdrLogCliTest, LogAddsUpToTheJsonTotals) {
  RunBench();
  const auto log = hdr_test::ParseLog(Slurp(dir_ / "x.hlog"));
  const auto totals = JsonTotals();
  std::map<std::string, std::map<std::uint32_t, std::uint64_t>> sum;
  std::map<std::string, int> lines;
  double last_end = 0;
  for (const auto& l : log.lines) {
    for (const auto& [i, n] : l.h.buckets) sum[l.tag][i] += n;
    lines[l.tag]++;
    EXPECT_GE(l.start_s, 0);
    EXPECT_GT(l.length_s, 0);
    EXPECT_LE(l.length_s, 0.0205);
    last_end = std::max(last_end, l.start_s + l.length_s);
  }
  EXPECT_GT(last_end, 0);
  ASSERT_EQ(sum.size(), totals.size());
  for (const auto& [tag, t] : totals) {
    SCOPED_TRACE(tag);
    ASSERT_TRUE(sum.count(tag));
    std::vector<std::pair<std::uint32_t, std::uint64_t>> got(sum[tag].begin(), sum[tag].end());
    EXPECT_EQ(got, t.buckets);  // bucket by bucket, so counts and percentiles agree exactly
  }
  EXPECT_EQ(totals.at("LOAD-INSERT").count, 2000u);
  EXPECT_EQ(totals.at("READ").count + totals.at("UPDATE").count, 20000u);
  EXPECT_GT(lines["READ"], 1) << "expected several 20 ms intervals";
}

TEST_F(HdrLogCliTest, UnwritableLogIsABadInputErrorBeforeAnythingRuns) {
  const std::string cmd = "cd " + Quote(dir_.string()) + " && " + Quote(STOREBENCH_BINARY) +
                          " bench memory -p recordcount=10 -p operationcount=10 --json r.json"
                          " --hdr-log no/such/dir/x.hlog >out 2>err";
  EXPECT_EQ(Shell(cmd), 2);
  const std::string err = Slurp(dir_ / "err");
  EXPECT_NE(err.find("cannot write the HdrHistogram log 'no/such/dir/x.hlog'"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
}

TEST_F(HdrLogCliTest, HdrHistogramJavaReaderAgreesWithTheJson) {
  const std::string javac = Which("javac"), java = Which("java");
  if (javac.empty() || java.empty() || !fs::exists(kHdrJar)) {
    GTEST_SKIP() << "needs javac and java (apt-get install default-jdk-headless, or STOREBENCH_JAVA=1 "
                    "scripts/setup.sh) and " << kHdrJar << " (libhdrhistogram-java)";
  }
  const fs::path classes = dir_ / "classes";
  fs::create_directories(classes);
  ASSERT_EQ(Shell(Quote(javac) + " -nowarn -cp " + kHdrJar + " -d " + Quote(classes.string()) + " " +
                  Quote(std::string(STOREBENCH_SOURCE_DIR) + "/tests/java/HdrLogCheck.java") + " 2>" +
                  Quote((dir_ / "javac.err").string())),
            0)
      << Slurp(dir_ / "javac.err");
  RunBench();
  ASSERT_EQ(Shell(Quote(java) + " -cp " + std::string(kHdrJar) + ":" + Quote(classes.string()) + " HdrLogCheck " +
                  Quote((dir_ / "x.hlog").string()) + " >" + Quote((dir_ / "java.out").string()) + " 2>" +
                  Quote((dir_ / "java.err").string())),
            0)
      << Slurp(dir_ / "java.err");
  // "TAG lines=N count=C p50=V p99=V max=V min=V" per tag.
  std::map<std::string, std::map<std::string, std::uint64_t>> java_figures;
  std::istringstream in(Slurp(dir_ / "java.out"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string tag, kv;
    ls >> tag;
    if (tag.rfind("startTimeSec=", 0) == 0) continue;
    while (ls >> kv) {
      const auto eq = kv.find('=');
      java_figures[tag][kv.substr(0, eq)] = std::stoull(kv.substr(eq + 1));
    }
  }
  const auto totals = JsonTotals();
  ASSERT_EQ(java_figures.size(), totals.size()) << Slurp(dir_ / "java.out");
  for (const auto& [tag, t] : totals) {
    SCOPED_TRACE(tag);
    ASSERT_TRUE(java_figures.count(tag)) << Slurp(dir_ / "java.out");
    auto& f = java_figures[tag];
    EXPECT_EQ(f["count"], t.count);
    // HdrHistogram reports a bucket's highest equivalent value, and rounds
    // the rank of a percentile to nearest (we take the ceiling): its value
    // must lie in our bucket for a rank within one of ours.
    for (double p : {50.0, 99.0}) {
      const std::string key = p == 50.0 ? "p50" : "p99";
      const auto rank = static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(t.count)));
      const std::uint32_t got = Histogram::BucketIndex(f[key]);
      EXPECT_GE(got, BucketAtRank(t.buckets, std::max<std::uint64_t>(1, rank - 1))) << key << " = " << f[key];
      EXPECT_LE(got, BucketAtRank(t.buckets, std::min(t.count, rank + 1))) << key << " = " << f[key];
    }
    EXPECT_EQ(Histogram::BucketIndex(f["max"]), Histogram::BucketIndex(t.max)) << "max = " << f["max"];
    EXPECT_EQ(f["max"], Histogram::BucketHighest(Histogram::BucketIndex(t.max)));
  }
}

}  // namespace
}  // namespace storebench
