// The binding registry: every binding, by name. Bindings are listed once,
// in src/db/bindings.def.
#pragma once

#include <span>
#include <string_view>

#include "db/binding.h"

namespace storebench {

// All bindings, in the order of bindings.def.
std::span<const BindingInfo* const> AllBindings();
// The binding named `name`, or throws ConfigError listing the known ones.
const BindingInfo& FindBinding(std::string_view name);

}  // namespace storebench
