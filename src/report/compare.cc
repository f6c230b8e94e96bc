#include "report/compare.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "core/error.h"

namespace storebench {
namespace {

// Removes the last occurrence of `token` that starts at a '-' and ends at
// the end of `s` or before a '-'. Returns whether it removed one.
bool RemoveToken(std::string& s, const std::string& token) {
  std::size_t pos = s.rfind(token);
  while (pos != std::string::npos) {
    const std::size_t end = pos + token.size();
    if (end == s.size() || s[end] == '-') {
      s.erase(pos, token.size());
      return true;
    }
    if (pos == 0) break;
    pos = s.rfind(token, pos - 1);
  }
  return false;
}

// Removes "-KEY=..." up to the next '-' or the end.
bool RemoveKeyToken(std::string& s, const std::string& key) {
  const std::string head = "-" + key + "=";
  const std::size_t pos = s.find(head);
  if (pos == std::string::npos) return false;
  std::size_t end = s.find('-', pos + head.size());
  s.erase(pos, (end == std::string::npos ? s.size() : end) - pos);
  return true;
}

std::string Fixed1(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

bool IsNumber(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

struct Cell {
  double sum = 0;
  int ok = 0;
  int failed = 0;
  bool interrupted = false;
};

std::string CellText(const Cell& c) {
  if (c.ok == 0) return c.failed > 0 ? "failed" : "-";
  return Fixed1(c.sum / c.ok) + (c.interrupted ? "*" : "");
}

}  // namespace

std::string CompareRowKey(const std::string& label, const std::string& by, const std::string& value) {
  std::string key = label;
  // A trailing -repN: repetitions share a row (and a cell).
  const std::size_t rep = key.rfind("-rep");
  if (rep != std::string::npos && rep + 4 < key.size() &&
      key.find_first_not_of("0123456789", rep + 4) == std::string::npos) {
    key.erase(rep);
  }
  if (by == "threads") {
    if (!RemoveKeyToken(key, "threadcount")) RemoveToken(key, "-" + value);
  } else if (by == "workload") {
    if (!RemoveKeyToken(key, by)) RemoveToken(key, "-" + value);
  } else {
    RemoveKeyToken(key, by);
  }
  return key;
}

std::string CompareTable(const std::vector<LoadedRun>& runs, const CompareOptions& o) {
  if (o.metric != "throughput" && o.metric != "p99" && o.metric != "avg") {
    throw ConfigError("compare: --metric '" + o.metric + "': expected throughput, p99 or avg");
  }
  if (o.format != "text" && o.format != "markdown" && o.format != "csv") {
    throw ConfigError("compare: --format '" + o.format + "': expected text, markdown or csv");
  }
  std::vector<std::string> rows, cols;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  bool any_interrupted = false;
  for (const LoadedRun& run : runs) {
    if (run.is_load) continue;
    const std::optional<std::string> value = run.AxisValue(o.by);
    const std::string col = value ? *value : "?";
    const std::string row = CompareRowKey(run.label, o.by, col);
    if (std::find(rows.begin(), rows.end(), row) == rows.end()) rows.push_back(row);
    if (std::find(cols.begin(), cols.end(), col) == cols.end()) cols.push_back(col);
    Cell& c = cells[{row, col}];
    const PhaseResult* ph = run.MainPhase();
    if (ph == nullptr || run.status == "failed" || run.status == "pending") {
      ++c.failed;
      continue;
    }
    double v = 0;
    if (o.metric == "throughput") {
      v = ph->throughput_ops_per_s;
    } else {
      const Histogram h = CombinedLatency(*ph);
      v = o.metric == "avg" ? h.mean() / 1000.0 : static_cast<double>(h.ValueAtPercentile(99)) / 1000.0;
    }
    c.sum += v;
    ++c.ok;
    if (run.status == "interrupted") c.interrupted = any_interrupted = true;
  }
  if (std::all_of(cols.begin(), cols.end(), IsNumber)) {
    std::stable_sort(cols.begin(), cols.end(),
                     [](const std::string& a, const std::string& b) { return std::strtod(a.c_str(), nullptr) < std::strtod(b.c_str(), nullptr); });
  }
  const std::string unit = o.metric == "throughput" ? "throughput (ops/s)" : o.metric == "p99" ? "p99 latency (us)" : "average latency (us)";
  std::vector<std::vector<std::string>> table;
  table.push_back({"label"});
  for (const auto& c : cols) table[0].push_back(c);
  for (const auto& r : rows) {
    std::vector<std::string> line = {r};
    for (const auto& c : cols) {
      auto it = cells.find({r, c});
      line.push_back(it == cells.end() ? "-" : CellText(it->second));
    }
    table.push_back(std::move(line));
  }
  std::ostringstream out;
  if (o.format == "csv") {
    for (const auto& line : table) {
      for (std::size_t i = 0; i < line.size(); ++i) {
        std::string f = line[i];
        if (f.find_first_of(",\"\n") != std::string::npos) {
          std::string q = "\"";
          for (char ch : f) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
          f = q + "\"";
        }
        out << (i ? "," : "") << f;
      }
      out << "\n";
    }
    return out.str();
  }
  std::vector<std::size_t> width(table[0].size(), 0);
  for (const auto& line : table) {
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  }
  auto pad = [](const std::string& s, std::size_t w, bool left) {
    const std::string fill(w - s.size(), ' ');
    return left ? s + fill : fill + s;
  };
  if (o.format == "text") {
    out << unit << " by " << o.by << "\n";
    for (const auto& line : table) {
      std::string text;
      for (std::size_t i = 0; i < line.size(); ++i) text += (i ? "  " : "") + pad(line[i], width[i], i == 0);
      out << text << "\n";
    }
  } else {
    out << "**" << unit << " by " << o.by << "**\n\n";
    for (std::size_t r = 0; r < table.size(); ++r) {
      std::string text = "|";
      for (std::size_t i = 0; i < table[r].size(); ++i) {
        std::string cell = table[r][i];
        std::string esc;
        for (char ch : cell) esc += ch == '|' ? std::string("\\|") : std::string(1, ch);
        text += " " + pad(esc, std::max(width[i], esc.size()), i == 0) + " |";
      }
      out << text << "\n";
      if (r == 0) {
        std::string sep = "|";
        for (std::size_t i = 0; i < table[0].size(); ++i) {
          const std::size_t w = std::max<std::size_t>(width[i], 3);
          sep += i == 0 ? " " + std::string(w, '-') + " |" : " " + std::string(w - 1, '-') + ": |";
        }
        out << sep << "\n";
      }
    }
  }
  if (any_interrupted) out << "* interrupted: partial result\n";
  return out.str();
}

}  // namespace storebench
