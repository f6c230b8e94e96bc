// A job's options read from its properties (job/options.h): the runner's
// options filled from the client properties, the workload's figures, the
// part's share of the work, and the check that every property is known.
#include "job/options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"

namespace storebench {
namespace {

// Runs `f`, which must throw ConfigError, and returns its message.
template <typename F>
std::string ConfigErrorOf(F f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no ConfigError";
  return "";
}

TEST(ClientOptions, FillTheRunnerOptionsAndLeaveTheRestAtTheirDefaults) {
  Properties p;
  p.LoadText("threadcount=4\ntarget=1000\ntimeseries.granularity=500\nhdrhistogram.percentiles=90, 99.9\n"
             "warmup.seconds=2\nlabel=mine\n",
             "test.properties");
  const ClientOptions o = ReadClientOptions(p);
  EXPECT_EQ(o.runner.threads, 4);
  EXPECT_EQ(o.runner.target_ops_per_s, 1000);
  EXPECT_EQ(o.runner.series_interval_s, 0.5);
  EXPECT_EQ(o.runner.percentiles, (std::vector<double>{90, 99.9}));
  EXPECT_EQ(o.runner.warmup_s, 2);
  EXPECT_EQ(o.runner.status_interval_s, 10);
  EXPECT_EQ(o.runner.measurement_interval, "op");
  EXPECT_EQ(o.label, "mine");
  // What the job decides, not the properties.
  EXPECT_FALSE(o.runner.loading);
  EXPECT_EQ(o.runner.operation_count, 0u);
  EXPECT_TRUE(o.runner.binding.empty());
}

TEST(ClientOptions, BadPercentilesNameTheProperty) {
  Properties p;
  p.Set("hdrhistogram.percentiles", "50,0", "-p hdrhistogram.percentiles");
  const std::string what = ConfigErrorOf([&] { ReadClientOptions(p); });
  EXPECT_NE(what.find("'hdrhistogram.percentiles' = '50,0' (-p hdrhistogram.percentiles)"), std::string::npos) << what;
}

TEST(IneffectivePropertyNotes, OneNoteEachAndTheirPropertiesAreKnown) {
  Properties p;
  p.Set("columnfamily", "cf");
  p.Set("measurementtype", "timeseries");
  const std::vector<std::string> notes = IneffectivePropertyNotes(p, ReadClientOptions(p));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "property 'columnfamily' has no effect: no current binding uses it");
  EXPECT_EQ(notes[1].rfind("measurementtype=timeseries is reported as hdrhistogram", 0), 0u) << notes[1];
  EXPECT_NO_THROW(p.CheckUnknown());
}

TEST(WorkloadOptions, ClosedEconomyGivesThePhasesTheirFigures) {
  Properties p;
  p.Set("workload", "closedeconomy");
  p.Set("recordcount", "100");
  p.Set("operationcount", "50");
  const WorkloadOptions w = ReadWorkloadOptions(p, WorkloadKind(p));
  ASSERT_TRUE(w.closed_economy.has_value());
  EXPECT_FALSE(w.sql_query.has_value());
  EXPECT_EQ(w.core.recordcount, 100);
  EXPECT_EQ(w.core.insertcount, 100);
  EXPECT_EQ(w.core.operationcount, 50);
  EXPECT_EQ(w.core.scanproportion, 0);
}

TEST(WorkloadKind, UnknownWorkloadIsAnError) {
  Properties p;
  p.Set("workload", "site.ycsb.workloads.TimeSeriesWorkload");
  EXPECT_NE(ConfigErrorOf([&] { WorkloadKind(p); }).find("unknown workload"), std::string::npos);
  p.Set("workload", "com.yahoo.ycsb.workloads.CoreWorkload");
  EXPECT_EQ(WorkloadKind(p), "core");
}

TEST(ApplyPart, LoadTakesItsSliceOfTheInsertRange) {
  Properties p;
  p.Set("recordcount", "10");
  p.Set("client.id", "1");
  p.Set("client.count", "3");
  EXPECT_EQ(ApplyPart(p, "load", false),
            "storebench: part 1 of 3 (client.id=1, client.count=3): insertstart=4 insertcount=3");
  EXPECT_EQ(p.Get("insertstart"), "4");
  EXPECT_EQ(p.Get("insertcount"), "3");
}

TEST(ApplyPart, OneProcessChangesNothing) {
  Properties p;
  p.Set("recordcount", "10");
  EXPECT_EQ(ApplyPart(p, "run", false), "");
  EXPECT_FALSE(p.Has("operationcount"));
}

TEST(ResultFiles, JsonFlagThenExportfileThenBenchsDefault) {
  Properties p;
  EXPECT_EQ(ChooseResultFiles(ReadClientOptions(p), p, "", false).json, "");
  EXPECT_EQ(ChooseResultFiles(ReadClientOptions(p), p, "", true).json, "storebench-result.json");
  p.Set("exportfile", "out.json");
  EXPECT_EQ(ChooseResultFiles(ReadClientOptions(p), p, "", false).json, "out.json");
  EXPECT_EQ(ChooseResultFiles(ReadClientOptions(p), p, "flag.json", true).json, "flag.json");
  // YCSB's text exporter, named: exportfile gets the text summary.
  p.Set("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter");
  const ResultFiles f = ChooseResultFiles(ReadClientOptions(p), p, "", false);
  EXPECT_EQ(f.text, "out.json");
  EXPECT_EQ(f.json, "");
}

TEST(CheckBindingProperties, APropertyOfAnotherBindingIsAnError) {
  Properties p;
  p.Set("rocksdb.dir", "x", "-p rocksdb.dir");
  EXPECT_EQ(ConfigErrorOf([&] { CheckBindingProperties(p, FindBinding("memory")); }),
            "property 'rocksdb.dir' (-p rocksdb.dir) belongs to binding 'rocksdb', not 'memory'");
}

TEST(CheckBindingProperties, TheBindingsOwnPropertiesAreKnownAndOthersAreNot) {
  Properties p;
  p.Set("rocksdb.dir", "x");
  EXPECT_NO_THROW(CheckBindingProperties(p, FindBinding("rocksdb")));
  p.Set("recordcont", "1");
  EXPECT_NE(ConfigErrorOf([&] { CheckBindingProperties(p, FindBinding("rocksdb")); }).find("recordcont"),
            std::string::npos);
}

}  // namespace
}  // namespace storebench
