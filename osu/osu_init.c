/* osu_init: how long MPI_Init takes, as the minimum, maximum and mean over
 * the ranks (each rank times its own call with a clock independent of MPI). */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <stdio.h>
#include <time.h>

#include "common/osu_util.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  const double start = now_ms();
  MPI_Init(&argc, &argv);
  const double elapsed = now_ms() - start;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double min = 0, max = 0, sum = 0;
  MPI_Reduce(&elapsed, &min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&elapsed, &max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&elapsed, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    osu_print_header("OSU MPI Init Test");
    printf("nprocs: %d, min: %.0f ms, max: %.0f ms, avg: %.0f ms\n", size, min, max, sum / size);
  }
  MPI_Finalize();
  return 0;
}
