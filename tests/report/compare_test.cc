// storebench compare: exact tables for fixed runs (rows = labels without the
// axis, columns = axis values, repetitions averaged, failed runs marked).
#include "report/compare.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace storebench {
namespace {

// A finished run: `ops_per_s` throughput, three READs of `read_ns`, one
// UPDATE of `update_ns`, one slow READ-FAILED (not counted).
LoadedRun MakeRun(const std::string& label, int threads, double target, double ops_per_s, std::uint64_t read_ns,
              std::uint64_t update_ns, const std::string& status = "ok") {
  RunReport r;
  r.binding = label.substr(0, label.find('-'));
  r.label = label;
  r.properties = {{"threadcount", std::to_string(threads)}, {"fieldlength", "100"}};
  PhaseResult load;
  load.phase = "load";
  load.throughput_ops_per_s = 1;
  PhaseResult p;
  p.phase = "run";
  p.threads = threads;
  p.target_ops_per_s = target;
  p.throughput_ops_per_s = ops_per_s;
  p.interrupted = status == "interrupted";
  OpResult read, update, failed;
  read.name = "READ";
  update.name = "UPDATE";
  failed.name = "READ-FAILED";
  for (int i = 0; i < 3; ++i) read.service.Record(read_ns);
  update.service.Record(update_ns);
  failed.service.Record(1'000'000'000);  // ignored: failed operations
  read.intended = read.service;
  update.intended = update.service;
  failed.intended = failed.service;
  p.ops = {read, update, failed};
  r.phases = {load, p};
  LoadedRun run;
  run.id = label;
  run.label = label;
  run.status = status;
  run.report = r;
  return run;
}

std::vector<LoadedRun> ThreadSweep() {
  std::vector<LoadedRun> runs = {
      MakeRun("rocksdb-workloada-1", 1, 0, 1000.26, 10'000, 30'000),
      MakeRun("rocksdb-workloada-4", 4, 0, 3000, 20'000, 40'000),
      MakeRun("rocksdb-workloada-2", 2, 0, 2000, 12'000, 36'000),
      MakeRun("lmdb-workloada-1", 1, 0, 5000, 1'000, 3'000),
      MakeRun("lmdb-workloada-2", 2, 0, 9000, 1'000, 3'000, "interrupted"),
  };
  LoadedRun failed;
  failed.id = "lmdb-workloada-4";
  failed.label = "lmdb-workloada-4";
  failed.status = "failed";
  failed.axes = {{"threadcount", "4"}};
  runs.push_back(failed);
  return runs;
}

TEST(CompareTest, ThroughputByThreadsText) {
  EXPECT_EQ(CompareTable(ThreadSweep(), {"threads", "throughput", "text"}),
            "throughput (ops/s) by threads\n"
            "label                   1        2       4\n"
            "rocksdb-workloada  1000.3   2000.0  3000.0\n"
            "lmdb-workloada     5000.0  9000.0*  failed\n"
            "* interrupted: partial result\n");
}

TEST(CompareTest, P99AndAvgMarkdownAndCsv) {
  // p99 of {10us x3, 30us} = 30us (bucket highest value at 3 significant digits: 30.015).
  EXPECT_EQ(CompareTable(ThreadSweep(), {"threads", "p99", "markdown"}),
            "**p99 latency (us) by threads**\n\n"
            "| label             |    1 |    2 |      4 |\n"
            "| ----------------- | ---: | ---: | -----: |\n"
            "| rocksdb-workloada | 30.0 | 36.0 |   40.0 |\n"
            "| lmdb-workloada    |  3.0 | 3.0* | failed |\n"
            "* interrupted: partial result\n");
  // avg of {10,10,10,30} = 15us; {12,12,12,36} = 18; {20,20,20,40} = 25; {1,1,1,3} = 1.5.
  EXPECT_EQ(CompareTable(ThreadSweep(), {"threads", "avg", "csv"}),
            "label,1,2,4\n"
            "rocksdb-workloada,15.0,18.0,25.0\n"
            "lmdb-workloada,1.5,1.5*,failed\n");
}

TEST(CompareTest, TargetSweepAveragesRepetitionsAndSortsNumerically) {
  std::vector<LoadedRun> runs = {
      MakeRun("rocksdb-workloada-1-target=2000-rep1", 1, 2000, 1990, 10'000, 10'000),
      MakeRun("rocksdb-workloada-1-target=2000-rep2", 1, 2000, 2010, 10'000, 10'000),
      MakeRun("rocksdb-workloada-1-target=500-rep1", 1, 500, 499, 10'000, 10'000),
      MakeRun("rocksdb-workloada-1-target=500-rep2", 1, 500, 501, 10'000, 10'000),
      MakeRun("sqlite-workloada-1-target=500-rep1", 1, 500, 480, 10'000, 10'000),
  };
  EXPECT_EQ(CompareTable(runs, {"target", "throughput", "csv"}),
            "label,500,2000\n"
            "rocksdb-workloada-1,500.0,2000.0\n"
            "sqlite-workloada-1,480.0,-\n");
}

TEST(CompareTest, ByProperty) {
  std::vector<LoadedRun> runs = {MakeRun("memory-workloadc-1-fieldlength=100", 1, 0, 7, 1000, 1000)};
  EXPECT_EQ(CompareTable(runs, {"fieldlength", "throughput", "csv"}), "label,100\nmemory-workloadc-1,7.0\n");
}

TEST(CompareTest, RowKeys) {
  EXPECT_EQ(CompareRowKey("rocksdb-workloada-4", "threads", "4"), "rocksdb-workloada");
  EXPECT_EQ(CompareRowKey("redis-cluster-workloada-4-rep3", "threads", "4"), "redis-cluster-workloada");
  EXPECT_EQ(CompareRowKey("rocksdb-4-workloada-4", "threads", "4"), "rocksdb-4-workloada");
  EXPECT_EQ(CompareRowKey("a-threadcount=8-target=500", "threads", "8"), "a-target=500");
  EXPECT_EQ(CompareRowKey("a-threadcount=8-target=500", "target", "500"), "a-threadcount=8");
  EXPECT_EQ(CompareRowKey("my run", "threads", "4"), "my run");
}

TEST(CompareTest, BadOptions) {
  EXPECT_THROW(CompareTable({}, {"threads", "p98", "text"}), ConfigError);
  EXPECT_THROW(CompareTable({}, {"threads", "avg", "html"}), ConfigError);
}

}  // namespace
}  // namespace storebench
