// A property whose value picks one row of a binding's constant table (a
// compressor, a column type): the choices offered to Properties::GetChoice
// are the rows' names, and the chosen row comes back, so a binding keeps
// only its table (of NamedValue, or any type with a `const char* name`).
// Setup-time only (allocates); throws ConfigError as GetChoice does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/properties.h"

namespace storebench {

// A row of such a table: a name and the engine's value for it.
template <typename T>
struct NamedValue {
  const char* name;
  T value;
};

template <typename Row, std::size_t N>
const Row& ChoiceProperty(const Properties& props, const std::string& key, const std::string& def,
                          const Row (&rows)[N]) {
  std::vector<std::string> names;
  for (const Row& r : rows) names.emplace_back(r.name);
  const std::string chosen = props.GetChoice(key, def, names);
  for (const Row& r : rows) {
    if (chosen == r.name) return r;
  }
  return rows[0];  // not reached: GetChoice returns one of the names
}

// For "built without it; available: ..." messages: the first row's name
// (the table's "none") and the names of the other rows whose value `works`.
template <typename T, std::size_t N, typename Works>
std::string AvailableChoices(const NamedValue<T> (&rows)[N], Works&& works) {
  std::string have = rows[0].name;
  for (std::size_t i = 1; i < N; ++i) {
    if (works(rows[i].value)) have += std::string(", ") + rows[i].name;
  }
  return have;
}

}  // namespace storebench
