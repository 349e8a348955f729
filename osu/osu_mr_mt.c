/* osu_mr_mt: multi-threaded message rate between ranks 0 and 1, the
 * window method of osu_mbw_mr applied to threads under
 * MPI_THREAD_MULTIPLE: rank 0 runs SEND threads and rank 1 RECV threads
 * (-t SEND[:RECV]). Per iteration, sender thread t posts a window of -W
 * non-blocking sends on tag t and waits for them, then for a short
 * acknowledgement; receiver thread j serves the sender threads t with
 * t % RECV == j, in turn: a window of receives, then the acknowledgement.
 * Per size the threads start together (a barrier between ranks, then one
 * between threads, and on rank 0 one more after the warm-up windows); the
 * rate is every sender thread's messages over the time from the first
 * thread's start to the last one's end: MB/s (10^6 bytes) and messages/s,
 * as osu_mbw_mr prints them. Every thread has its own buffers. */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

#define OSU_MR_MT_MAX_WINDOW 1024
enum { kAckTagBase = 1 << 20 };

struct shared {
  struct osu_options options;
  int rank;
  int threads;   /* on this rank */
  int senders;   /* on rank 0 */
  int receivers; /* on rank 1 */
  pthread_barrier_t barrier;
  double *start; /* when each sender thread began its timed windows */
  double *end;   /* and when it finished them */
};

static void send_windows(struct shared *sh, int tag, char *buffer, int count, MPI_Request *requests, int rounds) {
  char ack[4];
  for (int i = 0; i < rounds; ++i) {
    for (int w = 0; w < sh->options.window; ++w) {
      MPI_Isend(buffer, count, MPI_CHAR, 1, tag, MPI_COMM_WORLD, &requests[w]);
    }
    MPI_Waitall(sh->options.window, requests, MPI_STATUSES_IGNORE);
    MPI_Recv(ack, 4, MPI_CHAR, 1, kAckTagBase + tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static void receive_windows(struct shared *sh, int tag, char *buffer, int count, MPI_Request *requests) {
  char ack[4] = {0};
  for (int w = 0; w < sh->options.window; ++w) {
    MPI_Irecv(buffer, count, MPI_CHAR, 0, tag, MPI_COMM_WORLD, &requests[w]);
  }
  MPI_Waitall(sh->options.window, requests, MPI_STATUSES_IGNORE);
  MPI_Send(ack, 4, MPI_CHAR, 0, kAckTagBase + tag, MPI_COMM_WORLD);
}

static void run(int id, void *context) {
  struct shared *sh = context;
  char *buffer = osu_alloc_buffer(sh->options.max_size, sh->rank == 0 ? 'a' : 'b');
  MPI_Request *requests = malloc(sizeof(MPI_Request) * (size_t)sh->options.window);
  if (buffer == NULL || requests == NULL) {
    fprintf(stderr, "osu_mr_mt: no memory for %zu-byte buffers\n", sh->options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t bytes = sh->options.min_size; bytes <= sh->options.max_size; bytes *= 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? sh->options.iterations_large : sh->options.iterations;
    const int skip = large ? sh->options.skip_large : sh->options.skip;
    const int count = (int)bytes;
    if (id == 0) MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&sh->barrier);
    if (sh->rank == 0) {
      send_windows(sh, id, buffer, count, requests, skip);
      pthread_barrier_wait(&sh->barrier);
      sh->start[id] = MPI_Wtime();
      send_windows(sh, id, buffer, count, requests, iterations);
      sh->end[id] = MPI_Wtime();
    } else {
      for (int i = 0; i < iterations + skip; ++i) {
        for (int tag = id; tag < sh->senders; tag += sh->receivers) {
          receive_windows(sh, tag, buffer, count, requests);
        }
      }
    }
    pthread_barrier_wait(&sh->barrier);
    if (sh->rank == 0 && id == 0) {
      /* All the threads' messages over the span from the first start to the
       * last end: threads that took turns do not add up to more than one. */
      double first = sh->start[0], last = sh->end[0];
      for (int t = 1; t < sh->senders; ++t) {
        if (sh->start[t] < first) first = sh->start[t];
        if (sh->end[t] > last) last = sh->end[t];
      }
      const double rate = (double)sh->senders * iterations * sh->options.window / (last - first);
      printf("%-10zu%*.*f%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, rate * (double)bytes / 1e6,
             OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, rate);
      fflush(stdout);
    }
    if (bytes >= sh->options.max_size) break;
  }
  free(requests);
  free(buffer);
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct shared sh;
  struct osu_options defaults = {1, OSU_MAX_MESSAGE_SIZE, 100, 10, 20, 2, 64, 1, 1, 2, 2, 0, 0};
  sh.options = defaults;
  const int exit_code = osu_begin(argc, argv, "osu_mr_mt", &sh.options, OSU_MR_MT_MAX_WINDOW, OSU_RANKS_TWO, rank,
                                  size);
  if (exit_code >= 0) return exit_code;
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) fprintf(stderr, "osu_mr_mt: MPI_THREAD_MULTIPLE not provided (got %d)\n", provided);
    MPI_Finalize();
    return 1;
  }
  if (sh.options.min_size == 0) sh.options.min_size = 1;
  sh.rank = rank;
  sh.senders = sh.options.sender_threads;
  sh.receivers = sh.options.receiver_threads;
  if (sh.receivers > sh.senders) sh.receivers = sh.senders; /* extra receivers would have nothing to do */
  sh.threads = rank == 0 ? sh.senders : sh.receivers;
  sh.start = calloc((size_t)sh.senders, sizeof(double));
  sh.end = calloc((size_t)sh.senders, sizeof(double));
  if (sh.start == NULL || sh.end == NULL ||
      pthread_barrier_init(&sh.barrier, NULL, (unsigned)sh.threads) != 0) {
    fprintf(stderr, "osu_mr_mt: no memory for %d threads\n", sh.threads);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Multi-threaded Message Rate Test");
    printf("# Number of Sender threads: %d\n# Number of Receiver threads: %d\n# [ window size: %d ]\n",
           sh.senders, sh.receivers, sh.options.window);
    printf("%-10s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "MB/s", OSU_FIELD_WIDTH, "Messages/s");
    fflush(stdout);
  }
  osu_run_threads("osu_mr_mt", sh.threads, run, &sh);
  pthread_barrier_destroy(&sh.barrier);
  free(sh.start);
  free(sh.end);
  MPI_Finalize();
  return 0;
}
