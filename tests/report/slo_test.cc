// --slo gates: what parses and what is refused (one line naming why), the
// figure each gate reads from a phase, and the verdict line.
#include "report/slo.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "test_util.h"

namespace storebench {
namespace {

using test_util::ConfigErrorOf;

TEST(SloParseTest, FiguresComparisonsAndUnits) {
  SloGate g = ParseSloGate("p99<=5ms");
  EXPECT_EQ(g.figure, SloGate::Figure::kPercentile);
  EXPECT_EQ(g.percentile, 99);
  EXPECT_EQ(g.compare, SloGate::Compare::kLe);
  EXPECT_EQ(g.bound, 5);
  EXPECT_EQ(g.unit, "ms");
  EXPECT_TRUE(g.op.empty());
  g = ParseSloGate(" READ.p99.9 < 20 us ");
  EXPECT_EQ(g.op, "READ");
  EXPECT_EQ(g.percentile, 99.9);
  EXPECT_EQ(g.compare, SloGate::Compare::kLt);
  EXPECT_EQ(g.unit, "us");
  g = ParseSloGate("throughput>=4e4");
  EXPECT_EQ(g.figure, SloGate::Figure::kThroughput);
  EXPECT_EQ(g.bound, 40000);
  EXPECT_EQ(g.compare, SloGate::Compare::kGe);
  g = ParseSloGate("errors<=0.1%");
  EXPECT_EQ(g.figure, SloGate::Figure::kErrors);
  EXPECT_EQ(g.unit, "%");
  EXPECT_EQ(ParseSloGate("UPDATE.max>1s").figure, SloGate::Figure::kMax);
  EXPECT_EQ(ParseSloGate("avg<800ns").figure, SloGate::Figure::kAverage);
  EXPECT_EQ(ParseSloGate("errors<=3").unit, "");
}

TEST(SloParseTest, BadExpressionsSayWhy) {
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("p99 5ms"); }).find("--slo 'p99 5ms': no comparison"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("p99<5"); }).find("a latency bound needs its unit"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("p99<5min"); }).find("unknown latency unit 'min'"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("p101<5ms"); }).find("'p101' is not a percentile"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("latency<5ms"); }).find("unknown figure 'latency'"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("FETCH.p99<5ms"); }).find("unknown operation type 'FETCH'"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("throughput>=many"); }).find("'many' is not a number"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("errors<1ms"); }).find("unknown unit 'ms' for errors"), std::string::npos);
  EXPECT_NE(ConfigErrorOf([] { ParseSloGate("<5ms"); }).find("no figure before the comparison"), std::string::npos);
  for (const char* bad : {"p99 5ms", "p99<5", "<5ms"}) {
    const std::string e = ConfigErrorOf([&] { ParseSloGate(bad); });
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

// READ: 1..100 us (99 OK, 1 NOT_FOUND); UPDATE: 1..50 ms (50 OK); 2 s.
PhaseResult Phase() {
  PhaseResult p;
  p.phase = "run";
  p.runtime_ms = 2000;
  OpResult read, read_failed, update;
  read.name = "READ";
  read_failed.name = "READ-FAILED";
  update.name = "UPDATE";
  for (int i = 1; i <= 99; ++i) read.service.Record(static_cast<std::uint64_t>(i) * 1000);
  read_failed.service.Record(100'000);
  for (int i = 1; i <= 50; ++i) update.service.Record(static_cast<std::uint64_t>(i) * 1'000'000);
  read.intended = read.service;
  update.intended = update.service;
  p.ops = {read, read_failed, update};
  p.operations = 150;
  p.throughput_ops_per_s = 75;
  return p;
}

TEST(SloCheckTest, EachFigureFromThePhase) {
  const PhaseResult p = Phase();
  const std::vector<SloGate> gates = {ParseSloGate("READ.max<=99us"), ParseSloGate("UPDATE.p50<=25ms"),
                                      ParseSloGate("p99<50ms"),        ParseSloGate("throughput>=75"),
                                      ParseSloGate("errors<=1"),       ParseSloGate("errors<0.5%"),
                                      ParseSloGate("READ.errors<=1%"), ParseSloGate("SCAN.p99<=1s"),
                                      ParseSloGate("READ.throughput>=50ops/s")};
  const auto r = CheckSlos(gates, p);
  ASSERT_EQ(r.size(), gates.size());
  // The histograms' 0.1% precision: 99 us reads as 99.0-99.1, 25 ms as 25.0-25.03.
  EXPECT_NEAR(r[0].value, 99, 0.1);
  EXPECT_TRUE(r[0].pass || r[0].value > 99);
  EXPECT_NEAR(r[1].value, 25, 0.03);
  // All types together (failures apart): 149 values, p99 is the 148th: 49 ms.
  EXPECT_NEAR(r[2].value, 49, 0.05);
  EXPECT_TRUE(r[2].pass);
  EXPECT_EQ(r[3].value, 75);
  EXPECT_TRUE(r[3].pass);
  EXPECT_EQ(r[4].value, 1);
  EXPECT_TRUE(r[4].pass);
  EXPECT_NEAR(r[5].value, 100.0 / 150, 1e-9);  // 0.67% of the phase's operations
  EXPECT_FALSE(r[5].pass);
  EXPECT_NEAR(r[6].value, 1.0, 1e-9);           // 1 of READ's 100
  EXPECT_TRUE(r[6].pass);
  EXPECT_TRUE(std::isnan(r[7].value)) << "no SCAN: nothing to measure";
  EXPECT_FALSE(r[7].pass);
  EXPECT_NEAR(r[8].value, 50, 1e-9);  // READ's 100 operations in 2 s
  EXPECT_TRUE(r[8].pass);
  EXPECT_EQ(FormatSloLine(r[3]), "[SLO], throughput>=75, 75, PASS");
  EXPECT_EQ(FormatSloLine({"throughput>=1", 12345.678, true}), "[SLO], throughput>=1, 12345.7, PASS");
  EXPECT_EQ(FormatSloLine(r[5]), "[SLO], errors<0.5%, 0.667, FAIL");
  EXPECT_EQ(FormatSloLine(r[7]), "[SLO], SCAN.p99<=1s, -, FAIL");
}

TEST(SloCheckTest, ComparisonsAtTheBound) {
  SloFigures f;
  f.throughput_ops_per_s = 100;
  EXPECT_TRUE(CheckSlo(ParseSloGate("throughput>=100"), f).pass);
  EXPECT_FALSE(CheckSlo(ParseSloGate("throughput>100"), f).pass);
  EXPECT_TRUE(CheckSlo(ParseSloGate("throughput<=100"), f).pass);
  EXPECT_FALSE(CheckSlo(ParseSloGate("throughput<100"), f).pass);
}

}  // namespace
}  // namespace storebench
