// The storebench command line: turns arguments into a command (a job:
// job/job.h; a plan, a merge, a report, ...) and prints its results. Every
// error of input or setup is one line on `err` and exit code 2.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace storebench {

// Runs the command; returns the process exit code (0, 1 integrity failure,
// 2 bad input/setup, 130/143 interrupted).
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace storebench
