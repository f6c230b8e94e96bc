// --slo as a CI pipeline uses it: the verdict lines, the JSON, exit 3 on a
// failed gate, exit 2 on a bad expression before anything runs,
// slo.abort=true stopping a run early, and merge holding the parts' gates
// against the whole job.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

class SloCliTest : public ::testing::Test {
 protected:
  test_util::ProcessResult Run(const std::vector<std::string>& args) {
    test_util::ProcessOptions o;
    o.cwd = dir_.string();
    return test_util::RunProcess(STOREBENCH_BINARY, args, o);
  }
  std::vector<std::string> Base() {
    return {"run", "memory", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada", "-p", "operationcount=4000",
            "-target", "8000"};
  }
  Json Result(const std::string& name) { return Json::parse(test_util::Slurp(dir_ / name)); }
  test_util::TempDir tmp_{"storebench-slo"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(SloCliTest, PassingGatesPrintAndExitZero) {
  auto args = Base();
  for (const char* e : {"--slo", "p99<=10s", "--slo", "READ.p99.9 < 10 s", "--slo", "throughput>=100", "--slo", "errors<=0.1%",
                        "--json", "r.json"}) {
    args.push_back(e);
  }
  const auto r = Run(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n[SLO], p99<=10s, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(", PASS\n[SLO], READ.p99.9 < 10 s, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[SLO], errors<=0.1%, 0, PASS"), std::string::npos) << r.out;
  const Json slo = Result("r.json").at("phases").back().at("slo");
  ASSERT_EQ(slo.size(), 4u);
  EXPECT_EQ(slo[2].at("expr"), "throughput>=100");
  EXPECT_TRUE(slo[2].at("pass").get<bool>());
  EXPECT_NEAR(slo[2].at("value").get<double>(), Result("r.json").at("phases").back().at("throughput_ops_per_s").get<double>(), 1e-6);
}

TEST_F(SloCliTest, AFailedGateExitsThree) {
  auto args = Base();
  for (const char* e : {"--slo", "p99<=1ns", "--slo", "throughput>=1", "--json", "r.json"}) args.push_back(e);
  const auto r = Run(args);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.out.find(", FAIL\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("storebench: 1 of 2 --slo gate(s) failed: 'p99<=1ns'\n"), std::string::npos) << r.err;
  EXPECT_FALSE(Result("r.json").at("phases").back().at("slo")[0].at("pass").get<bool>());
}

TEST_F(SloCliTest, ABadGateExitsTwoBeforeAnythingRuns) {
  auto args = Base();
  for (const char* e : {"--slo", "p99<5", "--json", "r.json"}) args.push_back(e);
  const auto r = Run(args);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "storebench: --slo 'p99<5': a latency bound needs its unit (ns, us, ms, s) (expected FIGURE OP BOUND, e.g. "
                   "p99<=5ms, READ.p99.9<20ms, throughput>=40000, errors<=0.1%)\n");
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
  const auto lone = Run({"run", "memory", "-p", "slo.abort=true"});
  EXPECT_EQ(lone.code, 2);
  EXPECT_NE(lone.err.find("slo.abort=true needs at least one --slo gate"), std::string::npos) << lone.err;
}

TEST_F(SloCliTest, SloAbortStopsTheRunAtTheFirstFailedInterval) {
  const auto r = Run({"run", "memory", "-P", std::string(STOREBENCH_SOURCE_DIR) + "/workloads/workloada", "-p", "operationcount=0",
                      "-p", "maxexecutiontime=30", "-target", "4000", "-p", "status.interval=0.5", "-p", "slo.abort=true",
                      "--slo", "throughput>=1", "--slo", "p99<=1ns", "--json", "r.json"});
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("slo.abort: the last status interval failed --slo 'p99<=1ns'"), std::string::npos) << r.err;
  const Json ph = Result("r.json").at("phases").back();
  EXPECT_EQ(ph.at("stop_reason"), "slo.abort");
  EXPECT_LT(ph.at("runtime_ms").get<long>(), 5000) << "stopped after its first 0.5 s interval, not at 30 s";
  EXPECT_GT(ph.at("operations").get<long>(), 0) << "the partial result is written";
}

TEST_F(SloCliTest, MergeHoldsThePartsGatesAgainstTheWholeJob) {
  // Each part does about 3000 ops/s; the job, both at once, about 6000: a
  // gate of 5000 fails on each part and passes on the whole.
  std::string cmd = "cd '" + dir_.string() + "' && (";
  for (int k = 0; k < 2; ++k) {
    cmd += "'" + std::string(STOREBENCH_BINARY) + "' bench memory -P '" + std::string(STOREBENCH_SOURCE_DIR) +
           "/workloads/workloada' -p recordcount=1000 -p operationcount=6000 -target 6000 --part " + std::to_string(k) +
           "/2 --slo 'throughput>=5000' --json part-" + std::to_string(k) + ".json > out-" + std::to_string(k) +
           " 2>&1 & ";
  }
  ASSERT_EQ(std::system((cmd + "wait)").c_str()), 0);
  for (int k = 0; k < 2; ++k) {
    const Json part = Result("part-" + std::to_string(k) + ".json").at("phases").back().at("slo");
    ASSERT_EQ(part.size(), 1u);
    EXPECT_FALSE(part[0].at("pass").get<bool>()) << "a part alone does about 3000 ops/s";
  }
  const auto m = Run({"merge", "part-0.json", "part-1.json", "-o", "total.json"});
  const Json slo = Result("total.json").at("phases").back().at("slo");
  ASSERT_EQ(slo.size(), 1u) << m.err;
  EXPECT_TRUE(slo[0].at("pass").get<bool>()) << slo.dump();
  EXPECT_GT(slo[0].at("value").get<double>(), 5000);
  EXPECT_NE(m.out.find("[SLO], throughput>=5000, "), std::string::npos) << m.out;
}

}  // namespace
}  // namespace storebench
