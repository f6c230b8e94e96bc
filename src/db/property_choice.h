// A property whose value picks one row of a binding's constant table (a
// compressor, a column type): the choices offered to Properties::GetChoice
// are the rows' names, and the chosen row comes back, so a binding keeps
// only its table. Row is any type with a `const char* name` member.
// Setup-time only (allocates); throws ConfigError as GetChoice does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/properties.h"

namespace storebench {

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

}  // namespace storebench
