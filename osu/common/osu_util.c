/* Shared parts of the OSU-style benchmarks. */
#define _POSIX_C_SOURCE 200112L  /* clock_gettime, pthreads */
#include <mpi.h>

#include "osu_args.h"
#include "osu_util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { kComputeWidth = 32 }; /* doubles per unit of work: 256 bytes */
static double compute_data[kComputeWidth];
static volatile double compute_sink;

double osu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void osu_compute(long units) {
  double sum = 0;
  for (long u = 0; u < units; ++u) {
    for (int i = 0; i < kComputeWidth; ++i) {
      compute_data[i] = compute_data[i] * 0.5 + 1.0;
      sum += compute_data[i];
    }
  }
  compute_sink = sum;
}

double osu_compute_unit_seconds(void) {
  long units = 1024;
  for (;;) {
    const double start = osu_now();
    osu_compute(units);
    if (osu_now() - start >= 1e-3 || units >= (1L << 30)) break;
    units *= 2;
  }
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double start = osu_now();
    osu_compute(units);
    const double per_unit = (osu_now() - start) / (double)units;
    if (r == 0 || per_unit < best) best = per_unit;
  }
  return best;
}

static int compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double osu_median(double *values, int n) {
  qsort(values, (size_t)n, sizeof(double), compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

/* A size with an optional K, M or G suffix (binary multiples). */
static void usage(const char *name, const struct osu_options *options) {
  printf("Usage: %s [options]\n", name);
  printf("  -m, --message-size [MIN:]MAX  message sizes from MIN to MAX bytes (K, M, G suffixes;\n"
         "                                default %zu:%zu)\n", options->min_size, options->max_size);
  printf("  -i, --iterations N            timed iterations per size (default %d, %d above %d bytes)\n",
         options->iterations, options->iterations_large, OSU_LARGE_MESSAGE_SIZE);
  printf("  -x, --warmup N                warm-up iterations per size (default %d, %d above %d bytes)\n",
         options->skip, options->skip_large, OSU_LARGE_MESSAGE_SIZE);
  if (options->uses_window) {
    printf("  -W, --window-size N           messages in flight per iteration (default %d)\n", options->window);
  }
  if (options->uses_threads) {
    printf("  -t, --num_threads SEND[:RECV] threads on the sending and receiving rank (default %d:%d)\n",
           options->sender_threads, options->receiver_threads);
  }
  if (options->uses_buffer_kind) {
    printf("  -b, --buffers malloc|alloc_mem where the message buffers come from (default %s)\n",
           options->alloc_mem ? "alloc_mem" : "malloc");
  }
  printf("  -h, --help                    this text\n");
}

enum osu_parse_result osu_parse_options(int argc, char **argv, const char *name, struct osu_options *options,
                                        int rank) {
  for (int i = 1; i < argc; ++i) {
    const char *arg = argv[i];
    const char *value = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
      if (rank == 0) usage(name, options);
      return OSU_PARSE_HELP;
    }
    if (value == NULL) {
      if (rank == 0) fprintf(stderr, "%s: option %s needs a value (-h for help)\n", name, arg);
      return OSU_PARSE_ERROR;
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
    } else if (options->uses_window && (strcmp(arg, "-W") == 0 || strcmp(arg, "--window-size") == 0)) {
      ok = osu_parse_count(value, &options->window) && options->window > 0;
    } else if (options->uses_threads && (strcmp(arg, "-t") == 0 || strcmp(arg, "--num_threads") == 0)) {
      char buffer[64];
      snprintf(buffer, sizeof(buffer), "%s", value);
      char *colon = strchr(buffer, ':');
      if (colon != NULL) *colon = '\0';
      ok = osu_parse_count(buffer, &options->sender_threads) && options->sender_threads > 0;
      if (colon != NULL) {
        ok = ok && osu_parse_count(colon + 1, &options->receiver_threads) && options->receiver_threads > 0;
      } else {
        options->receiver_threads = options->sender_threads;
      }
    } else if (options->uses_buffer_kind && (strcmp(arg, "-b") == 0 || strcmp(arg, "--buffers") == 0)) {
      ok = strcmp(value, "malloc") == 0 || strcmp(value, "alloc_mem") == 0;
      options->alloc_mem = strcmp(value, "alloc_mem") == 0;
    } else {
      if (rank == 0) fprintf(stderr, "%s: unknown option %s (-h for help)\n", name, arg);
      return OSU_PARSE_ERROR;
    }
    if (!ok) {
      if (rank == 0) fprintf(stderr, "%s: bad value '%s' for %s (-h for help)\n", name, value, arg);
      return OSU_PARSE_ERROR;
    }
    ++i;
  }
  return OSU_PARSE_OK;
}

void osu_print_header(const char *title) {
  printf("# %s (Tern OSU-style benchmarks v%s)\n", title, TERN_OSU_VERSION);
}

void *osu_alloc_buffer(size_t size, int fill) {
  long page = sysconf(_SC_PAGESIZE);
  void *buffer = NULL;
  if (posix_memalign(&buffer, page > 0 ? (size_t)page : 4096, size == 0 ? 1 : size) != 0) return NULL;
  memset(buffer, fill, size == 0 ? 1 : size);
  return buffer;
}

int osu_begin(int argc, char **argv, const char *name, struct osu_options *options, int max_window,
              enum osu_ranks ranks, int rank, int size) {
  enum osu_parse_result parsed = osu_parse_options(argc, argv, name, options, rank);
  if (parsed == OSU_PARSE_OK && max_window > 0 && options->window > max_window) {
    if (rank == 0) fprintf(stderr, "%s: window %d exceeds %d\n", name, options->window, max_window);
    parsed = OSU_PARSE_ERROR;
  }
  if (parsed == OSU_PARSE_OK) {
    if (ranks == OSU_RANKS_TWO && size != 2) {
      if (rank == 0) fprintf(stderr, "%s: needs exactly 2 ranks (got %d)\n", name, size);
      parsed = OSU_PARSE_ERROR;
    } else if (ranks == OSU_RANKS_PAIRS && (size < 2 || size % 2 != 0)) {
      if (rank == 0) fprintf(stderr, "%s: needs an even number of ranks (got %d)\n", name, size);
      parsed = OSU_PARSE_ERROR;
    }
  }
  if (parsed == OSU_PARSE_OK) return -1;
  MPI_Finalize();
  return parsed == OSU_PARSE_HELP ? 0 : 1;
}

struct osu_thread {
  void (*body)(int id, void *context);
  void *context;
  int id;
};

static void *osu_thread_main(void *opaque) {
  struct osu_thread *thread = opaque;
  thread->body(thread->id, thread->context);
  return NULL;
}

void osu_run_threads(const char *name, int count, void (*body)(int id, void *context), void *context) {
  pthread_t *threads = malloc(sizeof(pthread_t) * (size_t)count);
  struct osu_thread *slots = malloc(sizeof(struct osu_thread) * (size_t)count);
  if (threads == NULL || slots == NULL) {
    fprintf(stderr, "%s: no memory for %d threads\n", name, count);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int t = 0; t < count; ++t) {
    slots[t] = (struct osu_thread){body, context, t};
    if (pthread_create(&threads[t], NULL, osu_thread_main, &slots[t]) != 0) {
      fprintf(stderr, "%s: cannot start thread %d\n", name, t);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  for (int t = 0; t < count; ++t) pthread_join(threads[t], NULL);
  free(slots);
  free(threads);
}
