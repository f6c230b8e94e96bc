// Fixed-seed runs compared with what storebench printed before a change
// (tests/golden/fixed_seed.txt): a refactoring must not change what a user
// sees. Each step runs the real binary with seed=42 and one thread, so the
// operations, their counts and return codes, the records a store ends up
// with, and every property in force are the same on every run; what depends
// on time (latencies, run time, throughput, histogram buckets, disk usage,
// the host) is masked. The files binding keeps every record as a file, so a
// digest of its folder after each step pins the exact records written.
//
// A deliberate change of output: STOREBENCH_GOLDEN_UPDATE=1 rewrites the
// golden file from this build (review the diff before committing it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace storebench {
namespace {

namespace fsys = std::filesystem;
using nlohmann::json;

std::string ReplaceAll(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// A text summary with the time-dependent figures masked: "[READ], Operations,
// 120" stays, "[READ], AverageLatency(us), 6.1" becomes "..., *".
std::string NormalizeText(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(", "), b = a == std::string::npos ? a : line.find(", ", a + 2);
    if (line.starts_with("[") && b != std::string::npos) {
      const std::string metric = line.substr(a + 2, b - a - 2);
      const bool exact = metric == "Operations" || metric.starts_with("Return=") || metric == "IntegrityFailures" ||
                         metric == "Interrupted";
      if (!exact) line = line.substr(0, b) + ", *";
    }
    out += line + "\n";
  }
  return out;
}

// Keys whose values depend on time or on the machine.
const std::set<std::string>& MaskedKeys() {
  static const std::set<std::string> keys = {
      "host",       "start_unix_ms", "runtime_ms", "throughput_ops_per_s", "disk_bytes", "store_stats",
      "timeseries", "series", "min",           "max",        "mean",                 "sum",        "buckets",
      "version"};
  return keys;
}

// The JSON result with the time-dependent values masked. Inside a latency
// summary (service_us, intended_us, histograms_ns/...) only "count" stays;
// a percentile key (p50, p99.9) is masked.
json NormalizeJson(const json& j, const std::string& key, bool in_latency) {
  if (j.is_object()) {
    json out = json::object();
    for (const auto& [k, v] : j.items()) {
      const bool latency = in_latency || k.ends_with("_us") || k.ends_with("_ns");
      const bool percentile = k.size() > 1 && k[0] == 'p' && std::isdigit(static_cast<unsigned char>(k[1]));
      if ((MaskedKeys().count(k) && !(key == "histogram" && k == "buckets")) || (latency && v.is_number() && k != "count") ||
          percentile) {
        out[k] = "*";
      } else {
        out[k] = NormalizeJson(v, k, latency);
      }
    }
    return out;
  }
  if (j.is_array()) {
    json out = json::array();
    for (const auto& v : j) out.push_back(NormalizeJson(v, key, in_latency));
    return out;
  }
  return j;
}

// FNV-1a over every file below `dir` (sorted relative path, then contents).
std::string TreeDigest(const fsys::path& dir) {
  std::vector<fsys::path> files;
  for (const auto& e : fsys::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(fsys::relative(e.path(), dir));
  }
  std::sort(files.begin(), files.end());
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const auto& f : files) {
    mix(f.string());
    mix(test_util::Slurp((dir / f).string()));
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%zu files, fnv1a64 %016llx", files.size(), static_cast<unsigned long long>(h));
  return buf;
}

struct Step {
  std::string title;
  std::vector<std::string> args;  // "$DIR" stands for the step's scratch folder
  std::string store;              // a folder below $DIR whose files are digested after the step ("" = none)
};

std::vector<Step> Steps() {
  const std::string w = std::string(STOREBENCH_SOURCE_DIR) + "/workloads/";
  const std::vector<std::string> files = {"-p", "seed=42", "-p", "recordcount=300",
                                          "-p", "files.dir=$DIR/files", "-p", "files.ordered=true"};
  auto with = [](std::vector<std::string> a, const std::vector<std::string>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  std::vector<Step> steps;
  steps.push_back({"load files workloada", with({"load", "files", "-P", w + "workloada", "--json", "$DIR/r.json"}, files),
                   "files"});
  for (const char* name : {"workloada", "workloadb", "workloadd", "workloade", "workloadf"}) {
    steps.push_back({std::string("run files ") + name,
                     with({"run", "files", "-P", w + name, "-p", "operationcount=400", "--json", "$DIR/r.json"}, files),
                     "files"});
  }
  steps.push_back({"load files batched",
                   with({"load", "files", "-P", w + "workloada", "-p", "batch.size=16", "-p", "table=batched", "--json",
                         "$DIR/r.json"},
                        files),
                   "files"});
  const std::vector<std::string> ce = {"-P", w + "closedeconomy", "-p", "seed=42", "-p", "recordcount=200",
                                       "-p", "operationcount=500"};
  steps.push_back({"bench memory closedeconomy", with({"bench", "memory", "--json", "$DIR/r.json"}, ce), ""});
  steps.push_back(
      {"bench memory workloadc",
       {"bench", "memory", "-P", w + "workloadc", "-p", "seed=42", "-p", "recordcount=500", "-p", "operationcount=800",
        "-p", "requestdistribution=uniform", "-p", "dataintegrity=true", "--json", "$DIR/r.json"},
       ""});
  const std::vector<std::string> sq = {"-P", w + "sqlquery", "-p", "seed=42", "-p", "recordcount=300",
                                       "-p", "operationcount=300", "-p", "sqlquery.organizations=30",
                                       "-p", "sqlite.dir=$DIR/sqlite"};
  steps.push_back({"load sqlite sqlquery", with({"load", "sqlite", "--json", "$DIR/r.json"}, sq), ""});
  steps.push_back({"run sqlite sqlquery", with({"run", "sqlite", "--json", "$DIR/r.json"}, sq), ""});
  // A bad property: the one-line error and exit 2.
  steps.push_back({"run files bad threadcount", with({"run", "files", "-P", w + "workloada", "-p", "threadcount=two"}, files),
                   ""});
  return steps;
}

std::string RunAll() {
  test_util::TempDir scratch;
  const std::string dir = scratch.path().string();
  std::string doc;
  for (const Step& step : Steps()) {
    std::vector<std::string> args;
    std::string shown;
    for (const auto& a : step.args) {
      args.push_back(ReplaceAll(a, "$DIR", dir));
      shown += " " + ReplaceAll(a, STOREBENCH_SOURCE_DIR, "$SRC");
    }
    fsys::remove(dir + "/r.json");
    test_util::ProcessOptions options;
    options.cwd = dir;
    options.kill_after_s = 120;
    const test_util::ProcessResult r = test_util::RunProcess(STOREBENCH_BINARY, args, options);
    doc += "=== " + step.title + "\n$ storebench" + shown + "\nexit " + std::to_string(r.code) + "\n";
    doc += "--- stdout\n" + NormalizeText(r.out);
    if (r.code != 0) doc += "--- stderr\n" + ReplaceAll(ReplaceAll(r.err, dir, "$DIR"), STOREBENCH_SOURCE_DIR, "$SRC");
    if (fsys::exists(dir + "/r.json")) {
      const json result = json::parse(test_util::Slurp(dir + "/r.json"));
      doc += "--- json\n" + ReplaceAll(NormalizeJson(result, "", false).dump(1), dir, "$DIR") + "\n";
    }
    if (!step.store.empty()) doc += "--- store " + step.store + ": " + TreeDigest(dir + "/" + step.store) + "\n";
  }
  return doc;
}

TEST(GoldenOutputTest, FixedSeedRunsPrintWhatTheyPrintedBefore) {
  for (const char* binding : {"files", "memory", "sqlite"}) STOREBENCH_NEED_BINDING(binding);
  const std::string golden_path = std::string(STOREBENCH_SOURCE_DIR) + "/tests/golden/fixed_seed.txt";
  const std::string actual = RunAll();
  if (const char* update = std::getenv("STOREBENCH_GOLDEN_UPDATE"); update && std::string(update) == "1") {
    std::ofstream(golden_path) << actual;
    GTEST_SKIP() << "rewrote " << golden_path;
  }
  ASSERT_TRUE(fsys::exists(golden_path)) << golden_path << " is missing (STOREBENCH_GOLDEN_UPDATE=1 writes it)";
  const std::string golden = test_util::Slurp(golden_path);
  if (actual == golden) return;
  // Name the first line that differs, and keep the whole output for a diff.
  std::istringstream a(actual), g(golden);
  std::string la, lg;
  int line = 0;
  while (true) {
    ++line;
    const bool ha = static_cast<bool>(std::getline(a, la)), hg = static_cast<bool>(std::getline(g, lg));
    if (!ha && !hg) break;
    if (!ha || !hg || la != lg) break;
  }
  const std::string kept = (fsys::temp_directory_path() / "storebench-golden-actual.txt").string();
  std::ofstream(kept) << actual;
  FAIL() << "fixed-seed output differs from " << golden_path << " at line " << line << ":\n  golden: " << lg
         << "\n  now:    " << la << "\n(whole output in " << kept << ")";
}

// The comparison itself can fail: the same runs twice give the same document,
// and a changed count would show in it.
TEST(GoldenOutputTest, NormalizationKeepsCountsAndMasksTimes) {
  const std::string text = "[OVERALL], RunTime(ms), 67\n[READ], Operations, 120\n[READ], Return=OK, 119\n"
                           "[READ], AverageLatency(us), 6.1\n";
  EXPECT_EQ(NormalizeText(text),
            "[OVERALL], RunTime(ms), *\n[READ], Operations, 120\n[READ], Return=OK, 119\n[READ], AverageLatency(us), *\n");
  const json j = json::parse(R"({"phases":[{"operations":5,"runtime_ms":9,"ops":[{"name":"READ",
      "return_codes":{"OK":5},"service_us":{"count":5,"p50":1.5,"mean":2.0},
      "histograms_ns":{"service":{"count":5,"min":3,"buckets":[[1,2]]}}}]}],
      "storebench":{"histogram":{"buckets":33793}}})");
  const json n = NormalizeJson(j, "", false);
  EXPECT_EQ(n["phases"][0]["operations"], 5);
  EXPECT_EQ(n["phases"][0]["runtime_ms"], "*");
  EXPECT_EQ(n["phases"][0]["ops"][0]["return_codes"]["OK"], 5);
  EXPECT_EQ(n["phases"][0]["ops"][0]["service_us"]["count"], 5);
  EXPECT_EQ(n["phases"][0]["ops"][0]["service_us"]["p50"], "*");
  EXPECT_EQ(n["phases"][0]["ops"][0]["histograms_ns"]["service"]["count"], 5);
  EXPECT_EQ(n["phases"][0]["ops"][0]["histograms_ns"]["service"]["buckets"], "*");
  EXPECT_EQ(n["storebench"]["histogram"]["buckets"], 33793);
}

}  // namespace
}  // namespace storebench
