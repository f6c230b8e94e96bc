#include "core/properties.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace storebench {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\f' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\f' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

void Properties::LoadText(std::string_view text, const std::string& origin_name) {
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string logical(text.substr(pos, end - pos));
    if (!logical.empty() && logical.back() == '\r') logical.pop_back();  // CRLF files
    ++line_no;
    const std::size_t first_line = line_no;
    pos = end + 1;
    // Backslash continuation (an odd number of trailing backslashes).
    auto continues = [](const std::string& l) {
      std::size_t n = 0;
      for (auto it = l.rbegin(); it != l.rend() && *it == '\\'; ++it) ++n;
      return n % 2 == 1;
    };
    std::string_view trimmed_first = Trim(logical);
    bool is_comment = !trimmed_first.empty() && (trimmed_first[0] == '#' || trimmed_first[0] == '!');
    while (!is_comment && continues(logical) && pos <= text.size()) {
      logical.pop_back();
      std::size_t e2 = text.find('\n', pos);
      if (e2 == std::string_view::npos) e2 = text.size();
      logical += std::string(Trim(text.substr(pos, e2 - pos)));  // Trim drops a CR too
      ++line_no;
      pos = e2 + 1;
    }
    std::string_view line = Trim(logical);
    if (line.empty() || line[0] == '#' || line[0] == '!') {
      if (end == text.size()) break;
      continue;
    }
    std::size_t sep = line.find_first_of("=:");
    std::size_t blank = line.find_first_of(" \t");
    std::string_view key, value;
    if (sep != std::string_view::npos && (blank == std::string_view::npos || blank > sep)) {
      key = Trim(line.substr(0, sep));
      value = Trim(line.substr(sep + 1));
    } else if (blank != std::string_view::npos) {
      key = line.substr(0, blank);
      value = Trim(line.substr(blank));
      if (!value.empty() && (value[0] == '=' || value[0] == ':')) value = Trim(value.substr(1));
    } else {
      throw ConfigError(origin_name + ":" + std::to_string(first_line) + ": malformed line '" +
                        std::string(line) + "' (expected key=value)");
    }
    if (key.empty()) {
      throw ConfigError(origin_name + ":" + std::to_string(first_line) + ": malformed line '" +
                        std::string(line) + "' (empty key)");
    }
    entries_[std::string(key)] = Entry{std::string(value), origin_name + ":" + std::to_string(first_line)};
    if (end == text.size()) break;
  }
}

void Properties::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError("cannot read property file '" + path + "': " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  LoadText(ss.str(), path);
}

void Properties::SetFromArg(std::string_view arg) {
  std::size_t eq = arg.find('=');
  if (eq == std::string_view::npos || Trim(arg.substr(0, eq)).empty()) {
    throw ConfigError("-p '" + std::string(arg) + "': expected key=value");
  }
  Set(std::string(Trim(arg.substr(0, eq))), std::string(Trim(arg.substr(eq + 1))), "-p");
}

void Properties::Set(const std::string& key, const std::string& value, const std::string& origin) {
  entries_[key] = Entry{value, origin};
}

std::optional<std::string> Properties::Get(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.value;
}

std::string Properties::OriginOf(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? std::string() : it->second.origin;
}

void Properties::Fail(const std::string& key, const std::string& expected) const {
  auto it = entries_.find(key);
  std::string got = it == entries_.end() ? "" : it->second.value;
  std::string origin = it == entries_.end() ? "default" : it->second.origin;
  throw ConfigError("property '" + key + "' = '" + got + "' (" + origin + "): expected " + expected);
}

std::string Properties::GetString(const std::string& key, const std::string& def) const {
  known_.insert(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    defaults_used_[key] = def;
    return def;
  }
  return it->second.value;
}

std::int64_t Properties::GetInt(const std::string& key, std::int64_t def, std::int64_t min,
                                std::int64_t max) const {
  known_.insert(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    defaults_used_[key] = std::to_string(def);
    return def;
  }
  const std::string& v = it->second.value;
  std::int64_t out = 0;
  auto range_text = [&] {
    std::string r = "an integer";
    if (min != INT64_MIN && max != INT64_MAX) {
      r += " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    } else if (min != INT64_MIN) {
      r += " >= " + std::to_string(min);
    } else if (max != INT64_MAX) {
      r += " <= " + std::to_string(max);
    }
    return r;
  };
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || v.empty()) {
    // Accept integral doubles written like "1e6" or "1000.0" (YCSB users do).
    char* endp = nullptr;
    errno = 0;
    double d = std::strtod(v.c_str(), &endp);
    const bool hex = v.find_first_of("xX") != std::string::npos;
    if (v.empty() || hex || endp != v.c_str() + v.size() || errno != 0 || d != std::floor(d) ||
        std::fabs(d) > 9.2e18) {
      Fail(key, range_text());
    }
    out = static_cast<std::int64_t>(d);
  }
  if (out < min || out > max) Fail(key, range_text());
  return out;
}

double Properties::GetDouble(const std::string& key, double def, double min, double max) const {
  known_.insert(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    std::ostringstream os;
    os << def;
    defaults_used_[key] = os.str();
    return def;
  }
  const std::string& v = it->second.value;
  char* endp = nullptr;
  errno = 0;
  double d = std::strtod(v.c_str(), &endp);
  auto range_text = [&] {
    std::ostringstream os;
    os << "a number";
    if (min > -1e300 && max < 1e300) {
      os << " in [" << min << ", " << max << "]";
    } else if (min > -1e300) {
      os << " >= " << min;
    } else if (max < 1e300) {
      os << " <= " << max;
    }
    return os.str();
  };
  if (v.empty() || endp != v.c_str() + v.size() || errno != 0 || !std::isfinite(d)) Fail(key, range_text());
  if (d < min || d > max) Fail(key, range_text());
  return d;
}

bool Properties::GetBool(const std::string& key, bool def) const {
  known_.insert(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    defaults_used_[key] = def ? "true" : "false";
    return def;
  }
  std::string v = Lower(it->second.value);
  if (v == "true" || v == "1" || v == "yes" || v == "on") return true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return false;
  Fail(key, "true or false");
}

std::string Properties::GetChoice(const std::string& key, const std::string& def,
                                  const std::vector<std::string>& choices) const {
  known_.insert(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    defaults_used_[key] = def;
    return def;
  }
  std::string v = Lower(it->second.value);
  for (const auto& c : choices) {
    if (Lower(c) == v) return c;
  }
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "" : ", ") + c;
  std::string hint = ClosestMatch(v, choices);
  Fail(key, "one of " + list + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
}

std::uint64_t Properties::GetSize(const std::string& key, std::uint64_t def) const {
  known_.insert(key);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    defaults_used_[key] = std::to_string(def);
    return def;
  }
  std::string v = Lower(it->second.value);
  std::uint64_t mult = 1;
  if (!v.empty() && v.back() == 'b') {
    v.pop_back();
    if (!v.empty() && v.back() == 'i') v.pop_back();  // KiB, MiB, ...
  }
  if (!v.empty()) {
    switch (v.back()) {
      case 'k': mult = 1ull << 10; break;
      case 'm': mult = 1ull << 20; break;
      case 'g': mult = 1ull << 30; break;
      case 't': mult = 1ull << 40; break;
      default: break;
    }
    if (mult != 1) v.pop_back();
  }
  std::uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size() || n > UINT64_MAX / mult) {
    Fail(key, "a size in bytes, optionally with a k, M, G or T suffix");
  }
  return n * mult;
}

std::map<std::string, std::string> Properties::Effective() const {
  std::map<std::string, std::string> out = defaults_used_;
  for (const auto& [k, e] : entries_) out[k] = e.value;
  return out;
}

void Properties::CheckUnknown(const std::vector<std::string>& extra_known) const {
  std::vector<std::string> all(known_.begin(), known_.end());
  all.insert(all.end(), extra_known.begin(), extra_known.end());
  std::set<std::string> known_set(all.begin(), all.end());
  for (const auto& [key, entry] : entries_) {
    if (known_set.count(key)) continue;
    std::string hint = ClosestMatch(key, all);
    throw ConfigError("unknown property '" + key + "' (" + entry.origin + ")" +
                      (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  }
}

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = SIZE_MAX;
  std::string lw = Lower(word);
  for (const auto& c : candidates) {
    std::size_t d = EditDistance(lw, Lower(c));
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  return best_d <= limit ? best : std::string();
}

}  // namespace storebench
