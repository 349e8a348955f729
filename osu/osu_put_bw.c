/* osu_put_bw: bandwidth of MPI_Put from rank 0 to rank 1, after the OSU
 * Micro-Benchmarks one-sided method: per iteration a window of -W MPI_Put
 * calls (default 32) to consecutive places, then the synchronization -s
 * names (default MPI_Win_flush), on a window made as -w says (default
 * MPI_Win_allocate). MB/s = 10^6 bytes per second. The data are checked per size. */
#include "common/osu_rma.h"

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_put_bw", "OSU MPI_Put Bandwidth Test", OSU_RMA_BW, OSU_RMA_SYNC_ALL, OSU_RMA_SYNC_FLUSH, 1,
      osu_rma_put_prepare, osu_rma_put_operation, osu_rma_put_check};
  return osu_rma_main(argc, argv, &benchmark);
}
