/* A rank that joins the job and then only waits, without talking to any
 * other rank, until the file named by argv[1] exists: a job whose local
 * ranks never connect, for the tests that kill parts of a running job. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("hold_still: rank %d waiting for %s\n", rank, argc > 1 ? argv[1] : "(nothing)");
  fflush(stdout);
  while (argc > 1 && access(argv[1], F_OK) != 0) usleep(20000);
  MPI_Finalize();
  return 0;
}
