/* osu_oshm_collect: latency of shmem_collect64 over all PEs (the active-set
 * form, pSync arrays from the symmetric heap), after the OSU Micro-Benchmarks
 * method: for each size (bytes each PE contributes, a multiple of 8) each PE
 * times `iterations` collects after `skip` warm-up ones, alternating two pSync
 * arrays, with an untimed shmem_barrier_all after each; the average, minimum
 * and maximum over the PEs of the mean time per collect are reported. Each PE
 * stamps its first element with the iteration, and every PE checks all the
 * stamps each time and all the data after the last. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_collect"
#define COLLECT shmem_collect64
#define TITLE "OSU OpenSHMEM Collect Latency Test"

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();

  struct osu_oshm_options options = {8, OSU_OSHM_MAX_MESSAGE_SIZE, 1000, 100, 100, 10, 1, 1, 0};
  const int exit_code =
      osu_oshm_begin(argc, argv, NAME, &options, OSU_OSHM_ACCEPT_SIZES | OSU_OSHM_ACCEPT_FULL, OSU_OSHM_PES_MANY);
  if (exit_code >= 0) return exit_code;
  options.min_size = options.min_size < 8 ? 8 : (options.min_size + 7) / 8 * 8;
  int64_t *source = osu_oshm_buffer(&options, 0, options.max_size);
  int64_t *dest = osu_oshm_buffer(&options, 1, options.max_size * (size_t)npes);
  long *psync[2] = {osu_oshm_psync(SHMEM_COLLECT_SYNC_SIZE), osu_oshm_psync(SHMEM_COLLECT_SYNC_SIZE)};
  if (source == NULL || dest == NULL || psync[0] == NULL || psync[1] == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory for %zu-byte buffers\n", me, options.max_size * (size_t)npes);
    shmem_global_exit(1);
  }
  shmem_barrier_all();
  if (me == 0) {
    osu_oshm_print_header(TITLE);
    printf("# [ PEs: %d ]\n", npes);
    printf("%-10s%*s%*s%*s%*s\n", "# Size", OSU_OSHM_FIELD_WIDTH, "Avg Latency(us)", OSU_OSHM_FIELD_WIDTH,
           "Min Latency(us)", OSU_OSHM_FIELD_WIDTH, "Max Latency(us)", 12, "Iterations");
    fflush(stdout);
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
      COLLECT(dest, source, elements, 0, 0, npes, psync[i % 2]);
      const double stop = osu_oshm_time_us();
      if (i >= skip) timer += stop - start;
      for (int pe = 0; pe < npes; ++pe) {
        if (dest[(size_t)pe * elements] != stamp + pe) {
          if (errors == 0) {
            fprintf(stderr, NAME ": PE %d: size %zu, call %d: first element from PE %d is %lld, expected %lld\n", me,
                    bytes, i, pe, (long long)dest[(size_t)pe * elements], (long long)(stamp + pe));
          }
          ++errors;
        }
      }
      shmem_barrier_all();
    }
    for (int pe = 0; pe < npes; ++pe) {
      errors += (long)osu_oshm_verify((const char *)dest + (size_t)pe * bytes, 8, bytes, base + 1 + (unsigned)(pe % 200),
                                      NAME, "bytes collected");
    }
    osu_oshm_check_size(errors, NAME, bytes);

    double avg = 0, min = 0, max = 0;
    osu_oshm_stats(timer / iterations, &avg, &min, &max);
    if (me == 0) {
      printf("%-10zu%*.*f%*.*f%*.*f%*d\n", bytes, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, avg,
             OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, min, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, max,
             12, iterations);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }

  shmem_free(psync[1]);
  shmem_free(psync[0]);
  osu_oshm_free_buffer(&options, dest);
  osu_oshm_free_buffer(&options, source);
  osu_oshm_end();
  return 0;
}
