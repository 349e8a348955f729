/* Rank 0 calls MPI_Abort(MPI_COMM_WORLD, argv[1]) while the others wait in
 * a receive that never completes: the job must end at once, everyone
 * included, with the exit code the standard's "return errorcode to the
 * invoking environment" asks for. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int errorcode = argc > 1 ? atoi(argv[1]) : 1;
  if (rank == 0) {
    printf("abort_with: rank 0 calls MPI_Abort with %d\n", errorcode);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, errorcode);
    printf("abort_with: MPI_Abort returned\n");
    return 99;
  }
  int never = 0;
  MPI_Recv(&never, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("abort_with: rank %d received what nobody sent\n", rank);
  return 98;
}
