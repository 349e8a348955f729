/* osu_oshm_barrier: latency of shmem_barrier over all PEs (the active-set
 * form, pSync arrays from the symmetric heap), after the OSU Micro-Benchmarks
 * method: each PE times `iterations` barriers after `skip` warm-up ones,
 * alternating two pSync arrays; the average, minimum and maximum over the
 * PEs of the mean time per barrier are reported. Afterwards a few rounds
 * check that a barrier waits for every PE and completes their puts. */
#include <shmem.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_barrier"
#define CHECK_ROUNDS 10

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();

  struct osu_oshm_options options = {0, 0, 1000, 100, 1000, 100, 1, 1, 0};
  const int exit_code = osu_oshm_begin(argc, argv, NAME, &options, OSU_OSHM_ACCEPT_FULL, OSU_OSHM_PES_MANY);
  if (exit_code >= 0) return exit_code;
  long *psync[2] = {osu_oshm_psync(SHMEM_BARRIER_SYNC_SIZE), osu_oshm_psync(SHMEM_BARRIER_SYNC_SIZE)};
  long *seen = shmem_malloc(sizeof(long) * (size_t)npes);
  if (psync[0] == NULL || psync[1] == NULL || seen == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory\n", me);
    shmem_global_exit(1);
  }
  for (int pe = 0; pe < npes; ++pe) seen[pe] = -1;
  shmem_barrier_all();
  if (me == 0) {
    osu_oshm_print_header("OSU OpenSHMEM Barrier Latency Test");
    printf("# [ PEs: %d ]\n", npes);
    printf("%-*s%*s%*s%*s\n", OSU_OSHM_FIELD_WIDTH - 1, "# Avg Latency(us)", OSU_OSHM_FIELD_WIDTH, "Min Latency(us)",
           OSU_OSHM_FIELD_WIDTH, "Max Latency(us)", 12, "Iterations");
    fflush(stdout);
  }

  const int iterations = options.iterations;
  const int skip = options.skip;
  double timer = 0;
  for (int i = 0; i < iterations + skip; ++i) {
    const double start = osu_oshm_time_us();
    shmem_barrier(0, 0, npes, psync[i % 2]);
    const double stop = osu_oshm_time_us();
    if (i >= skip) timer += stop - start;
  }
  shmem_barrier_all();

  /* Each round every PE writes the round into its slot on every PE; after the
   * barrier every slot must hold it. A second barrier keeps the next round's
   * writes from overtaking the checks. */
  long errors = 0;
  for (long round = 0; round < CHECK_ROUNDS; ++round) {
    for (int pe = 0; pe < npes; ++pe) shmem_long_p(&seen[me], round, pe);
    shmem_barrier(0, 0, npes, psync[0]);
    for (int pe = 0; pe < npes; ++pe) {
      if (seen[pe] != round) {
        if (errors == 0) {
          fprintf(stderr, NAME ": PE %d: after barrier %ld the value from PE %d is %ld, expected %ld\n", me, round,
                  pe, seen[pe], round);
        }
        ++errors;
      }
    }
    shmem_barrier(0, 0, npes, psync[1]);
  }
  osu_oshm_fail_on_errors(errors, NAME, "barrier check");

  double avg = 0, min = 0, max = 0;
  osu_oshm_stats(timer / iterations, &avg, &min, &max);
  if (me == 0) {
    printf("%*.*f%*.*f%*.*f%*d\n", OSU_OSHM_FIELD_WIDTH - 1, OSU_OSHM_FLOAT_PRECISION, avg, OSU_OSHM_FIELD_WIDTH,
           OSU_OSHM_FLOAT_PRECISION, min, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, max, 12, iterations);
    fflush(stdout);
  }

  shmem_free(seen);
  shmem_free(psync[1]);
  shmem_free(psync[0]);
  osu_oshm_end();
  return 0;
}
