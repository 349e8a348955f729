/* osu_bw: unidirectional bandwidth from rank 0 to rank 1, after the OSU
 * Micro-Benchmarks method: per iteration rank 0 posts a window of
 * non-blocking sends, rank 1 a window of receives; rank 1 answers with a
 * short acknowledgement once all arrived. Bandwidth = bytes moved in the
 * timed iterations / time, in MB/s (10^6 bytes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

#define OSU_BW_MAX_WINDOW 1024

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {1, OSU_MAX_MESSAGE_SIZE, 100, 10, 20, 2, 64, 1, 0, 0, 0, 0, 0};
  const int exit_code = osu_begin(argc, argv, "osu_bw", &options, OSU_BW_MAX_WINDOW, OSU_RANKS_TWO, rank, size);
  if (exit_code >= 0) return exit_code;
  if (options.min_size == 0) options.min_size = 1;
  char *send_buffer = osu_alloc_buffer(options.max_size, 'a');
  char *recv_buffer = osu_alloc_buffer(options.max_size, 'b');
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)options.window);
  if (send_buffer == NULL || recv_buffer == NULL || requests == NULL) {
    fprintf(stderr, "osu_bw: no memory for %zu-byte buffers\n", options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Bandwidth Test");
    printf("%-10s%*s\n", "# Size", OSU_FIELD_WIDTH, "Bandwidth (MB/s)");
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
      if (rank == 0) {
        for (int w = 0; w < options.window; ++w) {
          MPI_Isend(send_buffer, count, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &requests[w]);
        }
        MPI_Waitall(options.window, requests, MPI_STATUSES_IGNORE);
        MPI_Recv(ack, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (int w = 0; w < options.window; ++w) {
          MPI_Irecv(recv_buffer, count, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[w]);
        }
        MPI_Waitall(options.window, requests, MPI_STATUSES_IGNORE);
        MPI_Send(ack, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
      }
    }
    const double elapsed = MPI_Wtime() - start;
    if (rank == 0) {
      const double bandwidth = (double)bytes / 1e6 * iterations * options.window / elapsed;
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
