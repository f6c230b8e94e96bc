// Aerospike benchmark-style flags: each maps to exactly the YCSB properties
// documented in cli/aerospike_flags.h; a run described by the flags is the
// same run as one described by those properties; bad specs are one-line
// errors naming the flag.
#include "cli/aerospike_flags.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/args.h"
#include "core/error.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;

PropertyList P(std::initializer_list<std::pair<std::string, std::string>> l) { return PropertyList(l); }

TEST(AerospikeFlagsTest, KeysThreadsDurationAndThroughput) {
  EXPECT_EQ(ExpandAerospikeFlag("-k", "1000000"), P({{"recordcount", "1000000"}}));
  EXPECT_EQ(ExpandAerospikeFlag("-z", "8"), P({{"threadcount", "8"}}));
  EXPECT_EQ(ExpandAerospikeFlag("-d", "30"), P({{"maxexecutiontime", "30"}, {"operationcount", "0"}}));
  EXPECT_EQ(ExpandAerospikeFlag("-g", "5000"), P({{"target", "5000"}}));
}

TEST(AerospikeFlagsTest, ObjectSpecGivesFieldCountAndLength) {
  const auto one = [](const std::string& n, const std::string& len) {
    return P({{"fieldcount", n}, {"fieldlength", len}, {"fieldlengthdistribution", "constant"}});
  };
  EXPECT_EQ(ExpandAerospikeFlag("-o", "S:2048"), one("1", "2048"));
  EXPECT_EQ(ExpandAerospikeFlag("-o", "B:1000"), one("1", "1000"));
  EXPECT_EQ(ExpandAerospikeFlag("-o", "S50"), one("1", "50"));
  EXPECT_EQ(ExpandAerospikeFlag("-o", "I"), one("1", "8"));
  EXPECT_EQ(ExpandAerospikeFlag("-o", "S:100,B:100,S:100"), one("3", "100"));
}

TEST(AerospikeFlagsTest, WorkloadMixes) {
  const PropertyList others = {{"insertproportion", "0"}, {"scanproportion", "0"},
                               {"readmodifywriteproportion", "0"}, {"readallfields", "true"},
                               {"writeallfields", "true"}};
  auto ru = [&](const std::string& r, const std::string& u) {
    PropertyList l = {{"readproportion", r}, {"updateproportion", u}};
    l.insert(l.end(), others.begin(), others.end());
    return l;
  };
  EXPECT_EQ(ExpandAerospikeFlag("-w", "RU,80"), ru("0.8", "0.2"));
  EXPECT_EQ(ExpandAerospikeFlag("-w", "RU"), ru("0.5", "0.5"));
  EXPECT_EQ(ExpandAerospikeFlag("-w", "RU,95"), ru("0.95", "0.05"));
  EXPECT_EQ(ExpandAerospikeFlag("-w", "RU,100"), ru("1.0", "0.0"));
  EXPECT_EQ(ExpandAerospikeFlag("-w", "RU,0"), ru("0.0", "1.0"));
  EXPECT_EQ(ExpandAerospikeFlag("-w", "RU,7"), ru("0.07", "0.93"));
  EXPECT_EQ(ExpandAerospikeFlag("-w", "I"),
            P({{"insertproportion", "1"}, {"readproportion", "0"}, {"updateproportion", "0"},
               {"scanproportion", "0"}, {"readmodifywriteproportion", "0"}}));
}

void ExpectError(const std::string& flag, const std::string& value, const std::string& needle) {
  try {
    ExpandAerospikeFlag(flag, value);
    ADD_FAILURE() << flag << " " << value << " was accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("option " + flag + " '" + value + "'"), std::string::npos) << m;
    EXPECT_NE(m.find(needle), std::string::npos) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(AerospikeFlagsTest, BadSpecsNameTheFlagAndTheProblem) {
  ExpectError("-k", "many", "not a whole number");
  ExpectError("-k", "0", "at least 1");
  ExpectError("-z", "-3", "not a whole number");
  ExpectError("-o", "S:", "not a whole number");
  ExpectError("-o", "X:10", "is not S:N");
  ExpectError("-o", "S:100,I", "bins of different sizes (100 and 8 bytes)");
  ExpectError("-w", "RU,180", "0..100");
  ExpectError("-w", "RU,80,20", "expected RU or RU,PERCENT_READS");
  ExpectError("-w", "RR,80", "expected I (insert only) or RU,PERCENT_READS");
  ExpectError("-w", "I,10", "takes no percentage");
  ExpectError("-d", "1.5", "not a whole number");
}

TEST(AerospikeFlagsTest, FlagsBecomeOverridesInArgumentOrder) {
  CommandLine cl = ParseCommandLine({"run", "memory", "-k", "500", "-p", "recordcount=700", "-z", "3", "-w", "RU,90"});
  ASSERT_GE(cl.overrides.size(), 4u);
  EXPECT_EQ(cl.overrides[0], std::make_pair(std::string("recordcount"), std::string("500")));
  EXPECT_EQ(cl.overrides[1], std::make_pair(std::string("recordcount"), std::string("700")));  // a later -p wins
  EXPECT_EQ(cl.overrides[2], std::make_pair(std::string("threadcount"), std::string("3")));
  EXPECT_EQ(cl.overrides[3], std::make_pair(std::string("readproportion"), std::string("0.9")));
  ASSERT_EQ(cl.expanded_flags.size(), 3u);
  EXPECT_EQ(cl.expanded_flags[0].first, "-k 500");
  EXPECT_FALSE(cl.explain);
  // merge keeps its own -o (the output file).
  CommandLine m = ParseCommandLine({"merge", "a.json", "-o", "total.json"});
  EXPECT_EQ(m.output_file, "total.json");
  EXPECT_TRUE(m.overrides.empty());
}

class AerospikeFlagsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("storebench-asflags-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  test_util::ProcessResult Run(const std::vector<std::string>& args) {
    test_util::ProcessOptions o;
    o.cwd = dir_.string();
    return test_util::RunProcess(STOREBENCH_BINARY, args, o);
  }
  nlohmann::json Json(const std::string& name) { return nlohmann::json::parse(test_util::Slurp((dir_ / name).string())); }
  fs::path dir_;
};

// The flags and the properties they stand for give the same effective
// properties and the same kind of run.
TEST_F(AerospikeFlagsCliTest, ARunByFlagsIsTheRunByProperties) {
  auto a = Run({"bench", "memory", "-k", "2000", "-o", "S:64,S:64", "-w", "RU,80", "-z", "2", "-d", "1", "-p",
                "seed=7", "--json", "flags.json"});
  ASSERT_EQ(a.code, 0) << a.err;
  auto b = Run({"bench", "memory", "-p", "recordcount=2000", "-p", "fieldcount=2", "-p", "fieldlength=64", "-p",
                "readproportion=0.8", "-p", "updateproportion=0.2", "-p", "writeallfields=true", "-p",
                "threadcount=2", "-p", "maxexecutiontime=1", "-p", "operationcount=0", "-p", "seed=7", "--json",
                "props.json"});
  ASSERT_EQ(b.code, 0) << b.err;
  const auto fa = Json("flags.json"), fb = Json("props.json");
  for (const char* k : {"recordcount", "fieldcount", "fieldlength", "readproportion", "updateproportion",
                        "insertproportion", "scanproportion", "writeallfields", "threadcount", "maxexecutiontime",
                        "operationcount"}) {
    EXPECT_EQ(fa["properties"][k], fb["properties"][k]) << k;
  }
  EXPECT_EQ(fa["properties"]["recordcount"], "2000");
  EXPECT_EQ(fa["properties"]["readproportion"], "0.8");
  // A time-bound run of 80% reads: both kinds of operations ran, reads about four times updates.
  std::uint64_t reads = 0, updates = 0;
  for (const auto& ph : fa["phases"]) {
    if (ph["phase"] != "run") continue;
    for (const auto& op : ph["ops"]) {
      if (op["name"] == "READ") reads = op["service_us"]["count"];
      if (op["name"] == "UPDATE") updates = op["service_us"]["count"];
    }
  }
  ASSERT_GT(updates, 100u);
  EXPECT_NEAR(static_cast<double>(reads) / static_cast<double>(reads + updates), 0.8, 0.03);
}

TEST_F(AerospikeFlagsCliTest, ExplainPrintsThePropertiesAndRunsNothing) {
  auto r = Run({"run", "rocksdb", "-P", "workloads/workloada", "-k", "1000000", "-o", "S:2048", "-w", "RU,80", "-z",
                "8", "-d", "60", "--explain"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "# storebench run rocksdb -P workloads/workloada -k 1000000 -o S:2048 -w RU,80 -z 8 -d 60\n"
            "# amounts to:\n"
            "storebench run rocksdb -P workloads/workloada -p recordcount=1000000 -p fieldcount=1 -p fieldlength=2048"
            " -p fieldlengthdistribution=constant -p readproportion=0.8 -p updateproportion=0.2 -p insertproportion=0"
            " -p scanproportion=0 -p readmodifywriteproportion=0 -p readallfields=true -p writeallfields=true"
            " -p threadcount=8 -p maxexecutiontime=60 -p operationcount=0\n"
            "#   -k 1000000 -> recordcount=1000000\n"
            "#   -o S:2048 -> fieldcount=1 fieldlength=2048 fieldlengthdistribution=constant\n"
            "#   -w RU,80 -> readproportion=0.8 updateproportion=0.2 insertproportion=0 scanproportion=0"
            " readmodifywriteproportion=0 readallfields=true writeallfields=true\n"
            "#   -z 8 -> threadcount=8\n"
            "#   -d 60 -> maxexecutiontime=60 operationcount=0\n");
  EXPECT_FALSE(fs::exists(dir_ / "storebench-data")) << "--explain opened the store";
}

TEST_F(AerospikeFlagsCliTest, ABadSpecIsOneLineAndExitTwo) {
  auto r = Run({"run", "memory", "-o", "S:100,I"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "storebench: option -o 'S:100,I': bins of different sizes (100 and 8 bytes); storebench's fields share one length\n");
}

}  // namespace
}  // namespace storebench
