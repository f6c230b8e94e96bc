#include "job/mpi_job.h"

#include <cstdio>
#include <cstdlib>

#ifdef STOREBENCH_MPI
#include <mpi.h>
#endif

namespace storebench {
namespace {
bool g_active = false;
bool g_failed = false;
int g_rank = 0;
int g_size = 1;

}  // namespace

static bool StartedByMpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    const char* s = std::getenv(v);
    if (s != nullptr && *s != '\0') return true;
  }
  return false;
}

#ifdef STOREBENCH_MPI

void MpiJob::Start(int* argc, char*** argv) {
  if (g_active || !StartedByMpirun()) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_active = true;
}

void MpiJob::Finish() {
  if (!g_active) return;
  MPI_Finalize();
  g_active = false;
}

bool MpiJob::AllTrue(bool ok) {
  if (!g_active) return ok;
  if (g_failed) return false;
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all != 0;
}

bool MpiJob::Agree(bool ok) {
  const bool all = AllTrue(ok);
  if (!all) g_failed = true;
  return all;
}

void MpiJob::Barrier() {
  if (g_active && !g_failed) MPI_Barrier(MPI_COMM_WORLD);
}

std::vector<std::string> MpiJob::GatherToRoot(const std::string& bytes) {
  if (!g_active) return {bytes};
  int len = static_cast<int>(bytes.size());
  std::vector<int> lens(g_rank == 0 ? g_size : 0), displs(g_rank == 0 ? g_size : 0);
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<char> all;
  if (g_rank == 0) {
    int total = 0;
    for (int r = 0; r < g_size; ++r) {
      displs[r] = total;
      total += lens[r];
    }
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(bytes.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::string> out;
  if (g_rank == 0) {
    for (int r = 0; r < g_size; ++r) out.emplace_back(all.data() + displs[r], static_cast<std::size_t>(lens[r]));
  }
  return out;
}

void MpiJob::AllReduce(std::uint64_t* values, int n, Reduction how) {
  if (!g_active || g_failed || n <= 0) return;
  const MPI_Op op = how == Reduction::kSum ? MPI_SUM : how == Reduction::kMin ? MPI_MIN : MPI_MAX;
  MPI_Allreduce(MPI_IN_PLACE, values, n, MPI_UINT64_T, op, MPI_COMM_WORLD);
}

void MpiJob::SumToRoot(std::uint64_t* values, int n) {
  if (!g_active || g_failed || n <= 0) return;
  if (g_rank == 0) {
    MPI_Reduce(MPI_IN_PLACE, values, n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  } else {
    MPI_Reduce(values, nullptr, n, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  }
}

#else  // one rank, no MPI

void MpiJob::Start(int*, char***) {
  // Several copies started by mpirun would each run the whole job.
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (StartedByMpirun() && size != nullptr && std::atoi(size) > 1) {
    std::fputs("storebench: started by mpirun, but this storebench was built without MPI (STOREBENCH_MPI=OFF)\n", stderr);
    std::exit(2);
  }
}
void MpiJob::Finish() {}
bool MpiJob::AllTrue(bool ok) { return ok; }
bool MpiJob::Agree(bool ok) { return ok; }
void MpiJob::Barrier() {}
std::vector<std::string> MpiJob::GatherToRoot(const std::string& bytes) { return {bytes}; }
void MpiJob::AllReduce(std::uint64_t*, int, Reduction) {}
void MpiJob::SumToRoot(std::uint64_t*, int) {}

#endif

#ifdef STOREBENCH_MPI
bool MpiJob::Built() { return true; }
#else
bool MpiJob::Built() { return false; }
#endif
bool MpiJob::Active() { return g_active; }
int MpiJob::Rank() { return g_rank; }
int MpiJob::Size() { return g_size; }
bool MpiJob::Failed() { return g_failed; }
void MpiJob::FailPending() {
  if (g_active && !g_failed) Agree(false);
  g_failed = g_failed || g_active;
}

}  // namespace storebench
