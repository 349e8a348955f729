/* osu_overlap: how much of a point-to-point transfer hides behind
 * computation on the receiver, after the method of the OSU Micro-Benchmarks'
 * non-blocking collective tests applied to one MPI_Irecv.
 *
 * Rank 1 posts MPI_Irecv, computes for a set time without calling MPI (a
 * calibrated busy loop over a small array of its own, timed with
 * clock_gettime, never MPI_Wtime, which an MPI may use to make progress),
 * then calls MPI_Wait; rank 0 sends the message with MPI_Send. Per size:
 *
 *   t_pure     time on rank 1 of posting the receive plus the time from the
 *              handshake (below) to the return of MPI_Wait, with no
 *              computation between them
 *   t_compute  time of the busy loop, calibrated per size to about
 *              1.2 x t_pure (as OMB sizes its compute to the pure time), so
 *              that a transfer which overlaps completely finishes inside it
 *   t_total    the time of t_pure with the busy loop between the handshake
 *              and MPI_Wait
 *   overlap    max(0, min(100, 100 * (1 - (t_total - t_compute) / t_pure)))
 *
 * as OMB's non-blocking collective benchmarks define overlap. Each time is
 * the median over the timed iterations of a run of messages without the
 * compute (t_pure), then of a run with it (t_total, t_compute). OMB takes
 * means; on a machine whose cores other work shares, one iteration that
 * loses its core moves a mean of a thousand, and in t_pure it would also
 * inflate the compute that is sized from it.
 *
 * 100% means the transfer went on entirely while rank 1 computed (MPI_Wait
 * found it done); 0% means none of it did (it only moved once rank 1 was back
 * in MPI, as a rendezvous whose data the receiver pulls after matching).
 *
 * The handshake that starts each iteration: rank 1 posts the receive and
 * sends rank 0 a zero-byte "ready" message (its cost is left out of the
 * times); rank 0 waits for it and sends at once. Both sides so start within
 * one small-message latency of each other, the same in both phases, and the
 * receive is always posted before the data leaves (a pre-posted receive,
 * the case a matching offload can serve).
 *
 * Every message's first and last bytes carry the iteration's markers, and
 * rank 1 checks them after each receive and the rest of the buffer once per
 * size; the benchmark stops with an error instead of printing numbers when
 * the data is wrong. -m [MIN:]MAX (default 1:4M), -i and -x as in the other
 * benchmarks (default 1000 and 100, 100 and 10 above 8 KiB). -b alloc_mem
 * takes both ranks' buffers from MPI_Alloc_mem, the memory an MPI may make
 * special for communication (in Tern: memory the other ranks of the node
 * map, which a tag-matching offload fills with a plain copy); the default,
 * malloc, is where most programs' buffers live. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/osu_util.h"

enum { kDataTag = 1, kReadyTag = 2, kResultTag = 3 };
#define COMPUTE_FACTOR 1.2

/* Mean seconds per unit of work over `runs` runs of `units` units. */
static double seconds_per_unit(long units, int runs) {
  const double start = osu_now();
  for (int r = 0; r < runs; ++r) osu_compute(units);
  return (osu_now() - start) / ((double)units * runs);
}

/* Units of work that take about `seconds`: a first guess from `per_unit`,
 * then one correction from the median of a few runs of that guess. */
static long units_for(double seconds, double per_unit) {
  long units = (long)(seconds / per_unit + 0.5);
  if (units < 1) units = 1;
  double runs[5];
  for (int r = 0; r < 5; ++r) runs[r] = seconds_per_unit(units, 1);
  units = (long)(seconds / osu_median(runs, 5) + 0.5);
  return units < 1 ? 1 : units;
}

static char first_marker(int i) { return (char)('A' + i % 26); }
static char last_marker(int i) { return (char)('z' - i % 26); }

/* One phase of `skip` + `iterations` messages of `count` bytes, with
 * `units` of work between the receive and the wait (0: none). Rank 1 gets
 * each timed message's time and that of its work, in seconds, and a count
 * of messages whose markers were wrong. */
static void run_phase(int rank, char *buffer, int count, int iterations, int skip, long units, double *totals,
                      double *computes, int *wrong) {
  for (int i = 0; i < iterations + skip; ++i) {
    if (rank == 0) {
      buffer[0] = first_marker(i);
      buffer[count - 1] = last_marker(i);
      MPI_Recv(NULL, 0, MPI_CHAR, 1, kReadyTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, count, MPI_CHAR, 1, kDataTag, MPI_COMM_WORLD);
      continue;
    }
    /* Both phases read the clock at the same points, so that the reads
     * cost the same in t_pure as in t_total - t_compute. */
    MPI_Request request;
    const double posting = osu_now();
    MPI_Irecv(buffer, count, MPI_CHAR, 0, kDataTag, MPI_COMM_WORLD, &request);
    const double posted = osu_now();
    MPI_Send(NULL, 0, MPI_CHAR, 0, kReadyTag, MPI_COMM_WORLD); /* the handshake: not timed */
    const double start = osu_now();
    osu_compute(units);
    const double compute_time = osu_now() - start;
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    const double elapsed = (posted - posting) + (osu_now() - start);
    if (buffer[count - 1] != last_marker(i) || (count > 1 && buffer[0] != first_marker(i))) ++*wrong;
    if (i >= skip) {
      totals[i - skip] = elapsed;
      computes[i - skip] = compute_time;
    }
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct osu_options options = {1, OSU_MAX_MESSAGE_SIZE, 1000, 100, 100, 10, 0, 0, 0, 0, 0, 1, 0};
  const int exit_code = osu_begin(argc, argv, "osu_overlap", &options, 0, OSU_RANKS_TWO, rank, size);
  if (exit_code >= 0) return exit_code;
  if (options.min_size == 0) options.min_size = 1;
  char *buffer = NULL;
  if (!options.alloc_mem) {
    buffer = osu_alloc_buffer(options.max_size, rank == 0 ? 'a' : 'b');
  } else if (MPI_Alloc_mem((MPI_Aint)options.max_size, MPI_INFO_NULL, &buffer) == MPI_SUCCESS) {
    memset(buffer, rank == 0 ? 'a' : 'b', options.max_size);
  }
  const int most = options.iterations > options.iterations_large ? options.iterations : options.iterations_large;
  double *totals = malloc(sizeof(double) * (size_t)most);
  double *computes = malloc(sizeof(double) * (size_t)most);
  if (buffer == NULL || totals == NULL || computes == NULL) {
    fprintf(stderr, "osu_overlap: no memory for a %zu-byte buffer and %d samples\n", options.max_size, most);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const double per_unit = rank == 1 ? osu_compute_unit_seconds() : 0;
  if (rank == 0) {
    osu_print_header("OSU MPI Overlap Test");
    printf("# rank 1: MPI_Irecv, compute %.1f x the pure time without calling MPI, MPI_Wait; rank 0: MPI_Send\n",
           COMPUTE_FACTOR);
    printf("# buffers from %s\n", options.alloc_mem ? "MPI_Alloc_mem" : "malloc");
    printf("# overlap = max(0, min(100, 100 * (1 - (total - compute) / pure))); times: medians of the iterations\n");
    printf("%-10s%*s%*s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "Pure (us)", OSU_FIELD_WIDTH, "Total (us)",
           OSU_FIELD_WIDTH, "Compute (us)", OSU_FIELD_WIDTH, "Overlap (%)");
    fflush(stdout);
  }

  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const int large = bytes > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    const int count = (int)bytes;
    double pure = 0, total = 0, computed = 0;
    int wrong = 0;
    if (rank == 1) memset(buffer, 'b', bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    run_phase(rank, buffer, count, iterations, skip, 0, totals, computes, &wrong);
    /* Rank 0 waits in its next "ready" receive while rank 1 calibrates. */
    long units = 0;
    if (rank == 1) {
      pure = osu_median(totals, iterations);
      units = units_for(COMPUTE_FACTOR * pure, per_unit);
    }
    run_phase(rank, buffer, count, iterations, skip, units, totals, computes, &wrong);
    if (rank == 1) {
      total = osu_median(totals, iterations);
      computed = osu_median(computes, iterations);
    }

    if (rank == 0) {
      memset(buffer, 'a', bytes); /* the markers off again before the next size */
    } else {
      for (int i = 1; i + 1 < count; ++i) wrong += buffer[i] != 'a';
      const double result[4] = {pure, total, computed, (double)wrong};
      MPI_Send(result, 4, MPI_DOUBLE, 0, kResultTag, MPI_COMM_WORLD);
    }
    if (rank == 0) {
      double result[4];
      MPI_Recv(result, 4, MPI_DOUBLE, 1, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (result[3] != 0) {
        fprintf(stderr, "osu_overlap: %.0f wrong bytes or messages received at %zu bytes\n", result[3], bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      double overlap = 100.0 * (1.0 - (result[1] - result[2]) / result[0]);
      overlap = overlap < 0 ? 0 : overlap > 100 ? 100 : overlap;
      printf("%-10zu%*.*f%*.*f%*.*f%*.*f\n", bytes, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, result[0] * 1e6,
             OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, result[1] * 1e6, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION,
             result[2] * 1e6, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, overlap);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }

  free(totals);
  free(computes);
  if (options.alloc_mem) {
    MPI_Free_mem(buffer);
  } else {
    free(buffer);
  }
  MPI_Finalize();
  return 0;
}
