#include "cli/aerospike_flags.h"

#include <charconv>
#include <cstdint>

#include "core/error.h"

namespace storebench {
namespace {

[[noreturn]] void Bad(std::string_view flag, std::string_view value, std::string_view why) {
  throw ConfigError("option " + std::string(flag) + " '" + std::string(value) + "': " + std::string(why));
}

// A whole non-negative decimal number, or nothing.
bool ParseCount(std::string_view s, std::int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

std::int64_t Count(std::string_view flag, std::string_view value, std::string_view text, std::int64_t min) {
  std::int64_t n = 0;
  if (!ParseCount(text, &n)) Bad(flag, value, "'" + std::string(text) + "' is not a whole number");
  if (n < min) Bad(flag, value, "must be at least " + std::to_string(min));
  return n;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    std::size_t at = s.find(sep, start);
    parts.push_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + 1;
  }
}

// -o: every bin's size in bytes; all bins must share one (YCSB's fields do).
PropertyList ObjectSpec(std::string_view flag, std::string_view value) {
  std::int64_t size = -1;
  std::int64_t bins = 0;
  for (std::string_view bin : Split(value, ',')) {
    std::int64_t n = 0;
    if (bin == "I" || bin == "I8") {
      n = 8;
    } else if (bin.size() >= 2 && (bin[0] == 'S' || bin[0] == 'B')) {
      std::string_view len = bin.substr(bin[1] == ':' ? 2 : 1);
      n = Count(flag, value, len, 1);
    } else {
      Bad(flag, value, "bin '" + std::string(bin) + "' is not S:N (string of N bytes), B:N (N bytes) or I (integer)");
    }
    if (size >= 0 && n != size) {
      Bad(flag, value, "bins of different sizes (" + std::to_string(size) + " and " + std::to_string(n) +
                           " bytes); storebench's fields share one length");
    }
    size = n;
    ++bins;
  }
  return {{"fieldcount", std::to_string(bins)},
          {"fieldlength", std::to_string(size)},
          {"fieldlengthdistribution", "constant"}};
}

// -w: the operation mix.
PropertyList Workload(std::string_view flag, std::string_view value) {
  std::vector<std::string_view> parts = Split(value, ',');
  const std::string_view kind = parts[0];
  if (kind == "I") {
    if (parts.size() != 1) Bad(flag, value, "I (insert only) takes no percentage");
    return {{"insertproportion", "1"}, {"readproportion", "0"}, {"updateproportion", "0"},
            {"scanproportion", "0"}, {"readmodifywriteproportion", "0"}};
  }
  if (kind == "RU") {
    if (parts.size() > 2) Bad(flag, value, "expected RU or RU,PERCENT_READS");
    std::int64_t reads = 50;
    if (parts.size() == 2) {
      reads = Count(flag, value, parts[1], 0);
      if (reads > 100) Bad(flag, value, "the read percentage must be 0..100");
    }
    auto fraction = [](std::int64_t pct) {
      std::string s = std::to_string(pct / 100) + "." + std::to_string(pct % 100 / 10) + std::to_string(pct % 10);
      while (s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
      return s;
    };
    return {{"readproportion", fraction(reads)}, {"updateproportion", fraction(100 - reads)},
            {"insertproportion", "0"}, {"scanproportion", "0"}, {"readmodifywriteproportion", "0"},
            {"readallfields", "true"}, {"writeallfields", "true"}};
  }
  Bad(flag, value, "expected I (insert only) or RU,PERCENT_READS (read/update)");
}

}  // namespace

bool IsAerospikeFlag(std::string_view f) {
  return f == "-k" || f == "-o" || f == "-w" || f == "-z" || f == "-d" || f == "-g";
}

PropertyList ExpandAerospikeFlag(std::string_view flag, std::string_view value) {
  if (flag == "-k") return {{"recordcount", std::to_string(Count(flag, value, value, 1))}};
  if (flag == "-o") return ObjectSpec(flag, value);
  if (flag == "-w") return Workload(flag, value);
  if (flag == "-z") return {{"threadcount", std::to_string(Count(flag, value, value, 1))}};
  if (flag == "-d") {
    return {{"maxexecutiontime", std::to_string(Count(flag, value, value, 1))}, {"operationcount", "0"}};
  }
  if (flag == "-g") return {{"target", std::to_string(Count(flag, value, value, 0))}};
  throw ConfigError("option " + std::string(flag) + " is not an Aerospike-style flag");
}

}  // namespace storebench
