// Errors at the edges (parsing, setup): exceptions carrying a one-line
// message. The CLI catches them, prints "storebench: <message>" and exits 2.
// Never thrown from the per-operation hot path.
#pragma once

#include <stdexcept>
#include <string>

namespace storebench {

// Bad user input: a property, a workload file, a command-line option.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(const std::string& msg) : std::runtime_error(msg) {}
};

// A store that cannot be opened or prepared (unwritable dir, unreachable server).
class SetupError : public std::runtime_error {
 public:
  explicit SetupError(const std::string& msg) : std::runtime_error(msg) {}
};

}  // namespace storebench
