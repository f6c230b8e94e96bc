#include "job/part.h"

#include <charconv>

#include "core/error.h"

namespace storebench {

Slice SplitRange(std::int64_t start, std::int64_t count, std::int64_t k, std::int64_t n) {
  const std::int64_t base = count / n;
  const std::int64_t extra = count % n;
  Slice s;
  s.start = start + k * base + (k < extra ? k : extra);
  s.count = base + (k < extra ? 1 : 0);
  return s;
}

PartSpec ParsePart(const std::string& text, const std::string& what) {
  const auto bad = [&](const std::string& why) {
    return ConfigError(what + " '" + text + "': " + why);
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad("expected K/N, e.g. 0/4 (process K of N, 0-based)");
  auto number = [&](std::string_view s, std::int64_t* v) {
    if (s.empty()) return false;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *v);
    return ec == std::errc() && p == s.data() + s.size();
  };
  PartSpec part;
  const std::string_view all(text);
  if (!number(all.substr(0, slash), &part.id) || !number(all.substr(slash + 1), &part.count)) {
    throw bad("expected K/N with whole numbers, e.g. 0/4 (process K of N, 0-based)");
  }
  if (part.count < 1) throw bad("N must be at least 1");
  if (part.id < 0 || part.id >= part.count) throw bad("K must be in 0 .. N-1 (0-based)");
  return part;
}

}  // namespace storebench
