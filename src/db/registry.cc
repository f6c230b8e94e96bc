#include "db/registry.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace storebench {

#define STOREBENCH_BINDING(name) const BindingInfo& name##_binding();
#include "db/bindings.def"
#undef STOREBENCH_BINDING

std::span<const BindingInfo* const> AllBindings() {
  static const BindingInfo* const kAll[] = {
#define STOREBENCH_BINDING(name) &name##_binding(),
#include "db/bindings.def"
#undef STOREBENCH_BINDING
  };
  return kAll;
}

const BindingInfo& FindBinding(std::string_view name) {
  std::vector<std::string> names;
  for (const BindingInfo* b : AllBindings()) {
    if (b->name == name) return *b;
    names.push_back(b->name);
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  std::string hint = ClosestMatch(name, names);
  throw ConfigError("unknown binding '" + std::string(name) + "'" +
                    (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + "; known bindings: " + list);
}

}  // namespace storebench
