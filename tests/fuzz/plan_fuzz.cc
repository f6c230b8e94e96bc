// Fuzzes the plan parser (plan/plan.h ParsePlanText): a plan file is TOML
// written by hand, read by toml++ and then expanded into runs and checked as
// the run command would check them. Bad input must be a ConfigError (one
// line naming file:line), nothing else. Run from the repository root, plans
// may name the workloads/ files.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.h"
#include "plan/plan.h"

using namespace storebench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const Plan plan = ParsePlanText(text, "fuzz.toml");
    for (const PlannedRun& run : plan.runs) (void)RunArgs(plan, run);
    for (const LoadStep& load : plan.loads) (void)LoadArgs(plan, load);
  } catch (const ConfigError&) {
  }
  return 0;
}
