// storebench's entry point: the command line is in cli/cli.cc, a load, run or
// bench in job/job.h. Under mpirun this process is one rank of an MPI job
// (job/mpi_job.h).
#include <iostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "job/mpi_job.h"

int main(int argc, char** argv) {
  storebench::MpiJob::Start(&argc, &argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  const int code = storebench::RunCli(args, std::cout, std::cerr);
  storebench::MpiJob::Finish();
  return code;
}
