// Exact-output, round-trip and error tests for the JSON result file.
#include "report/json_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace storebench {
namespace {

using Json = nlohmann::ordered_json;

Histogram FromSamples(std::initializer_list<std::uint64_t> samples) {
  Histogram h;
  for (auto v : samples) h.Record(v);
  return h;
}

// A small fixed report. Service samples (ns) and their buckets: 250, 1500 x2,
// 2047 are exact indexes; 2048 and 2049 share index 2048; 4097 -> 3072;
// 100000 -> 7706; 3000000 -> 12728; 5000000 -> 13508 (7000000 -> 13996).
// Sum 8113491 ns, mean 811.3491 us; p50 = rank 5 = 2048 -> bucket highest
// 2049 ns; p90 = rank 9 = 3000000 -> 3000319 ns; p95.. = max.
RunReport FixedReport() {
  RunReport r;
  r.tool_version = "0.1.0";
  r.command = "bench";
  r.binding = "memory";
  r.host = {{"hostname", "db1"}, {"cpus", "2"}};
  r.properties = {{"recordcount", "1000"}, {"workload", "core"}};
  PhaseResult p;
  p.phase = "run";
  p.binding = "memory";
  p.threads = 2;
  p.target_ops_per_s = 0;
  p.measurement_interval = "both";
  p.percentiles = {50, 95, 99, 99.999};
  p.start_unix_ms = 1796227210123;
  p.runtime_ms = 10110;
  p.operations = 10;
  p.throughput_ops_per_s = 98.91196834817013;
  p.stop_reason = "operationcount";
  p.disk_bytes = 123456;
  p.notes = {"ignored: \"foo\""};
  p.store_stats = {{"rocksdb.estimate-num-keys", "1000"}};
  OpResult op;
  op.name = "READ";
  op.service = FromSamples({250, 1500, 1500, 2047, 2048, 2049, 4097, 100000, 3000000, 5000000});
  op.intended = FromSamples({250, 1500, 1500, 2047, 2048, 2049, 4097, 100000, 3000000, 7000000});
  op.return_codes[Status::kOk] = 9;
  op.return_codes[Status::kNotFound] = 1;
  p.ops.push_back(op);
  IntervalPoint pt;
  pt.t_s = 1;
  pt.operations = 10;
  pt.ops_per_s = 10;
  pt.ops.push_back({"READ", 10, 811.3491, 2.049, 3000.319, 5000, {}, 0, 0, 0});
  p.series.push_back(pt);
  r.phases.push_back(p);
  return r;
}

const char* const kFixedJson = R"json({
  "storebench": {
    "version": "0.1.0",
    "schema": 1,
    "histogram": {"unit_ns": 1, "sub_buckets": 2048, "max_trackable_ns": 4398046511104, "buckets": 33793}
  },
  "command": "bench",
  "binding": "memory",
  "host": {"hostname": "db1", "cpus": "2"},
  "properties": {"recordcount": "1000", "workload": "core"},
  "phases": [
    {
      "phase": "run",
      "binding": "memory",
      "threads": 2,
      "target_ops_per_s": 0.0,
      "measurement_interval": "both",
      "percentiles": [50.0, 95.0, 99.0, 99.999],
      "start_unix_ms": 1796227210123,
      "runtime_ms": 10110,
      "operations": 10,
      "throughput_ops_per_s": 98.91196834817013,
      "interrupted": false,
      "stop_reason": "operationcount",
      "disk_bytes": 123456,
      "integrity_failures": 0,
      "notes": ["ignored: \"foo\""],
      "store_stats": {"rocksdb.estimate-num-keys": "1000"},
      "ops": [
        {
          "name": "READ",
          "return_codes": {"OK": 9, "NOT_FOUND": 1},
          "service_us": {"count": 10, "min": 0.25, "mean": 811.3491, "max": 5000.0, "p50": 2.049, "p90": 3000.319, "p95": 5000.0, "p99": 5000.0, "p99.9": 5000.0, "p99.99": 5000.0, "p99.999": 5000.0},
          "intended_us": {"count": 10, "min": 0.25, "mean": 1011.3491, "max": 7000.0, "p50": 2.049, "p90": 3000.319, "p95": 7000.0, "p99": 7000.0, "p99.9": 7000.0, "p99.99": 7000.0, "p99.999": 7000.0},
          "histograms_ns": {
            "service": {
              "count": 10,
              "min": 250,
              "max": 5000000,
              "sum": 8113491,
              "buckets": [[250, 1], [1500, 2], [2047, 1], [2048, 2], [3072, 1], [7706, 1], [12728, 1], [13508, 1]]
            },
            "intended": {
              "count": 10,
              "min": 250,
              "max": 7000000,
              "sum": 10113491,
              "buckets": [[250, 1], [1500, 2], [2047, 1], [2048, 2], [3072, 1], [7706, 1], [12728, 1], [13996, 1]]
            }
          }
        }
      ],
      "series": [
        {
          "t_s": 1.0,
          "operations": 10,
          "ops_per_s": 10.0,
          "ops": {
            "READ": {"count": 10, "mean_us": 811.3491, "p50_us": 2.049, "p99_us": 3000.319, "max_us": 5000.0}
          }
        }
      ]
    }
  ]
}
)json";

std::string Write(const RunReport& r) {
  std::ostringstream out;
  WriteJson(r, out);
  return out.str();
}

RunReport Read(const std::string& text) {
  std::istringstream in(text);
  return ReadJson(in);
}

void ExpectSameHistogram(const Histogram& a, const Histogram& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.sum(), b.sum());
  EXPECT_EQ(a.NonEmptyBuckets(), b.NonEmptyBuckets());
}

TEST(JsonReport, FixedReportExactOutput) {
  const std::string text = Write(FixedReport());
  EXPECT_EQ(text, kFixedJson);
  EXPECT_TRUE(Json::parse(text).is_object());  // one valid document
}

TEST(JsonReport, ReadBackFixedReport) {
  const RunReport orig = FixedReport();
  const RunReport r = Read(kFixedJson);
  EXPECT_EQ(r.tool_version, "0.1.0");
  EXPECT_EQ(r.command, "bench");
  EXPECT_EQ(r.binding, "memory");
  EXPECT_EQ(r.host, orig.host);
  EXPECT_EQ(r.properties, orig.properties);
  ASSERT_EQ(r.phases.size(), 1u);
  const PhaseResult& p = r.phases[0];
  const PhaseResult& o = orig.phases[0];
  EXPECT_EQ(p.phase, "run");
  EXPECT_EQ(p.binding, "memory");
  EXPECT_EQ(p.threads, 2);
  EXPECT_EQ(p.target_ops_per_s, 0);
  EXPECT_EQ(p.measurement_interval, "both");
  EXPECT_EQ(p.percentiles, o.percentiles);
  EXPECT_EQ(p.start_unix_ms, 1796227210123);
  EXPECT_EQ(p.runtime_ms, 10110);
  EXPECT_EQ(p.operations, 10u);
  EXPECT_EQ(p.throughput_ops_per_s, 98.91196834817013);
  EXPECT_FALSE(p.interrupted);
  EXPECT_EQ(p.stop_reason, "operationcount");
  EXPECT_EQ(p.disk_bytes, std::optional<std::uint64_t>(123456));
  EXPECT_EQ(p.integrity_failures, 0u);
  EXPECT_EQ(p.notes, o.notes);
  EXPECT_EQ(p.store_stats, o.store_stats);
  ASSERT_EQ(p.ops.size(), 1u);
  EXPECT_EQ(p.ops[0].name, "READ");
  EXPECT_EQ(p.ops[0].return_codes, o.ops[0].return_codes);
  ExpectSameHistogram(p.ops[0].service, o.ops[0].service);
  ExpectSameHistogram(p.ops[0].intended, o.ops[0].intended);
  ASSERT_EQ(p.series.size(), 1u);
  EXPECT_EQ(p.series[0].t_s, 1.0);
  EXPECT_EQ(p.series[0].operations, 10u);
  EXPECT_EQ(p.series[0].ops_per_s, 10.0);
  ASSERT_EQ(p.series[0].ops.size(), 1u);
  EXPECT_EQ(p.series[0].ops[0].name, "READ");
  EXPECT_EQ(p.series[0].ops[0].count, 10u);
  EXPECT_EQ(p.series[0].ops[0].mean_us, 811.3491);
  EXPECT_EQ(p.series[0].ops[0].p50_us, 2.049);
  EXPECT_EQ(p.series[0].ops[0].p99_us, 3000.319);
  EXPECT_EQ(p.series[0].ops[0].max_us, 5000);
}

// A larger report with random histograms, several phases, awkward strings
// and non-finite numbers.
RunReport RandomReport() {
  std::mt19937_64 rng(11);
  RunReport r;
  r.tool_version = "1.2.3-dev";
  r.command = "run";
  r.binding = "rocksdb";
  r.host = {{"hostname", "h\"o\\s\tt\n"}, {"kernel", "Linux 6.1 \xc3\xa9\xe2\x82\xac"}, {"empty", ""}};
  for (int i = 0; i < 20; ++i) r.properties.emplace_back("key" + std::to_string(i), std::to_string(i * 7) + "\x01");
  for (int ph = 0; ph < 3; ++ph) {
    PhaseResult p;
    p.phase = ph == 0 ? "load" : "run";
    p.binding = "rocksdb";
    p.threads = 1 + ph;
    p.target_ops_per_s = ph == 2 ? 12345.678 : 0;
    p.measurement_interval = ph == 0 ? "op" : ph == 1 ? "intended" : "both";
    p.percentiles = ph == 1 ? std::vector<double>{} : std::vector<double>{50, 99.9, 12.5};
    p.start_unix_ms = -5 + ph;
    p.runtime_ms = 123456789012;
    p.operations = UINT64_MAX - ph;
    p.throughput_ops_per_s = ph == 1 ? std::numeric_limits<double>::quiet_NaN() : 1e21 / 3;
    p.interrupted = ph == 2;
    p.stop_reason = ph == 2 ? "signal" : "maxexecutiontime";
    if (ph != 1) p.disk_bytes = UINT64_MAX;
    p.integrity_failures = static_cast<std::uint64_t>(ph) * 1000;
    if (ph == 2) p.notes = {"a", "", "\xe2\x9c\x93 done"};
    if (ph == 0) p.store_stats = {{"x", "1"}, {"y", "two"}};
    for (const char* name : {"INSERT", "READ", "READ-FAILED", "UPDATE"}) {
      OpResult op;
      op.name = name;
      std::lognormal_distribution<double> lat(10 + ph, 1.5);
      const int n = name[0] == 'U' ? 0 : 2000;
      for (int i = 0; i < n; ++i) {
        const auto v = static_cast<std::uint64_t>(lat(rng));
        op.service.Record(v);
        op.intended.Record(v + (ph == 2 ? 1000000 : 0));
      }
      if (ph == 2) op.service.Record(std::uint64_t{1} << 50);  // beyond kMaxTrackable
      for (int c = 0; c < Status::kNumCodes; ++c) op.return_codes[c] = (c * 31 + ph) % 3 == 0 ? c * 1000 + 1 : 0;
      p.ops.push_back(op);
    }
    for (int s = 0; s < 4; ++s) {
      IntervalPoint pt;
      pt.t_s = s + 0.5;
      pt.operations = 1000 + s;
      pt.ops_per_s = s == 3 ? std::numeric_limits<double>::infinity() : 1000.25 * s;
      if (s != 1) pt.ops.push_back({"READ", 900, 12.75, 10, 99.5, 1234.125, {}, 0, 0, 0});
      if (s == 2) pt.ops.push_back({"UPDATE", 100, -0.0, 1e-7, 3, 1e300, {}, 0, 0, 0});
      p.series.push_back(pt);
    }
    r.phases.push_back(p);
  }
  return r;
}

TEST(JsonReport, RoundTripIsIdentical) {
  for (const RunReport& r : {FixedReport(), RandomReport(), RunReport{}}) {
    const std::string first = Write(r);
    const std::string second = Write(Read(first));
    EXPECT_EQ(first, second);
  }
}

TEST(JsonReport, RoundTripKeepsHistogramsExact) {
  const RunReport orig = RandomReport();
  const RunReport back = Read(Write(orig));
  ASSERT_EQ(back.phases.size(), orig.phases.size());
  for (std::size_t i = 0; i < orig.phases.size(); ++i) {
    ASSERT_EQ(back.phases[i].ops.size(), orig.phases[i].ops.size());
    for (std::size_t j = 0; j < orig.phases[i].ops.size(); ++j) {
      ExpectSameHistogram(back.phases[i].ops[j].service, orig.phases[i].ops[j].service);
      ExpectSameHistogram(back.phases[i].ops[j].intended, orig.phases[i].ops[j].intended);
      EXPECT_EQ(back.phases[i].ops[j].return_codes, orig.phases[i].ops[j].return_codes);
      for (double p : {50.0, 99.0, 99.99}) {
        EXPECT_EQ(back.phases[i].ops[j].service.ValueAtPercentile(p),
                  orig.phases[i].ops[j].service.ValueAtPercentile(p));
      }
    }
    EXPECT_EQ(back.phases[i].operations, orig.phases[i].operations);
    EXPECT_EQ(back.phases[i].disk_bytes, orig.phases[i].disk_bytes);
    EXPECT_EQ(back.phases[i].start_unix_ms, orig.phases[i].start_unix_ms);
  }
  EXPECT_EQ(back.host, orig.host);
  EXPECT_EQ(back.properties, orig.properties);
  EXPECT_EQ(back.phases[2].notes, orig.phases[2].notes);
  EXPECT_TRUE(back.phases[2].interrupted);
  EXPECT_FALSE(back.phases[1].disk_bytes.has_value());
  EXPECT_TRUE(std::isnan(back.phases[1].throughput_ops_per_s));
}

TEST(JsonReport, NonFiniteNumbersAreNull) {
  RunReport r = FixedReport();
  r.phases[0].throughput_ops_per_s = std::numeric_limits<double>::quiet_NaN();
  r.phases[0].target_ops_per_s = std::numeric_limits<double>::infinity();
  r.phases[0].series[0].ops[0].p99_us = -std::numeric_limits<double>::infinity();
  r.phases[0].disk_bytes.reset();
  const Json j = Json::parse(Write(r));
  EXPECT_TRUE(j["phases"][0]["throughput_ops_per_s"].is_null());
  EXPECT_TRUE(j["phases"][0]["target_ops_per_s"].is_null());
  EXPECT_TRUE(j["phases"][0]["series"][0]["ops"]["READ"]["p99_us"].is_null());
  EXPECT_TRUE(j["phases"][0]["disk_bytes"].is_null());
  EXPECT_EQ(j["phases"][0]["series"][0]["ops"]["READ"]["max_us"], 5000.0);
}

TEST(JsonReport, EmptyOpWritesZeros) {
  RunReport r;
  PhaseResult p;
  OpResult op;
  op.name = "SCAN";
  p.ops.push_back(op);
  r.phases.push_back(p);
  const Json j = Json::parse(Write(r));
  const Json& o = j["phases"][0]["ops"][0];
  EXPECT_EQ(o["return_codes"].dump(), "{}");
  EXPECT_EQ(o["service_us"].dump(),
            R"({"count":0,"min":0.0,"mean":0.0,"max":0.0,"p50":0.0,"p90":0.0,"p95":0.0,"p99":0.0,"p99.9":0.0,"p99.99":0.0})");
  EXPECT_EQ(o["histograms_ns"]["service"].dump(), R"({"count":0,"min":0,"max":0,"sum":0,"buckets":[]})");
}

TEST(JsonReport, InvalidUtf8IsReplaced) {
  RunReport r;
  r.host = {{"hostname", "ab\xff"}};
  const std::string text = Write(r);
  EXPECT_NE(text.find("\"hostname\": \"ab\xef\xbf\xbd\""), std::string::npos) << text;
  EXPECT_EQ(Read(text).host[0].second, "ab\xef\xbf\xbd");
}

// Applies `edit` to the fixed report's JSON and expects ReadJson to throw a
// ConfigError whose message contains `expect`.
void ExpectError(const std::function<void(Json&)>& edit, const std::string& expect) {
  Json j = Json::parse(kFixedJson);
  edit(j);
  try {
    (void)Read(j.dump());
    ADD_FAILURE() << "no error; expected one containing: " << expect;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
  }
}

void ExpectTextError(const std::string& text, const std::string& expect) {
  try {
    (void)Read(text);
    ADD_FAILURE() << "no error for: " << text;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
  }
}

TEST(JsonReportErrors, NotJson) {
  ExpectTextError("", "result JSON: not valid JSON");
  ExpectTextError("{", "not valid JSON");
  ExpectTextError("{\"a\": 1,}", "not valid JSON");
  ExpectTextError("{\"a\": 29500.96173e1352443}", "not valid JSON");  // a number past double (found by fuzzing)
  ExpectTextError(std::string(kFixedJson) + "{}", "not valid JSON");  // a second document
  ExpectTextError("[]", "result JSON: top level: expected an object, got an array");
  ExpectTextError("{}", "result JSON: top level: missing field \"storebench\"");
}

TEST(JsonReportErrors, SchemaAndLayout) {
  ExpectError([](Json& j) { j["storebench"]["schema"] = 2; },
              "result JSON: storebench.schema: unsupported schema 2 (this storebench reads schema 1)");
  ExpectError([](Json& j) { j["storebench"]["schema"] = "1"; },
              "storebench.schema: expected an integer, got a string");
  ExpectError([](Json& j) { j["storebench"]["histogram"]["sub_buckets"] = 4096; },
              "storebench.histogram: histogram layout differs");
  ExpectError([](Json& j) { j["storebench"].erase("histogram"); },
              "storebench: missing field \"histogram\"");
}

TEST(JsonReportErrors, MissingAndMistypedFields) {
  ExpectError([](Json& j) { j["phases"][0].erase("runtime_ms"); },
              "result JSON: phases[0]: missing field \"runtime_ms\"");
  ExpectError([](Json& j) { j["phases"][0]["threads"] = "2"; },
              "phases[0].threads: expected an integer, got a string");
  ExpectError([](Json& j) { j["phases"][0]["operations"] = -1; },
              "phases[0].operations: expected a non-negative integer, got a negative integer");
  ExpectError([](Json& j) { j["phases"][0]["operations"] = 1.5; },
              "phases[0].operations: expected a non-negative integer, got a fractional number");
  ExpectError([](Json& j) { j["phases"][0]["interrupted"] = 0; },
              "phases[0].interrupted: expected true or false");
  ExpectError([](Json& j) { j["phases"][0]["throughput_ops_per_s"] = "fast"; },
              "phases[0].throughput_ops_per_s: expected a number or null, got a string");
  ExpectError([](Json& j) { j["phases"][0]["measurement_interval"] = "sometimes"; },
              "phases[0].measurement_interval: expected op, intended or both");
  ExpectError([](Json& j) { j["host"]["cpus"] = 2; }, "host.cpus: expected a string");
  ExpectError([](Json& j) { j["phases"] = Json::object(); }, "phases: expected an array, got an object");
  ExpectError([](Json& j) { j["phases"][0]["notes"][0] = nullptr; }, "phases[0].notes[0]: expected a string, got a null");
  ExpectError([](Json& j) { j["phases"][0]["ops"][0]["return_codes"]["MAYBE"] = 1; },
              "phases[0].ops[0].return_codes.MAYBE: unknown return code \"MAYBE\"");
  ExpectError([](Json& j) { j["phases"][0]["series"][0]["ops"]["READ"].erase("p99_us"); },
              "phases[0].series[0].ops.READ: missing field \"p99_us\"");
  ExpectError([](Json& j) { j["phases"][0]["ops"][0].erase("histograms_ns"); },
              "phases[0].ops[0]: missing field \"histograms_ns\"");
}

TEST(JsonReportErrors, BadHistograms) {
  const std::string h = "phases[0].ops[0].histograms_ns.service";
  auto service = [](Json& j) -> Json& { return j["phases"][0]["ops"][0]["histograms_ns"]["service"]; };
  ExpectError([&](Json& j) { service(j)["buckets"][0] = Json::array({250}); },
              h + ".buckets[0]: expected [bucket index, count], got [250]");
  ExpectError([&](Json& j) { service(j)["buckets"][0][0] = 40000; },
              h + ".buckets[0][0]: bucket index 40000 out of range (0..33792)");
  ExpectError([&](Json& j) { service(j)["buckets"][1][1] = 3; },
              h + ": count 10 differs from the bucket total 11");
  ExpectError([&](Json& j) { service(j)["min"] = 100; }, h + ": histogram min 100 is not in the first bucket (250)");
  ExpectError([&](Json& j) { service(j)["sum"] = 1; }, h + ": histogram sum 1 inconsistent with 10 samples");
  ExpectError(
      [&](Json& j) {
        std::swap(service(j)["buckets"][0], service(j)["buckets"][1]);
        service(j)["min"] = 1500;
      },
      h + ": bucket indexes not strictly ascending at 250");
  ExpectError([&](Json& j) { service(j).erase("sum"); }, h + ": missing field \"sum\"");
}

}  // namespace
}  // namespace storebench
