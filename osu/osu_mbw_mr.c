/* osu_mbw_mr: aggregate bandwidth and message rate of several pairs, after
 * the OSU Micro-Benchmarks method: rank i of the first half sends to rank
 * i + n/2 of the second half. Per iteration each sender posts a window of
 * non-blocking sends, its receiver a window of receives, and the receiver
 * answers with a short acknowledgement. Each sender's bandwidth (MB/s,
 * 10^6 bytes) is summed over the pairs; messages/s = bandwidth / size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

#define OSU_MBW_MAX_WINDOW 1024

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {1, OSU_MAX_MESSAGE_SIZE, 100, 10, 20, 2, 64, 1, 0, 0, 0, 0, 0};
  const int exit_code = osu_begin(argc, argv, "osu_mbw_mr", &options, OSU_MBW_MAX_WINDOW, OSU_RANKS_PAIRS, rank, size);
  if (exit_code >= 0) return exit_code;
  if (options.min_size == 0) options.min_size = 1;
  const int pairs = size / 2;
  const int sender = rank < pairs;
  const int peer = sender ? rank + pairs : rank - pairs;
  char *send_buffer = osu_alloc_buffer(options.max_size, 'a');
  char *recv_buffer = osu_alloc_buffer(options.max_size, 'b');
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)options.window);
  if (send_buffer == NULL || recv_buffer == NULL || requests == NULL) {
    fprintf(stderr, "osu_mbw_mr: no memory for %zu-byte buffers\n", options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Multiple Bandwidth / Message Rate Test");
    printf("# [ pairs: %d ] [ window size: %d ]\n", pairs, options.window);
    printf("%-10s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "MB/s", OSU_FIELD_WIDTH, "Messages/s");
    fflush(stdout);
  }

  char ack[4] = {0};
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    const int count = (int)bytes;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + skip; ++i) {
      if (i == skip) start = MPI_Wtime();
      if (sender) {
        for (int w = 0; w < options.window; ++w) {
          MPI_Isend(send_buffer, count, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &requests[w]);
        }
        MPI_Waitall(options.window, requests, MPI_STATUSES_IGNORE);
        MPI_Recv(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (int w = 0; w < options.window; ++w) {
          MPI_Irecv(recv_buffer, count, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &requests[w]);
        }
        MPI_Waitall(options.window, requests, MPI_STATUSES_IGNORE);
        MPI_Send(ack, 4, MPI_CHAR, peer, 101, MPI_COMM_WORLD);
      }
    }
    const double elapsed = MPI_Wtime() - start;
    double bandwidth = sender ? (double)bytes / 1e6 * iterations * options.window / elapsed : 0.0;
    double total = 0;
    MPI_Reduce(&bandwidth, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      const double rate = total * 1e6 / (double)bytes;
      printf("%-10zu%*.*f%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, total, OSU_FIELD_WIDTH,
             OSU_FLOAT_PRECISION, rate);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }

  free(requests);
  free(send_buffer);
  free(recv_buffer);
  MPI_Finalize();
  return 0;
}
