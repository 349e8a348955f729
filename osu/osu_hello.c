/* osu_hello: the smallest MPI program; rank 0 reports the job size. */
#include <mpi.h>
#include <stdio.h>

#include "common/osu_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    osu_print_header("OSU MPI Hello World Test");
    printf("This is a test with %d processes running\n", size);
  }
  MPI_Finalize();
  return 0;
}
