// The time series CSV: the writer's exact text, a round trip through the
// reader, and the reader's errors, each naming FILE:LINE (and the column).
#include "report/timeseries_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace storebench {
namespace {

const std::string kHeader = "time_unix_s,elapsed_s,phase,op,operations,ops_per_s,p50_us,p99_us,p999_us,max_us,errors\n";

std::vector<TimeseriesRow> SampleRows() {
  return {{1764691201.25, 1.0, "load", "INSERT", 1000, 1000.0, 5.5, 20.125, 40.0, 1234.567, 0},
          {1764691203.5, 1.0, "run", "READ", 950, 950.0, 3.0, 9.75, 60.001, 410.0, 2},
          {1764691203.5, 1.0, "run", "UPDATE", 50, 50.0, 4.0, 11.0, 12.5, 13.0, 50}};
}

std::string Written(const std::vector<TimeseriesRow>& rows) {
  std::ostringstream out;
  WriteTimeseriesHeader(out);
  for (const auto& r : rows) WriteTimeseriesRow(out, r);
  return out.str();
}

std::vector<TimeseriesRow> Read(const std::string& text, const std::string& name = "ts.csv") {
  std::istringstream in(text);
  return ReadTimeseriesCsv(in, name);
}

// The message of the ConfigError that reading `text` as "ts.csv" throws.
std::string ErrorOf(const std::string& text) {
  return test_util::ConfigErrorOf([&] { Read(text); });
}

TEST(TimeseriesCsvTest, WriterExactText) {
  EXPECT_EQ(Written(SampleRows()),
            kHeader +
                "1764691201.250,1.000,load,INSERT,1000,1000.000,5.500,20.125,40.000,1234.567,0\n"
                "1764691203.500,1.000,run,READ,950,950.000,3.000,9.750,60.001,410.000,2\n"
                "1764691203.500,1.000,run,UPDATE,50,50.000,4.000,11.000,12.500,13.000,50\n");
  EXPECT_EQ(kHeader, std::string(kTimeseriesCsvHeader) + "\n");
}

TEST(TimeseriesCsvTest, RoundTrip) {
  const std::vector<TimeseriesRow> rows = SampleRows();
  const std::string text = Written(rows);
  const std::vector<TimeseriesRow> back = Read(text);
  ASSERT_EQ(back.size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_DOUBLE_EQ(back[i].time_unix_s, rows[i].time_unix_s);
    EXPECT_DOUBLE_EQ(back[i].elapsed_s, rows[i].elapsed_s);
    EXPECT_EQ(back[i].phase, rows[i].phase);
    EXPECT_EQ(back[i].op, rows[i].op);
    EXPECT_EQ(back[i].operations, rows[i].operations);
    EXPECT_DOUBLE_EQ(back[i].ops_per_s, rows[i].ops_per_s);
    EXPECT_DOUBLE_EQ(back[i].p50_us, rows[i].p50_us);
    EXPECT_DOUBLE_EQ(back[i].p99_us, rows[i].p99_us);
    EXPECT_DOUBLE_EQ(back[i].p999_us, rows[i].p999_us);
    EXPECT_DOUBLE_EQ(back[i].max_us, rows[i].max_us);
    EXPECT_EQ(back[i].errors, rows[i].errors);
  }
  EXPECT_EQ(Written(back), text);
  // Values with more decimals come back rounded to 3; a non-finite one as nan.
  TimeseriesRow r = rows[1];
  r.p50_us = 2.71828;
  r.ops_per_s = std::nan("");
  const std::vector<TimeseriesRow> again = Read(Written({r}));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_DOUBLE_EQ(again[0].p50_us, 2.718);
  EXPECT_TRUE(std::isnan(again[0].ops_per_s));
  EXPECT_NE(Written({r}).find(",950,nan,2.718,"), std::string::npos) << Written({r});
}

TEST(TimeseriesCsvTest, HeaderOnlyAndCrLf) {
  EXPECT_TRUE(Read(kHeader).empty());
  EXPECT_TRUE(Read(std::string(kTimeseriesCsvHeader)).empty());
  const auto rows = Read("time_unix_s,elapsed_s,phase,op,operations,ops_per_s,p50_us,p99_us,p999_us,max_us,errors\r\n"
                         "10.5,0.5,run,SCAN,3,6,1,2,3,4,1\r\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].op, "SCAN");
  EXPECT_EQ(rows[0].errors, 1u);
  EXPECT_DOUBLE_EQ(rows[0].max_us, 4.0);
}

TEST(TimeseriesCsvTest, ErrorsNameFileLineAndColumn) {
  const std::string row = "1.000,1.000,run,READ,10,10.000,1.000,2.000,3.000,4.000,0\n";
  EXPECT_EQ(ErrorOf(""), "ts.csv:1: not a storebench time series: the file is empty, the first line must be the header " +
                             std::string(kTimeseriesCsvHeader));
  EXPECT_EQ(ErrorOf("time,ops\n1,2\n"),
            "ts.csv:1: not a storebench time series: the first line must be the header " + std::string(kTimeseriesCsvHeader));
  EXPECT_EQ(ErrorOf(kHeader + row + "1.000,1.000,run,READ,10,10.000,1.000,2.000,3.000,4.000\n"),
            "ts.csv:3: 10 field(s), expected 11 (" + std::string(kTimeseriesCsvHeader) + ")");
  EXPECT_EQ(ErrorOf(kHeader + row + "\n"), "ts.csv:3: 1 field(s), expected 11 (" + std::string(kTimeseriesCsvHeader) + ")");
  EXPECT_EQ(ErrorOf(kHeader + "1.000,1.000,run,READ,10,10.000,1.000,abc,3.000,4.000,0\n"),
            "ts.csv:2: column p99_us: 'abc' is not a number");
  EXPECT_EQ(ErrorOf(kHeader + "1.000,1.000,run,READ,10,10.000,1.000,1e3,3.000,4.000,0\n"),
            "ts.csv:2: column p99_us: '1e3' is not a number");
  EXPECT_EQ(ErrorOf(kHeader + "1.000,-1.000,run,READ,10,10.000,1.000,2.000,3.000,4.000,0\n"),
            "ts.csv:2: column elapsed_s: '-1.000' is negative");
  EXPECT_EQ(ErrorOf(kHeader + row + row + "1.000,1.000,run,READ,1.5,10.000,1.000,2.000,3.000,4.000,0\n"),
            "ts.csv:4: column operations: '1.5' is not a count (a whole number >= 0)");
  EXPECT_EQ(ErrorOf(kHeader + "1.000,1.000,,READ,10,10.000,1.000,2.000,3.000,4.000,0\n"), "ts.csv:2: column phase: '' is empty");
  EXPECT_EQ(ErrorOf(kHeader + "1.000,1.000,run,READ,10,10.000,1.000,2.000,3.000,4.000,11\n"),
            "ts.csv:2: column errors: '11' is more than the operations (10)");
  EXPECT_EQ(ErrorOf(kHeader + "1.000,1.000,run,READ,10,10.000,1.000,2.000,3.000,inf,0\n"),
            "ts.csv:2: column max_us: 'inf' is not a number");
}

TEST(TimeseriesCsvTest, InputsRecognisedByHeaderOrExtension) {
  test_util::TempDir dir("storebench-tscsv");
  const std::string good_txt = (dir.path() / "series.txt").string(), bad_csv = (dir.path() / "other.CSV").string(),
                    json = (dir.path() / "r.json").string();
  std::ofstream(good_txt) << Written(SampleRows());
  std::ofstream(bad_csv) << "a,b\n1,2\n";
  std::ofstream(json) << "{\"storebench\": {}}\n";
  EXPECT_TRUE(IsTimeseriesInput(good_txt));
  EXPECT_TRUE(IsTimeseriesInput(bad_csv));
  EXPECT_FALSE(IsTimeseriesInput(json));
  EXPECT_FALSE(IsTimeseriesInput(dir.path().string()));
  const TimeseriesFile f = ReadTimeseriesFile(good_txt);
  EXPECT_EQ(f.name, "series.txt");
  EXPECT_EQ(f.path, good_txt);
  EXPECT_EQ(f.rows.size(), 3u);
  const std::string error = test_util::ConfigErrorOf([&] { ReadTimeseriesFile(bad_csv); });
  EXPECT_EQ(error.rfind(bad_csv + ":1: not a storebench time series", 0), 0u) << error;
}

}  // namespace
}  // namespace storebench
