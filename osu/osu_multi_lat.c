/* osu_multi_lat: ping-pong latency of several pairs at once, after the OSU
 * Micro-Benchmarks method: rank i of the first half pairs with rank
 * i + n/2; each pair ping-pongs `iterations` times after `skip` warm-up
 * round trips. Reported: half the mean round-trip time, averaged over the
 * pairs. */
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
  const int exit_code = osu_begin(argc, argv, "osu_multi_lat", &options, 0, OSU_RANKS_PAIRS, rank, size);
  if (exit_code >= 0) return exit_code;
  const int pairs = size / 2;
  const int initiator = rank < pairs;
  const int peer = initiator ? rank + pairs : rank - pairs;
  char *send_buffer = osu_alloc_buffer(options.max_size, 'a');
  char *recv_buffer = osu_alloc_buffer(options.max_size, 'b');
  if (send_buffer == NULL || recv_buffer == NULL) {
    fprintf(stderr, "osu_multi_lat: no memory for %zu-byte buffers\n", options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Multi Latency Test");
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
      if (initiator) {
        MPI_Send(send_buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(recv_buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(recv_buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(send_buffer, count, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      }
    }
    const double latency = (MPI_Wtime() - start) * 1e6 / (2.0 * iterations);
    double total = 0;
    MPI_Reduce(&latency, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("%-10zu%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, total / size);
      fflush(stdout);
    }
    if (bytes == options.max_size) break;
  }

  free(send_buffer);
  free(recv_buffer);
  MPI_Finalize();
  return 0;
}
