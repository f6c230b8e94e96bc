// The storebench command line: turns arguments into phases run against a
// binding, and prints/writes the results. Every error of input or setup is
// one line on `err` and exit code 2.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace storebench {

// Runs the command; returns the process exit code (0, 1 integrity failure,
// 2 bad input/setup, 130/143 interrupted).
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// Checks, without opening anything, the properties of one load/run/bench as
// RunCli would: the binding (property "db"), client and workload options,
// no property of another binding, no unknown property. Throws ConfigError
// naming the property and its origin (e.g. "plan.toml:12"). Used by
// `storebench plan` to reject a bad plan before anything runs.
class Properties;
void CheckRunProperties(Properties& props, const std::string& command);

}  // namespace storebench
