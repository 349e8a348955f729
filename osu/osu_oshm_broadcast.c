/* osu_oshm_broadcast: latency of shmem_broadcast64 from PE 0 to all PEs (the
 * active-set form, pSync arrays from the symmetric heap), after the OSU
 * Micro-Benchmarks method: for each size each PE times `iterations'
 * broadcasts after `skip` warm-up ones, alternating two pSync arrays, with an
 * untimed shmem_barrier_all after each; the average, minimum and maximum over
 * the PEs of the mean time per broadcast are reported. Sizes are in bytes,
 * multiples of 8. The root stamps the first element with the iteration, which
 * the other PEs check each time; they check the whole message after the last. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_broadcast"
#define ROOT 0

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();

  struct osu_oshm_options options;
  const int exit_code = osu_oshm_collective_begin(argc, argv, NAME, &options, 8);
  if (exit_code >= 0) return exit_code;
  int64_t *source = osu_oshm_buffer(&options, 0, options.max_size);
  int64_t *dest = osu_oshm_buffer(&options, 1, options.max_size);
  long *psync[2] = {osu_oshm_psync(SHMEM_BCAST_SYNC_SIZE), osu_oshm_psync(SHMEM_BCAST_SYNC_SIZE)};
  if (source == NULL || dest == NULL || psync[0] == NULL || psync[1] == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory for %zu-byte buffers\n", me, options.max_size);
    shmem_global_exit(1);
  }
  shmem_barrier_all();
  if (me == 0) {
    osu_oshm_print_header("OSU OpenSHMEM Broadcast Latency Test");
    printf("# [ PEs: %d ] [ root: %d ]\n", npes, ROOT);
    osu_oshm_print_collective_columns();
  }

  unsigned seed = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2, seed += 2) {
    const int iterations = osu_oshm_iterations(&options, bytes);
    const int skip = osu_oshm_skip(&options, bytes);
    const size_t elements = bytes / 8;
    /* The root sends pattern seed + 1 over what the others hold, pattern seed + 2. */
    if (me == ROOT) {
      osu_oshm_fill(source, bytes, seed + 1);
    } else {
      osu_oshm_fill(dest, bytes, seed + 2);
    }
    shmem_barrier_all();

    long errors = 0;
    double timer = 0;
    for (int i = 0; i < iterations + skip; ++i) {
      const int64_t stamp = ((int64_t)seed << 32) + i + 1;
      if (me == ROOT) source[0] = stamp;
      const double start = osu_oshm_time_us();
      shmem_broadcast64(dest, source, elements, ROOT, 0, 0, npes, psync[i % 2]);
      const double stop = osu_oshm_time_us();
      if (i >= skip) timer += stop - start;
      if (me != ROOT && dest[0] != stamp) {
        if (errors == 0) {
          fprintf(stderr, NAME ": PE %d: size %zu, broadcast %d: first element is %lld, expected %lld\n", me, bytes,
                  i, (long long)dest[0], (long long)stamp);
        }
        ++errors;
      }
      shmem_barrier_all();
    }
    if (me != ROOT) errors += (long)osu_oshm_verify(dest, 8, bytes, seed + 1, NAME, "bytes broadcast by the root");
    osu_oshm_collective_report(errors, NAME, bytes, timer, iterations);
    if (bytes >= options.max_size) break;
  }

  osu_oshm_collective_end(&options, psync, dest, source);
  return 0;
}
