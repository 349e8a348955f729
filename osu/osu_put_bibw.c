/* osu_put_bibw: bidirectional bandwidth of MPI_Put between ranks 0 and 1,
 * after the OSU Micro-Benchmarks one-sided method: per iteration both ranks
 * put a window of -W messages (default 32) to each other inside one
 * MPI_Win_post/start/complete/wait epoch (default) or between two
 * MPI_Win_fence calls (-s fence). MB/s of both directions together. */
#include "common/osu_rma.h"

int main(int argc, char **argv) {
  const struct osu_rma_benchmark benchmark = {
      "osu_put_bibw", "OSU MPI_Put Bi-directional Bandwidth Test", OSU_RMA_BIBW,
      OSU_RMA_SYNC_BIT(OSU_RMA_SYNC_PSCW) | OSU_RMA_SYNC_BIT(OSU_RMA_SYNC_FENCE), OSU_RMA_SYNC_PSCW, 1,
      osu_rma_put_prepare, osu_rma_put_operation, osu_rma_put_check};
  return osu_rma_main(argc, argv, &benchmark);
}
