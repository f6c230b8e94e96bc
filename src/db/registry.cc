// The bindings this build has: src/db/bindings.def lists every binding, and
// the configure writes those turned on (STOREBENCH_WITH_<NAME>, cmake/Bindings.cmake)
// to db/bindings_enabled.def in the build folder.
#include "db/registry.h"

#include <string>
#include <vector>

#include "core/error.h"

namespace storebench {

#define STOREBENCH_BINDING(name) const BindingInfo& name##_binding();
#define STOREBENCH_BINDING_OFF(name, upper, package)
#include "db/bindings_enabled.def"
#undef STOREBENCH_BINDING
#undef STOREBENCH_BINDING_OFF

namespace {

// A binding of bindings.def that this build left out, and how to get it.
struct BindingLeftOut {
  std::string_view name, option, package;
};
constexpr BindingLeftOut kLeftOut[] = {
#define STOREBENCH_BINDING(name)
#define STOREBENCH_BINDING_OFF(name, upper, package) {#name, "STOREBENCH_WITH_" upper, package},
#include "db/bindings_enabled.def"
#undef STOREBENCH_BINDING
#undef STOREBENCH_BINDING_OFF
    {"", "", ""}};

}  // namespace

std::span<const BindingInfo* const> AllBindings() {
  static const BindingInfo* const kAll[] = {
#define STOREBENCH_BINDING(name) &name##_binding(),
#define STOREBENCH_BINDING_OFF(name, upper, package)
#include "db/bindings_enabled.def"
#undef STOREBENCH_BINDING
#undef STOREBENCH_BINDING_OFF
  };
  return kAll;
}

const BindingInfo& FindBinding(std::string_view name) {
  std::vector<std::string> names;
  for (const BindingInfo* b : AllBindings()) {
    if (b->name == name) return *b;
    names.push_back(b->name);
  }
  for (const BindingLeftOut& off : kLeftOut) {
    if (!off.name.empty() && off.name == name) {
      throw ConfigError("binding '" + std::string(name) + "' is not in this build: configure with -D" +
                        std::string(off.option) + "=ON (it needs " + std::string(off.package) + ")");
    }
  }
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  std::string hint = ClosestMatch(name, names);
  throw ConfigError("unknown binding '" + std::string(name) + "'" +
                    (hint.empty() ? "" : " (did you mean '" + hint + "'?)") + "; known bindings: " + list);
}

}  // namespace storebench
