/* Calls an MPI function that Tern does not provide (MPI_Type_extent, removed
 * from the standard by MPI 3.0): mpicc must refuse to compile it. */
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Aint extent = 0;
  MPI_Init(&argc, &argv);
  MPI_Type_extent(MPI_INT, &extent);
  MPI_Finalize();
  return 0;
}
