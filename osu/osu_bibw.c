/* osu_bibw: bidirectional bandwidth between ranks 0 and 1, after the OSU
 * Micro-Benchmarks method: per iteration both ranks post a window of
 * non-blocking receives and a window of non-blocking sends to each other
 * and wait for all of them. Bandwidth = bytes moved both ways in the timed
 * iterations / time, in MB/s (10^6 bytes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

#define OSU_BIBW_MAX_WINDOW 1024

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {1, OSU_MAX_MESSAGE_SIZE, 100, 10, 20, 2, 64, 1, 0, 0, 0, 0, 0};
  const int exit_code = osu_begin(argc, argv, "osu_bibw", &options, OSU_BIBW_MAX_WINDOW, OSU_RANKS_TWO, rank, size);
  if (exit_code >= 0) return exit_code;
  if (options.min_size == 0) options.min_size = 1;
  char *send_buffer = osu_alloc_buffer(options.max_size, 'a');
  char *recv_buffer = osu_alloc_buffer(options.max_size, 'b');
  MPI_Request *requests = malloc(sizeof(MPI_Request) * 2 * (size_t)options.window);
  if (send_buffer == NULL || recv_buffer == NULL || requests == NULL) {
    fprintf(stderr, "osu_bibw: no memory for %zu-byte buffers\n", options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Bi-Directional Bandwidth Test");
    printf("%-10s%*s\n", "# Size", OSU_FIELD_WIDTH, "Bandwidth (MB/s)");
    fflush(stdout);
  }

  const int peer = 1 - rank;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    const int count = (int)bytes;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iterations + skip; ++i) {
      if (i == skip) start = MPI_Wtime();
      for (int w = 0; w < options.window; ++w) {
        MPI_Irecv(recv_buffer, count, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &requests[w]);
      }
      for (int w = 0; w < options.window; ++w) {
        MPI_Isend(send_buffer, count, MPI_CHAR, peer, 10, MPI_COMM_WORLD, &requests[options.window + w]);
      }
      MPI_Waitall(2 * options.window, requests, MPI_STATUSES_IGNORE);
    }
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0) {
      const double bandwidth = (double)bytes / 1e6 * iterations * options.window * 2 / elapsed;
      printf("%-10zu%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, bandwidth);
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
