// storebench's entry point: everything is in cli/cli.cc.
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return storebench::RunCli(args, std::cout, std::cerr);
}
