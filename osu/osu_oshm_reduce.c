/* osu_oshm_reduce: latency of shmem_long_sum_to_all over all PEs (the
 * active-set form, pSync and pWrk arrays from the symmetric heap), after the
 * OSU Micro-Benchmarks method: for each size (bytes of longs reduced) each PE
 * times `iterations` reductions after `skip` warm-up ones, alternating two
 * pSync/pWrk sets, with an untimed shmem_barrier_all after each; the average,
 * minimum and maximum over the PEs of the mean time per reduction are
 * reported. Each PE puts the iteration into its first element, and every PE
 * checks that sum each time and every sum after the last. */
#include <shmem.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_reduce"

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();

  struct osu_oshm_options options;
  const int exit_code = osu_oshm_collective_begin(argc, argv, NAME, &options, sizeof(long));
  if (exit_code >= 0) return exit_code;
  const size_t max_elements = options.max_size / sizeof(long);
  const size_t work_elements =
      max_elements / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? max_elements / 2 + 1 : SHMEM_REDUCE_MIN_WRKDATA_SIZE;
  long *source = osu_oshm_buffer(&options, 0, options.max_size);
  long *dest = osu_oshm_buffer(&options, 1, options.max_size);
  long *work[2] = {shmem_malloc(sizeof(long) * work_elements), shmem_malloc(sizeof(long) * work_elements)};
  long *psync[2] = {osu_oshm_psync(SHMEM_REDUCE_SYNC_SIZE), osu_oshm_psync(SHMEM_REDUCE_SYNC_SIZE)};
  if (source == NULL || dest == NULL || work[0] == NULL || work[1] == NULL || psync[0] == NULL || psync[1] == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory for %zu-byte buffers\n", me, options.max_size);
    shmem_global_exit(1);
  }
  shmem_barrier_all();
  if (me == 0) {
    osu_oshm_print_header("OSU OpenSHMEM Reduce Latency Test");
    printf("# [ PEs: %d ] [ operation: shmem_long_sum_to_all ]\n", npes);
    osu_oshm_print_collective_columns();
  }

  const long pe_sum = (long)npes * (npes + 1) / 2; /* sum of me + 1 over the PEs */
  long base = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2, base += 1000) {
    const int iterations = osu_oshm_iterations(&options, bytes);
    const int skip = osu_oshm_skip(&options, bytes);
    const size_t elements = bytes / sizeof(long);
    /* Element j of PE p holds (p + 1) * (j + 1) + base, so the sum is known. */
    for (size_t j = 0; j < elements; ++j) {
      source[j] = (long)(me + 1) * (long)(j + 1) + base;
      dest[j] = -1;
    }
    shmem_barrier_all();

    long errors = 0;
    double timer = 0;
    for (int i = 0; i < iterations + skip; ++i) {
      source[0] = (long)i * 4 + me;
      const double start = osu_oshm_time_us();
      shmem_long_sum_to_all(dest, source, (int)elements, 0, 0, npes, work[i % 2], psync[i % 2]);
      const double stop = osu_oshm_time_us();
      if (i >= skip) timer += stop - start;
      const long expected = (long)i * 4 * npes + (long)npes * (npes - 1) / 2;
      if (dest[0] != expected) {
        if (errors == 0) {
          fprintf(stderr, NAME ": PE %d: size %zu, reduction %d: first sum is %ld, expected %ld\n", me, bytes, i,
                  dest[0], expected);
        }
        ++errors;
      }
      shmem_barrier_all();
    }
    for (size_t j = 1; j < elements; ++j) {
      const long expected = pe_sum * (long)(j + 1) + (long)npes * base;
      if (dest[j] != expected) {
        if (errors == 0) {
          fprintf(stderr, NAME ": PE %d: size %zu: sum %zu is %ld, expected %ld\n", me, bytes, j, dest[j], expected);
        }
        ++errors;
      }
    }
    osu_oshm_collective_report(errors, NAME, bytes, timer, iterations);
    if (bytes >= options.max_size) break;
  }

  shmem_free(work[1]);
  shmem_free(work[0]);
  osu_oshm_collective_end(&options, psync, dest, source);
  return 0;
}
