/* osu_match_depth: what a message costs when the receiver has many receives
 * posted. Rank 0 posts N receives with distinct tags, tells rank 1 to go, and
 * rank 1 sends N 8-byte messages in reverse tag order, so each arriving
 * message matches the most recently posted receive: a receive queue searched
 * front to back is searched to its end every time. Reported per depth: the
 * time from the first post to the last completion, divided by N (posting,
 * matching and delivery together), averaged over enough rounds that every
 * depth moves about the same number of messages.
 *
 * -m MIN:MAX sets the depths (default 1:16K, in steps of 4x), -i the messages
 * per depth (default 65536), -x the warm-up rounds (default 2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

enum { kPayload = 8, kGoTag = 0x7ffe };

static void one_round(int rank, int depth, MPI_Request *requests, char *buffers) {
  if (rank == 0) {
    for (int tag = 0; tag < depth; ++tag) {
      MPI_Irecv(buffers + (size_t)tag * kPayload, kPayload, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &requests[tag]);
    }
    MPI_Send(NULL, 0, MPI_CHAR, 1, kGoTag, MPI_COMM_WORLD);
    MPI_Waitall(depth, requests, MPI_STATUSES_IGNORE);
  } else {
    MPI_Recv(NULL, 0, MPI_CHAR, 0, kGoTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int tag = depth - 1; tag >= 0; --tag) {
      buffers[0] = (char)tag;
      MPI_Send(buffers, kPayload, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {1, 16384, 65536, 2, 65536, 2, 0, 0, 0, 0, 0, 0, 0};
  const int exit_code = osu_begin(argc, argv, "osu_match_depth", &options, 0, OSU_RANKS_TWO, rank, size);
  if (exit_code >= 0) return exit_code;
  if (options.min_size < 1 || options.max_size > 1000000) {
    if (rank == 0) fprintf(stderr, "osu_match_depth: depths must lie in 1..1000000 (-m MIN:MAX)\n");
    MPI_Finalize();
    return 1;
  }
  const int max_depth = (int)options.max_size;
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)max_depth);
  char *buffers = osu_alloc_buffer((size_t)max_depth * kPayload, 0);
  if (requests == NULL || buffers == NULL) {
    fprintf(stderr, "osu_match_depth: no memory for %d receives\n", max_depth);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Matching Depth Test");
    printf("# %d-byte messages, sent in the reverse order of the posted receives\n", kPayload);
    printf("%-10s%*s\n", "# Depth", OSU_FIELD_WIDTH, "Per message (us)");
    fflush(stdout);
  }

  for (int depth = (int)options.min_size; depth <= max_depth; depth *= 4) {
    int rounds = options.iterations / depth;
    if (rounds < 4) rounds = 4;
    int wrong = 0;
    double start = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int round = 0; round < rounds + options.skip; ++round) {
      if (round == options.skip) start = MPI_Wtime();
      one_round(rank, depth, requests, buffers);
      if (rank == 0 && round == 0) {
        for (int tag = 0; tag < depth; ++tag) wrong += buffers[(size_t)tag * kPayload] != (char)tag;
      }
    }
    const double per_message = (MPI_Wtime() - start) * 1e6 / ((double)rounds * depth);
    if (rank == 0) {
      if (wrong != 0) {
        fprintf(stderr, "osu_match_depth: %d messages landed in the wrong receive at depth %d\n", wrong, depth);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      printf("%-10d%*.*f\n", depth, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION + 1, per_message);
      fflush(stdout);
    }
    if (depth > max_depth / 4) break;
  }

  free(requests);
  free(buffers);
  MPI_Finalize();
  return 0;
}
