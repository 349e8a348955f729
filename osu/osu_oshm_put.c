/* osu_oshm_put: latency of shmem_putmem from PE 0 to PE 1, after the OSU
 * Micro-Benchmarks method: for each size PE 0 does `skip` warm-up and then
 * `iterations` timed shmem_putmem + shmem_quiet; the latency is the mean
 * time of one put with its quiet. PE 1 stays passive. The argument `heap`
 * (default) or `global` selects shmem_malloc'd buffers or static arrays.
 * After each size PE 1 checks the bytes it got, and that none past them
 * changed.
 * The code is osu_oshm_rma_latency (common/osu_oshm_util.c), shared with
 * get, put_nb and get_nb. */
#include "common/osu_oshm_util.h"

int main(int argc, char **argv) {
  static const struct osu_oshm_rma_test test = {"osu_oshm_put", "OSU OpenSHMEM Put Test", OSU_OSHM_RMA_PUT, 0};
  return osu_oshm_rma_latency(argc, argv, &test);
}
