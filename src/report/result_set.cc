#include "report/result_set.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "report/json_report.h"
#include "report/text_report.h"

namespace storebench {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::optional<RunReport> ReadResultFile(const std::string& path, bool required) {
  std::ifstream f(path);
  if (!f) {
    if (required) throw ConfigError("cannot read '" + path + "': " + std::strerror(errno));
    return std::nullopt;
  }
  try {
    return ReadJson(f);
  } catch (const ConfigError& e) {
    if (required) throw ConfigError("'" + path + "' is not a storebench result (" + e.what() + ")");
    return std::nullopt;
  }
}

std::string StatusOf(const RunReport& r) {
  for (const auto& ph : r.phases) {
    if (ph.interrupted) return "interrupted";
  }
  for (const auto& ph : r.phases) {
    if (ph.errors_exceeded) return "failed";
  }
  return "ok";
}

std::string IndexString(const Json& j, const char* key, const std::string& where) {
  if (!j.contains(key)) return "";
  if (!j[key].is_string()) throw ConfigError(where + ": \"" + key + "\" must be a string");
  return j[key].get<std::string>();
}

void LoadIndex(const std::string& dir, std::vector<LoadedRun>& out) {
  const std::string index_path = (fs::path(dir) / "index.json").string();
  std::ifstream f(index_path);
  if (!f) throw ConfigError("'" + dir + "' is a directory without index.json (not a storebench plan result directory)");
  Json doc;
  try {
    doc = Json::parse(f);
  } catch (const Json::parse_error& e) {
    throw ConfigError("'" + index_path + "': not valid JSON");
  }
  if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array()) {
    throw ConfigError("'" + index_path + "': expected an object with a \"runs\" array");
  }
  for (const char* list : {"loads", "runs"}) {
    if (!doc.contains(list)) continue;
    if (!doc[list].is_array()) throw ConfigError("'" + index_path + "': \"" + list + "\" must be an array");
    for (std::size_t i = 0; i < doc[list].size(); ++i) {
      const Json& e = doc[list][i];
      const std::string where = index_path + ": " + list + "[" + std::to_string(i) + "]";
      if (!e.is_object()) throw ConfigError(where + ": expected an object");
      LoadedRun run;
      run.is_load = std::string(list) == "loads";
      run.id = IndexString(e, "id", where);
      run.label = run.is_load ? run.id : IndexString(e, "label", where);
      run.status = IndexString(e, "status", where);
      run.detail = IndexString(e, "detail", where);
      const std::string file = IndexString(e, "file", where);
      if (e.contains("axes") && e["axes"].is_object()) {
        for (const auto& [k, v] : e["axes"].items()) run.axes.emplace_back(k, v.is_string() ? v.get<std::string>() : v.dump());
      }
      if (run.is_load && e.contains("binding") && e["binding"].is_string()) run.axes.emplace_back("binding", e["binding"].get<std::string>());
      if (!file.empty()) {
        run.file = (fs::path(dir) / file).string();
        run.report = ReadResultFile(run.file, false);
        if (run.report && !run.report->label.empty()) run.label = run.report->label;
        if (!run.report) run.file.clear();
      }
      if (run.status.empty()) run.status = run.report ? StatusOf(*run.report) : "pending";
      out.push_back(std::move(run));
    }
  }
}

}  // namespace

const PhaseResult* LoadedRun::MainPhase() const {
  if (!report || report->phases.empty()) return nullptr;
  for (const auto& ph : report->phases) {
    if (ph.phase == "run") return &ph;
  }
  return &report->phases.back();
}

std::optional<std::string> LoadedRun::AxisValue(const std::string& by) const {
  const PhaseResult* ph = MainPhase();
  if (by == "threads" && ph) return std::to_string(ph->threads);
  if (by == "target" && ph) return FormatDouble(ph->target_ops_per_s);
  const std::string key = by == "threads" ? "threadcount" : by;
  // The plan's grid values first: "workload" there is the file, not the property.
  for (const auto& [k, v] : axes) {
    if (k == key) return key == "workload" ? fs::path(v).filename().string() : v;
  }
  if (report) {
    for (const auto& [k, v] : report->properties) {
      if (k == key) return v;
    }
  }
  // Not given anywhere (a run without a result): the defaults.
  if (by == "threads") return std::string("1");
  if (by == "target") return std::string("0");
  return std::nullopt;
}

std::vector<LoadedRun> LoadResults(const std::vector<std::string>& paths) {
  std::vector<LoadedRun> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      LoadIndex(p, out);
      continue;
    }
    LoadedRun run;
    run.file = p;
    run.id = fs::path(p).filename().string();
    run.report = ReadResultFile(p, true);
    run.label = run.report->label.empty() ? run.report->binding : run.report->label;
    run.status = StatusOf(*run.report);
    out.push_back(std::move(run));
  }
  return out;
}

const Histogram& ReportedLatency(const PhaseResult& phase, const OpResult& op) {
  return phase.measurement_interval == "op" ? op.service : op.intended;
}

Histogram CombinedLatency(const PhaseResult& phase) {
  Histogram h;
  for (const auto& op : phase.ops) {
    if (op.name.ends_with("-FAILED")) continue;
    h.Merge(ReportedLatency(phase, op));
  }
  return h;
}

}  // namespace storebench
