/* osu_latency: ping-pong latency between ranks 0 and 1, after the OSU
 * Micro-Benchmarks method: for each size, `skip` warm-up round trips, then
 * `iterations` timed ones; the latency is half the mean round-trip time. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {0, OSU_MAX_MESSAGE_SIZE, 10000, 100, 1000, 10, 0, 0, 0, 0, 0, 0, 0};
  const int exit_code = osu_begin(argc, argv, "osu_latency", &options, 0, OSU_RANKS_TWO, rank, size);
  if (exit_code >= 0) return exit_code;
  char *send_buffer = osu_alloc_buffer(options.max_size, 'a');
  char *recv_buffer = osu_alloc_buffer(options.max_size, 'b');
  if (send_buffer == NULL || recv_buffer == NULL) {
    fprintf(stderr, "osu_latency: no memory for %zu-byte buffers\n", options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Latency Test");
    printf("%-10s%*s\n", "# Size", OSU_FIELD_WIDTH, "Latency (us)");
    fflush(stdout);
  }

  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes = bytes == 0 ? 1 : bytes * 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    const int count = (int)bytes;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + skip; ++i) {
      if (i == skip) start = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(send_buffer, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(recv_buffer, count, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(recv_buffer, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(send_buffer, count, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
      }
    }
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0) {
      const double latency = elapsed * 1e6 / (2.0 * iterations);
      printf("%-10zu%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, latency);
      fflush(stdout);
    }
    if (bytes == options.max_size) break;
  }

  free(send_buffer);
  free(recv_buffer);
  MPI_Finalize();
  return 0;
}
