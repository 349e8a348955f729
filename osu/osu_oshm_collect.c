/* osu_oshm_collect: latency of shmem_collect64 over all PEs (the active-set
 * form, pSync arrays from the symmetric heap), after the OSU Micro-Benchmarks
 * method: for each size (bytes each PE contributes, a multiple of 8) each PE
 * times `iterations` collects after `skip` warm-up ones, alternating two pSync
 * arrays, with an untimed shmem_barrier_all after each; the average, minimum
 * and maximum over the PEs of the mean time per collect are reported. Each PE
 * stamps its first element with the iteration, and every PE checks all the
 * stamps each time and all the data after the last.
 * The code is osu_oshm_collect_latency (common/osu_oshm_util.c), shared
 * with osu_oshm_fcollect. */
#include <shmem.h>

#include "common/osu_oshm_util.h"

int main(int argc, char **argv) {
  return osu_oshm_collect_latency(argc, argv, "osu_oshm_collect", "OSU OpenSHMEM Collect Latency Test",
                                  shmem_collect64);
}
