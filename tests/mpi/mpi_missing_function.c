/* Calls an MPI function that Tern does not provide (dynamic processes):
 * mpicc must refuse to compile it. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_spawn("worker", 0, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, 0, 0);
  MPI_Finalize();
  return 0;
}
