/* osu_oshm_put_mr: message rate of shmem_putmem over pairs of PEs, after the
 * OSU Micro-Benchmarks method: PE i of the first half puts to PE i + n/2 of
 * the second half. For each size each sender issues `iterations` puts, each
 * to the next slot of a buffer of at least 4 MiB (so small messages never
 * land twice in one place), then one shmem_quiet; its rate is the puts over
 * that time, and the rates are summed over the pairs. One pass of puts over
 * the whole buffer warms it up first, and `skip` warm-up puts go before each
 * size, the same way as the timed ones. The argument `heap` (default) or `global` selects a
 * shmem_malloc'd buffer or a static array. After each size the receivers
 * check every slot written. */
#include <shmem.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_put_mr"

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();
  const int npes = shmem_n_pes();

  struct osu_oshm_options options = {1, OSU_OSHM_GLOBAL_BUFFER_SIZE, 5000, 500, 50, 5, 1, 1,
                                     OSU_OSHM_GLOBAL_BUFFER_SIZE};
  const int exit_code = osu_oshm_begin(argc, argv, NAME, &options, OSU_OSHM_ACCEPT_SIZES | OSU_OSHM_ACCEPT_MEMORY,
                                       OSU_OSHM_PES_PAIRS);
  if (exit_code >= 0) return exit_code;
  if (options.min_size == 0) options.min_size = 1;
  const int pairs = npes / 2;
  const int sender = me < pairs;
  const int peer = sender ? me + pairs : me - pairs;
  /* Puts go from and to the same symmetric buffer, at the same offsets. */
  const size_t capacity =
      options.max_size > OSU_OSHM_GLOBAL_BUFFER_SIZE ? options.max_size : OSU_OSHM_GLOBAL_BUFFER_SIZE;
  char *buffer = osu_oshm_buffer(&options, 0, capacity);
  if (buffer == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory for a %zu-byte buffer\n", me, capacity);
    shmem_global_exit(1);
  }
  if (me == 0) {
    osu_oshm_print_header("OSU OpenSHMEM Put Message Rate Test");
    printf("# [ memory: %s ] [ pairs: %d ]\n", options.use_heap ? "heap" : "global", pairs);
    printf("%-10s%*s\n", "# Size", OSU_OSHM_FIELD_WIDTH, "Messages/s");
    fflush(stdout);
  }

  /* As OMB does: touch the whole buffer on both sides once, so that no size
   * pays for first touches of the target's pages. */
  if (sender) {
    for (size_t offset = 0; offset < capacity; offset += options.max_size) {
      const size_t chunk = capacity - offset < options.max_size ? capacity - offset : options.max_size;
      shmem_putmem(buffer + offset, buffer + offset, chunk, peer);
    }
    shmem_quiet();
  }

  unsigned seed = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes *= 2, seed += 2) {
    const int iterations = osu_oshm_iterations(&options, bytes);
    const int skip = osu_oshm_skip(&options, bytes);
    const size_t slots = capacity / bytes;
    const size_t most = (size_t)(iterations > skip ? iterations : skip);
    const size_t used = (slots < most ? slots : most) * bytes;
    /* Senders put pattern seed + 1 over what receivers hold, pattern seed + 2. */
    osu_oshm_fill(buffer, used, sender ? seed + 1 : seed + 2);
    shmem_barrier_all();

    double elapsed = 0;
    if (sender) {
      for (int i = 0; i < skip; ++i) {
        const size_t offset = ((size_t)i % slots) * bytes;
        shmem_putmem(buffer + offset, buffer + offset, bytes, peer);
      }
      shmem_quiet();
      const double start = osu_oshm_time_us();
      for (int i = 0; i < iterations; ++i) {
        const size_t offset = ((size_t)i % slots) * bytes;
        shmem_putmem(buffer + offset, buffer + offset, bytes, peer);
      }
      shmem_quiet();
      elapsed = osu_oshm_time_us() - start;
    }
    shmem_barrier_all();

    const long errors = sender ? 0 : (long)osu_oshm_verify(buffer, 0, used, seed + 1, NAME, "bytes put by the pair");
    osu_oshm_check_size(errors, NAME, bytes);
    const double rate = osu_oshm_sum(sender ? iterations * 1e6 / elapsed : 0.0);
    if (me == 0) {
      printf("%-10zu%*.*f\n", bytes, OSU_OSHM_FIELD_WIDTH, OSU_OSHM_FLOAT_PRECISION, rate);
      fflush(stdout);
    }
    if (bytes >= options.max_size) break;
  }

  osu_oshm_free_buffer(&options, buffer);
  osu_oshm_end();
  return 0;
}
