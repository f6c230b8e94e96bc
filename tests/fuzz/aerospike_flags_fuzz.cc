// Fuzzes the Aerospike-style flag expansion (cli/aerospike_flags.h): -k, -o
// (bin specs such as S:2048,B:2048), -w (RU,80 / I), -z, -d and -g values as
// typed on the command line. The first byte picks the flag, the rest is its
// value. Bad input must be a ConfigError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cli/aerospike_flags.h"
#include "core/error.h"

using namespace storebench;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr std::string_view kFlags[] = {"-k", "-o", "-w", "-z", "-d", "-g"};
  const std::string_view flag = kFlags[data[0] % 6];
  const std::string_view value(reinterpret_cast<const char*>(data + 1), size - 1);
  if (!IsAerospikeFlag(flag)) __builtin_trap();
  try {
    (void)ExpandAerospikeFlag(flag, value);
  } catch (const ConfigError&) {
  }
  return 0;
}
