/* osu_critical: what a send costs its sender when the receiver is busy,
 * with and without a critical tag (smart progression: Tern holds such a
 * send, copying it once, and the sender goes on).
 *
 * Per iteration, after a handshake (rank 1 sends rank 0 a zero-byte "ready"
 * message, untimed): rank 0 calls MPI_Isend, computes for C without calling
 * MPI, then MPI_Wait; rank 1 computes for 2C, then MPI_Recv. Both compute
 * loops are calibrated busy loops timed with clock_gettime (never
 * MPI_Wtime, which an MPI may use to make progress). Per size:
 *
 *   Copy      a memcpy of the message on rank 0: the cost of one copy
 *   Sender    (Isend + compute + Wait) - compute on rank 0: what sending
 *             cost beyond the computation
 *   Receiver  the MPI_Recv on rank 1, after its computation
 *
 * each for the plain communicator and for one whose tern_critical_tags hint
 * names the data tag (an info key other MPIs ignore: they show the same
 * columns twice). Times are medians of the iterations. An MPI that moves a
 * rendezvous only while its receiver is in MPI keeps the sender waiting
 * about C (the receiver computes 2C); with the tag critical the sender
 * should pay one copy. C is 100 us or four copies, whichever is longer.
 * Every message's bytes are checked on rank 1 (the benchmark stops with an
 * error when they are wrong), after rank 0 overwrote its buffer between its
 * MPI_Wait and the next send. -m [MIN:]MAX (default 1:4M), -i and -x as
 * elsewhere (default 1000 and 100, 100 and 10 above 8 KiB). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/osu_util.h"

enum { kDataTag = 1, kReadyTag = 2, kResultTag = 3 };

static char pattern(int iteration, size_t i) { return (char)('a' + (iteration + (int)(i % 13)) % 26); }

/* One run of `skip` + `iterations` messages on `comm`. Rank 0 gets its
 * sender cost per timed iteration in `times`, rank 1 its receive times; rank
 * 1 counts messages whose bytes were wrong. */
static void run(MPI_Comm comm, int rank, char *buffer, size_t bytes, int iterations, int skip, long units,
                double *times, int *wrong) {
  const int count = (int)bytes;
  for (int i = 0; i < iterations + skip; ++i) {
    double elapsed = 0;
    if (rank == 0) {
      for (size_t b = 0; b < bytes; b += 4096) buffer[b] = pattern(i, b);
      buffer[bytes - 1] = pattern(i, bytes - 1);
      MPI_Recv(NULL, 0, MPI_CHAR, 1, kReadyTag, comm, MPI_STATUS_IGNORE);
      MPI_Request request;
      const double start = osu_now();
      MPI_Isend(buffer, count, MPI_CHAR, 1, kDataTag, comm, &request);
      const double computing = osu_now();
      osu_compute(units);
      const double computed = osu_now();
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      elapsed = (osu_now() - start) - (computed - computing);
      memset(buffer, 0, bytes); /* the buffer is the program's again */
    } else {
      MPI_Send(NULL, 0, MPI_CHAR, 0, kReadyTag, comm);
      osu_compute(2 * units);
      const double start = osu_now();
      MPI_Recv(buffer, count, MPI_CHAR, 0, kDataTag, comm, MPI_STATUS_IGNORE);
      elapsed = osu_now() - start;
      for (size_t b = 0; b < bytes; b += 4096) *wrong += buffer[b] != pattern(i, b);
      *wrong += buffer[bytes - 1] != pattern(i, bytes - 1);
    }
    if (i >= skip) times[i - skip] = elapsed;
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {1, OSU_MAX_MESSAGE_SIZE, 1000, 100, 100, 10, 0, 0, 0, 0, 0, 1, 0};
  const int exit_code = osu_begin(argc, argv, "osu_critical", &options, 0, OSU_RANKS_TWO, rank, size);
  if (exit_code >= 0) return exit_code;
  if (options.min_size == 0) options.min_size = 1;

  MPI_Comm plain, critical;
  MPI_Comm_dup(MPI_COMM_WORLD, &plain);
  MPI_Comm_dup(MPI_COMM_WORLD, &critical);
  MPI_Info info;
  MPI_Info_create(&info);
  char tags[16];
  snprintf(tags, sizeof(tags), "%d", kDataTag);
  MPI_Info_set(info, "tern_critical_tags", tags);
  MPI_Comm_set_info(critical, info);
  MPI_Info_free(&info);

  char *buffer = osu_alloc_buffer(options.max_size, 0);
  char *copy = osu_alloc_buffer(options.max_size, 0);
  const int most = options.iterations > options.iterations_large ? options.iterations : options.iterations_large;
  double *times = malloc(sizeof(double) * (size_t)most);
  if (buffer == NULL || copy == NULL || times == NULL) {
    fprintf(stderr, "osu_critical: no memory for %zu-byte buffers and %d samples\n", options.max_size, most);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Both ranks calibrate; rank 0's figure sizes the work of both. */
  double per_unit = osu_compute_unit_seconds();
  MPI_Bcast(&per_unit, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  if (rank == 0) {
    osu_print_header("OSU MPI Critical Tag Test");
    printf("# rank 0: MPI_Isend, compute C, MPI_Wait; rank 1: compute 2C, MPI_Recv; C = max(100 us, 4 copies)\n");
    printf("# Sender = (Isend + compute + Wait) - compute; critical: tern_critical_tags names the data tag\n");
    printf("%-10s%*s%*s%*s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "Copy (us)", OSU_FIELD_WIDTH, "Sender (us)",
           OSU_FIELD_WIDTH, "Sender crit", OSU_FIELD_WIDTH, "Receiver (us)", OSU_FIELD_WIDTH, "Recv crit");
    fflush(stdout);
  }

  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    /* One copy's time, on rank 0, sizes C for both ranks. */
    double copy_time = 0;
    if (rank == 0) {
      for (int i = 0; i < iterations + skip; ++i) {
        buffer[0] = (char)i;
        const double start = osu_now();
        memcpy(copy, buffer, bytes);
        if (i >= skip) times[i - skip] = osu_now() - start;
      }
      copy_time = osu_median(times, iterations);
    }
    MPI_Bcast(&copy_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double compute_seconds = 4 * copy_time > 100e-6 ? 4 * copy_time : 100e-6;
    const long units = (long)(compute_seconds / per_unit + 0.5);
    double result[4];
    int wrong = 0;
    run(plain, rank, buffer, bytes, iterations, skip, units, times, &wrong);
    result[0] = osu_median(times, iterations);
    run(critical, rank, buffer, bytes, iterations, skip, units, times, &wrong);
    result[1] = osu_median(times, iterations);
    if (rank == 1) {
      const double sent[3] = {result[0], result[1], (double)wrong};
      MPI_Send(sent, 3, MPI_DOUBLE, 0, kResultTag, MPI_COMM_WORLD);
    } else {
      double received[3];
      MPI_Recv(received, 3, MPI_DOUBLE, 1, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (received[2] != 0) {
        fprintf(stderr, "osu_critical: %.0f wrong bytes received at %zu bytes\n", received[2], bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      result[2] = received[0];
      result[3] = received[1];
      printf("%-10zu%*.*f%*.*f%*.*f%*.*f%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, copy_time * 1e6,
             OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, result[0] * 1e6, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION,
             result[1] * 1e6, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, result[2] * 1e6, OSU_FIELD_WIDTH,
             OSU_FLOAT_PRECISION, result[3] * 1e6);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }

  free(times);
  free(copy);
  free(buffer);
  MPI_Comm_free(&critical);
  MPI_Comm_free(&plain);
  MPI_Finalize();
  return 0;
}
