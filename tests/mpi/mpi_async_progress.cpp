// Asynchronous progress through MPI: rank 1 posts MPI_Irecv of 4 MiB (a
// rendezvous), tells rank 0, and computes 200 ms without calling MPI; rank 0
// then sends with MPI_Send. With a progress thread (TERN_PROGRESS=thread or
// thread-blocking, or MPIR_CVAR_ASYNC_PROGRESS=1) rank 0's send ends while
// rank 1 still computes; without one, only after. The first argument says
// which to expect: "async" or "caller". Run with TERN_TM_OFFLOAD=off, so
// that no tag device lets the sender complete on its own.
#include <mpi.h>
#include <time.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "check.hpp"

namespace {

constexpr int kCount = 4 << 20;
constexpr double kComputeSeconds = 0.2;

// CLOCK_MONOTONIC is one clock for every process of the host; MPI_Wtime's
// origin is each process's own.
double host_seconds() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

void compute(double seconds) {
  const double until = host_seconds() + seconds;
  volatile unsigned sink = 0;
  while (host_seconds() < until) sink = sink + 1;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  // FUNNELED: the library must still make its worker thread-safe for its
  // own progress thread.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const bool expect_async = argc > 1 && std::strcmp(argv[1], "async") == 0;
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size == 2);
  CHECK(provided == MPI_THREAD_FUNNELED);
  std::vector<unsigned char> data(kCount);
  int ready = 0;
  double computed_until = 0;
  if (rank == 1) {
    MPI_Request request;
    MPI_Irecv(data.data(), kCount, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &request);
    MPI_Send(&ready, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
    compute(kComputeSeconds);
    computed_until = host_seconds();
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    bool intact = true;
    for (int i = 0; i < kCount; ++i) intact = intact && data[i] == static_cast<unsigned char>(i * 7 + 3);
    CHECK(intact);
    MPI_Send(&computed_until, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
  } else if (rank == 0) {
    for (int i = 0; i < kCount; ++i) data[i] = static_cast<unsigned char>(i * 7 + 3);
    MPI_Recv(&ready, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const double started = host_seconds();
    MPI_Send(data.data(), kCount, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    const double sent = host_seconds();
    MPI_Recv(&computed_until, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::printf("mpi_async_progress: MPI_Send of 4 MiB took %.1f ms, ending %.1f ms %s rank 1 stopped computing\n",
                (sent - started) * 1e3, (sent > computed_until ? sent - computed_until : computed_until - sent) * 1e3,
                sent > computed_until ? "after" : "before");
    if (expect_async) {
      CHECK(sent < computed_until);
    } else {
      CHECK(sent >= computed_until);
    }
  }
  const int rc = tern::mpi_test::conclude("mpi_async_progress");
  MPI_Finalize();
  return rc;
}
