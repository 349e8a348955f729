/* An MPI program built against an installed Tern (mpicc, mpicxx,
 * find_package, pkg-config). Valid C and C++. Every rank says hello; with
 * two or more ranks, rank 0 sends a number to rank 1. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = -1;
  int size = 0;
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    fprintf(stderr, "hello: MPI_Init failed\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int status = 0;
  if (size >= 2) {
    int value = 0;
    if (rank == 0) {
      value = 4242;
      MPI_Send(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
      MPI_Recv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (value != 4242) {
        fprintf(stderr, "hello: rank 1 received %d, not 4242\n", value);
        status = 1;
      }
    }
  }
  printf("hello from rank %d of %d\n", rank, size);
  MPI_Finalize();
  return status;
}
