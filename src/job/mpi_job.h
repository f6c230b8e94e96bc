// MPI mode: `mpirun -np N storebench load|run|bench ...` runs N client
// processes ("ranks") as one job.
//
// Promises:
// - MpiJob::Start initialises MPI only when this process was started by
//   mpirun (OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK in the environment)
//   and storebench was built with MPI (STOREBENCH_MPI); otherwise, and
//   always in builds without MPI, the job is one rank (rank 0 of 1) and
//   every collective below is a no-op that returns its single-rank answer.
//   A plain run never calls MPI_Init.
// - Only the thread that called Start calls MPI (MPI_THREAD_FUNNELED).
// - Agree(ok) is a collective (MPI_Allreduce of the flag, MIN): true when
//   every rank passed true. Once it has returned false, Failed() is true and
//   the process must make no further collective call: every rank saw the
//   same answer at the same point, so they all stop there. A rank that
//   fails between two agreement points calls Agree(false) at the next one
//   (FailPending), so the others never wait for it forever.
// - GatherToRoot is a collective: rank 0 gets every rank's bytes, in rank
//   order; other ranks get an empty vector.
// - Finish finalises MPI if Start initialised it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace storebench {

class MpiJob {
 public:
  // Initialises MPI when started by mpirun (see above). Idempotent.
  static void Start(int* argc, char*** argv);
  static void Finish();

  static bool Built();   // this storebench was built with MPI
  static bool Active();  // started by mpirun, in an MPI build, size >= 1
  static int Rank();     // 0 when not Active
  static int Size();     // 1 when not Active

  static bool Agree(bool ok);
  // A collective like Agree that does not mark the job failed: true when
  // every rank passed true (e.g. "no rank was interrupted").
  static bool AllTrue(bool ok);
  static bool Failed();
  // For a rank that failed: joins the next agreement point with false,
  // unless an agreement already failed. No-op when not Active.
  static void FailPending();
  static void Barrier();
  static std::vector<std::string> GatherToRoot(const std::string& bytes);
  // Element-wise reductions of n values over every rank, in place
  // (collectives, like the others; no-ops with one rank or after a failed
  // agreement). SumToRoot leaves the sums on rank 0 only.
  enum class Reduction { kSum, kMin, kMax };
  static void AllReduce(std::uint64_t* values, int n, Reduction how);
  static void SumToRoot(std::uint64_t* values, int n);
};

}  // namespace storebench
