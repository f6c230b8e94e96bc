// `storebench fs DIR [options]`: the file-system suite from the command line
// (fs/suite.h), its bonnie++-shaped table on stdout and the JSON result.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace storebench {

// The text of `storebench fs --help`.
std::string FsUsageText();

// Runs `storebench fs` with the arguments after "fs". `host` goes into the
// JSON result. Returns the exit code: 0 done; 1 data read back did not match;
// 2 bad input, a missing directory, or an I/O error (ENOSPC...) that stopped
// the suite (partial results are still printed and written).
int RunFsCommand(const std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& host,
                 std::ostream& out, std::ostream& err);

}  // namespace storebench
