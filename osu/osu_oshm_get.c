/* osu_oshm_get: latency of shmem_getmem by PE 0 from PE 1, after the OSU
 * Micro-Benchmarks method: for each size PE 0 does `skip` warm-up and then
 * `iterations` timed shmem_getmem calls (blocking, so no quiet); the latency
 * is the mean time of one get. PE 1 stays passive. The argument `heap`
 * (default) or `global` selects shmem_malloc'd buffers or static arrays.
 * After each size PE 0 checks the bytes it got, and that none past them
 * changed.
 * The code is osu_oshm_rma_latency (common/osu_oshm_util.c), shared with
 * put, put_nb and get_nb. */
#include "common/osu_oshm_util.h"

int main(int argc, char **argv) {
  static const struct osu_oshm_rma_test test = {"osu_oshm_get", "OSU OpenSHMEM Get Test", OSU_OSHM_RMA_GET, 0};
  return osu_oshm_rma_latency(argc, argv, &test);
}
