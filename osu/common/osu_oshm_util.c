/* Shared parts of the OSU-style OpenSHMEM benchmarks. */
#define _POSIX_C_SOURCE 200112L
#include <shmem.h>

#include "osu_args.h"
#include "osu_oshm_util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The `global` memory mode: static, hence symmetric, arrays. */
static _Alignas(4096) unsigned char global_buffers[2][OSU_OSHM_GLOBAL_BUFFER_SIZE];

/* Symmetric scratch space of the helpers: one slot per PE, from shmem_malloc.
 * The helpers use only shmem_double_p and shmem_barrier_all, so that a
 * runtime's put benchmarks run before its reductions do, and so that they do
 * not need support for static symmetric data. */
static double *slots;
static int this_pe;
static int pe_count;

/* A size with an optional K, M or G suffix (binary multiples). */
static void usage(const char *name, const struct osu_oshm_options *options, unsigned accepts) {
  printf("Usage: %s%s [options]\n", name, (accepts & OSU_OSHM_ACCEPT_MEMORY) ? " [heap|global]" : "");
  if (accepts & OSU_OSHM_ACCEPT_MEMORY) {
    printf("  heap | global                 buffers from shmem_malloc (heap, the default) or static\n"
           "                                arrays (global, at most %lu bytes)\n", OSU_OSHM_GLOBAL_BUFFER_SIZE);
  }
  if (accepts & OSU_OSHM_ACCEPT_SIZES) {
    printf("  -m, --message-size [MIN:]MAX  message sizes from MIN to MAX bytes (K, M, G suffixes;\n"
           "                                default %zu:%zu)\n", options->min_size, options->max_size);
    printf("  -i, --iterations N            timed iterations per size (default %d, %d above %d bytes)\n",
           options->iterations, options->iterations_large, OSU_OSHM_LARGE_MESSAGE_SIZE);
    printf("  -x, --warmup N                warm-up iterations per size (default %d, %d above %d bytes)\n",
           options->skip, options->skip_large, OSU_OSHM_LARGE_MESSAGE_SIZE);
  } else {
    printf("  -i, --iterations N            timed iterations (default %d)\n", options->iterations);
    printf("  -x, --warmup N                warm-up iterations (default %d)\n", options->skip);
  }
  if (accepts & OSU_OSHM_ACCEPT_WINDOW) {
    printf("  -W, --window-size N           operations between two shmem_quiet calls (default %d)\n",
           options->window);
  }
  if (accepts & OSU_OSHM_ACCEPT_FULL) {
    printf("  -f, --full                    accepted for OMB compatibility: min, max and iterations\n"
           "                                are always listed\n");
  }
  printf("  -h, --help                    this text\n");
}

enum parse_result { PARSE_OK, PARSE_HELP, PARSE_ERROR };

static enum parse_result parse_options(int argc, char **argv, const char *name, struct osu_oshm_options *options,
                                       unsigned accepts, int rank) {
  int memory_given = 0;
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      if (rank == 0) usage(name, options, accepts);
      return PARSE_HELP;
    }
    if ((accepts & OSU_OSHM_ACCEPT_MEMORY) && (strcmp(arg, "heap") == 0 || strcmp(arg, "global") == 0)) {
      if (memory_given++) {
        if (rank == 0) fprintf(stderr, "%s: heap or global given twice (-h for help)\n", name);
        return PARSE_ERROR;
      }
      options->use_heap = strcmp(arg, "heap") == 0;
      continue;
    }
    if ((accepts & OSU_OSHM_ACCEPT_FULL) && (strcmp(arg, "-f") == 0 || strcmp(arg, "--full") == 0)) continue;
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    const int known = strcmp(arg, "-i") == 0 || strcmp(arg, "--iterations") == 0 || strcmp(arg, "-x") == 0 ||
                      strcmp(arg, "--warmup") == 0 ||
                      ((accepts & OSU_OSHM_ACCEPT_SIZES) && (strcmp(arg, "-m") == 0 || strcmp(arg, "--message-size") == 0)) ||
                      ((accepts & OSU_OSHM_ACCEPT_WINDOW) && (strcmp(arg, "-W") == 0 || strcmp(arg, "--window-size") == 0));
    if (!known) {
      if (rank == 0) fprintf(stderr, "%s: unknown argument %s (-h for help)\n", name, arg);
      return PARSE_ERROR;
    }
    if (value == NULL) {
      if (rank == 0) fprintf(stderr, "%s: option %s needs a value (-h for help)\n", name, arg);
      return PARSE_ERROR;
    }
    int ok = 1;
    if (strcmp(arg, "-m") == 0 || strcmp(arg, "--message-size") == 0) {
      ok = osu_parse_size_range(value, &options->min_size, &options->max_size);
    } else if (strcmp(arg, "-i") == 0 || strcmp(arg, "--iterations") == 0) {
      ok = osu_parse_count(value, &options->iterations) && options->iterations > 0;
      options->iterations_large = options->iterations;
    } else if (strcmp(arg, "-x") == 0 || strcmp(arg, "--warmup") == 0) {
      ok = osu_parse_count(value, &options->skip);
      options->skip_large = options->skip;
    } else {
      ok = osu_parse_count(value, &options->window) && options->window > 0;
    }
    if (!ok) {
      if (rank == 0) fprintf(stderr, "%s: bad value '%s' for %s (-h for help)\n", name, value, arg);
      return PARSE_ERROR;
    }
    ++i;
  }
  if ((accepts & OSU_OSHM_ACCEPT_MEMORY) && !options->use_heap && options->global_limit > 0 &&
      options->max_size > options->global_limit) {
    if (rank == 0) {
      fprintf(stderr, "%s: the global arrays hold at most %zu-byte messages (got -m ...:%zu); use heap\n", name,
              options->global_limit, options->max_size);
    }
    return PARSE_ERROR;
  }
  return PARSE_OK;
}

int osu_oshm_begin(int argc, char **argv, const char *name, struct osu_oshm_options *options, unsigned accepts,
                   enum osu_oshm_pes pes) {
  this_pe = shmem_my_pe();
  pe_count = shmem_n_pes();
  enum parse_result parsed = parse_options(argc, argv, name, options, accepts, this_pe);
  if (parsed == PARSE_OK) {
    if (pes == OSU_OSHM_PES_TWO && pe_count != 2) {
      if (this_pe == 0) fprintf(stderr, "%s: needs exactly 2 PEs (got %d)\n", name, pe_count);
      parsed = PARSE_ERROR;
    } else if (pes == OSU_OSHM_PES_PAIRS && (pe_count < 2 || pe_count % 2 != 0)) {
      if (this_pe == 0) fprintf(stderr, "%s: needs an even number of PEs (got %d)\n", name, pe_count);
      parsed = PARSE_ERROR;
    } else if (pes == OSU_OSHM_PES_MANY && pe_count < 2) {
      if (this_pe == 0) fprintf(stderr, "%s: needs at least 2 PEs (got %d)\n", name, pe_count);
      parsed = PARSE_ERROR;
    }
  }
  if (parsed == PARSE_OK) {
    slots = shmem_malloc(sizeof(double) * (size_t)pe_count);
    if (slots == NULL) {
      if (this_pe == 0) fprintf(stderr, "%s: shmem_malloc of %d doubles failed\n", name, pe_count);
      parsed = PARSE_ERROR;
    } else {
      shmem_barrier_all();
      return -1;
    }
  }
  shmem_finalize();
  return parsed == PARSE_HELP ? 0 : 1;
}

void osu_oshm_end(void) {
  shmem_barrier_all();
  shmem_free(slots);
  slots = NULL;
  shmem_finalize();
}

void osu_oshm_print_header(const char *title) {
  printf("# %s (Tern OSU-style benchmarks v%s)\n", title, TERN_OSU_VERSION);
}

double osu_oshm_time_us(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e6 + (double)now.tv_nsec / 1e3;
}

int osu_oshm_iterations(const struct osu_oshm_options *options, size_t bytes) {
  return bytes > OSU_OSHM_LARGE_MESSAGE_SIZE ? options->iterations_large : options->iterations;
}

int osu_oshm_skip(const struct osu_oshm_options *options, size_t bytes) {
  return bytes > OSU_OSHM_LARGE_MESSAGE_SIZE ? options->skip_large : options->skip;
}

/* Writes `value` into this PE's slot on every PE; after it each PE's slots
 * hold the values of all. Callers end with a barrier before the next use. */
static void gather(double value) {
  for (int pe = 0; pe < pe_count; ++pe) shmem_double_p(&slots[this_pe], value, pe);
  shmem_barrier_all();
}

void osu_oshm_stats(double value, double *avg, double *min, double *max) {
  gather(value);
  double sum = 0;
  *min = slots[0];
  *max = slots[0];
  for (int pe = 0; pe < pe_count; ++pe) {
    sum += slots[pe];
    if (slots[pe] < *min) *min = slots[pe];
    if (slots[pe] > *max) *max = slots[pe];
  }
  *avg = sum / pe_count;
  shmem_barrier_all();
}

double osu_oshm_sum(double value) {
  gather(value);
  double sum = 0;
  for (int pe = 0; pe < pe_count; ++pe) sum += slots[pe];
  shmem_barrier_all();
  return sum;
}

unsigned char osu_oshm_pattern_byte(unsigned seed, size_t j) {
  return (unsigned char)(j * 7u + (j >> 8) * 3u + seed * 13u + 1u);
}

void osu_oshm_fill(void *buffer, size_t bytes, unsigned seed) {
  unsigned char *bytes_out = buffer;
  for (size_t j = 0; j < bytes; ++j) bytes_out[j] = osu_oshm_pattern_byte(seed, j);
}

size_t osu_oshm_verify(const void *buffer, size_t from, size_t to, unsigned seed, const char *name, const char *what) {
  const unsigned char *data = buffer;
  size_t errors = 0;
  for (size_t j = from; j < to; ++j) {
    const unsigned char expected = osu_oshm_pattern_byte(seed, j);
    if (data[j] != expected) {
      if (errors == 0) {
        fprintf(stderr, "%s: PE %d: %s: byte %zu (of %zu..%zu) is 0x%02x, expected 0x%02x\n", name, this_pe, what, j,
                from, to, data[j], expected);
      }
      ++errors;
    }
  }
  return errors;
}

void osu_oshm_fail_on_errors(long errors, const char *name, const char *context) {
  const double total = osu_oshm_sum((double)errors);
  if (total == 0) return;
  if (this_pe == 0) {
    fprintf(stderr, "%s: data check failed (%s): %.0f wrong values over the PEs; stopping\n", name, context, total);
  }
  fflush(stdout);
  fflush(stderr);
  shmem_finalize();
  exit(1);
}

void osu_oshm_check_size(long errors, const char *name, size_t bytes) {
  char context[48];
  snprintf(context, sizeof(context), "size %zu", bytes);
  osu_oshm_fail_on_errors(errors, name, context);
}

void *osu_oshm_buffer(const struct osu_oshm_options *options, int which, size_t bytes) {
  if (options->use_heap) return shmem_align(4096, bytes == 0 ? 1 : bytes);
  if (which < 0 || which > 1 || bytes > OSU_OSHM_GLOBAL_BUFFER_SIZE) return NULL;
  return global_buffers[which];
}

void osu_oshm_free_buffer(const struct osu_oshm_options *options, void *buffer) {
  if (options->use_heap) shmem_free(buffer);
}

long *osu_oshm_psync(size_t count) {
  long *psync = shmem_malloc(sizeof(long) * (count == 0 ? 1 : count));
  if (psync == NULL) return NULL;
  for (size_t i = 0; i < count; ++i) psync[i] = SHMEM_SYNC_VALUE;
  return psync;
}

int osu_oshm_collective_begin(int argc, char **argv, const char *name, struct osu_oshm_options *options,
                              size_t element) {
  *options = (struct osu_oshm_options){8, OSU_OSHM_MAX_MESSAGE_SIZE, 1000, 100, 100, 10, 1, 1, 0};
  const int exit_code =
      osu_oshm_begin(argc, argv, name, options, OSU_OSHM_ACCEPT_SIZES | OSU_OSHM_ACCEPT_FULL, OSU_OSHM_PES_MANY);
  if (exit_code >= 0) return exit_code;
  options->min_size = options->min_size < element ? element : (options->min_size + element - 1) / element * element;
  return -1;
}

void osu_oshm_print_collective_columns(void) {
  printf("%-10s%*s%*s%*s%*s\n", "# Size", OSU_OSHM_FIELD_WIDTH, "Avg Latency(us)", OSU_OSHM_FIELD_WIDTH,
         "Min Latency(us)", OSU_OSHM_FIELD_WIDTH, "Max Latency(us)", 12, "Iterations");
  fflush(stdout);
}

void osu_oshm_collective_report(long errors, const char *name, size_t bytes, double timer, int iterations) {
  osu_oshm_check_size(errors, name, bytes);
  double avg = 0, min = 0, max = 0;
  osu_oshm_stats(timer / iterations, &avg, &min, &max);
  if (this_pe == 0) {
    printf("%-10zu%*.*f%*.*f%*.*f%*d\n", bytes, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, avg,
           OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, min, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, max, 12,
           iterations);
    fflush(stdout);
  }
}

void osu_oshm_collective_end(const struct osu_oshm_options *options, long *psync[2], void *dest, void *source) {
  shmem_free(psync[1]);
  shmem_free(psync[0]);
  osu_oshm_free_buffer(options, dest);
  osu_oshm_free_buffer(options, source);
  osu_oshm_end();
}

int osu_oshm_collect_latency(int argc, char **argv, const char *name, const char *title, osu_oshm_collect_fn collect) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();

  struct osu_oshm_options options;
  const int exit_code = osu_oshm_collective_begin(argc, argv, name, &options, 8);
  if (exit_code >= 0) return exit_code;
  int64_t *source = osu_oshm_buffer(&options, 0, options.max_size);
  int64_t *dest = osu_oshm_buffer(&options, 1, options.max_size * (size_t)npes);
  long *psync[2] = {osu_oshm_psync(SHMEM_COLLECT_SYNC_SIZE), osu_oshm_psync(SHMEM_COLLECT_SYNC_SIZE)};
  if (source == NULL || dest == NULL || psync[0] == NULL || psync[1] == NULL) {
    fprintf(stderr, "%s: PE %d: no symmetric memory for %zu-byte buffers\n", name, me, options.max_size * (size_t)npes);
    shmem_global_exit(1);
  }
  shmem_barrier_all();
  if (me == 0) {
    osu_oshm_print_header(title);
    printf("# [ PEs: %d ]\n", npes);
    osu_oshm_print_collective_columns();
  }

  unsigned base = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2, base += 7) {
    const int iterations = osu_oshm_iterations(&options, bytes);
    const int skip = osu_oshm_skip(&options, bytes);
    const size_t elements = bytes / 8;
    /* PE p sends pattern base + 1 + p % 200 over what all hold, pattern base + 255. */
    osu_oshm_fill(source, bytes, base + 1 + (unsigned)(me % 200));
    osu_oshm_fill(dest, bytes * (size_t)npes, base + 255);
    shmem_barrier_all();

    long errors = 0;
    double timer = 0;
    for (int i = 0; i < iterations + skip; ++i) {
      const int64_t stamp = ((int64_t)(i + 1) << 24) + ((int64_t)base << 12);
      source[0] = stamp + me;
      const double start = osu_oshm_time_us();
      collect(dest, source, elements, 0, 0, npes, psync[i % 2]);
      const double stop = osu_oshm_time_us();
      if (i >= skip) timer += stop - start;
      for (int pe = 0; pe < npes; ++pe) {
        if (dest[(size_t)pe * elements] != stamp + pe) {
          if (errors == 0) {
            fprintf(stderr, "%s: PE %d: size %zu, call %d: first element from PE %d is %lld, expected %lld\n", name,
                    me, bytes, i, pe, (long long)dest[(size_t)pe * elements], (long long)(stamp + pe));
          }
          ++errors;
        }
      }
      shmem_barrier_all();
    }
    for (int pe = 0; pe < npes; ++pe) {
      errors += (long)osu_oshm_verify((const char *)dest + (size_t)pe * bytes, 8, bytes,
                                      base + 1 + (unsigned)(pe % 200), name, "bytes collected");
    }
    osu_oshm_collective_report(errors, name, bytes, timer, iterations);
    if (bytes >= options.max_size) break;
  }

  osu_oshm_collective_end(&options, psync, dest, source);
  return 0;
}

/* Bytes past the message that must stay untouched, to catch overruns. */
#define RMA_GUARD 64

typedef void (*rma_fn)(void *dest, const void *source, size_t nelems, int pe);

/* PE 0's timed loop with a blocking routine; a put is not complete until
 * shmem_quiet, so each one pays for its quiet as in OMB. */
static double time_blocking(rma_fn rma, int quiet_each, char *target, const char *source, size_t bytes, int iterations,
                            int skip) {
  double start = 0;
  for (int i = 0; i < iterations + skip; ++i) {
    if (i == skip) start = osu_oshm_time_us();
    rma(target, source, bytes, 1);
    if (quiet_each) shmem_quiet();
  }
  return osu_oshm_time_us() - start;
}

/* PE 0's timed loop with an _nbi routine: a quiet per `window` calls and one
 * after the last, so that the time covers completed transfers only. */
static double time_nbi(rma_fn rma, int window, char *target, const char *source, size_t bytes, int iterations,
                       int skip) {
  for (int i = 0; i < skip; ++i) {
    rma(target, source, bytes, 1);
    if ((i + 1) % window == 0) shmem_quiet();
  }
  shmem_quiet();
  const double start = osu_oshm_time_us();
  for (int i = 0; i < iterations; ++i) {
    rma(target, source, bytes, 1);
    if ((i + 1) % window == 0) shmem_quiet();
  }
  if (iterations % window != 0) shmem_quiet();
  return osu_oshm_time_us() - start;
}

int osu_oshm_rma_latency(int argc, char **argv, const struct osu_oshm_rma_test *test) {
  shmem_init();
  const int me = shmem_my_pe();
  const char *name = test->name;
  const int put = test->direction == OSU_OSHM_RMA_PUT;

  struct osu_oshm_options options = {1, OSU_OSHM_MAX_MESSAGE_SIZE, 10000, 1000, 100, 10, 1, 1,
                                     OSU_OSHM_GLOBAL_BUFFER_SIZE - RMA_GUARD};
  const unsigned accepts = OSU_OSHM_ACCEPT_SIZES | OSU_OSHM_ACCEPT_MEMORY | (test->nbi ? OSU_OSHM_ACCEPT_WINDOW : 0u);
  const int exit_code = osu_oshm_begin(argc, argv, name, &options, accepts, OSU_OSHM_PES_TWO);
  if (exit_code >= 0) return exit_code;
  const rma_fn rma = test->nbi ? (put ? shmem_putmem_nbi : shmem_getmem_nbi) : (put ? shmem_putmem : shmem_getmem);
  /* The PE whose `source` holds the message; the other one checks its `target`. */
  const int sender = put ? 0 : 1;
  char *source = osu_oshm_buffer(&options, 0, options.max_size + RMA_GUARD);
  char *target = osu_oshm_buffer(&options, 1, options.max_size + RMA_GUARD);
  if (source == NULL || target == NULL) {
    fprintf(stderr, "%s: PE %d: no symmetric memory for %zu-byte buffers\n", name, me, options.max_size + RMA_GUARD);
    shmem_global_exit(1);
  }
  if (me == 0) {
    osu_oshm_print_header(test->title);
    if (test->nbi) {
      printf("# [ memory: %s ] [ window: %d ]\n", options.use_heap ? "heap" : "global", options.window);
    } else {
      printf("# [ memory: %s ]\n", options.use_heap ? "heap" : "global");
    }
    printf("%-10s%*s\n", "# Size", OSU_OSHM_FIELD_WIDTH, "Latency (us)");
    fflush(stdout);
  }

  unsigned seed = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes = bytes == 0 ? 1 : bytes * 2, seed += 2) {
    const int iterations = osu_oshm_iterations(&options, bytes);
    const int skip = osu_oshm_skip(&options, bytes);
    /* The sender's pattern seed + 1 goes over what the receiver holds, pattern seed + 2. */
    if (me == sender) {
      osu_oshm_fill(source, bytes, seed + 1);
    } else {
      osu_oshm_fill(target, bytes + RMA_GUARD, seed + 2);
    }
    shmem_barrier_all();

    double elapsed = 0;
    if (me == 0) {
      elapsed = test->nbi ? time_nbi(rma, options.window, target, source, bytes, iterations, skip)
                          : time_blocking(rma, put, target, source, bytes, iterations, skip);
    }
    shmem_barrier_all();

    long errors = 0;
    if (me != sender) {
      const char *what = put ? "bytes put by PE 0" : "bytes got from PE 1";
      errors += (long)osu_oshm_verify(target, 0, bytes, seed + 1, name, what);
      errors += (long)osu_oshm_verify(target, bytes, bytes + RMA_GUARD, seed + 2, name, "bytes past the message");
    }
    osu_oshm_check_size(errors, name, bytes);
    if (me == 0) {
      printf("%-10zu%*.*f\n", bytes, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, elapsed / iterations);
      fflush(stdout);
    }
    if (bytes == options.max_size) break;
  }

  osu_oshm_free_buffer(&options, target);
  osu_oshm_free_buffer(&options, source);
  osu_oshm_end();
  return 0;
}
