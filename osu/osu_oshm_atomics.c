/* osu_oshm_atomics: rate and latency of the OpenSHMEM 1.4 atomics over pairs
 * of PEs, after the OSU Micro-Benchmarks method: PE i of the first half works
 * on PE i + n/2 of the second half. For each operation and type each origin
 * issues `iterations` operations, each on the next element of an array on its
 * peer, then one shmem_quiet (so that the non-fetching ones are complete
 * too); its rate is the operations over that time, and the rates are summed
 * over the pairs; the latency is the mean time per operation, averaged over
 * the pairs. `skip` warm-up operations go to other elements before. The
 * argument `heap` (default) or `global` selects a shmem_malloc'd array or a
 * static one. Every value fetched is checked, and the targets check every
 * element after each operation. */
#include <shmem.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_atomics"
#define OPERATION_WIDTH 36

/* Open MPI before 4.1.5 overruns its caller's stack in the 32-bit
 * compare-and-swap of its UCX atomics (open-mpi/ompi#11257, "stack smashing
 * detected"); that one operation is skipped there, with a note. */
#if defined(OSHMEM_MAJOR_VERSION) && defined(OSHMEM_MINOR_VERSION) && defined(OSHMEM_RELEASE_VERSION)
#if OSHMEM_MAJOR_VERSION * 10000 + OSHMEM_MINOR_VERSION * 100 + OSHMEM_RELEASE_VERSION < 40105
#define SKIP_32BIT_COMPARE_SWAP 1
#endif
#endif
#ifndef SKIP_32BIT_COMPARE_SWAP
#define SKIP_32BIT_COMPARE_SWAP 0
#endif

/* In OMB's order. */
enum operation { FETCH_ADD, FETCH_INC, ADD, INC, COMPARE_SWAP, SWAP, SET, FETCH, OPERATIONS };
static const char *const operation_names[OPERATIONS] = {"fetch_add", "fetch_inc", "add",  "inc",
                                                        "compare_swap", "swap",  "set", "fetch"};

struct run {
  const struct osu_oshm_options *options;
  int me, npes, pairs, origin, target, peer;
  void *buffer; /* iterations + skip elements of the largest type */
};

/* Value element k holds before operation `op`, what the operations add or
 * write, and what the element must hold afterwards. Small enough for int. */
#define INITIAL(op, k) (((long long)(op) + 1) * 1000000 + (long long)((k) % 500000) * 2)
#define DELTA 5
#define WRITTEN(k) (-(long long)((k) % 500000) - 3)

static long long expected_after(enum operation op, long long initial, long long k) {
  switch (op) {
    case FETCH_ADD: case ADD: return initial + DELTA;
    case FETCH_INC: case INC: return initial + 1;
    case COMPARE_SWAP: case SWAP: case SET: return WRITTEN(k);
    default: return initial;
  }
}

static void report(const struct run *run, const char *type, enum operation op, long errors, double elapsed,
                   int iterations) {
  char label[64];
  snprintf(label, sizeof(label), "shmem_%s_atomic_%s", type, operation_names[op]);
  osu_oshm_fail_on_errors(errors, NAME, label);
  const double rate = osu_oshm_sum(run->origin ? iterations * 1e6 / elapsed : 0.0);
  const double latency = osu_oshm_sum(run->origin ? elapsed / iterations : 0.0) / run->pairs;
  if (run->me == 0) {
    printf("%-*s%*.*f%*.*f\n", OPERATION_WIDTH, label, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, rate / 1e6,
           OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, latency);
    fflush(stdout);
  }
}

/* One loop of operation `op` over elements [first, first + count) of `a` on
 * the peer; counts the fetched values that are wrong into *errors. */
#define DEFINE_LOOP(T, N)                                                                              \
  static void loop_##N(enum operation op, T *a, long long first, long long count, int pe, long *errors) { \
    long bad = 0;                                                                                      \
    switch (op) {                                                                                      \
      case FETCH_ADD:                                                                                  \
        for (long long k = first; k < first + count; ++k) {                                            \
          bad += shmem_##N##_atomic_fetch_add(&a[k], (T)DELTA, pe) != (T)INITIAL(op, k);               \
        }                                                                                              \
        break;                                                                                         \
      case FETCH_INC:                                                                                  \
        for (long long k = first; k < first + count; ++k) {                                            \
          bad += shmem_##N##_atomic_fetch_inc(&a[k], pe) != (T)INITIAL(op, k);                         \
        }                                                                                              \
        break;                                                                                         \
      case ADD:                                                                                        \
        for (long long k = first; k < first + count; ++k) shmem_##N##_atomic_add(&a[k], (T)DELTA, pe); \
        break;                                                                                         \
      case INC:                                                                                        \
        for (long long k = first; k < first + count; ++k) shmem_##N##_atomic_inc(&a[k], pe);           \
        break;                                                                                         \
      case COMPARE_SWAP:                                                                               \
        for (long long k = first; k < first + count; ++k) {                                            \
          bad += shmem_##N##_atomic_compare_swap(&a[k], (T)INITIAL(op, k), (T)WRITTEN(k), pe) !=        \
                 (T)INITIAL(op, k);                                                                    \
        }                                                                                              \
        break;                                                                                         \
      case SWAP:                                                                                       \
        for (long long k = first; k < first + count; ++k) {                                            \
          bad += shmem_##N##_atomic_swap(&a[k], (T)WRITTEN(k), pe) != (T)INITIAL(op, k);               \
        }                                                                                              \
        break;                                                                                         \
      case SET:                                                                                        \
        for (long long k = first; k < first + count; ++k) shmem_##N##_atomic_set(&a[k], (T)WRITTEN(k), pe); \
        break;                                                                                         \
      case FETCH:                                                                                      \
        for (long long k = first; k < first + count; ++k) {                                            \
          bad += shmem_##N##_atomic_fetch(&a[k], pe) != (T)INITIAL(op, k);                             \
        }                                                                                              \
        break;                                                                                         \
      default:                                                                                         \
        break;                                                                                         \
    }                                                                                                  \
    *errors += bad;                                                                                    \
  }                                                                                                    \
                                                                                                       \
  static void run_##N(const struct run *run) {                                                         \
    const int iterations = run->options->iterations;                                                   \
    const int skip = run->options->skip;                                                               \
    const long long elements = (long long)iterations + skip;                                           \
    T *a = run->buffer;                                                                                \
    for (int o = 0; o < OPERATIONS; ++o) {                                                             \
      const enum operation op = (enum operation)o;                                                     \
      if (SKIP_32BIT_COMPARE_SWAP && op == COMPARE_SWAP && sizeof(T) == 4) {                           \
        if (run->me == 0) {                                                                            \
          printf("# shmem_" #N "_atomic_compare_swap skipped: Open MPI < 4.1.5 overruns the stack in it " \
                 "(open-mpi/ompi#11257)\n");                                                           \
        }                                                                                              \
        continue;                                                                                      \
      }                                                                                                \
      if (run->target) {                                                                               \
        for (long long k = 0; k < elements; ++k) a[k] = (T)INITIAL(op, k);                             \
      }                                                                                                \
      shmem_barrier_all();                                                                             \
      long errors = 0;                                                                                 \
      double elapsed = 0;                                                                              \
      if (run->origin) {                                                                               \
        loop_##N(op, a, iterations, skip, run->peer, &errors);                                         \
        shmem_quiet();                                                                                 \
        const double start = osu_oshm_time_us();                                                       \
        loop_##N(op, a, 0, iterations, run->peer, &errors);                                            \
        shmem_quiet();                                                                                 \
        elapsed = osu_oshm_time_us() - start;                                                          \
      }                                                                                                \
      shmem_barrier_all();                                                                             \
      if (run->target) {                                                                               \
        for (long long k = 0; k < elements; ++k) {                                                     \
          const T expected = (T)expected_after(op, INITIAL(op, k), k);                                 \
          if (a[k] != expected) {                                                                      \
            if (errors == 0) {                                                                         \
              fprintf(stderr, NAME ": PE %d: shmem_" #N "_atomic_%s: element %lld is %lld, expected %lld\n", \
                      run->me, operation_names[op], k, (long long)a[k], (long long)expected);          \
            }                                                                                          \
            ++errors;                                                                                  \
          }                                                                                            \
        }                                                                                              \
      } else if (run->origin && errors > 0) {                                                          \
        fprintf(stderr, NAME ": PE %d: shmem_" #N "_atomic_%s: %ld fetched values were wrong\n", run->me, \
                operation_names[op], errors);                                                          \
      }                                                                                                \
      report(run, #N, op, errors, elapsed, iterations);                                                \
    }                                                                                                  \
  }

DEFINE_LOOP(int, int)
DEFINE_LOOP(long, long)
DEFINE_LOOP(long long, longlong)

int main(int argc, char **argv) {
  shmem_init();
  struct run run;
  run.me = shmem_my_pe();
  run.npes = shmem_n_pes();

  struct osu_oshm_options options = {0, 0, 500, 50, 500, 50, 1, 1, 0};
  const int exit_code =
      osu_oshm_begin(argc, argv, NAME, &options, OSU_OSHM_ACCEPT_MEMORY, OSU_OSHM_PES_PAIRS);
  if (exit_code >= 0) return exit_code;
  run.options = &options;
  run.pairs = run.npes / 2;
  run.origin = run.me < run.pairs;
  run.target = !run.origin;
  run.peer = run.origin ? run.me + run.pairs : run.me - run.pairs;
  const size_t bytes = ((size_t)options.iterations + (size_t)options.skip) * sizeof(long long);
  run.buffer = osu_oshm_buffer(&options, 0, bytes);
  if (run.buffer == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory for %zu bytes%s\n", run.me, bytes,
            options.use_heap ? "" : " (use fewer iterations, or heap)");
    shmem_global_exit(1);
  }
  if (run.me == 0) {
    osu_oshm_print_header("OSU OpenSHMEM Atomic Operation Rate Test");
    printf("# [ memory: %s ] [ pairs: %d ] [ iterations: %d ]\n", options.use_heap ? "heap" : "global", run.pairs,
           options.iterations);
    printf("%-*s%*s%*s\n", OPERATION_WIDTH, "# Operation", OSU_OSHM_FIELD_WIDTH, "Million ops/s", OSU_OSHM_FIELD_WIDTH,
           "Latency (us)");
    fflush(stdout);
  }

  run_int(&run);
  run_long(&run);
  run_longlong(&run);

  osu_oshm_free_buffer(&options, run.buffer);
  osu_oshm_end();
  return 0;
}
