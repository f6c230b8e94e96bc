#include "report/json_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/status.h"
#include "report/text_report.h"

namespace storebench {

namespace {

using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------- writing

Json Number(double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); }

Json StringMap(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Json j = Json::object();
  for (const auto& [k, v] : pairs) j[k] = v;
  return j;
}

Json Summary(const Histogram& h, const std::vector<double>& configured) {
  std::vector<double> ps = {50, 90, 95, 99, 99.9, 99.99};
  for (double p : configured) {
    if (std::isfinite(p) && std::find(ps.begin(), ps.end(), p) == ps.end()) ps.push_back(p);
  }
  std::sort(ps.begin(), ps.end());
  Json j = Json::object();
  j["count"] = h.count();
  j["min"] = Number(static_cast<double>(h.min()) / 1000.0);
  j["mean"] = Number(h.mean() / 1000.0);
  j["max"] = Number(static_cast<double>(h.max()) / 1000.0);
  for (double p : ps) j["p" + FormatDouble(p)] = Number(static_cast<double>(h.ValueAtPercentile(p)) / 1000.0);
  return j;
}

Json HistogramJson(const Histogram& h) {
  Json buckets = Json::array();
  for (const auto& [index, count] : h.NonEmptyBuckets()) buckets.push_back(Json::array({index, count}));
  Json j = Json::object();
  j["count"] = h.count();
  j["min"] = h.min();
  j["max"] = h.max();
  j["sum"] = h.sum();
  j["buckets"] = std::move(buckets);
  return j;
}

Json PhaseJson(const PhaseResult& p) {
  Json j = Json::object();
  j["phase"] = p.phase;
  j["binding"] = p.binding;
  j["threads"] = p.threads;
  j["target_ops_per_s"] = Number(p.target_ops_per_s);
  j["measurement_interval"] = p.measurement_interval;
  Json percentiles = Json::array();
  for (double q : p.percentiles) percentiles.push_back(Number(q));
  j["percentiles"] = std::move(percentiles);
  j["start_unix_ms"] = p.start_unix_ms;
  j["runtime_ms"] = p.runtime_ms;
  j["operations"] = p.operations;
  j["throughput_ops_per_s"] = Number(p.throughput_ops_per_s);
  j["interrupted"] = p.interrupted;
  if (p.errors_exceeded) j["errors_exceeded"] = true;
  j["stop_reason"] = p.stop_reason;
  j["disk_bytes"] = p.disk_bytes ? Json(*p.disk_bytes) : Json(nullptr);
  j["integrity_failures"] = p.integrity_failures;
  j["notes"] = Json::array();
  for (const auto& n : p.notes) j["notes"].push_back(n);
  j["store_stats"] = StringMap(p.store_stats);
  if (p.validation) {
    Json v = Json::object();
    v["workload"] = p.validation->workload;
    v["passed"] = p.validation->passed;
    v["summary"] = p.validation->summary;
    v["figures"] = StringMap(p.validation->figures);
    j["validation"] = std::move(v);
  }
  if (!p.slo.empty()) {
    Json gates = Json::array();
    for (const auto& g : p.slo) {
      Json x = Json::object();
      x["expr"] = g.expr;
      x["value"] = std::isfinite(g.value) ? Json(g.value) : Json(nullptr);  // null: nothing to measure
      x["pass"] = g.pass;
      gates.push_back(std::move(x));
    }
    j["slo"] = std::move(gates);
  }

  Json ops = Json::array();
  for (const OpResult& op : p.ops) {
    Json o = Json::object();
    o["name"] = op.name;
    Json codes = Json::object();
    for (int c = 0; c < Status::kNumCodes; ++c) {
      if (op.return_codes[c] != 0) codes[std::string(Status::Name(static_cast<Status::Code>(c)))] = op.return_codes[c];
    }
    o["return_codes"] = std::move(codes);
    o["service_us"] = Summary(op.service, p.percentiles);
    o["intended_us"] = Summary(op.intended, p.percentiles);
    o["histograms_ns"] = Json::object();
    o["histograms_ns"]["service"] = HistogramJson(op.service);
    o["histograms_ns"]["intended"] = HistogramJson(op.intended);
    ops.push_back(std::move(o));
  }
  j["ops"] = std::move(ops);

  Json series = Json::array();
  for (const IntervalPoint& pt : p.series) {
    Json s = Json::object();
    s["t_s"] = Number(pt.t_s);
    s["operations"] = pt.operations;
    s["ops_per_s"] = Number(pt.ops_per_s);
    Json sops = Json::object();
    for (const IntervalPoint::Op& o : pt.ops) {
      Json x = Json::object();
      x["count"] = o.count;
      if (o.errors > 0) x["errors"] = o.errors;  // absent: none
      x["mean_us"] = Number(o.mean_us);
      x["p50_us"] = Number(o.p50_us);
      x["p99_us"] = Number(o.p99_us);
      x["max_us"] = Number(o.max_us);
      if (!o.buckets.empty()) {
        Json h = Json::object();
        h["min"] = o.min_ns;
        h["max"] = o.max_ns;
        h["sum"] = o.sum_ns;
        Json b = Json::array();
        for (const auto& [index, n] : o.buckets) b.push_back(Json::array({index, n}));
        h["buckets"] = std::move(b);
        x["histogram_ns"] = std::move(h);
      }
      sops[o.name] = std::move(x);
    }
    s["ops"] = std::move(sops);
    series.push_back(std::move(s));
  }
  j["series"] = std::move(series);
  return j;
}

std::string Scalar(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

bool IsScalarArray(const Json& j) {
  return j.is_array() && std::all_of(j.begin(), j.end(), [](const Json& e) { return e.is_primitive(); });
}

// One line for containers of scalars (or of arrays of scalars); else one
// member per line.
bool IsFlat(const Json& j) {
  for (const auto& e : j) {
    if (e.is_primitive()) continue;
    if (IsScalarArray(e)) continue;
    return false;
  }
  return true;
}

void WriteInline(const Json& j, std::string& out) {
  if (j.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [k, v] : j.items()) {
      if (!first) out += ", ";
      first = false;
      out += Scalar(Json(k));
      out += ": ";
      WriteInline(v, out);
    }
    out += '}';
  } else if (j.is_array()) {
    out += '[';
    bool first = true;
    for (const auto& v : j) {
      if (!first) out += ", ";
      first = false;
      WriteInline(v, out);
    }
    out += ']';
  } else {
    out += Scalar(j);
  }
}

void WritePretty(const Json& j, int indent, std::string& out) {
  if (j.is_primitive() || j.empty() || IsFlat(j)) {
    WriteInline(j, out);
    return;
  }
  const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
  const bool object = j.is_object();
  out += object ? "{\n" : "[\n";
  bool first = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!first) out += ",\n";
    first = false;
    out += pad;
    if (object) {
      out += Scalar(Json(it.key()));
      out += ": ";
    }
    WritePretty(*it, indent + 2, out);
  }
  out += '\n';
  out += std::string(static_cast<std::size_t>(indent), ' ');
  out += object ? '}' : ']';
}

// ---------------------------------------------------------------- reading

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw ConfigError("result JSON: " + (path.empty() ? std::string("top level") : path) + ": " + what);
}

std::string Describe(const Json& j) {
  if (j.is_number_float()) return "a fractional number";
  if (j.is_number_integer() && !j.is_number_unsigned()) return "a negative integer";
  if (j.is_number_unsigned()) return "an unsigned integer";
  return std::string(j.type_name() == std::string("object") || j.type_name() == std::string("array") ? "an " : "a ") +
         j.type_name();
}

std::string Child(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }
std::string Child(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

const Json& Field(const Json& obj, const std::string& path, const char* key) {
  if (!obj.is_object()) Fail(path, "expected an object, got " + Describe(obj));
  auto it = obj.find(key);
  if (it == obj.end()) Fail(path, std::string("missing field \"") + key + "\"");
  return *it;
}

const Json& Object(const Json& j, const std::string& path) {
  if (!j.is_object()) Fail(path, "expected an object, got " + Describe(j));
  return j;
}

const Json& Array(const Json& j, const std::string& path) {
  if (!j.is_array()) Fail(path, "expected an array, got " + Describe(j));
  return j;
}

std::string String(const Json& j, const std::string& path) {
  if (!j.is_string()) Fail(path, "expected a string, got " + Describe(j));
  return j.get<std::string>();
}

std::uint64_t U64(const Json& j, const std::string& path) {
  if (!j.is_number_unsigned()) Fail(path, "expected a non-negative integer, got " + Describe(j));
  return j.get<std::uint64_t>();
}

std::int64_t I64(const Json& j, const std::string& path) {
  if (j.is_number_unsigned()) {
    const auto v = j.get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) Fail(path, "integer out of range");
    return static_cast<std::int64_t>(v);
  }
  if (!j.is_number_integer()) Fail(path, "expected an integer, got " + Describe(j));
  return j.get<std::int64_t>();
}

double Double(const Json& j, const std::string& path) {
  if (j.is_null()) return std::numeric_limits<double>::quiet_NaN();
  if (!j.is_number()) Fail(path, "expected a number or null, got " + Describe(j));
  return j.get<double>();
}

bool Bool(const Json& j, const std::string& path) {
  if (!j.is_boolean()) Fail(path, "expected true or false, got " + Describe(j));
  return j.get<bool>();
}

std::vector<std::pair<std::string, std::string>> ReadStringMap(const Json& j, const std::string& path) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [k, v] : Object(j, path).items()) out.emplace_back(k, String(v, Child(path, k)));
  return out;
}

// The "buckets" array of the histogram object `h` at `path`: [bucket index,
// count] pairs, their total added into *total. `ordered`: indexes must rise.
std::vector<std::pair<std::uint32_t, std::uint64_t>> ReadBuckets(const Json& h, const std::string& path, bool ordered,
                                                                 std::uint64_t* total) {
  const std::string bpath = Child(path, "buckets");
  const Json& jb = Array(Field(h, path, "buckets"), bpath);
  std::vector<std::pair<std::uint32_t, std::uint64_t>> buckets;
  buckets.reserve(jb.size());
  for (std::size_t i = 0; i < jb.size(); ++i) {
    const Json& e = jb[i];
    const std::string epath = Child(bpath, i);
    if (!e.is_array() || e.size() != 2) Fail(epath, "expected [bucket index, count], got " + Scalar(e));
    const std::uint64_t index = U64(e[0], Child(epath, 0));
    if (ordered && (index >= Histogram::BucketCount() || (!buckets.empty() && index <= buckets.back().first))) {
      Fail(Child(epath, 0), "bucket index " + std::to_string(index) + " out of range or out of order");
    }
    if (index >= Histogram::BucketCount()) {
      Fail(Child(epath, 0), "bucket index " + std::to_string(index) + " out of range (0.." +
                                std::to_string(Histogram::BucketCount() - 1) + ")");
    }
    const std::uint64_t n = U64(e[1], Child(epath, 1));
    *total += n;
    buckets.emplace_back(static_cast<std::uint32_t>(index), n);
  }
  return buckets;
}

Histogram ReadHistogram(const Json& j, const std::string& path) {
  Object(j, path);
  const std::uint64_t count = U64(Field(j, path, "count"), Child(path, "count"));
  const std::uint64_t min = U64(Field(j, path, "min"), Child(path, "min"));
  const std::uint64_t max = U64(Field(j, path, "max"), Child(path, "max"));
  const std::uint64_t sum = U64(Field(j, path, "sum"), Child(path, "sum"));
  std::uint64_t total = 0;
  const auto buckets = ReadBuckets(j, path, /*ordered=*/false, &total);
  if (total != count) {
    Fail(path, "count " + std::to_string(count) + " differs from the bucket total " + std::to_string(total));
  }
  try {
    return Histogram::FromBuckets(buckets, min, max, sum);
  } catch (const std::invalid_argument& e) {
    Fail(path, e.what());
  }
}

Status::Code CodeByName(const std::string& name, const std::string& path) {
  for (int c = 0; c < Status::kNumCodes; ++c) {
    if (Status::Name(static_cast<Status::Code>(c)) == name) return static_cast<Status::Code>(c);
  }
  Fail(path, "unknown return code \"" + name + "\"");
}

OpResult ReadOp(const Json& j, const std::string& path) {
  Object(j, path);
  OpResult op;
  op.name = String(Field(j, path, "name"), Child(path, "name"));
  const std::string cpath = Child(path, "return_codes");
  for (const auto& [k, v] : Object(Field(j, path, "return_codes"), cpath).items()) {
    op.return_codes[CodeByName(k, Child(cpath, k))] = U64(v, Child(cpath, k));
  }
  const std::string hpath = Child(path, "histograms_ns");
  const Json& h = Object(Field(j, path, "histograms_ns"), hpath);
  op.service = ReadHistogram(Field(h, hpath, "service"), Child(hpath, "service"));
  op.intended = ReadHistogram(Field(h, hpath, "intended"), Child(hpath, "intended"));
  return op;
}

IntervalPoint ReadPoint(const Json& j, const std::string& path) {
  Object(j, path);
  IntervalPoint pt;
  pt.t_s = Double(Field(j, path, "t_s"), Child(path, "t_s"));
  pt.operations = U64(Field(j, path, "operations"), Child(path, "operations"));
  pt.ops_per_s = Double(Field(j, path, "ops_per_s"), Child(path, "ops_per_s"));
  const std::string opath = Child(path, "ops");
  for (const auto& [name, v] : Object(Field(j, path, "ops"), opath).items()) {
    const std::string p = Child(opath, name);
    Object(v, p);
    IntervalPoint::Op o;
    o.name = name;
    o.count = U64(Field(v, p, "count"), Child(p, "count"));
    if (v.contains("errors")) o.errors = U64(v["errors"], Child(p, "errors"));
    o.mean_us = Double(Field(v, p, "mean_us"), Child(p, "mean_us"));
    o.p50_us = Double(Field(v, p, "p50_us"), Child(p, "p50_us"));
    o.p99_us = Double(Field(v, p, "p99_us"), Child(p, "p99_us"));
    o.max_us = Double(Field(v, p, "max_us"), Child(p, "max_us"));
    if (v.contains("histogram_ns")) {
      // Read without building a Histogram (a full bucket array per point).
      const std::string hpath = Child(p, "histogram_ns");
      const Json& h = Object(v["histogram_ns"], hpath);
      o.min_ns = U64(Field(h, hpath, "min"), Child(hpath, "min"));
      o.max_ns = U64(Field(h, hpath, "max"), Child(hpath, "max"));
      o.sum_ns = U64(Field(h, hpath, "sum"), Child(hpath, "sum"));
      std::uint64_t total = 0;
      o.buckets = ReadBuckets(h, hpath, /*ordered=*/true, &total);
      if (total != o.count) {
        Fail(hpath, "bucket total " + std::to_string(total) + " differs from the point's count " +
                        std::to_string(o.count));
      }
    }
    pt.ops.push_back(std::move(o));
  }
  return pt;
}

PhaseResult ReadPhase(const Json& j, const std::string& path) {
  Object(j, path);
  auto f = [&](const char* key) -> const Json& { return Field(j, path, key); };
  auto c = [&](const char* key) { return Child(path, key); };
  PhaseResult p;
  p.phase = String(f("phase"), c("phase"));
  p.binding = String(f("binding"), c("binding"));
  const std::int64_t threads = I64(f("threads"), c("threads"));
  if (threads < 0 || threads > std::numeric_limits<int>::max()) Fail(c("threads"), "out of range");
  p.threads = static_cast<int>(threads);
  p.target_ops_per_s = Double(f("target_ops_per_s"), c("target_ops_per_s"));
  p.measurement_interval = String(f("measurement_interval"), c("measurement_interval"));
  if (p.measurement_interval != "op" && p.measurement_interval != "intended" && p.measurement_interval != "both") {
    Fail(c("measurement_interval"), "expected op, intended or both, got \"" + p.measurement_interval + "\"");
  }
  p.percentiles.clear();
  const Json& ps = Array(f("percentiles"), c("percentiles"));
  for (std::size_t i = 0; i < ps.size(); ++i) p.percentiles.push_back(Double(ps[i], Child(c("percentiles"), i)));
  p.start_unix_ms = I64(f("start_unix_ms"), c("start_unix_ms"));
  p.runtime_ms = I64(f("runtime_ms"), c("runtime_ms"));
  p.operations = U64(f("operations"), c("operations"));
  p.throughput_ops_per_s = Double(f("throughput_ops_per_s"), c("throughput_ops_per_s"));
  p.interrupted = Bool(f("interrupted"), c("interrupted"));
  if (j.contains("errors_exceeded")) p.errors_exceeded = Bool(j["errors_exceeded"], c("errors_exceeded"));
  p.stop_reason = String(f("stop_reason"), c("stop_reason"));
  const Json& disk = f("disk_bytes");
  if (!disk.is_null()) p.disk_bytes = U64(disk, c("disk_bytes"));
  p.integrity_failures = U64(f("integrity_failures"), c("integrity_failures"));
  const Json& notes = Array(f("notes"), c("notes"));
  for (std::size_t i = 0; i < notes.size(); ++i) p.notes.push_back(String(notes[i], Child(c("notes"), i)));
  p.store_stats = ReadStringMap(f("store_stats"), c("store_stats"));
  if (j.contains("validation")) {
    const std::string vp = c("validation");
    const Json& v = Object(j["validation"], vp);
    auto vf = [&](const char* k) -> const Json& { return Field(v, vp, k); };
    ValidationResult val;
    val.workload = String(vf("workload"), Child(vp, "workload"));
    val.passed = Bool(vf("passed"), Child(vp, "passed"));
    val.summary = String(vf("summary"), Child(vp, "summary"));
    val.figures = ReadStringMap(vf("figures"), Child(vp, "figures"));
    p.validation = std::move(val);
  }
  if (j.contains("slo")) {
    const Json& gates = Array(j["slo"], c("slo"));
    for (std::size_t i = 0; i < gates.size(); ++i) {
      const std::string gp = Child(c("slo"), i);
      const Json& g = Object(gates[i], gp);
      PhaseResult::Slo x;
      x.expr = String(Field(g, gp, "expr"), Child(gp, "expr"));
      const Json& v = Field(g, gp, "value");
      x.value = v.is_null() ? std::numeric_limits<double>::quiet_NaN() : Double(v, Child(gp, "value"));
      x.pass = Bool(Field(g, gp, "pass"), Child(gp, "pass"));
      p.slo.push_back(std::move(x));
    }
  }
  const Json& ops = Array(f("ops"), c("ops"));
  for (std::size_t i = 0; i < ops.size(); ++i) p.ops.push_back(ReadOp(ops[i], Child(c("ops"), i)));
  const Json& series = Array(f("series"), c("series"));
  for (std::size_t i = 0; i < series.size(); ++i) p.series.push_back(ReadPoint(series[i], Child(c("series"), i)));
  return p;
}

}  // namespace

void WriteJson(const RunReport& r, std::ostream& out) {
  Json doc = Json::object();
  doc["storebench"] = Json::object();
  doc["storebench"]["version"] = r.tool_version;
  doc["storebench"]["schema"] = kJsonSchemaVersion;
  Json layout = Json::object();
  layout["unit_ns"] = 1;
  layout["sub_buckets"] = 2048;
  layout["max_trackable_ns"] = Histogram::kMaxTrackable;
  layout["buckets"] = Histogram::BucketCount();
  doc["storebench"]["histogram"] = std::move(layout);
  doc["command"] = r.command;
  doc["binding"] = r.binding;
  if (!r.label.empty()) doc["label"] = r.label;
  doc["host"] = StringMap(r.host);
  doc["properties"] = StringMap(r.properties);
  Json phases = Json::array();
  for (const PhaseResult& p : r.phases) phases.push_back(PhaseJson(p));
  doc["phases"] = std::move(phases);
  if (!r.parts.empty()) {
    Json parts = Json::array();
    for (const PartSummary& part : r.parts) {
      Json j = Json::object();
      j["file"] = part.file;
      j["hostname"] = part.hostname;
      j["client_id"] = part.client_id;
      Json ph = Json::array();
      for (const PartSummary::Phase& p : part.phases) {
        Json x = Json::object();
        x["phase"] = p.phase;
        x["threads"] = p.threads;
        x["start_unix_ms"] = p.start_unix_ms;
        x["runtime_ms"] = p.runtime_ms;
        x["operations"] = p.operations;
        x["throughput_ops_per_s"] = Number(p.throughput_ops_per_s);
        ph.push_back(std::move(x));
      }
      j["phases"] = std::move(ph);
      parts.push_back(std::move(j));
    }
    doc["parts"] = std::move(parts);
  }

  std::string text;
  WritePretty(doc, 0, text);
  text += '\n';
  out << text;
}

RunReport ReadJson(std::istream& in) {
  Json doc;
  try {
    doc = Json::parse(in);
  } catch (const Json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line 1, column 5: ..."
    // (or out_of_range.406 for a number too large for a double: 1e99999)
    std::string what = e.what();
    const auto pos = what.find("] ");
    throw ConfigError("result JSON: not valid JSON: " + (pos == std::string::npos ? what : what.substr(pos + 2)));
  }
  const std::string top;
  Object(doc, top);
  const Json& meta = Object(Field(doc, top, "storebench"), "storebench");
  const std::int64_t schema = I64(Field(meta, "storebench", "schema"), "storebench.schema");
  if (schema != kJsonSchemaVersion) {
    Fail("storebench.schema", "unsupported schema " + std::to_string(schema) + " (this storebench reads schema " +
                                  std::to_string(kJsonSchemaVersion) + ")");
  }
  const Json& layout = Object(Field(meta, "storebench", "histogram"), "storebench.histogram");
  const std::string lpath = "storebench.histogram";
  if (U64(Field(layout, lpath, "unit_ns"), lpath + ".unit_ns") != 1 ||
      U64(Field(layout, lpath, "sub_buckets"), lpath + ".sub_buckets") != 2048 ||
      U64(Field(layout, lpath, "max_trackable_ns"), lpath + ".max_trackable_ns") != Histogram::kMaxTrackable ||
      U64(Field(layout, lpath, "buckets"), lpath + ".buckets") != Histogram::BucketCount()) {
    Fail(lpath, "histogram layout differs from this storebench's (unit_ns 1, sub_buckets 2048, max_trackable_ns " +
                    std::to_string(Histogram::kMaxTrackable) + ", buckets " +
                    std::to_string(Histogram::BucketCount()) + ")");
  }

  RunReport r;
  r.tool_version = String(Field(meta, "storebench", "version"), "storebench.version");
  r.command = String(Field(doc, top, "command"), "command");
  r.binding = String(Field(doc, top, "binding"), "binding");
  if (doc.contains("label")) r.label = String(doc["label"], "label");
  r.host = ReadStringMap(Field(doc, top, "host"), "host");
  r.properties = ReadStringMap(Field(doc, top, "properties"), "properties");
  const Json& phases = Array(Field(doc, top, "phases"), "phases");
  for (std::size_t i = 0; i < phases.size(); ++i) r.phases.push_back(ReadPhase(phases[i], Child("phases", i)));
  if (doc.contains("parts")) {
    const Json& parts = Array(doc["parts"], "parts");
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string path = Child("parts", i);
      const Json& j = Object(parts[i], path);
      PartSummary part;
      part.file = String(Field(j, path, "file"), Child(path, "file"));
      part.hostname = String(Field(j, path, "hostname"), Child(path, "hostname"));
      part.client_id = I64(Field(j, path, "client_id"), Child(path, "client_id"));
      const Json& ph = Array(Field(j, path, "phases"), Child(path, "phases"));
      for (std::size_t k = 0; k < ph.size(); ++k) {
        const std::string pp = Child(Child(path, "phases"), k);
        const Json& x = Object(ph[k], pp);
        PartSummary::Phase p;
        p.phase = String(Field(x, pp, "phase"), Child(pp, "phase"));
        p.threads = static_cast<int>(I64(Field(x, pp, "threads"), Child(pp, "threads")));
        p.start_unix_ms = I64(Field(x, pp, "start_unix_ms"), Child(pp, "start_unix_ms"));
        p.runtime_ms = I64(Field(x, pp, "runtime_ms"), Child(pp, "runtime_ms"));
        p.operations = U64(Field(x, pp, "operations"), Child(pp, "operations"));
        p.throughput_ops_per_s = Double(Field(x, pp, "throughput_ops_per_s"), Child(pp, "throughput_ops_per_s"));
        part.phases.push_back(std::move(p));
      }
      r.parts.push_back(std::move(part));
    }
  }
  return r;
}

}  // namespace storebench
