// Properties: YCSB-compatible key=value configuration.
//
// Files given with -P are read in order, then -p overrides; a later Set wins.
// Each value remembers where it came from ("workloads/workloada:12", "-p")
// so that errors can name the place. Typed getters parse and validate once,
// at setup, and throw ConfigError with a one-line message; every key read
// through a getter is marked as known, so that CheckUnknown can reject typos.
//
// Not thread-safe for writes; read-only use from many threads is fine once
// setup is done (but the hot path should use typed option structs instead).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace storebench {

class Properties {
 public:
  struct Entry {
    std::string value;
    std::string origin;  // "file:line" or "-p" or "default"
  };

  // Parses Java-properties text (# and ! comments, key=value or key:value or
  // "key value", backslash line continuation, leading/trailing blanks trimmed).
  // Throws ConfigError naming origin_name:line for a malformed line.
  void LoadText(std::string_view text, const std::string& origin_name);
  // Reads a file; throws ConfigError if it cannot be read or is malformed.
  void LoadFile(const std::string& path);
  // Parses "key=value" as given to -p; throws ConfigError when there is no '='.
  void SetFromArg(std::string_view arg);
  void Set(const std::string& key, const std::string& value, const std::string& origin = "-p");
  void Remove(const std::string& key) { entries_.erase(key); }

  bool Has(const std::string& key) const { return entries_.count(key) != 0; }
  std::optional<std::string> Get(const std::string& key) const;
  const std::map<std::string, Entry>& entries() const { return entries_; }

  // Typed getters: return the default when the key is absent; throw
  // ConfigError ("property 'recordcount' = 'abc' (-p): expected ...")
  // when the value does not parse or is out of range. All mark the key known.
  std::string GetString(const std::string& key, const std::string& def) const;
  std::int64_t GetInt(const std::string& key, std::int64_t def,
                      std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX) const;
  double GetDouble(const std::string& key, double def, double min = -1e300, double max = 1e300) const;
  bool GetBool(const std::string& key, bool def) const;
  // One of `choices` (case-insensitive); error lists the choices.
  std::string GetChoice(const std::string& key, const std::string& def,
                        const std::vector<std::string>& choices) const;
  // Sizes with an optional suffix: 64k, 8M, 1G, 2T (binary multiples).
  std::uint64_t GetSize(const std::string& key, std::uint64_t def) const;

  // Marks keys as known without reading them (accepted properties).
  void MarkKnown(const std::string& key) const { known_.insert(key); }
  bool IsKnown(const std::string& key) const { return known_.count(key) != 0; }

  // Throws ConfigError for the first key that no getter read and that is
  // not MarkKnown'ed, suggesting the closest known key when one is close.
  // `extra_known` are further valid names (e.g. every binding's properties).
  void CheckUnknown(const std::vector<std::string>& extra_known = {}) const;

  // Every property in force: the ones set, plus the defaults that getters
  // returned for absent keys (as text).
  std::map<std::string, std::string> Effective() const;

  // "file:line" / "-p" for a key, or "" when absent.
  std::string OriginOf(const std::string& key) const;

 private:
  [[noreturn]] void Fail(const std::string& key, const std::string& expected) const;

  std::map<std::string, Entry> entries_;
  mutable std::set<std::string> known_;
  mutable std::map<std::string, std::string> defaults_used_;
};

// Levenshtein distance; used for "did you mean" suggestions.
std::size_t EditDistance(std::string_view a, std::string_view b);
// The candidate closest to `word`, or "" when none is within a small distance.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace storebench
