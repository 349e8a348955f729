/* Shared parts of the OSU-style OpenSHMEM benchmarks: options, headers,
 * timing, statistics over the PEs, data patterns and checks.
 * Standard C11 and OpenSHMEM 1.4 (shmem.h) only, so the benchmarks build
 * with Tern's or any other OpenSHMEM's oshcc. Call osu_oshm_begin right
 * after shmem_init; the whole-benchmark functions at the end (RMA latency,
 * collect latency) call shmem_init themselves. */
#ifndef TERN_OSU_OSHM_UTIL_H
#define TERN_OSU_OSHM_UTIL_H

#include <stddef.h>

#ifndef TERN_OSU_VERSION
#define TERN_OSU_VERSION "0.1.0"
#endif

/* Messages larger than this use the "large" iteration and warm-up counts. */
#define OSU_OSHM_LARGE_MESSAGE_SIZE 8192
/* Default largest size of the point-to-point and collective tests. */
#define OSU_OSHM_MAX_MESSAGE_SIZE (1UL << 20)
/* Bytes of each static array the `global` memory mode uses. */
#define OSU_OSHM_GLOBAL_BUFFER_SIZE (1UL << 22)
/* Same columns as the MPI benchmarks here (common/osu_util.h). */
#define OSU_OSHM_FIELD_WIDTH 18
#define OSU_OSHM_FLOAT_PRECISION 2

struct osu_oshm_options {
  size_t min_size;
  size_t max_size;
  int iterations;       /* small messages */
  int skip;             /* warm-up iterations, small messages */
  int iterations_large; /* messages above OSU_OSHM_LARGE_MESSAGE_SIZE */
  int skip_large;
  int window;           /* operations between two shmem_quiet calls (-W) */
  int use_heap;         /* 1: shmem_malloc'd buffers (`heap`), 0: static arrays (`global`) */
  size_t global_limit;  /* largest size the `global` arrays hold (0: no limit) */
};

/* What a benchmark accepts besides -i, -x and -h. */
enum osu_oshm_accepts {
  OSU_OSHM_ACCEPT_SIZES = 1,  /* -m [MIN:]MAX */
  OSU_OSHM_ACCEPT_MEMORY = 2, /* `heap` or `global` as an argument */
  OSU_OSHM_ACCEPT_WINDOW = 4, /* -W N */
  OSU_OSHM_ACCEPT_FULL = 8,   /* -f (OMB's full listing; the listing here is always full) */
};

/* Which PE counts a benchmark runs on. */
enum osu_oshm_pes {
  OSU_OSHM_PES_TWO,   /* exactly 2 */
  OSU_OSHM_PES_PAIRS, /* an even number: PE i of the first half with PE i + n/2 */
  OSU_OSHM_PES_MANY,  /* 2 or more */
};

/* The start every benchmark shares, after shmem_init: parses the options into
 * `options` (pre-filled with the benchmark's defaults), checks the number of
 * PEs and allocates the symmetric scratch space the helpers below use.
 * Returns -1 to go on; otherwise shmem_finalize has been called and the value
 * is the exit code (0 after -h). Messages are printed on PE 0 only. */
int osu_oshm_begin(int argc, char **argv, const char *name, struct osu_oshm_options *options, unsigned accepts,
                   enum osu_oshm_pes pes);

/* Frees the scratch space and calls shmem_finalize. */
void osu_oshm_end(void);

/* "# <title> (Tern OSU-style benchmarks v...)" */
void osu_oshm_print_header(const char *title);

/* Wall-clock time in microseconds (monotonic). */
double osu_oshm_time_us(void);

/* Iterations and warm-up iterations for a size. */
int osu_oshm_iterations(const struct osu_oshm_options *options, size_t bytes);
int osu_oshm_skip(const struct osu_oshm_options *options, size_t bytes);

/* Collective over all PEs: average, minimum and maximum of `value`. */
void osu_oshm_stats(double value, double *avg, double *min, double *max);

/* Collective over all PEs: sum of `value`. */
double osu_oshm_sum(double value);

/* Byte j of pattern `seed`. Two seeds that differ modulo 256 differ at every byte. */
unsigned char osu_oshm_pattern_byte(unsigned seed, size_t j);

/* Fills `bytes` bytes with pattern `seed`. */
void osu_oshm_fill(void *buffer, size_t bytes, unsigned seed);

/* Number of the bytes from offset `from` up to `to` that differ from pattern
 * `seed` (as osu_oshm_fill writes it from offset 0); the first mismatch is
 * printed on stderr with `name`, the PE and `what`. */
size_t osu_oshm_verify(const void *buffer, size_t from, size_t to, unsigned seed, const char *name, const char *what);

/* Collective over all PEs: when the PEs found errors (the sum of `errors`),
 * PE 0 says so on stderr, naming `context` (e.g. "size 64"), and every PE
 * ends with exit code 1, so a broken runtime shows up as an error rather
 * than as a number. */
void osu_oshm_fail_on_errors(long errors, const char *name, const char *context);

/* osu_oshm_fail_on_errors with "size <bytes>" as the context. */
void osu_oshm_check_size(long errors, const char *name, size_t bytes);

/* Symmetric buffer of `bytes` bytes for `which` (0 or 1): from shmem_align
 * in heap mode, else one of the two static arrays of
 * OSU_OSHM_GLOBAL_BUFFER_SIZE bytes (null when `bytes` is larger).
 * Collective in heap mode. */
void *osu_oshm_buffer(const struct osu_oshm_options *options, int which, size_t bytes);

/* Gives back a buffer from osu_oshm_buffer (collective in heap mode). */
void osu_oshm_free_buffer(const struct osu_oshm_options *options, void *buffer);

/* Symmetric pSync array of `count` longs set to SHMEM_SYNC_VALUE; the caller
 * must shmem_barrier_all before its first use. Null when out of memory. */
long *osu_oshm_psync(size_t count);

/* Shared by the collective benchmarks (broadcast, collect, fcollect, reduce). */

/* osu_oshm_begin with the collective defaults (sizes 8 bytes to
 * OSU_OSHM_MAX_MESSAGE_SIZE, 1000/100 iterations, 100/10 warm-ups; -m, -f),
 * for 2 or more PEs; then rounds the smallest size up to a whole number of
 * `element`-byte elements, since the routines count elements. Same return
 * value as osu_oshm_begin. */
int osu_oshm_collective_begin(int argc, char **argv, const char *name, struct osu_oshm_options *options,
                              size_t element);

/* The column line under the configuration line (call on PE 0). */
void osu_oshm_print_collective_columns(void);

/* End of one size, collective: stops on data errors (osu_oshm_check_size),
 * then PE 0 prints the average, minimum and maximum over the PEs of
 * `timer` / `iterations`, the mean time per call. */
void osu_oshm_collective_report(long errors, const char *name, size_t bytes, double timer, int iterations);

/* Frees the two pSync arrays and the two buffers of a collective benchmark,
 * then ends as osu_oshm_end does. Collective. */
void osu_oshm_collective_end(const struct osu_oshm_options *options, long *psync[2], void *dest, void *source);

/* Signature of shmem_collect64 and shmem_fcollect64. */
typedef void (*osu_oshm_collect_fn)(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,
                                    int PE_size, long *pSync);

/* The whole of osu_oshm_collect and osu_oshm_fcollect, which differ only in
 * the routine timed: calls shmem_init, runs the benchmark described in
 * osu_oshm_collect.c with `collect`, and returns main's exit code. */
int osu_oshm_collect_latency(int argc, char **argv, const char *name, const char *title, osu_oshm_collect_fn collect);

/* Shared by the one-sided latency benchmarks (put, get, put_nb, get_nb). */

enum osu_oshm_rma_direction {
  OSU_OSHM_RMA_PUT, /* PE 0 writes into PE 1, which checks the data */
  OSU_OSHM_RMA_GET, /* PE 0 reads from PE 1 and checks the data */
};

struct osu_oshm_rma_test {
  const char *name;  /* program name, for messages */
  const char *title; /* header line */
  enum osu_oshm_rma_direction direction;
  int nbi; /* 1: the _nbi routine with a shmem_quiet per window (-W); 0: the blocking one */
};

/* The whole of the four benchmarks, as their header comments describe:
 * calls shmem_init, runs and returns main's exit code. */
int osu_oshm_rma_latency(int argc, char **argv, const struct osu_oshm_rma_test *test);

#endif
