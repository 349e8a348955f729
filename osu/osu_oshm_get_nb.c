/* osu_oshm_get_nb: latency of shmem_getmem_nbi by PE 0 from PE 1, after the
 * OSU Micro-Benchmarks method: for each size PE 0 does `skip` warm-up and
 * then `iterations` timed shmem_getmem_nbi calls, with a shmem_quiet after
 * every `window` of them (-W; the default 1 is OMB's: a quiet after each get)
 * and after the last; the latency is the time per get. PE 1 stays passive.
 * The argument `heap` (default) or `global` selects shmem_malloc'd buffers or
 * static arrays. After each size PE 0 checks the bytes it got, and that none
 * past them changed.
 * The code is osu_oshm_rma_latency (common/osu_oshm_util.c), shared with
 * put, get and put_nb. */
#include "common/osu_oshm_util.h"

int main(int argc, char **argv) {
  static const struct osu_oshm_rma_test test = {"osu_oshm_get_nb", "OSU OpenSHMEM Get_nbi Test", OSU_OSHM_RMA_GET, 1};
  return osu_oshm_rma_latency(argc, argv, &test);
}
