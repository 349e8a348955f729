/* A job that holds still until told to go on, for the multi-node tests that
 * act on a running job from outside: every rank reaches a barrier, rank 0
 * waits for the file named by argv[1] to exist, then every pair of ranks
 * exchanges a message and rank 0 prints "mn_hold: PASS on N ranks". */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Every pair connected before the wait, so that every rank listens and
   * has peers when the test looks. */
  int token = rank, sum = 0;
  MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("mn_hold: waiting for %s\n", argc > 1 ? argv[1] : "(nothing)");
    fflush(stdout);
    while (argc > 1 && access(argv[1], F_OK) != 0) usleep(20000);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int failures = sum == size * (size - 1) / 2 ? 0 : 1;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    int mine = rank * 1000 + peer, theirs = -1;
    MPI_Sendrecv(&mine, 1, MPI_INT, peer, 7, &theirs, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (theirs != peer * 1000 + rank) ++failures;
  }
  int total = 0;
  MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("mn_hold: %s on %d ranks\n", total == 0 ? "PASS" : "FAIL", size);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
