/* osu_oshm_get_nb: latency of shmem_getmem_nbi by PE 0 from PE 1, after the
 * OSU Micro-Benchmarks method: for each size PE 0 does `skip` warm-up and
 * then `iterations` timed shmem_getmem_nbi calls, with a shmem_quiet after
 * every `window` of them (-W; the default 1 is OMB's: a quiet after each get)
 * and after the last; the latency is the time per get. PE 1 stays passive.
 * The argument `heap` (default) or `global` selects shmem_malloc'd buffers or
 * static arrays. After each size PE 0 checks the bytes it got, and that none
 * past them changed. */
#include <shmem.h>
#include <stdio.h>

#include "common/osu_oshm_util.h"

#define NAME "osu_oshm_get_nb"
#define GUARD 64 /* bytes past the message checked for overruns */

int main(int argc, char **argv) {
  shmem_init();
  const int me = shmem_my_pe();

  struct osu_oshm_options options = {1, OSU_OSHM_MAX_MESSAGE_SIZE, 10000, 1000, 100, 10, 1, 1,
                                     OSU_OSHM_GLOBAL_BUFFER_SIZE - GUARD};
  const int exit_code =
      osu_oshm_begin(argc, argv, NAME, &options,
                     OSU_OSHM_ACCEPT_SIZES | OSU_OSHM_ACCEPT_MEMORY | OSU_OSHM_ACCEPT_WINDOW, OSU_OSHM_PES_TWO);
  if (exit_code >= 0) return exit_code;
  const int window = options.window;
  char *source = osu_oshm_buffer(&options, 0, options.max_size + GUARD);
  char *target = osu_oshm_buffer(&options, 1, options.max_size + GUARD);
  if (source == NULL || target == NULL) {
    fprintf(stderr, NAME ": PE %d: no symmetric memory for %zu-byte buffers\n", me, options.max_size + GUARD);
    shmem_global_exit(1);
  }
  if (me == 0) {
    osu_oshm_print_header("OSU OpenSHMEM Get_nbi Test");
    printf("# [ memory: %s ] [ window: %d ]\n", options.use_heap ? "heap" : "global", window);
    printf("%-10s%*s\n", "# Size", OSU_OSHM_FIELD_WIDTH, "Latency (us)");
    fflush(stdout);
  }

  unsigned seed = 0;
  for (size_t bytes = options.min_size; bytes <= options.max_size; bytes = bytes == 0 ? 1 : bytes * 2, seed += 2) {
    const int iterations = osu_oshm_iterations(&options, bytes);
    const int skip = osu_oshm_skip(&options, bytes);
    /* PE 0 reads pattern seed + 1 from PE 1 over what it holds, pattern seed + 2. */
    if (me == 1) {
      osu_oshm_fill(source, bytes, seed + 1);
    } else {
      osu_oshm_fill(target, bytes + GUARD, seed + 2);
    }
    shmem_barrier_all();

    double elapsed = 0;
    if (me == 0) {
      for (int i = 0; i < skip; ++i) {
        shmem_getmem_nbi(target, source, bytes, 1);
        if ((i + 1) % window == 0) shmem_quiet();
      }
      shmem_quiet();
      const double start = osu_oshm_time_us();
      for (int i = 0; i < iterations; ++i) {
        shmem_getmem_nbi(target, source, bytes, 1);
        if ((i + 1) % window == 0) shmem_quiet();
      }
      if (iterations % window != 0) shmem_quiet();
      elapsed = osu_oshm_time_us() - start;
    }
    shmem_barrier_all();

    long errors = 0;
    if (me == 0) {
      errors += (long)osu_oshm_verify(target, 0, bytes, seed + 1, NAME, "bytes got from PE 1");
      errors += (long)osu_oshm_verify(target, bytes, bytes + GUARD, seed + 2, NAME, "bytes past the message");
    }
    osu_oshm_check_size(errors, NAME, bytes);
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
