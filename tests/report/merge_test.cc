// storebench merge: exact sums and percentiles of the union, wall-clock
// alignment of the series, and parts that do not belong together refused.
#include "report/merge.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>

#include "core/error.h"
#include "report/json_report.h"

namespace storebench {
namespace {

// Part k of n of a "run" job: READ and UPDATE latencies drawn from a
// per-part seed (different spreads per part), so the union differs from
// every part. `all` collects every sample as one histogram would.
RunReport Part(int k, int n, std::uint64_t reads, Histogram* all_reads, std::int64_t start_ms) {
  RunReport r;
  r.tool_version = "0.1.0";
  r.command = "run";
  r.binding = "memory";
  r.host = {{"hostname", "host" + std::to_string(k)}};
  r.properties = {{"recordcount", "1000"},        {"operationcount", std::to_string(reads + 10)},
                  {"client.id", std::to_string(k)}, {"client.count", std::to_string(n)},
                  {"target", "100"},               {"readproportion", "0.5"},
                  {"memory.dir", "/tmp/x" + std::to_string(k)}, {"exportfile", "p" + std::to_string(k) + ".json"}};
  PhaseResult p;
  p.phase = "run";
  p.binding = "memory";
  p.threads = 2;
  p.target_ops_per_s = 100;
  p.start_unix_ms = start_ms;
  p.runtime_ms = 2000 + 100 * k;
  p.operations = reads + 10;
  p.throughput_ops_per_s = static_cast<double>(p.operations) * 1000.0 / static_cast<double>(p.runtime_ms);
  p.stop_reason = "operationcount";
  p.disk_bytes = 1000 + static_cast<std::uint64_t>(k);
  p.integrity_failures = static_cast<std::uint64_t>(k);
  std::mt19937_64 rng(42 + static_cast<std::uint64_t>(k));
  std::lognormal_distribution<double> lat(8.0 + k, 1.0 + 0.5 * k);
  OpResult read;
  read.name = "READ";
  for (std::uint64_t i = 0; i < reads; ++i) {
    const auto v = static_cast<std::uint64_t>(lat(rng)) + 1;
    read.service.Record(v);
    read.intended.Record(v + 100);
    all_reads->Record(v);
  }
  read.return_codes[static_cast<int>(Status::kOk)] = reads - 1;
  read.return_codes[static_cast<int>(Status::kNotFound)] = 1;
  OpResult update;
  update.name = "UPDATE";
  for (int i = 0; i < 10; ++i) update.service.Record(1000 * (k + 1));
  update.intended = update.service;
  update.return_codes[static_cast<int>(Status::kOk)] = 10;
  p.ops = {read, update};
  // Two full seconds, each split READ 60% / UPDATE rest.
  for (int s = 1; s <= 2; ++s) {
    IntervalPoint pt;
    pt.t_s = s;
    pt.operations = 100;
    pt.ops_per_s = 100;
    pt.ops = {{"READ", 60, 10.0 * (k + 1), 9, 20, 30.0 * (k + 1), {}, 0, 0, 0}};
    p.series.push_back(pt);
  }
  r.phases.push_back(std::move(p));
  return r;
}

std::string MergeError(const std::vector<MergeInput>& in) {
  try {
    MergeResults(in);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(merged)";
}

TEST(Merge, CountsAreSumsAndPercentilesAreThoseOfTheUnion) {
  Histogram all;
  std::vector<MergeInput> in;
  const std::uint64_t reads[] = {5000, 7001, 333};
  // Given out of client.id order: the merge orders the parts.
  for (int k : {2, 0, 1}) in.push_back({"p" + std::to_string(k) + ".json", Part(k, 3, reads[k], &all, 1'000'000 + 50 * k)});
  const RunReport m = MergeResults(in);
  ASSERT_EQ(m.phases.size(), 1u);
  const PhaseResult& p = m.phases[0];
  EXPECT_EQ(p.operations, 5000u + 7001 + 333 + 30);
  EXPECT_EQ(p.threads, 6);
  EXPECT_DOUBLE_EQ(p.target_ops_per_s, 300);
  EXPECT_EQ(p.start_unix_ms, 1'000'000);
  EXPECT_EQ(p.runtime_ms, 100 + 2200);  // earliest start to latest end
  EXPECT_DOUBLE_EQ(p.throughput_ops_per_s, static_cast<double>(p.operations) * 1000.0 / 2300.0);
  EXPECT_EQ(p.integrity_failures, 0u + 1 + 2);
  ASSERT_TRUE(p.disk_bytes.has_value());
  EXPECT_EQ(*p.disk_bytes, 3003u);
  ASSERT_EQ(p.ops.size(), 2u);
  const OpResult& read = p.ops[0];
  EXPECT_EQ(read.name, "READ");
  EXPECT_EQ(read.service.count(), all.count());
  EXPECT_EQ(read.service.min(), all.min());
  EXPECT_EQ(read.service.max(), all.max());
  EXPECT_EQ(read.service.sum(), all.sum());
  EXPECT_EQ(read.service.NonEmptyBuckets(), all.NonEmptyBuckets());
  for (double q : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    EXPECT_EQ(read.service.ValueAtPercentile(q), all.ValueAtPercentile(q)) << q;
  }
  EXPECT_EQ(read.intended.count(), all.count());
  EXPECT_EQ(read.return_codes[static_cast<int>(Status::kOk)], all.count() - 3);
  EXPECT_EQ(read.return_codes[static_cast<int>(Status::kNotFound)], 3u);
  EXPECT_EQ(p.ops[1].name, "UPDATE");
  EXPECT_EQ(p.ops[1].service.count(), 30u);
  EXPECT_EQ(p.ops[1].service.min(), 1000u);
  EXPECT_EQ(p.ops[1].service.max(), 3000u);

  // Parts in client.id order, with their own figures.
  ASSERT_EQ(m.parts.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(m.parts[k].client_id, k);
    EXPECT_EQ(m.parts[k].file, "p" + std::to_string(k) + ".json");
    EXPECT_EQ(m.parts[k].hostname, "host" + std::to_string(k));
    ASSERT_EQ(m.parts[k].phases.size(), 1u);
    EXPECT_EQ(m.parts[k].phases[0].operations, reads[k] + 10);
    EXPECT_EQ(m.parts[k].phases[0].runtime_ms, 2000 + 100 * k);
  }
  // Properties: totals instead of shares; per-process ones dropped.
  std::map<std::string, std::string> props(m.properties.begin(), m.properties.end());
  EXPECT_EQ(props["operationcount"], std::to_string(5000 + 7001 + 333 + 30));
  EXPECT_EQ(props["target"], "300");
  EXPECT_EQ(props["client.count"], "3");
  EXPECT_EQ(props.count("client.id"), 0u);
  EXPECT_EQ(props.count("exportfile"), 0u);

  // The merged result survives the JSON round trip, parts included.
  std::stringstream js;
  WriteJson(m, js);
  const RunReport back = ReadJson(js);
  ASSERT_EQ(back.parts.size(), 3u);
  EXPECT_EQ(back.parts[1].phases[0].operations, reads[1] + 10);
  EXPECT_EQ(back.phases[0].ops[0].service.NonEmptyBuckets(), all.NonEmptyBuckets());
}

TEST(Merge, SeriesIsAlignedByWallClockSecond) {
  Histogram all;
  // Part 1 starts 1 s after part 0: its seconds 1, 2 are the job's 2, 3.
  std::vector<MergeInput> in = {{"a", Part(0, 2, 10, &all, 5'000'000)}, {"b", Part(1, 2, 10, &all, 5'001'000)}};
  const RunReport m = MergeResults(in);
  const auto& s = m.phases[0].series;
  ASSERT_EQ(s.size(), 3u);
  EXPECT_DOUBLE_EQ(s[0].t_s, 1);
  EXPECT_EQ(s[0].operations, 100u);
  EXPECT_EQ(s[1].operations, 200u);
  EXPECT_DOUBLE_EQ(s[1].ops_per_s, 200);
  ASSERT_EQ(s[1].ops.size(), 1u);
  EXPECT_EQ(s[1].ops[0].count, 120u);
  EXPECT_DOUBLE_EQ(s[1].ops[0].mean_us, 15);  // (60 x 10 + 60 x 20) / 120
  EXPECT_DOUBLE_EQ(s[1].ops[0].max_us, 60);
  EXPECT_EQ(s[2].operations, 100u);
  EXPECT_DOUBLE_EQ(s[2].t_s, 3);
}

// Parts that keep their points' histograms (MPI ranks, --part) merge into
// a series whose percentiles are those of the union, exactly, through the
// JSON files; a part without them makes that point an upper bound again.
TEST(Merge, SeriesPercentilesAreThoseOfTheUnionWhenPartsKeepHistograms) {
  Histogram unused;
  std::vector<MergeInput> in;
  Histogram union_s1;  // every part's READ samples of second 1
  for (int k = 0; k < 3; ++k) {
    RunReport r = Part(k, 3, 10, &unused, 5'000'000);
    std::mt19937_64 rng(7 + static_cast<std::uint64_t>(k));
    std::lognormal_distribution<double> lat(9.0 + k, 0.5 + k);
    for (IntervalPoint& pt : r.phases[0].series) {
      Histogram h;
      for (int i = 0; i < 60; ++i) h.Record(static_cast<std::uint64_t>(lat(rng)) + 1);
      if (pt.t_s == 1) union_s1.Merge(h);
      IntervalPoint::Op& op = pt.ops[0];
      op.p50_us = static_cast<double>(h.ValueAtPercentile(50)) / 1e3;
      op.p99_us = static_cast<double>(h.ValueAtPercentile(99)) / 1e3;
      op.buckets = h.NonEmptyBuckets();
      op.min_ns = h.min();
      op.max_ns = h.max();
      op.sum_ns = h.sum();
    }
    std::stringstream json;  // through the file format, as merge reads parts
    WriteJson(r, json);
    in.push_back({"p" + std::to_string(k), ReadJson(json)});
  }
  const RunReport m = MergeResults(in);
  const IntervalPoint::Op& op = m.phases[0].series.at(0).ops.at(0);
  EXPECT_EQ(op.count, 180u);
  EXPECT_DOUBLE_EQ(op.p50_us, static_cast<double>(union_s1.ValueAtPercentile(50)) / 1e3);
  EXPECT_DOUBLE_EQ(op.p99_us, static_cast<double>(union_s1.ValueAtPercentile(99)) / 1e3);
  EXPECT_EQ(op.buckets, union_s1.NonEmptyBuckets());
  EXPECT_EQ(op.sum_ns, union_s1.sum());

  // One part without histograms: the largest of the parts' p99 again.
  in[1].report.phases[0].series[0].ops[0].buckets.clear();
  const RunReport bound = MergeResults(in);
  const IntervalPoint::Op& b = bound.phases[0].series.at(0).ops.at(0);
  double largest = 0;
  for (const auto& part : in) largest = std::max(largest, part.report.phases[0].series[0].ops[0].p99_us);
  EXPECT_DOUBLE_EQ(b.p99_us, largest);
  EXPECT_TRUE(b.buckets.empty());
}

TEST(Merge, DiskBytesOnlyWhenEveryPartHasIt) {
  Histogram all;
  std::vector<MergeInput> in = {{"a", Part(0, 2, 10, &all, 0)}, {"b", Part(1, 2, 10, &all, 0)}};
  in[1].report.phases[0].disk_bytes.reset();
  EXPECT_FALSE(MergeResults(in).phases[0].disk_bytes.has_value());
}

TEST(Merge, RefusesPartsThatDoNotBelongTogether) {
  Histogram all;
  auto two = [&] {
    return std::vector<MergeInput>{{"a.json", Part(0, 2, 10, &all, 0)}, {"b.json", Part(1, 2, 10, &all, 0)}};
  };
  auto expect = [](const std::vector<MergeInput>& in, const std::vector<std::string>& needles) {
    const std::string m = MergeError(in);
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    for (const auto& n : needles) EXPECT_NE(m.find(n), std::string::npos) << "missing '" << n << "' in: " << m;
  };
  auto in = two();
  in[1].report.binding = "rocksdb";
  expect(in, {"'b.json' does not belong with 'a.json'", "binding 'rocksdb' there, 'memory' here"});
  in = two();
  in[1].report.phases[0].phase = "load";
  expect(in, {"does not belong", "phases load there, run here"});
  in = two();
  in[1].report.properties.emplace_back("readproportion", "0.6");
  in[1].report.properties.erase(in[1].report.properties.begin() + 5);
  expect(in, {"does not belong", "property 'readproportion' is '0.6' there, '0.5' here"});
  in = two();
  in[1].report.properties.emplace_back("fieldcount", "3");
  expect(in, {"property 'fieldcount' is '3' there, (not set) here"});
  in = two();
  in[1].report.properties[2].second = "0";  // client.id 0 twice
  expect(in, {"'a.json' and 'b.json' are both client.id 0"});
  in = two();
  in.pop_back();
  expect(in, {"client.count is 2 but 1 part(s) given: client.id 1 missing"});
  in = two();
  in[0].report.parts.emplace_back();
  expect(in, {"'a.json' is already a merged result"});
  expect({}, {"no result files given"});
  // Per-process properties may differ: these two parts do (client.id,
  // operationcount, memory.dir, exportfile) and merge.
  EXPECT_EQ(MergeError(two()), "(merged)");
  EXPECT_TRUE(PerProcessProperty("rocksdb.dir"));
  EXPECT_TRUE(PerProcessProperty("insertstart"));
  EXPECT_FALSE(PerProcessProperty("recordcount"));
  EXPECT_FALSE(PerProcessProperty("client.count"));
}

}  // namespace
}  // namespace storebench
