/* The driver of the non-blocking collective benchmarks (osu_nbc.h). */
#define _POSIX_C_SOURCE 199309L
#include "common/osu_nbc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/osu_args.h"
#include "common/osu_util.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double compute_sink;

/* Busy work for `seconds` without MPI, in `pieces` pieces with an MPI_Test
 * of `request` after each but the last (pieces <= 1: no test). */
static void compute(double seconds, int pieces, MPI_Request *request) {
  if (pieces < 1) pieces = 1;
  double value = 1.0;
  for (int piece = 0; piece < pieces; ++piece) {
    const double end = now() + seconds / pieces;
    while (now() < end) {
      for (int i = 0; i < 64; ++i) value = value * 0.999 + 0.5;
    }
    if (piece + 1 < pieces && *request != MPI_REQUEST_NULL) {
      int flag = 0;
      MPI_Test(request, &flag, MPI_STATUS_IGNORE);
    }
  }
  compute_sink = value;
}

/* Takes "-t N" / "--num_test_calls N" out of argv (the shared parser does
 * not know it); -1 when its value is bad. */
static int take_test_calls(int *argc, char **argv, int *test_calls) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if ((strcmp(argv[i], "-t") == 0 || strcmp(argv[i], "--num_test_calls") == 0)) {
      if (i + 1 >= *argc || !osu_parse_count(argv[i + 1], test_calls)) return -1;
      ++i;
      continue;
    }
    argv[kept++] = argv[i];
  }
  *argc = kept;
  return 0;
}

/* One run of `iterations` timed after `skip`: mean seconds of the whole
 * iteration and of its compute (0 when `target` is 0). */
static void run(const struct osu_nbc_benchmark *b, void *send, void *recv, size_t bytes, int iterations, int skip,
                double target, int test_calls, double *overall, double *computed) {
  double total = 0, compute_total = 0;
  for (int i = 0; i < iterations + skip; ++i) {
    MPI_Request request = MPI_REQUEST_NULL;
    const double start = now();
    b->start(send, recv, bytes, &request);
    double compute_time = 0;
    if (target > 0) {
      const double compute_start = now();
      compute(target, test_calls + 1, &request);
      compute_time = now() - compute_start;
    }
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (i >= skip) {
      total += now() - start;
      compute_total += compute_time;
    }
  }
  *overall = total / iterations;
  *computed = compute_total / iterations;
}

int osu_nbc_main(int argc, char **argv, const struct osu_nbc_benchmark *b) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int test_calls = 0;
  if (take_test_calls(&argc, argv, &test_calls) != 0) {
    if (rank == 0) fprintf(stderr, "%s: -t takes a count of MPI_Test calls\n", b->name);
    MPI_Finalize();
    return 1;
  }
  struct osu_options options = {b->min_size, 1UL << 20, 1000, 100, 100, 10, 0, 0, 0, 0, 0, 0, 0};
  const enum osu_parse_result parsed = osu_parse_options(argc, argv, b->name, &options, rank);
  if (parsed != OSU_PARSE_OK) {
    if (parsed == OSU_PARSE_HELP && rank == 0) printf("  -t, --num_test_calls N  MPI_Test calls during the compute\n");
    MPI_Finalize();
    return parsed == OSU_PARSE_HELP ? 0 : 1;
  }
  if (options.min_size < b->unit) options.min_size = b->unit;
  void *send = osu_alloc_buffer(options.max_size, 0);
  void *recv = osu_alloc_buffer(options.max_size, 0);
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "%s: no memory for two %zu-byte buffers\n", b->name, options.max_size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    osu_print_header(b->title);
    printf("# %d ranks; compute sized to the pure time, %d MPI_Test calls in it; means over the ranks\n", size,
           test_calls);
    printf("%-10s%*s%*s%*s%*s\n", "# Size", OSU_FIELD_WIDTH, "Overall(us)", OSU_FIELD_WIDTH, "Compute(us)",
           OSU_FIELD_WIDTH, "Pure Comm.(us)", OSU_FIELD_WIDTH, "Overlap(%)");
    fflush(stdout);
  }
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2) {
    const size_t used = bytes - bytes % b->unit;
    const int large = used > OSU_LARGE_MESSAGE_SIZE;
    const int iterations = large ? options.iterations_large : options.iterations;
    const int skip = large ? options.skip_large : options.skip;
    b->fill(send, recv, used, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double pure = 0, unused = 0, overall = 0, computed = 0, target = 0;
    run(b, send, recv, used, iterations, skip, 0, test_calls, &pure, &unused);
    int wrong = !b->check(send, recv, used, rank, size);
    MPI_Allreduce(&pure, &target, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    b->fill(send, recv, used, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    run(b, send, recv, used, iterations, skip, target, test_calls, &overall, &computed);
    wrong += !b->check(send, recv, used, rank, size);
    const double mine[4] = {overall, computed, pure, (double)wrong};
    double sums[4];
    MPI_Reduce(mine, sums, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      if (sums[3] != 0) {
        fprintf(stderr, "%s: wrong results on %.0f ranks at %zu bytes\n", b->name, sums[3], used);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      for (int i = 0; i < 3; ++i) sums[i] /= size;
      double overlap = 100.0 * (1.0 - (sums[0] - sums[1]) / sums[2]);
      overlap = overlap < 0 ? 0 : overlap > 100 ? 100 : overlap;
      printf("%-10zu%*.*f%*.*f%*.*f%*.*f\n", used, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, sums[0] * 1e6,
             OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, sums[1] * 1e6, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION,
             sums[2] * 1e6, OSU_FIELD_WIDTH, OSU_FLOAT_PRECISION, overlap);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }
  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
