// Checks for the MPI conformance programs: count failures per rank, report
// each with its line, and agree on the outcome at the end.
#pragma once

#include <mpi.h>

#include <cstdio>

namespace tern::mpi_test {

inline int failures = 0;

inline void check(bool ok, const char* what, int line) {
  if (ok) return;
  ++failures;
  int rank = -1;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "rank %d: check failed at line %d: %s\n", rank, line, what);
}

// Sums the failures over the job; rank 0 prints "<name>: PASS" or "FAIL".
// Returns the exit code.
inline int conclude(const char* name) {
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    if (total == 0) {
      std::printf("%s: PASS on %d ranks\n", name, size);
    } else {
      std::printf("%s: FAIL (%d failed checks)\n", name, total);
    }
  }
  return total == 0 ? 0 : 1;
}

}  // namespace tern::mpi_test

#define CHECK(condition) ::tern::mpi_test::check((condition), #condition, __LINE__)
