/* osu_get_bw: bandwidth of MPI_Get by rank 0 from rank 1, after the OSU
 * Micro-Benchmarks one-sided method: per iteration a window of -W MPI_Get
 * calls (default 32) to consecutive places, then the synchronization -s
 * names (default MPI_Win_flush), on a window made as -w says (default
 * MPI_Win_allocate). MB/s = 10^6 bytes per second. The data are checked per size. */
#include "common/osu_rma.h"

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_get_bw", "OSU MPI_Get Bandwidth Test", OSU_RMA_BW, OSU_RMA_SYNC_ALL, OSU_RMA_SYNC_FLUSH, 1,
      osu_rma_get_prepare, osu_rma_get_operation, osu_rma_get_check};
  return osu_rma_main(argc, argv, &benchmark);
}
