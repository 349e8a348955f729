/* osu_latency_mt: multi-threaded ping-pong latency between ranks 0 and 1,
 * after the OSU Micro-Benchmarks method: under MPI_THREAD_MULTIPLE, rank 0
 * runs SEND threads and rank 1 RECV threads (-t SEND[:RECV]). Sender thread
 * t ping-pongs on tag t; receiver thread j answers the tags t with
 * t % RECV == j, in turn. Per size, threads start together (a barrier
 * between ranks, then one between threads), and the latency is half the
 * mean round-trip time, averaged over the sender threads. */
#define _POSIX_C_SOURCE 200112L
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/osu_util.h"

struct shared {
  struct osu_options options;
  int rank;
  int threads;       /* on this rank */
  int senders;       /* on rank 0 */
  int receivers;     /* on rank 1 */
  size_t bytes;
  pthread_barrier_t barrier;
  double *latency;   /* per sender thread, for the current size */
};

static void run(int id, void *context) {
  struct shared *sh = context;
  char *send_buffer = osu_alloc_buffer(sh->options.max_size, 'a');
  char *recv_buffer = osu_alloc_buffer(sh->options.max_size, 'b');
  if (send_buffer == NULL || recv_buffer == NULL) {
    fprintf(stderr, "osu_latency_mt: no memory for %zu-byte buffers\n", sh->options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t bytes = sh->options.min_size; bytes <= sh->options.max_size; bytes = bytes == 0 ? 1 : bytes * 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? sh->options.iterations_large : sh->options.iterations;
    const int skip = large ? sh->options.skip_large : sh->options.skip;
    const int count = (int)bytes;
    /* Thread 0 synchronizes the ranks; then all threads start together. */
    if (id == 0) MPI_Barrier(MPI_COMM_WORLD);
    pthread_barrier_wait(&sh->barrier);
    if (sh->rank == 0) {
      double start = 0;
      for (int i = 0; i < iterations + skip; ++i) {
        if (i == skip) start = MPI_Wtime();
        MPI_Send(send_buffer, count, MPI_CHAR, 1, id, MPI_COMM_WORLD);
        MPI_Recv(recv_buffer, count, MPI_CHAR, 1, id, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
      sh->latency[id] = (MPI_Wtime() - start) * 1e6 / (2.0 * iterations);
    } else {
      for (int i = 0; i < iterations + skip; ++i) {
        for (int tag = id; tag < sh->senders; tag += sh->receivers) {
          MPI_Recv(recv_buffer, count, MPI_CHAR, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(send_buffer, count, MPI_CHAR, 0, tag, MPI_COMM_WORLD);
        }
      }
    }
    pthread_barrier_wait(&sh->barrier);
    if (sh->rank == 0 && id == 0) {
      double sum = 0;
      for (int t = 0; t < sh->senders; ++t) sum += sh->latency[t];
      printf("%-10zu%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, sum / sh->senders);
      fflush(stdout);
    }
    if (bytes == sh->options.max_size) break;
  }
  free(send_buffer);
  free(recv_buffer);
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct shared sh;
  struct osu_options defaults = {0, OSU_MAX_MESSAGE_SIZE, 10000, 100, 1000, 10, 0, 0, 1, 2, 2, 0, 0};
  sh.options = defaults;
  enum osu_parse_result parsed = osu_parse_options(argc, argv, "osu_latency_mt", &sh.options, rank);
  if (parsed != OSU_PARSE_OK) {
    MPI_Finalize();
    return parsed == OSU_PARSE_HELP ? 0 : 1;
  }
  if (provided != MPI_THREAD_MULTIPLE) {
    if (rank == 0) fprintf(stderr, "osu_latency_mt: MPI_THREAD_MULTIPLE not provided (got %d)\n", provided);
    MPI_Finalize();
    return 1;
  }
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "osu_latency_mt: needs exactly 2 ranks (got %d)\n", size);
    MPI_Finalize();
    return 1;
  }
  sh.rank = rank;
  sh.senders = sh.options.sender_threads;
  sh.receivers = sh.options.receiver_threads;
  if (sh.receivers > sh.senders) sh.receivers = sh.senders; /* extra receivers would have nothing to do */
  sh.threads = rank == 0 ? sh.senders : sh.receivers;
  sh.latency = calloc((size_t)sh.senders, sizeof(double));
  if (sh.latency == NULL ||
      pthread_barrier_init(&sh.barrier, NULL, (unsigned)sh.threads) != 0) {
    fprintf(stderr, "osu_latency_mt: no memory for %d threads\n", sh.threads);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header("OSU MPI Multi-threaded Latency Test");
    printf("# Number of Sender threads: %d\n# Number of Receiver threads: %d\n", sh.options.sender_threads,
           sh.options.receiver_threads);
    printf("%-10s%*s\n", "# Size", OSU_FIELD_WIDTH, "Latency (us)");
    fflush(stdout);
  }
  osu_run_threads("osu_latency_mt", sh.threads, run, &sh);
  pthread_barrier_destroy(&sh.barrier);
  free(sh.latency);
  MPI_Finalize();
  return 0;
}
