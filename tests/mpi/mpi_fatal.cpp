// MPI_ERRORS_ARE_FATAL (the default): an invalid rank ends the whole job
// with a message naming the call, the reason and the rank. Rank 1 waits in a
// receive that never completes; the launcher must end it.
#include <cstdio>

#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int value = 0;
  if (rank == 0) {
    MPI_Send(&value, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
    std::printf("mpi_fatal: MPI_Send returned instead of aborting\n");
  } else {
    MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    std::printf("mpi_fatal: rank %d received a message nobody sent\n", rank);
  }
  MPI_Finalize();
  return 0;
}
