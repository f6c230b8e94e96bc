// --timeseries as a user runs it: a live run's CSV, bench's two phases,
// a merge of parts, and the refusals (exit 2, one line, before running).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <sstream>

#include "core/error.h"
#include "report/timeseries_csv.h"
#include "test_util.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test_util::RunProcess;
using test_util::Slurp;

constexpr const char* kHeader = "time_unix_s,elapsed_s,phase,op,operations,ops_per_s,p50_us,p99_us,p999_us,max_us,errors";

struct Row {
  double time_unix_s, elapsed_s;
  std::string phase, op;
  std::uint64_t operations;
  double ops_per_s, p50_us, p99_us, p999_us, max_us;
  std::uint64_t errors;
};

// Parses the CSV as a plain reader would (no quoting, 11 columns).
std::vector<Row> ParseCsv(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, kHeader);
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    EXPECT_EQ(f.size(), 11u) << line;
    if (f.size() != 11) continue;
    rows.push_back({std::stod(f[0]), std::stod(f[1]), f[2], f[3], std::stoull(f[4]), std::stod(f[5]), std::stod(f[6]),
                    std::stod(f[7]), std::stod(f[8]), std::stod(f[9]), std::stoull(f[10])});
  }
  return rows;
}

// Per phase and op type: the JSON result's completed operations (OK and failed).
std::map<std::string, std::uint64_t> JsonCounts(const Json& j) {
  std::map<std::string, std::uint64_t> out;
  for (const Json& ph : j.at("phases")) {
    for (const Json& op : ph.at("ops")) {
      std::string name = op.at("name");
      if (name.size() > 7 && name.compare(name.size() - 7, 7, "-FAILED") == 0) name.resize(name.size() - 7);
      out[ph.at("phase").get<std::string>() + "/" + name] += op.at("histograms_ns").at("service").at("count").get<std::uint64_t>();
    }
  }
  return out;
}

std::map<std::string, std::uint64_t> CsvCounts(const std::vector<Row>& rows) {
  std::map<std::string, std::uint64_t> out;
  for (const Row& r : rows) out[r.phase + "/" + r.op] += r.operations;
  return out;
}

// contiguous: each row of a type starts where its previous one ended (one
// process; merged parts that ran at different times leave gaps).
void ExpectRowsAreSane(const std::vector<Row>& rows, double status_interval_s, bool contiguous = true) {
  std::map<std::string, double> last_elapsed;
  for (const Row& r : rows) {
    SCOPED_TRACE(r.phase + "/" + r.op + " at " + std::to_string(r.elapsed_s));
    EXPECT_GT(r.operations, 0u);
    EXPECT_LE(r.p50_us, r.p99_us);
    EXPECT_LE(r.p99_us, r.p999_us);
    EXPECT_LE(r.p999_us, r.max_us * 1.001 + 0.001);
    EXPECT_LE(r.errors, r.operations);
    const std::string key = r.phase + "/" + r.op;
    const double start = last_elapsed.count(key) ? last_elapsed[key] : 0;
    EXPECT_GT(r.elapsed_s, start);
    if (contiguous) {
      EXPECT_LE(r.elapsed_s - start, status_interval_s + 0.3);
    }
    // ops/s is the row's operations over its interval (a full one but the last).
    if (r.elapsed_s - start > status_interval_s * 0.9) {
      EXPECT_NEAR(r.ops_per_s, static_cast<double>(r.operations) / (r.elapsed_s - start), r.ops_per_s * 0.15 + 1);
    }
    EXPECT_GT(r.time_unix_s, 1.6e9);
    last_elapsed[key] = r.elapsed_s;
  }
}

class TimeseriesCliTest : public ::testing::Test {
 protected:
  test_util::ProcessResult Run(const std::vector<std::string>& args) {
    test_util::ProcessOptions o;
    o.cwd = dir_.string();
    return RunProcess(STOREBENCH_BINARY, args, o);
  }
  std::string Workload(const char* name) { return std::string(STOREBENCH_SOURCE_DIR) + "/workloads/" + name; }
  test_util::TempDir tmp_{"storebench-timeseries"};
  const fs::path dir_ = tmp_.path();
};

TEST_F(TimeseriesCliTest, ARunsRowsAddUpToItsResult) {
  const auto r = Run({"run", "memory", "-P", Workload("workloada"), "-p", "recordcount=1000", "-p", "operationcount=12000",
                      "-target", "8000", "-threads", "2", "-p", "status.interval=0.5", "-p", "timeseries.granularity=100", "--timeseries", "ts.csv",
                      "--json", "r.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("wrote the time series to ts.csv"), std::string::npos) << r.err;
  const std::vector<Row> rows = ParseCsv(Slurp(dir_ / "ts.csv"));
  ExpectRowsAreSane(rows, 0.5);
  // memory keeps its data in the process: the unmeasured load is not a phase of the series.
  for (const Row& row : rows) EXPECT_EQ(row.phase, "run");
  const Json j = Json::parse(Slurp(dir_ / "r.json"));
  EXPECT_EQ(CsvCounts(rows), JsonCounts(j));
  // 1.5 s at 8000 ops/s in 0.5 s rows: three or four of each type.
  std::size_t reads = 0;
  for (const Row& row : rows) reads += row.op == "READ";
  EXPECT_GE(reads, 3u);
  EXPECT_LE(reads, 5u);
}

TEST_F(TimeseriesCliTest, BenchWritesBothPhasesIntoOneFile) {
  const auto r = Run({"bench", "memory", "-P", Workload("workloada"), "-p", "recordcount=3000", "-p", "operationcount=3000",
                      "-target", "4000", "-p", "status.interval=0.25", "-p", "timeseries.granularity=50", "--timeseries", "ts.csv", "--json", "r.json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::vector<Row> rows = ParseCsv(Slurp(dir_ / "ts.csv"));
  ExpectRowsAreSane(rows, 0.25);
  const auto counts = CsvCounts(rows);
  EXPECT_EQ(counts.at("load/INSERT"), 3000u);
  EXPECT_EQ(counts, JsonCounts(Json::parse(Slurp(dir_ / "r.json"))));
}

TEST_F(TimeseriesCliTest, MergeOfPartsRebuildsTheJobsSeries) {
  for (int k = 0; k < 2; ++k) {
    const auto r = Run({"bench", "memory", "-P", Workload("workloada"), "-p", "recordcount=2000", "-p",
                        "operationcount=6000", "-target", "6000", "-p", "status.interval=0.5", "-p", "timeseries.granularity=100", "--part",
                        std::to_string(k) + "/2", "--json", "part-" + std::to_string(k) + ".json"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const auto m = Run({"merge", "part-0.json", "part-1.json", "-o", "total.json", "--timeseries", "total.csv"});
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_NE(m.err.find("wrote the merged time series to total.csv"), std::string::npos) << m.err;
  const std::vector<Row> rows = ParseCsv(Slurp(dir_ / "total.csv"));
  ExpectRowsAreSane(rows, 0.5, /*contiguous=*/false);
  const auto counts = CsvCounts(rows);
  EXPECT_EQ(counts.at("load/INSERT"), 2000u);
  EXPECT_EQ(counts, JsonCounts(Json::parse(Slurp(dir_ / "total.json"))));
}

TEST_F(TimeseriesCliTest, RefusalsComeBeforeAnythingRuns) {
  auto r = Run({"run", "memory", "-P", Workload("workloada"), "--timeseries", "no/such/folder/ts.csv", "--json", "r.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("cannot write the time series 'no/such/folder/ts.csv'"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "r.json"));
  for (const std::string bad : {"localhost:", "127.0.0.1:99999", "x", ":80", "1.2.3.4:-1"}) {
    r = Run({"run", "memory", "-P", Workload("workloada"), "--metrics-listen", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--metrics-listen '" + bad + "': expected [HOST:]PORT"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(TimeseriesOfSeriesTest, WindowsMergeHistogramsExactly) {
  // Four 0.25 s points in two 0.5 s windows; the second window's p99 comes
  // from both of its points' buckets together.
  PhaseResult p;
  p.phase = "run";
  p.start_unix_ms = 1'700'000'000'000;
  std::vector<Histogram> hs(4);
  for (int i = 0; i < 4; ++i) {
    for (int k = 0; k < 100; ++k) hs[i].Record(static_cast<std::uint64_t>((i + 1) * 1000 + k));
    IntervalPoint pt;
    pt.t_s = 0.25 * (i + 1);
    IntervalPoint::Op op;
    op.name = "READ";
    op.count = hs[i].count();
    op.errors = i;
    op.buckets = hs[i].NonEmptyBuckets();
    op.min_ns = hs[i].min();
    op.max_ns = hs[i].max();
    op.sum_ns = hs[i].sum();
    pt.ops.push_back(op);
    p.series.push_back(pt);
  }
  std::ostringstream out;
  WriteTimeseriesHeader(out);
  WriteTimeseriesOfSeries(p, 0.5, out);
  const std::vector<Row> rows = ParseCsv(out.str());
  ASSERT_EQ(rows.size(), 2u);
  Histogram second = hs[2];
  second.Merge(hs[3]);
  EXPECT_DOUBLE_EQ(rows[1].elapsed_s, 1.0);
  EXPECT_NEAR(rows[1].time_unix_s, 1'700'000'001.0, 1e-3);
  EXPECT_EQ(rows[1].operations, 200u);
  EXPECT_EQ(rows[1].errors, 5u);
  EXPECT_NEAR(rows[1].ops_per_s, 400.0, 1e-6);
  EXPECT_NEAR(rows[1].p99_us, static_cast<double>(second.ValueAtPercentile(99)) / 1e3, 1e-3);
  EXPECT_NEAR(rows[1].max_us, static_cast<double>(second.max()) / 1e3, 1e-3);
  EXPECT_EQ(rows[0].errors, 1u);

  // Without the histograms the rows cannot be rebuilt: said, not guessed.
  p.series[0].ops[0].buckets.clear();
  std::ostringstream ignored;
  EXPECT_THROW(WriteTimeseriesOfSeries(p, 0.5, ignored), ConfigError);
}

}  // namespace
}  // namespace storebench
