/* Shared parts of the OSU-style benchmarks: options, headers, buffers.
 * Standard C and MPI only, so the benchmarks build with any MPI's mpicc. */
#ifndef TERN_OSU_UTIL_H
#define TERN_OSU_UTIL_H

#include <stddef.h>

#ifndef TERN_OSU_VERSION
#define TERN_OSU_VERSION "0.1.0"
#endif

/* Messages larger than this use the "large" iteration and warm-up counts. */
#define OSU_LARGE_MESSAGE_SIZE 8192
#define OSU_MAX_MESSAGE_SIZE (1UL << 22)
#define OSU_FIELD_WIDTH 18
#define OSU_FLOAT_PRECISION 2

struct osu_options {
  size_t min_size;
  size_t max_size;
  int iterations;       /* small messages */
  int skip;             /* warm-up iterations, small messages */
  int iterations_large; /* messages above OSU_LARGE_MESSAGE_SIZE */
  int skip_large;
  int window;           /* osu_bw: messages in flight per iteration */
  int uses_window;      /* whether -W is accepted */
  int uses_threads;     /* whether -t is accepted (osu_latency_mt) */
  int sender_threads;   /* -t SEND[:RECV] */
  int receiver_threads;
  int uses_buffer_kind; /* whether -b is accepted */
  int alloc_mem;        /* -b alloc_mem: buffers from MPI_Alloc_mem (else malloc) */
};

/* Outcome of osu_parse_options. */
enum osu_parse_result { OSU_PARSE_OK, OSU_PARSE_HELP, OSU_PARSE_ERROR };

/* Parses -m min:max (or max; K/M/G suffixes), -i, -x, -W, -t, -b, -h into `options`
 * (pre-filled with the benchmark's defaults). Prints the usage on -h and the
 * reason on an error, on rank 0 only. */
enum osu_parse_result osu_parse_options(int argc, char **argv, const char *name, struct osu_options *options,
                                        int rank);

/* "# <title> (Tern OSU-style benchmarks v...)" */
void osu_print_header(const char *title);

/* Which rank counts a benchmark runs on. */
enum osu_ranks { OSU_RANKS_TWO, OSU_RANKS_PAIRS };

/* The start every benchmark shares, after MPI_Init: parses the options,
 * checks the window against `max_window` (0: no window) and the number of
 * ranks. Returns -1 to go on; otherwise MPI_Finalize has been called and the
 * value is the exit code (0 after -h). */
int osu_begin(int argc, char **argv, const char *name, struct osu_options *options, int max_window,
              enum osu_ranks ranks, int rank, int size);

/* Page-aligned buffer of `size` bytes filled with `fill`; null when out of memory. */
void *osu_alloc_buffer(size_t size, int fill);

/* Seconds on CLOCK_MONOTONIC: the benchmarks that time computation read
 * this, never MPI_Wtime, which an MPI may use to make progress. */
double osu_now(void);
/* The benchmarks' stand-in for computation: `units` passes over a small
 * array of their own (256 bytes, in L1), no MPI call. */
void osu_compute(long units);
/* Seconds one unit of osu_compute takes: the best of 5 runs of about a
 * millisecond each. */
double osu_compute_unit_seconds(void);
/* The median of `n` values (sorts them). */
double osu_median(double *values, int n);

/* Runs body(id, context) on `count` threads, id 0 to count - 1, and waits for
 * them all; a thread that cannot start aborts the job, naming `name`. */
void osu_run_threads(const char *name, int count, void (*body)(int id, void *context), void *context);

#endif
